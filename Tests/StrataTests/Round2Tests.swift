// Round-2 gaps of the object layer: Decimal128 stored as 16 binary bytes, LinkingObjects listing
// an object once per link (Realm's backlink semantics).
import Foundation
import Testing
@testable import Strata

final class DecimalHolder: Object {
    @Persisted var amount = Decimal128(0)
    @Persisted var maybe: Decimal128?
    @Persisted var history: List<Decimal128>
}

final class Song: Object {
    @Persisted var title = ""
    @Persisted(originProperty: "songs") var playlists: LinkingObjects<Playlist>
}

final class Playlist: Object {
    @Persisted var name = ""
    @Persisted var songs: List<Song>
}

@Suite struct DecimalStorageTests {
    @Test func decimalSlotIsSixteenFixedBytes() throws {
        let column = try #require(try ClassInfo.of(DecimalHolder.self).layout.columns.first)
        #expect(column.type == .decimal128)
        #expect(!column.isVariable)
        #expect(_Column.width(type: .decimal128, collection: .none) == 16)
    }

    @Test func valuesRoundTripThroughAFile() throws {
        let config = tempConfig("decimal")
        let values = ["0", "-1", "3.14159", "-12345678901234567890.123456789", "1e-40", "9e100",
                      "1234567890123456789012345678901234"]  // 34 digits: exact
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                for v in values {
                    let h = DecimalHolder()
                    h.amount = try Decimal128(string: v)
                    h.maybe = v == "0" ? nil : try Decimal128(string: v)
                    for w in values { h.history.append(try Decimal128(string: w)) }
                    realm.add(h)
                }
            }
        }
        let realm = try Realm(configuration: config)
        let stored = realm.objects(DecimalHolder.self).map { $0.amount }
        #expect(stored == (try values.map { try Decimal128(string: $0) }))
        let first = try #require(realm.objects(DecimalHolder.self).first)
        #expect(first.maybe == nil)
        #expect(realm.objects(DecimalHolder.self)[1].maybe == (try Decimal128(string: "-1")))
        #expect(Array(first.history) == (try values.map { try Decimal128(string: $0) }))
    }

    @Test func moreThanThirtyFourDigitsRoundHalfUp() throws {
        let realm = try Realm(configuration: memoryConfig())
        let h = DecimalHolder()
        try realm.write {
            h.amount = try Decimal128(string: "12345678901234567890123456789012345678")  // 38 digits
            realm.add(h)
        }
        #expect(h.amount == (try Decimal128(string: "12345678901234567890123456789012350000")))
        try realm.write { h.amount = try Decimal128(string: "-0.99999999999999999999999999999999999") }  // 35 nines
        #expect(h.amount == -1)
    }

    @Test func nanIsKept() throws {
        let realm = try Realm(configuration: memoryConfig())
        let h = DecimalHolder()
        try realm.write {
            h.amount = Decimal128(Decimal.nan)
            realm.add(h)
        }
        #expect(h.amount.value.isNaN)
    }
}

@Suite struct LinkingObjectsPerLinkTests {
    @Test func anObjectAppearsOncePerLink() throws {
        let realm = try Realm(configuration: memoryConfig())
        let song = Song(value: ["title": "Blue"])
        let mix = Playlist(value: ["name": "mix"])
        let best = Playlist(value: ["name": "best"])
        try realm.write {
            realm.add(song)
            realm.add(mix)
            realm.add(best)
            mix.songs.append(song)
            mix.songs.append(song)
            best.songs.append(song)
        }
        #expect(song.playlists.count == 3)
        #expect(song.playlists.map(\.name).sorted() == ["best", "mix", "mix"])
        try realm.write { mix.songs.remove(at: 0) }
        #expect(song.playlists.map(\.name).sorted() == ["best", "mix"])
        try realm.write { realm.delete(best) }
        #expect(song.playlists.map(\.name) == ["mix"])
        try realm.write { mix.songs.removeAll() }
        #expect(song.playlists.isEmpty)
    }
}

@Suite struct WriteCopyInsideWriteTests {
    @Test func copiesTheUncommittedState() throws {
        let config = tempConfig("source")
        let copyURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent("uncommitted.realm")
        let key = Data((0..<64).map { UInt8(255 - $0) })
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(Contact(value: ["id": 1, "name": "committed"])) }
            realm.beginWrite()
            realm.add(Contact(value: ["id": 2, "name": "pending"]))
            let song = Song(value: ["title": "Blue"])
            let mix = Playlist(value: ["name": "mix"])
            realm.add(mix)
            mix.songs.append(song)
            mix.songs.append(song)
            let holder = DecimalHolder()
            holder.amount = try Decimal128(string: "2.5")
            holder.history.append(7)
            realm.add(holder)
            try realm.writeCopy(toFile: copyURL, encryptionKey: key)
            #expect { try realm.writeCopy(toFile: copyURL) } throws: { ($0 as? Realm.Error)?.code == .fileExists }
            realm.cancelWrite()
            #expect(realm.objects(Contact.self).count == 1)
            #expect(realm.objects(Playlist.self).isEmpty)
        }
        var copy = Realm.Configuration(fileURL: copyURL)
        copy.encryptionKey = key
        let c = try Realm(configuration: copy)
        #expect(c.objects(Contact.self).map(\.name).sorted() == ["committed", "pending"])
        #expect(c.object(ofType: Contact.self, forPrimaryKey: 2)?.name == "pending")
        let mix = try #require(c.objects(Playlist.self).first)
        #expect(mix.songs.map(\.title) == ["Blue", "Blue"])
        let song = try #require(c.objects(Song.self).first)
        #expect(song.playlists.count == 2)
        let holder = try #require(c.objects(DecimalHolder.self).first)
        #expect(holder.amount == (try Decimal128(string: "2.5")))
        #expect(Array(holder.history) == [7])
        // The copy is a working file: writes and deletes keep links consistent.
        try c.write {
            c.add(Contact(value: ["id": 3]))
            c.delete(song)
        }
        #expect(mix.songs.isEmpty)
        #expect(c.objects(Contact.self).count == 3)
    }
}

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

@Suite struct InstanceCacheTests {
    /// The cache holds unretained cores (no weak side table): a core must leave it in its deinit,
    /// and lookups racing with releases on other threads must never revive a dying core.
    @Test func openAndReleaseOnManyThreadsLeavesNoEntry() throws {
        let config = tempConfig("cache")
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(ToDoItem()) }
            #expect(try Realm(configuration: config).core === realm.core)
        }
        let failures = LockedBox(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<150 {
                do {
                    let r = try Realm(configuration: config)
                    let again = try Realm(configuration: config)
                    if r.core !== again.core || r.objects(ToDoItem.self).count != 1 { failures.set(1) }
                } catch {
                    failures.set(1)
                }
            }
        }
        #expect(failures.get() == 0)
        // Every core was released and removed itself: the file counts as closed.
        #expect(try Realm.deleteFiles(for: config))
    }
}
