// Rows of plain classes (no strings, links or collections) are stored in packed leaves
// (StrataStorage PackedLeaf.swift): standalone readings added one by one or in one add of many
// take a third of the pages of slotted rows, and read, change, query, delete, reopen, compact
// and copy like any others. Readings created by a list append (an inline backlink in their
// footer) stay slotted.
import Foundation
import Testing
@testable import StrataStorage
@testable import Strata
import StrataTestSupport

@Suite struct PackedRowsTests {
    static func reading(_ i: Int) -> Reading {
        let r = Reading()
        r.value = Double(i % 1000) / 10
        r.seq = Int64(i)
        r.timestamp = Date(timeIntervalSince1970: 1_700_000_000 + Double(i / 10_000))
        return r
    }

    /// Pages of the rows tree of `Reading`, by kind.
    static func rowPages(_ realm: Realm) throws -> [UInt8: Int] {
        let core = realm.core
        let pages = try core.pages()
        guard let t = core.snap.tableByClass[ObjectIdentifier(Reading.self)] else { return [:] }
        var kinds: [UInt8: Int] = [:]
        try TreePages.forEachPage(ofTreeAt: core.snap.metas[t].objects.root, in: pages) { ref in
            kinds[try pages.readPage(ref).load(as: UInt8.self), default: 0] += 1
        }
        return kinds
    }

    static func check(_ realm: Realm, count: Int, changed: Set<Int>, deleted: Set<Int>) throws {
        let all = realm.objects(Reading.self)
        #expect(all.count == count - deleted.count)
        var seen = 0
        for r in all {
            let i = Int(r.seq)
            #expect(!deleted.contains(i))
            #expect(r.value == (changed.contains(i) ? -1 : Double(i % 1000) / 10), "reading \(i)")
            #expect(r.timestamp == Date(timeIntervalSince1970: 1_700_000_000 + Double(i / 10_000)))
            seen += 1
        }
        #expect(seen == count - deleted.count)
        #expect(all.filter("seq >= 5000 AND seq < 5010").count == (5000..<5010).filter { !deleted.contains($0) }.count)
    }

    @Test(arguments: [false, true])
    func standaloneReadingsArePackedAndBehave(oneAdd: Bool) throws {
        let config = tempConfig()
        let count = 30_000
        var changed = Set<Int>(), deleted = Set<Int>()
        do {
            let realm = try Realm(configuration: config)
            for batch in stride(from: 0, to: count, by: 10_000) {
                try realm.write {
                    let readings = (batch..<batch + 10_000).map(Self.reading)
                    if oneAdd { realm.add(readings) } else { for r in readings { realm.add(r) } }
                }
            }
            let kinds = try Self.rowPages(realm)
            let packed = kinds[TreePageKind.keyedPackedLeaf] ?? 0
            // Slotted rows of ~39 bytes need ~300 leaves for 30,000; packed ~13 bytes, ~100.
            #expect(packed >= 80 && kinds.values.reduce(0, +) < 150, "\(kinds)")
            // Changes through accessors (in place, and one that makes a plane vary), deletes
            // of single objects and of a range, and adds in between.
            try realm.write {
                for i in stride(from: 7, to: count, by: 97) {
                    realm.objects(Reading.self).filter("seq == %@", Int64(i)).first?.value = -1
                    changed.insert(i)
                }
                let doomed = Array(realm.objects(Reading.self).filter("seq >= 12000 AND seq < 12500"))
                for r in doomed { deleted.insert(Int(r.seq)) }
                realm.delete(doomed)
                for i in stride(from: 3, to: count, by: 1_013) where !deleted.contains(i) {
                    if let r = realm.objects(Reading.self).filter("seq == %@", Int64(i)).first {
                        realm.delete(r)
                        deleted.insert(i)
                    }
                }
            }
            try Self.check(realm, count: count, changed: changed, deleted: deleted)
            _ = try realm.core.file.verify()
        }
        // Reopen, compact on launch, copy: the same objects.
        var compacting = config
        compacting.shouldCompactOnLaunch = { _, _ in true }
        let realm = try Realm(configuration: compacting)
        try Self.check(realm, count: count, changed: changed, deleted: deleted)
        _ = try realm.core.file.verify()
        let copy = config.fileURL!.deletingLastPathComponent().appendingPathComponent("copy.realm")
        try realm.writeCopy(toFile: copy)
        var copyConfig = config
        copyConfig.fileURL = copy
        try Self.check(try Realm(configuration: copyConfig), count: count, changed: changed, deleted: deleted)
    }

    /// Readings appended to a list carry their backlink in the row's footer, which shrinks when
    /// they leave the list: they stay slotted (a packed leaf holds values of one length).
    @Test func listedReadingsStaySlotted() throws {
        let realm = try Realm(configuration: tempConfig())
        try realm.write {
            let sensor = try Sensor.make(value: ["symbol": "o3"])
            realm.add(sensor)
            sensor.readings.append(objectsIn: (0..<5_000).map(Self.reading))
            for i in 5_000..<6_000 { sensor.readings.append(Self.reading(i)) }
        }
        #expect(try Self.rowPages(realm)[TreePageKind.keyedPackedLeaf] == nil)
        try realm.write {
            let sensor = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "o3"))
            let oldest = Array(sensor.readings.prefix(2_000))
            sensor.readings.removeFirst(2_000)
            realm.delete(oldest)
        }
        #expect(realm.objects(Reading.self).count == 4_000)
        #expect(realm.objects(Reading.self).min(ofProperty: "seq") as Int64? == 2_000)
    }
}
