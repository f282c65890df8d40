// MutableSet keeps its members sorted: insert, contains and remove agree with Swift's Set for
// numbers, strings, optionals and objects.
import Foundation
import Testing
import Strata
import StrataTestSupport

final class SetHolder: Object {
    @Persisted var numbers: MutableSet<Int>
    @Persisted var words: MutableSet<String>
    @Persisted var maybe: MutableSet<Int?>
    @Persisted var songs: MutableSet<Song>
}

@Suite struct SortedSetTests {
    @Test func insertContainsRemoveAgreeWithSwiftSet() throws {
        let realm = try Realm(configuration: memoryConfig())
        let h = SetHolder()
        h.numbers.insert(objectsIn: [5, 3, 5])  // unmanaged: stored sorted, deduplicated on add
        try realm.write { realm.add(h) }
        var model: Set<Int> = [5, 3]
        var rng = SystemRandomNumberGenerator()
        try realm.write {
            for _ in 0..<1_500 {
                let v = Int.random(in: -400...400, using: &rng) * 1_000_003
                if Bool.random(using: &rng) {
                    h.numbers.insert(v); model.insert(v)
                } else {
                    h.numbers.remove(v); model.remove(v)
                }
            }
        }
        #expect(h.numbers.count == model.count)
        #expect(Set(h.numbers) == model)
        for v in -400...400 { #expect(h.numbers.contains(v * 1_000_003) == model.contains(v * 1_000_003)) }
        // Elements are kept in encoding order: the stored sequence is strictly increasing bytes.
        let encodings = h.numbers.map { withUnsafeBytes(of: Int64($0).littleEndian) { Array($0) } }
        for i in encodings.indices.dropFirst() { #expect(encodings[i - 1].lexicographicallyPrecedes(encodings[i])) }
    }

    @Test func stringsOptionalsAndObjects() throws {
        let realm = try Realm(configuration: memoryConfig())
        let h = SetHolder()
        let blue = Song(value: ["title": "Blue"])
        try realm.write {
            realm.add(h)
            h.words.insert(objectsIn: ["pear", "apple", "pear", "fig", "apple"])
            h.maybe.insert(objectsIn: [nil, 1, nil, 2, 1])
            h.songs.insert(blue)  // unmanaged: added by the insert
            h.songs.insert(blue)  // now managed: found, not added again
            h.songs.insert(Song(value: ["title": "Red"]))
        }
        #expect(Array(h.words) == ["apple", "fig", "pear"])
        #expect(h.words.contains("fig") && !h.words.contains("figs"))
        #expect(h.maybe.count == 3 && h.maybe.contains(nil) && h.maybe.contains(2))
        #expect(h.songs.count == 2)
        #expect(h.songs.contains(blue))
        #expect(blue.playlists.isEmpty)
        try realm.write { h.songs.remove(blue) }
        #expect(h.songs.count == 1 && !h.songs.contains(blue))
        try realm.write { h.words.remove("fig"); h.maybe.remove(nil) }
        #expect(Array(h.words) == ["apple", "pear"])
        #expect(h.maybe.count == 2 && !h.maybe.contains(nil))
        // Deleting a member object drops it from the set (backlinks were kept by the sorted insert).
        let red = try #require(Array(h.songs).first)
        try realm.write { realm.delete(red) }
        #expect(h.songs.isEmpty)
    }
}
