// Rows of classes with a primary key or an index go into packed leaves when they are appended
// without a backlink in their footer, as a plain class's rows do (PackedLeaf.swift has the rule).
// Everything the object layer does with a row then meets packed leaves: primary-key and index
// lookups, index maintenance on updates, deletes, aggregates, a link added later (the row's footer
// grows, so its length changes inside a packed leaf) and removed again, reopening, compaction and
// the file's own verification.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport
import StrataStorage

/// The issue's reading: an indexed property, no primary key, in no list.
final class IndexedPackReading: Object {
    @Persisted var value: Double
    @Persisted(indexed: true) var seq: Int
    @Persisted var timestamp: Date
}

final class KeyedPackReading: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var value: Double
    @Persisted(indexed: true) var seq: Int
}

final class PackReadingHolder: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var readings: List<KeyedPackReading>
}

@Suite struct PackedKeyedRowsTests {
    static let count = 3_000

    static func configuration(_ name: String) -> Realm.Configuration {
        var config = tempConfig(name)
        config.objectTypes = [IndexedPackReading.self, KeyedPackReading.self, PackReadingHolder.self]
        return config
    }

    static func value(_ i: Int) -> Double { Double(i % 97) * 0.5 - 10 }
    static func seq(_ i: Int) -> Int { i / 3 }

    static func fill(_ realm: Realm) throws {
        for batch in 0..<3 {
            try realm.write {
                for i in (batch * count / 3)..<((batch + 1) * count / 3) {
                    realm.add(IndexedPackReading(value: ["value": value(i), "seq": seq(i), "timestamp": Date(timeIntervalSince1970: Double(i))]))
                    realm.add(KeyedPackReading(value: ["id": i, "value": value(i), "seq": seq(i)]))
                }
            }
        }
    }

    /// Bytes a row takes in its class's rows tree, leaves only (slots and headers included).
    static func rowBytes(_ path: String, _ className: String) throws -> Double {
        let stats = try StrataFile(path: path).treeStatistics()
        let rows = try #require(stats.first { $0.name == "\(className) objects" }).statistics
        return Double(rows.leafBytes) / Double(rows.entries)
    }

    @Test func rowsOfKeyedAndIndexedClassesArePacked() throws {
        let config = Self.configuration("packed-rows")
        let path = try #require(config.fileURL).path
        try Self.fill(try Realm(configuration: config))
        // A slotted row costs its 2-byte slot, 8-byte key and value header besides its ~34
        // bytes; packed, the constant planes are stored once per leaf.
        for className in ["IndexedPackReading", "KeyedPackReading"] {
            let bytes = try Self.rowBytes(path, className)
            #expect(bytes < 30, "\(className): \(bytes) bytes per row")
        }
        #expect(try StrataFile(path: path).verify().isEmpty)
    }

    /// The answers every read gives, computed from the generator for the objects in `live`
    /// (ids) with `seqs` overriding the generated seq.
    static func expectReads(_ realm: Realm, live: [Int], seqs: [Int: Int] = [:], values: [Int: Double] = [:]) {
        func v(_ i: Int) -> Double { values[i] ?? value(i) }
        func s(_ i: Int) -> Int { seqs[i] ?? seq(i) }
        let keyed = realm.objects(KeyedPackReading.self)
        #expect(keyed.count == live.count)
        #expect(keyed.sum(ofProperty: "value") as Double == live.map(v).reduce(0, +))
        #expect(keyed.min(ofProperty: "value") as Double? == live.map(v).min())
        #expect(keyed.max(ofProperty: "value") as Double? == live.map(v).max())
        #expect(keyed.filter("value > 5").count == live.filter { v($0) > 5 }.count)
        for i in stride(from: 0, to: count, by: 37) {
            let object = realm.object(ofType: KeyedPackReading.self, forPrimaryKey: i)
            #expect(object?.value == (live.contains(i) ? v(i) : nil))
            #expect(object?.seq == (live.contains(i) ? s(i) : nil))
        }
        for k in [0, 1, 7, 500, 999, 5_000] {
            #expect(keyed.filter("seq == %@", k).count == live.filter { s($0) == k }.count, "seq == \(k)")
        }
        #expect(keyed.filter("seq >= 100 AND seq <= 200").count == live.filter { (100...200).contains(s($0)) }.count)
        let indexed = realm.objects(IndexedPackReading.self)
        #expect(indexed.count == count)
        #expect(indexed.sum(ofProperty: "value") as Double == (0..<count).map(value).reduce(0, +))
        #expect(indexed.filter("seq == 400").map(\.timestamp) == [1_200, 1_201, 1_202].map { Date(timeIntervalSince1970: $0) })
    }

    @Test func packedRowsAnswerLookupsUpdatesDeletesAndLinks() throws {
        let config = Self.configuration("packed-rows-edits")
        let path = try #require(config.fileURL).path
        var live = Array(0..<Self.count)
        var seqs: [Int: Int] = [:]
        var values: [Int: Double] = [:]
        do {
            let realm = try Realm(configuration: config)
            try Self.fill(realm)
            Self.expectReads(realm, live: live)

            // Updates: an indexed property (the index follows) and a plain one, in place.
            try realm.write {
                for i in stride(from: 5, to: Self.count, by: 101) {
                    let object = try #require(realm.object(ofType: KeyedPackReading.self, forPrimaryKey: i))
                    object.seq = 5_000
                    object.value = 1_000 + Double(i)
                    seqs[i] = 5_000
                    values[i] = 1_000 + Double(i)
                }
            }
            Self.expectReads(realm, live: live, seqs: seqs, values: values)

            // Deletes: a stretch from the front, some from the middle.
            try realm.write {
                for i in Array(0..<150) + Array(stride(from: 1_000, to: 1_400, by: 7)) {
                    realm.delete(try #require(realm.object(ofType: KeyedPackReading.self, forPrimaryKey: i)))
                }
            }
            live.removeAll { $0 < 150 || ($0 >= 1_000 && $0 < 1_400 && ($0 - 1_000) % 7 == 0) }
            Self.expectReads(realm, live: live, seqs: seqs, values: values)

            // Links added to existing packed rows: each row's footer grows.
            let linked = stride(from: 2_000, to: 2_300, by: 3).map { $0 }
            try realm.write {
                let holder = realm.create(PackReadingHolder.self, value: ["name": "h"])
                for i in linked { holder.readings.append(try #require(realm.object(ofType: KeyedPackReading.self, forPrimaryKey: i))) }
            }
            let holder = try #require(realm.object(ofType: PackReadingHolder.self, forPrimaryKey: "h"))
            #expect(holder.readings.map(\.id) == linked)
            Self.expectReads(realm, live: live, seqs: seqs, values: values)
            #expect(try StrataFile(path: path).verify().isEmpty)

            // Deleting a linked row takes it out of the list; unlinking the rest shrinks footers.
            try realm.write { realm.delete(try #require(realm.object(ofType: KeyedPackReading.self, forPrimaryKey: linked[0]))) }
            live.removeAll { $0 == linked[0] }
            #expect(holder.readings.map(\.id) == Array(linked.dropFirst()))
            try realm.write { holder.readings.removeAll() }
            Self.expectReads(realm, live: live, seqs: seqs, values: values)
        }
        #expect(try StrataFile(path: path).verify().isEmpty)
        Self.expectReads(try Realm(configuration: config), live: live, seqs: seqs, values: values)
        _ = try StrataFile.compact(path: path, encryptionKey: nil)
        #expect(try StrataFile(path: path).verify().isEmpty)
        Self.expectReads(try Realm(configuration: config), live: live, seqs: seqs, values: values)
    }
}
