// List's range operations (replaceSubrange, removeSubrange, insert(contentsOf:at:),
// remove(atOffsets:), move(fromOffsets:toOffset:)): the same result as the same operation on a
// Swift array, on managed lists (read back by another instance) and unmanaged ones.
import Foundation
import Strata
import Testing

final class Setlist: Object {
    @Persisted var name = ""
    @Persisted var tracks: List<String>
}

@Suite("List range operations")
struct ListRangeOperationTests {
    private static let start = ["a", "b", "c", "d", "e", "f"]

    /// Runs `change` on a managed list holding `start` and on an array, and compares the results,
    /// as the writing instance and another thread's instance read them.
    private func expectLikeArray(_ change: (List<String>) -> Void, _ arrayChange: (inout [String]) -> Void,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        var expected = Self.start
        arrayChange(&expected)

        let unmanaged = List<String>()
        unmanaged.append(objectsIn: Self.start)
        change(unmanaged)
        #expect(Array(unmanaged) == expected, "unmanaged", sourceLocation: sourceLocation)

        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [Setlist.self]
        let realm = try Realm(configuration: configuration)
        let playlist = Setlist()
        playlist.tracks.append(objectsIn: Self.start)
        try realm.write { realm.add(playlist) }
        try realm.write { change(playlist.tracks) }
        #expect(Array(playlist.tracks) == expected, "managed", sourceLocation: sourceLocation)
        let stored = try onAnotherThread { [configuration] () -> [String] in
            let other = try Realm(configuration: configuration)
            return Array(other.objects(Setlist.self).first!.tracks)
        }
        #expect(stored == expected, "read by another instance", sourceLocation: sourceLocation)
        withExtendedLifetime(realm) {}
    }

    @Test func replaceSubrangeWithFewerMoreOrAsManyElements() throws {
        try expectLikeArray({ $0.replaceSubrange(1..<4, with: ["x"]) }, { $0.replaceSubrange(1..<4, with: ["x"]) })
        try expectLikeArray({ $0.replaceSubrange(1..<2, with: ["x", "y", "z"]) }, { $0.replaceSubrange(1..<2, with: ["x", "y", "z"]) })
        try expectLikeArray({ $0.replaceSubrange(0...1, with: ["x", "y"]) }, { $0.replaceSubrange(0...1, with: ["x", "y"]) })
        try expectLikeArray({ $0.replaceSubrange(6..<6, with: ["end"]) }, { $0.replaceSubrange(6..<6, with: ["end"]) })
        try expectLikeArray({ $0.replaceSubrange(..<3, with: []) }, { $0.replaceSubrange(..<3, with: []) })
    }

    @Test func aRangeSubscriptTakesASliceOfAnySize() throws {
        let other = List<String>()
        other.append(objectsIn: ["x", "y", "z"])
        try expectLikeArray({ $0[1..<4] = other[0..<2] }, { $0[1..<4] = ["x", "y"] })
        try expectLikeArray({ $0[0..<1] = other[0..<3] }, { $0[0..<1] = ["x", "y", "z"] })
        try expectLikeArray({ $0[2..<4] = other[1..<3] }, { $0[2..<4] = ["y", "z"] })
    }

    @Test func removeSubrange() throws {
        try expectLikeArray({ $0.removeSubrange(2..<5) }, { $0.removeSubrange(2..<5) })
        try expectLikeArray({ $0.removeSubrange(3...) }, { $0.removeSubrange(3...) })
        try expectLikeArray({ $0.removeSubrange(0..<0) }, { $0.removeSubrange(0..<0) })
    }

    @Test func insertContentsOfAtAPosition() throws {
        try expectLikeArray({ $0.insert(contentsOf: ["x", "y"], at: 2) }, { $0.insert(contentsOf: ["x", "y"], at: 2) })
        try expectLikeArray({ $0.insert(contentsOf: ["x"], at: 6) }, { $0.insert(contentsOf: ["x"], at: 6) })
        try expectLikeArray({ $0.insert(contentsOf: [], at: 0) }, { $0.insert(contentsOf: [], at: 0) })
    }

    @Test func removeAtOffsets() throws {
        try expectLikeArray({ $0.remove(atOffsets: IndexSet([0, 2, 5])) }, { a in
            for i in [5, 2, 0] { a.remove(at: i) }
        })
        try expectLikeArray({ $0.remove(atOffsets: IndexSet()) }, { _ in })
    }

    /// `move(fromOffsets:toOffset:)` as SwiftUI defines it: the moved elements, in order, land just
    /// before the element that was at `destination`.
    @Test(arguments: [
        ([1], 4, ["a", "c", "d", "b", "e", "f"]),
        ([4], 1, ["a", "e", "b", "c", "d", "f"]),
        ([0, 2], 6, ["b", "d", "e", "f", "a", "c"]),
        ([3, 5], 0, ["d", "f", "a", "b", "c", "e"]),
        ([1, 4], 3, ["a", "c", "b", "e", "d", "f"]),
        ([2], 2, ["a", "b", "c", "d", "e", "f"]),
        ([2], 3, ["a", "b", "c", "d", "e", "f"]),
    ])
    func moveFromOffsetsToOffset(_ offsets: [Int], _ destination: Int, _ expected: [String]) throws {
        try expectLikeArray({ $0.move(fromOffsets: IndexSet(offsets), toOffset: destination) }, { $0 = expected })
    }
}
