// Fixed row footers (Core/InlineBacklinks.swift, object format 4): a row of a class without
// collections, created by a link, ends with a 20-byte entry and a marker instead of varints, and
// keeps that length when its entry changes or empties. So rows appended to lists share one length
// and go into packed leaves. The footer's bytes, each way it changes, the packing it allows, the
// backlinks it reports, a format-3 file (varint footers only, which a format-3 build reads) and
// malformed fixed footers.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport
import StrataStorage

final class FooterBin: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var items: List<FooterItem>
    @Persisted var other: List<FooterItem>
}

final class FooterItem: Object {
    @Persisted var n = 0
    @Persisted var value = 0.0
    @Persisted(originProperty: "items") var bins: LinkingObjects<FooterBin>
}

/// A class whose rows hold a collection root: never a fixed footer, never packed.
final class FooterHolderItem: Object {
    @Persisted var n = 0
    @Persisted var tags: List<String>
}

final class FooterHolder: Object {
    @Persisted var items: List<FooterHolderItem>
}

@Suite struct FixedFooterTests {
    static func configuration(_ name: String) -> Realm.Configuration {
        var config = tempConfig(name)
        config.objectTypes = [FooterBin.self, FooterItem.self, FooterHolderItem.self, FooterHolder.self, Dog.self]
        return config
    }

    /// The stored row of `object`.
    static func row(_ object: Object, _ realm: Realm) throws -> [UInt8] {
        let b = try #require(object._binding)
        return try #require(try realm.core.snap.metas[b.table].objects.withValue(forKey: b.key, in: realm.core.pages()) { Array($0) })
    }

    @Test func aFixedFooterRoundTripsAndKeepsItsLength() throws {
        let body: [UInt8] = [9, 8, 7, 6, 5]
        let entry = InlineBacklink(table: 3, column: 2, key: 0x1_0000_0001, count: 4)
        var row = body + [UInt8](repeating: 0, count: RowFooter.fixedLength)
        row.withUnsafeMutableBytes { _ = RowFooter.store(entry, fixed: true, at: $0.baseAddress! + body.count) }
        #expect(row.count == body.count + 21 && row.last == RowFooter.fixedMarker)
        try row.withUnsafeBytes { r in
            #expect(RowFooter.length(r) == 21 && RowFooter.isFixed(r))
            #expect(try RowFooter.entry(r) == entry)
            let emptied = try RowFooter.replacing(r, with: nil)
            #expect(emptied.count == row.count && Array(emptied.prefix(5)) == body)
            #expect(Array(emptied.suffix(21)) == [UInt8](repeating: 0, count: 20) + [RowFooter.fixedMarker])
            try emptied.withUnsafeBytes { e in
                #expect(try RowFooter.entry(e) == nil)
                let refilled = try RowFooter.replacing(e, with: entry)
                #expect(refilled == row, "an emptied fixed footer takes an entry again at the same length")
            }
        }
        // A varint footer stays a varint one.
        let varint: [UInt8] = body + [0]
        try varint.withUnsafeBytes { r in
            let linked = try RowFooter.replacing(r, with: entry)
            #expect(linked.last == UInt8(linked.count - body.count - 1) && !linked.withUnsafeBytes(RowFooter.isFixed))
        }
    }

    @Test func aMalformedFixedFooterIsACorruptFileError() throws {
        // Count 0 naming a source; and a marker on a row too short for the entry.
        var named = [UInt8](repeating: 0, count: 21)
        named[0] = 1
        named[20] = RowFooter.fixedMarker
        let short: [UInt8] = [0, 0, RowFooter.fixedMarker]
        for bad in [named, short] {
            #expect(throws: Realm.Error.self) { try bad.withUnsafeBytes { _ = try RowFooter.entry($0) } }
        }
        #expect(throws: Realm.Error.self) { try short.withUnsafeBytes { _ = try RowFooter.replacing($0, with: nil) } }
        #expect(short.withUnsafeBytes(RowFooter.length) == nil)

        // Through the object layer: reading the object's backlinks or deleting it fails, and the
        // committed version is untouched.
        let realm = try Realm(configuration: Self.configuration("footer-bad"))
        let bin = FooterBin(value: ["name": "b"])
        let item = FooterItem(value: ["n": 1])
        try realm.write {
            realm.add(bin)
            bin.items.append(item)
        }
        let b = try #require(item._binding)
        realm.beginWrite()
        let w = try #require(realm.core.writeTxn)
        var row = try Self.row(item, realm)
        let footer = row.count - RowFooter.fixedLength
        #expect(row.last == RowFooter.fixedMarker)
        row[footer] = 7  // names table 7…
        for i in 16..<20 { row[footer + i] = 0 }  // …with a count of 0
        try row.withUnsafeBytes { _ = try realm.core.snap.metas[b.table].objects.put(b.key, $0, in: w) }
        #expect { _ = try realm.core.backlinkStore.backlinks(target: b.table, targetKey: b.key) } throws: {
            ($0 as? Realm.Error)?.code == .corruptFile
        }
        #expect { try realm.deleteThrowing(item) } throws: { ($0 as? Realm.Error)?.code == .corruptFile }
        realm.cancelWrite()
        #expect(bin.items.map(\.n) == [1])
        #expect(item.bins.map(\.name) == ["b"])
    }

    @Test func rowsCreatedByAListKeepOneLengthAndArePacked() throws {
        let config = Self.configuration("footer-packed")
        let path = try #require(config.fileURL).path
        try Self.fillAndEdit(config, path: path)
        _ = try StrataFile.compact(path: path, encryptionKey: nil)
        let reopened = try Realm(configuration: config)
        #expect(reopened.objects(FooterItem.self).count == 2_401)
        #expect(reopened.objects(FooterBin.self).filter("name == 'b'").first?.items.count == 501)
        #expect(try StrataFile(path: path).verify().isEmpty)
    }

    /// 2,500 items appended to lists, one moved between lists, 99 deleted (checked as it goes).
    static func fillAndEdit(_ config: Realm.Configuration, path: String) throws {
        let realm = try Realm(configuration: config)
        let bin = FooterBin(value: ["name": "a"])
        let second = FooterBin(value: ["name": "b"])
        try realm.write {
            realm.add(bin)
            realm.add(second)
            for i in 0..<2_000 { bin.items.append(FooterItem(value: ["n": i, "value": Double(i) / 4])) }
        }
        // A batch append (the batched path) and a single one (the general add path).
        try realm.write { second.items.append(objectsIn: (2_000..<2_500).map { FooterItem(value: ["n": $0, "value": 1.0]) }) }
        let items = Array(realm.objects(FooterItem.self))
        #expect(items.count == 2_500)
        let lengths = Set(try items.map { try Self.row($0, realm).count })
        #expect(lengths.count == 1, "one row length: \(lengths)")
        for item in items.prefix(3) + items.suffix(3) {
            #expect(try Self.row(item, realm).last == RowFooter.fixedMarker)
        }
        let stats = try StrataFile(path: path).treeStatistics()
        let rows = try #require(stats.first { $0.name == "FooterItem objects" }).statistics
        let perRow = Double(rows.leafBytes) / Double(rows.entries)
        #expect(perRow < 30, "\(perRow) bytes per row")

        // Unlinking keeps the length (the entry empties); linking again fills it; a second
        // link from another source goes into the tree. Backlinks follow every step.
        let moved = items[10]
        let before = try Self.row(moved, realm)
        try realm.write { bin.items.remove(at: 10) }
        #expect(try Self.row(moved, realm).count == before.count)
        #expect(moved.bins.isEmpty)
        try realm.write { second.items.append(moved) }
        #expect(try Self.row(moved, realm).count == before.count)
        #expect(moved.bins.map(\.name) == ["b"])
        try realm.write { bin.other.append(moved) }
        #expect(moved.bins.map(\.name) == ["b"])
        #expect(try realm.core.backlinkStore.backlinks(target: moved._binding!.table, targetKey: moved._binding!.key).count == 2)
        let expectedSum: Double = (0..<2_000).reduce(500.0) { $0 + Double($1) / 4 }
        let storedSum: Double = realm.objects(FooterItem.self).sum(ofProperty: "value")
        #expect(storedSum == expectedSum)
        try realm.write { realm.delete(bin.items.filter("n < 100")) }
        // n 0..<100 but 10 (moved away) left the first bin with their objects.
        #expect(bin.items.count == 1_900)
        #expect(realm.objects(FooterItem.self).count == 2_401)
        #expect(try StrataFile(path: path).verify().isEmpty)
    }

    @Test func rowsWithACollectionOrInAThirdFormatFileKeepVarintFooters() throws {
        let config = Self.configuration("footer-third")
        let path = try #require(config.fileURL).path
        do {
            let realm = try Realm(configuration: config)
            let holder = FooterHolder()
            try realm.write {
                realm.add(holder)
                holder.items.append(FooterHolderItem(value: ["n": 1]))
            }
            // A class whose rows hold a list root: a varint footer.
            let row = try Self.row(try #require(holder.items.first), realm)
            #expect(row.last.map { $0 <= UInt8(RowFooter.maxEntrySize) } == true)
            try realm.write { realm.add(Dog(value: ["id": "rex", "name": "Rex", "age": 3])) }
        }
        try ObjectFormatTests.setMarker(ObjectFormatTests.thirdFormatMarker, path)
        let realm = try Realm(configuration: config)
        let bin = FooterBin(value: ["name": "a"])
        try realm.write {
            realm.add(bin)
            for i in 0..<300 { bin.items.append(FooterItem(value: ["n": i])) }
            bin.items.append(objectsIn: (300..<400).map { FooterItem(value: ["n": $0]) })
        }
        for item in realm.objects(FooterItem.self) {
            let last = try #require(try Self.row(item, realm).last)
            #expect(last <= UInt8(RowFooter.maxEntrySize), "a format-3 file gets varint footers only")
        }
        #expect(try ObjectFormatTests.marker(path) == ObjectFormatTests.thirdFormatMarker)
        #expect(realm.objects(FooterItem.self).first?.bins.map(\.name) == ["a"])
    }
}
