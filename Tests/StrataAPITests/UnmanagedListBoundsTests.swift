// A position outside an unmanaged list stops with a `Strata:` message naming the position and
// the range, as it does on a managed list, never with Swift's bare "Index out of range".
import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("Unmanaged list bounds")
struct UnmanagedListBoundsTests {
    private static func stopMessage(_ result: ExitTest.Result) -> String {
        String(decoding: result.standardErrorContent, as: UTF8.self)
    }

    @Test func readingPastTheEndStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.append(objectsIn: [1, 2, 3])
            _ = list[3]
        }
        #expect(Self.stopMessage(result).contains("Strata: invalidArgument: index 3 is out of range 0..<3"))
    }

    @Test func writingBeforeTheStartStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<String>()
            list.append("only")
            list[-1] = "nowhere"
        }
        #expect(Self.stopMessage(result).contains("Strata: invalidArgument: index -1 is out of range 0..<1"))
    }

    @Test func insertingPastTheEndStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.insert(1, at: 1)
        }
        #expect(Self.stopMessage(result).contains("Strata: invalidArgument: insertion index 1 is out of range 0...0"))
    }

    @Test func movingAndSwappingOutsideStop() async throws {
        let move = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.append(objectsIn: [1, 2, 3])
            list.move(from: 0, to: 3)
        }
        #expect(Self.stopMessage(move).contains("Strata: invalidArgument: move(from: 0, to: 3) is out of range 0..<3"))
        let swap = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.append(objectsIn: [1, 2, 3])
            list.swapAt(-1, 0)
        }
        #expect(Self.stopMessage(swap).contains("Strata: invalidArgument: swapAt(-1, 0) is out of range 0..<3"))
    }

    @Test func removingMoreThanTheListHoldsStops() async throws {
        let unmanaged = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.append(objectsIn: [1, 2, 3])
            list.removeLast(4)
        }
        #expect(Self.stopMessage(unmanaged).contains("Strata: invalidArgument: removeLast(4) on a list of 3 elements"))
        let removedAt = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.remove(at: 0)
        }
        #expect(Self.stopMessage(removedAt).contains("Strata: invalidArgument: index 0 is out of range 0..<0"))
    }

    @Test func aManagedListChecksTheCountBeforeRemovingAny() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "managed-remove-last"))
            let owner = BoundsListOwner()
            owner.numbers.append(objectsIn: [1, 2, 3])
            try realm.write {
                realm.add(owner)
                owner.numbers.removeLast(4)
            }
        }
        #expect(Self.stopMessage(result).contains("Strata: invalidArgument: removeLast(4) on a list of 3 elements"))
    }

    @Test func positionsInsideStillWork() {
        let list = List<Int>()
        list.append(objectsIn: [1, 2, 3])
        list.insert(0, at: 0)
        list.insert(4, at: 4)
        list.move(from: 0, to: 4)
        list.swapAt(0, 3)
        list[1] = 20
        list.removeLast(1)
        list.removeFirst(1)
        #expect(Array(list) == [20, 3, 1])
    }

    /// A list inside a managed `AnyRealmValue` has no tree of its own: each change rewrites the
    /// stored value, once per call, and positions are checked against that value.
    @Test func aListNestedInAStoredValueKeepsEveryChange() throws {
        var configuration = tempConfig("nested-list")
        configuration.objectTypes = [BoundsValueOwner.self]
        let realm = try Realm(configuration: configuration)
        let owner = BoundsValueOwner()
        owner.value = .fromArray([.int(1), .int(2), .int(3)])
        try realm.write { realm.add(owner) }
        try realm.write {
            let list = try #require(owner.value.listValue)
            list.insert(.int(0), at: 0)
            list.insert(.int(4), at: 4)
            list.move(from: 0, to: 4)
            list.swapAt(0, 3)
            list[1] = .int(20)
            list.remove(at: 2)
            list.removeLast(1)
            list.removeFirst(1)
        }
        let reopened = try Realm(configuration: configuration).objects(BoundsValueOwner.self).first
        #expect(Array(try #require(reopened?.value.listValue)) == [.int(20), .int(1)])
    }

    @Test func aPositionOutsideANestedListStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var configuration = tempConfig("nested-list-outside")
            configuration.objectTypes = [BoundsValueOwner.self]
            let realm = try Realm(configuration: configuration)
            let owner = BoundsValueOwner()
            owner.value = .fromArray([.int(1), .int(2)])
            try realm.write {
                realm.add(owner)
                owner.value.listValue?.move(from: 1, to: 2)
            }
        }
        #expect(Self.stopMessage(result).contains("Strata: invalidArgument: move(from: 1, to: 2) is out of range 0..<2"))
    }
}

final class BoundsValueOwner: Object {
    @Persisted var value: AnyRealmValue
}

final class BoundsListOwner: Object {
    @Persisted var numbers: List<Int>
}
