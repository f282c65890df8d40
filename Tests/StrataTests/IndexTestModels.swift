// Models and helpers of the index tests: one class with an index on every indexable type
// (optionals and enums included), a class with an Int primary key and an indexed Int, a class
// with a String primary key, and an embedded class with an index (cascade deletes).
import Foundation
import Testing
@testable import Strata
import StrataTestSupport

enum IxColor: String, PersistableEnum {
    case red, green, blue
}

enum IxLevel: Int, PersistableEnum {
    case low = 1, mid = 2, high = 3
}

final class IxPart: EmbeddedObject {
    @Persisted(indexed: true) var code = 0
    @Persisted var label = ""
}

final class IxItem: Object {
    @Persisted var name = ""
    @Persisted(indexed: true) var tag = ""
    @Persisted(indexed: true) var rank = 0
    @Persisted(indexed: true) var flag = false
    @Persisted(indexed: true) var when = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted(indexed: true) var optRank: Int?
    @Persisted(indexed: true) var optTag: String?
    @Persisted(indexed: true) var oid = ObjectId()
    @Persisted(indexed: true) var uid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    @Persisted(indexed: true) var color = IxColor.red
    @Persisted(indexed: true) var level = IxLevel.low
    @Persisted(indexed: true) var small: Int8 = 0
    @Persisted var plain = 0
    @Persisted var child: IxPart?
    @Persisted var parts: List<IxPart>
}

final class IxKeyed: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var group = 0
    @Persisted var note = ""
}

final class IxNamed: Object {
    @Persisted(primaryKey: true) var id = ""
    @Persisted var n = 0
}

final class IxUUIDKeyed: Object {
    @Persisted(primaryKey: true) var id = UUID()
    @Persisted var n = 0
}

/// Value pools with deliberate collisions: canonically equivalent strings with different bytes
/// ("é" precomposed and decomposed, "K" and the Kelvin sign), a NUL byte, long strings sharing
/// their first 1,000 bytes, -0 and +0 dates.
enum IxPools {
    static let long = String(repeating: "x", count: 1_100)
    static let tags = ["", "a", "b", "é", "e\u{301}", "K", "\u{212A}", "nul\u{0}byte", "nul", long + "1", long + "2", String(repeating: "x", count: 1_000)]
    static let dates = [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -0.0),
                        Date(timeIntervalSinceReferenceDate: -5), Date(timeIntervalSinceReferenceDate: 1e9)]
    static let oids: [ObjectId] = [ObjectId(), (try? ObjectId(string: "0123456789abcdef01234567")) ?? ObjectId.generate(), (try? ObjectId(string: "ffffffffffffffffffffffff")) ?? ObjectId.generate()]
    static let uuids: [UUID] = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                                UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)),
                                UUID(uuid: (255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))]
    static let names = ["é", "e\u{301}", "K", "\u{212A}", "x", "y", "z", ""]
}

extension Realm {
    /// The object keys a results produces with indexes allowed and with a forced scan, and the
    /// plan the indexed run used.
    func keysBothWays<T: Object>(_ make: () -> Results<T>) -> (index: [UInt64], scan: [UInt64], plan: QueryPlanKind) {
        core.indexing.forceScan = false
        core.indexing.lastPlan = .scan
        let viaIndex = make().compactMap { $0._binding?.key }
        let plan = core.indexing.lastPlan
        core.indexing.forceScan = true
        let viaScan = make().compactMap { $0._binding?.key }
        core.indexing.forceScan = false
        return (viaIndex, viaScan, plan)
    }

    /// The stored row of `object`, copied.
    func row<T: Object>(of object: T) throws -> [UInt8] {
        let t = try #require(try core.tableIndex(forType: T.self))
        let key = try #require(object._binding?.key)
        return try #require(try core.snap.metas[t].objects.withValue(forKey: key, in: try core.pages()) { Array($0) })
    }

    /// Damage for tests, in the open write: the index entries `row` gives, naming `key`, whether
    /// or not an object of that key exists.
    func addIndexEntries<T: Object>(of type: T.Type = IxItem.self, forKey key: UInt64, copying row: [UInt8]) throws {
        let t = try #require(try core.tableIndex(forType: type))
        let w = try #require(core.writeTxn)
        try row.withUnsafeBytes { try core.indexes.indexInsert(table: t, key: key, row: $0, w) }
    }

    /// The differences between the indexes and a scan (empty when they agree).
    func indexProblems(requireAll: Bool = true) -> [String] {
        do { return try core.indexes.verifyIndexes(requireAll: requireAll) } catch { return ["verify threw \(error)"] }
    }
}

extension IxItem {
    /// An unmanaged item with random values from the pools.
    static func random(_ rng: inout SplitMix64) -> IxItem {
        let o = IxItem()
        o.name = "n\(Int.random(in: 0..<5, using: &rng))"
        o.randomize(&rng, all: true)
        if Bool.random(using: &rng) { o.child = IxPart(value: ["code": Int.random(in: 0..<4, using: &rng)]) }
        for _ in 0..<Int.random(in: 0..<3, using: &rng) { o.parts.append(IxPart(value: ["code": Int.random(in: 0..<4, using: &rng)])) }
        return o
    }

    /// Sets one random indexed property (all of them with `all`), through the accessors.
    func randomize(_ rng: inout SplitMix64, all: Bool = false) {
        let pick = Int.random(in: 0..<12, using: &rng)
        if all || pick == 0 { tag = IxPools.tags.randomElement(using: &rng) ?? "" }
        if all || pick == 1 { rank = Int.random(in: -3..<6, using: &rng) }
        if all || pick == 2 { flag = Bool.random(using: &rng) }
        if all || pick == 3 { when = IxPools.dates.randomElement(using: &rng) ?? Date() }
        if all || pick == 4 { optRank = Bool.random(using: &rng) ? nil : Int.random(in: 0..<3, using: &rng) }
        if all || pick == 5 { optTag = Bool.random(using: &rng) ? nil : IxPools.tags.randomElement(using: &rng) }
        if all || pick == 6 { oid = IxPools.oids.randomElement(using: &rng) ?? ObjectId() }
        if all || pick == 7 { uid = IxPools.uuids.randomElement(using: &rng) ?? UUID() }
        if all || pick == 8 { color = IxColor.allCases.randomElement(using: &rng) ?? .red }
        if all || pick == 9 { level = IxLevel.allCases.randomElement(using: &rng) ?? .low }
        if all || pick == 10 { small = Int8.random(in: -2...2, using: &rng) }
        if all || pick == 11 { plain = Int.random(in: 0..<4, using: &rng) }
    }
}
