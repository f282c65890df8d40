// The model of the damaged-file corpus and of the damage and copy tests, shared by the child
// process that writes and reads the corpus (`strata-probe`) and the tests that damage it
// (Tests/StrataTests/DamageCorpusTests.swift and neighbours): one declaration, so the schema both
// sides check at open cannot drift. Also the realistic file they start from, and the digest of
// everything a full read sees.
//
// The file: 3,000 items (strings of 10 to ~600 bytes, ints, doubles, an optional string, a link
// to another item) and two owners with Lists of 2,400 and 50 item links, written in four commits
// with full durability; the last deletes the 1,000 items of the second batch (which also drops
// them from the lists and clears links to them), so the newest version keeps pages of every
// commit. `build` prints the digest after each commit, so a reader can tell
// "exactly the newest version" from "an older version" from "something else".
import Foundation
import Strata

public final class CorpusItem: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var name: String
    @Persisted public var score: Double
    @Persisted public var note: String?
    @Persisted public var partner: CorpusItem?
}

public final class CorpusOwner: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var label: String
    @Persisted public var entries: List<CorpusItem>
}

/// Commits made by other processes in the damage tests.
public final class CorpusMarker: Object {
    @Persisted(primaryKey: true) public var id: Int
}

public enum Corpus {
    public static let itemCount = 3_000
    public static let firstBatch = 2_000
    public static let listLength = 2_400

    /// The fixed 64-byte key of the encrypted variant.
    public static let key = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })

    public static func configuration(path: String, encrypted: Bool) -> Realm.Configuration {
        var c = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
        c.encryptionKey = encrypted ? key : nil
        c.durability = .full
        c.objectTypes = [CorpusItem.self, CorpusOwner.self, CorpusMarker.self]
        return c
    }

    public static func name(_ i: Int) -> String {
        "item \(i) " + String(repeating: Character(UnicodeScalar(UInt8(97 + i % 26))), count: (i * 37) % 600)
    }

    /// Writes the file; returns the digest after each of its four commits.
    public static func build(_ realm: Realm) throws -> [UInt64] {
        var digests: [UInt64] = []
        try realm.write {
            var made: [CorpusItem] = []
            for i in 0..<firstBatch { made.append(item(i, partner: i > 0 ? made[(i * 7919) % i] : nil)) }
            realm.add(made)
        }
        digests.append(readAll(realm).digest)
        try realm.write {
            for i in firstBatch..<itemCount {
                let partner = realm.object(ofType: CorpusItem.self, forPrimaryKey: (i * 7919) % firstBatch)
                realm.add(item(i, partner: partner))
            }
            for (id, length) in [(1, listLength), (2, 50)] {
                let owner = CorpusOwner()
                owner.id = id
                owner.label = "owner \(id)"
                for j in 0..<length {
                    if let e = realm.object(ofType: CorpusItem.self, forPrimaryKey: (j * 31 + id) % itemCount) { owner.entries.append(e) }
                }
                realm.add(owner)
            }
        }
        digests.append(readAll(realm).digest)
        try realm.write {
            for i in stride(from: 0, to: itemCount, by: 10) {
                realm.object(ofType: CorpusItem.self, forPrimaryKey: i)?.score += 0.25
            }
        }
        digests.append(readAll(realm).digest)
        try realm.write {
            realm.delete(realm.objects(CorpusItem.self).filter { $0.id >= firstBatch })
        }
        digests.append(readAll(realm).digest)
        return digests
    }

    private static func item(_ i: Int, partner: CorpusItem?) -> CorpusItem {
        let o = CorpusItem()
        o.id = i
        o.name = name(i)
        o.score = Double(i) * 1.5
        o.note = i % 4 == 0 ? nil : "note \(i)"
        o.partner = partner
        return o
    }

    /// Everything a full read sees, through the non-throwing API as an app reads: every object,
    /// every property, every list entry (by iteration and by index), counts, primary-key lookups.
    public static func readAll(_ realm: Realm) -> (digest: UInt64, items: Int, entries: Int) {
        var d = Digest()
        let items = realm.objects(CorpusItem.self)
        d.add(items.count)
        var seen = 0
        for o in items {
            d.add(o.id)
            d.add(o.name)
            d.add(Int(bitPattern: UInt(o.score.bitPattern)))
            d.add(o.note ?? "-nil-")
            d.add(o.partner?.id ?? -1)
            seen += 1
        }
        d.add(seen)
        // Lookups through the primary-key index (every 5th id: the index's pages, not every entry).
        for id in stride(from: 0, to: itemCount, by: 5) {
            d.add(realm.object(ofType: CorpusItem.self, forPrimaryKey: id)?.id ?? -1)
        }
        var entries = 0
        let owners = realm.objects(CorpusOwner.self)
        d.add(owners.count)
        for o in owners {
            d.add(o.id)
            d.add(o.label)
            let list = o.entries
            let n = list.count
            d.add(n)
            for e in list {
                d.add(e.id)
                d.add(e.name.utf8.count)
                entries += 1
            }
            for i in stride(from: 0, to: n, by: 7) { d.add(list[i].id) }
        }
        d.add(entries)
        d.add(realm.objects(CorpusMarker.self).count)
        return (d.value, seen, entries)
    }
}

/// FNV-1a over what was read.
public struct Digest {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func add(_ bytes: some Sequence<UInt8>) {
        for b in bytes {
            value ^= UInt64(b)
            value = value &* 0x100_0000_01b3
        }
    }

    public mutating func add(_ n: Int) { add(withUnsafeBytes(of: n.littleEndian) { Array($0) }) }

    public mutating func add(_ s: String) {
        add(s.utf8.count)
        add(s.utf8)
    }
}
