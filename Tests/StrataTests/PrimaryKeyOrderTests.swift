// Int primary keys in the primary-key tree: object format 4 writes them order-preserving (sign
// bit flipped, big-endian), so ascending keys append to the tree's last leaf; a format-3 file
// keeps its little-endian keys, and stays format 3, however it is written or copied.
//
// The stored bytes are read straight from the storage layer, so a change of encoding in either
// format shows here before it could make a lookup miss an object that is there.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport
import StrataStorage

final class KeyOrderItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var label = ""
}

final class OptionalKeyOrderItem: Object {
    @Persisted(primaryKey: true) var id: Int?
    @Persisted var label = ""
}

final class NarrowKeyOrderItem: Object {
    @Persisted(primaryKey: true) var id: Int32 = 0
    @Persisted var label = ""
}

@Suite struct PrimaryKeyOrderTests {
    static let ids = [5, -1, 0, Int.min, Int.max, 256, 1, -256, 65_536, Int(Int32.min)]

    static func configuration(_ name: String) -> Realm.Configuration {
        var config = tempConfig(name)
        config.objectTypes = [KeyOrderItem.self, OptionalKeyOrderItem.self, NarrowKeyOrderItem.self, Dog.self]
        return config
    }

    /// The primary-key tree of class `className` as stored: (key bytes, object key) in tree order.
    static func storedKeys(_ path: String, _ className: String) throws -> [([UInt8], UInt64)] {
        let inspected = try StrataFile(path: path)
        let t = try #require(inspected.core.snap.tableByName[className])
        let pages = try inspected.core.pages()
        var out: [([UInt8], UInt64)] = []
        try inspected.core.snap.metas[t].primaryKeys.forEach(from: nil, in: pages) { key, value in
            out.append((Array(key), UInt64(littleEndian: value.loadUnaligned(as: UInt64.self))))
            return true
        }
        return out
    }

    static func ordered(_ id: Int) -> [UInt8] {
        [1] + withUnsafeBytes(of: (UInt64(bitPattern: Int64(id)) ^ (1 << 63)).bigEndian) { Array($0) }
    }

    static func littleEndian(_ id: Int) -> [UInt8] {
        [1] + withUnsafeBytes(of: Int64(id).littleEndian) { Array($0) }
    }

    static func add(_ ids: [Int], to realm: Realm) throws {
        try realm.write {
            for id in ids {
                realm.add(KeyOrderItem(value: ["id": id, "label": "k\(id)"]))
                realm.add(OptionalKeyOrderItem(value: ["id": id, "label": "o\(id)"]))
                if let narrow = Int32(exactly: id) { realm.add(NarrowKeyOrderItem(value: ["id": narrow, "label": "n\(id)"])) }
            }
            realm.add(OptionalKeyOrderItem(value: ["id": NSNull(), "label": "nil"]))
        }
    }

    /// Every way an object is found by its primary key finds each of `ids`, and nothing else.
    static func expectFound(_ ids: [Int], in realm: Realm) throws {
        for id in ids {
            #expect(realm.object(ofType: KeyOrderItem.self, forPrimaryKey: id)?.label == "k\(id)")
            #expect(realm.object(ofType: OptionalKeyOrderItem.self, forPrimaryKey: id)?.label == "o\(id)")
            #expect(realm.objects(KeyOrderItem.self).filter("id == %@", id).map(\.label) == ["k\(id)"])
            #expect(realm.dynamicObject(ofType: "KeyOrderItem", forPrimaryKey: id)?.label as? String == "k\(id)")
            if let narrow = Int32(exactly: id) {
                #expect(realm.object(ofType: NarrowKeyOrderItem.self, forPrimaryKey: narrow)?.label == "n\(id)")
            }
        }
        #expect(realm.object(ofType: OptionalKeyOrderItem.self, forPrimaryKey: Int?.none)?.label == "nil")
        #expect(realm.object(ofType: KeyOrderItem.self, forPrimaryKey: 7) == nil)
        #expect(realm.objects(KeyOrderItem.self).filter("id IN %@", [ids[0], ids[1], 7]).count == 2)
    }

    /// Upserts, a duplicate and a deletion, each checked through the lookups.
    static func expectWritesKeepKeys(_ realm: Realm) throws {
        try realm.write {
            realm.create(KeyOrderItem.self, value: ["id": -1, "label": "renamed"], update: .modified)
            realm.create(KeyOrderItem.self, value: ["id": 7, "label": "k7"], update: .modified)
        }
        #expect(realm.object(ofType: KeyOrderItem.self, forPrimaryKey: -1)?.label == "renamed")
        #expect(realm.object(ofType: KeyOrderItem.self, forPrimaryKey: 7)?.label == "k7")
        #expect(realm.objects(KeyOrderItem.self).count == ids.count + 1)
        realm.beginWrite()
        #expect(throws: Realm.Error.self) { try realm.addThrowing(KeyOrderItem(value: ["id": Int.min, "label": "twin"])) }
        realm.cancelWrite()
        try realm.write { realm.delete(realm.object(ofType: KeyOrderItem.self, forPrimaryKey: 256)!) }
        #expect(realm.object(ofType: KeyOrderItem.self, forPrimaryKey: 256) == nil)
        #expect(realm.objects(KeyOrderItem.self).filter("id == 256").count == 0)
    }

    /// What `expectWritesKeepKeys` left, found through the lookups (after a reopen or a copy).
    static func expectFoundAfterWrites(in realm: Realm) throws {
        for id in ids + [7] {
            let label = id == 256 ? nil : id == -1 ? "renamed" : "k\(id)"
            #expect(realm.object(ofType: KeyOrderItem.self, forPrimaryKey: id)?.label == label)
            #expect(realm.objects(KeyOrderItem.self).filter("id == %@", id).map(\.label) == (label.map { [$0] } ?? []))
        }
        for id in ids {
            #expect(realm.object(ofType: OptionalKeyOrderItem.self, forPrimaryKey: id)?.label == "o\(id)")
        }
        #expect(realm.object(ofType: OptionalKeyOrderItem.self, forPrimaryKey: Int?.none)?.label == "nil")
    }

    @Test func aNewFileStoresIntPrimaryKeysInNumericOrder() throws {
        let config = Self.configuration("pk-ordered")
        let path = try #require(config.fileURL).path
        let realm = try Realm(configuration: config)
        try Self.add(Self.ids, to: realm)
        try Self.expectFound(Self.ids, in: realm)

        let sorted = Self.ids.sorted()
        let stored = try Self.storedKeys(path, "KeyOrderItem")
        #expect(stored.map(\.0) == sorted.map(Self.ordered), "tree order is numeric order")
        for (bytes, objectKey) in stored {
            let id = Int(Int64(bitPattern: UInt64(bigEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 1, as: UInt64.self) }) ^ (1 << 63)))
            #expect(realm.object(ofType: KeyOrderItem.self, forPrimaryKey: id)?._binding?.key == objectKey)
        }
        let optional = try Self.storedKeys(path, "OptionalKeyOrderItem").map(\.0)
        #expect(optional == [[0]] + sorted.map(Self.ordered), "nil first, then numeric order")
        let narrow = try Self.storedKeys(path, "NarrowKeyOrderItem").map(\.0)
        #expect(narrow == sorted.filter { Int32(exactly: $0) != nil }.map(Self.ordered))
        #expect(try StrataFile(path: path).objectFormatVersion == 4)

        try Self.expectWritesKeepKeys(realm)
        #expect(try Self.storedKeys(path, "KeyOrderItem").map(\.0) == (sorted.filter { $0 != 256 } + [7]).sorted().map(Self.ordered))
        try Self.expectFoundAfterWrites(in: try Realm(configuration: config))
    }

    /// Creates the file of `config` holding one Dog, marked as object format 3: its classes hold
    /// no objects yet, so every key written to it afterwards follows the format-3 rule.
    static func makeThirdFormatFile(_ config: Realm.Configuration) throws -> String {
        let path = try #require(config.fileURL).path
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(Dog(value: ["id": "rex", "name": "Rex", "age": 3])) }
        }
        try ObjectFormatTests.setMarker(ObjectFormatTests.thirdFormatMarker, path)
        return path
    }

    /// A format-3 file: written by a build before format 4 (simulated by marking a file whose
    /// classes hold no objects yet as format 3, so every key below is written by the format-3 rule).
    @Test func aThirdFormatFileKeepsLittleEndianKeysWhenWrittenAndCopied() throws {
        let config = Self.configuration("pk-third")
        let path = try Self.makeThirdFormatFile(config)
        do {
            let realm = try Realm(configuration: config)
            try Self.add(Self.ids, to: realm)
            try Self.expectFound(Self.ids, in: realm)
            let stored = try Self.storedKeys(path, "KeyOrderItem").map(\.0)
            #expect(stored == Self.ids.map(Self.littleEndian).sorted { $0.lexicographicallyPrecedes($1) })
            #expect(try ObjectFormatTests.marker(path) == ObjectFormatTests.thirdFormatMarker, "a commit keeps format 3")
            try Self.expectWritesKeepKeys(realm)
            #expect(try ObjectFormatTests.marker(path) == ObjectFormatTests.thirdFormatMarker)
        }
        let reopened = try Realm(configuration: config)
        try Self.expectFoundAfterWrites(in: reopened)

        // A copy of the committed file, and one made inside a write (which rebuilds the trees).
        let copyURL = URL(fileURLWithPath: path + ".copy")
        let writeCopyURL = URL(fileURLWithPath: path + ".write-copy")
        try reopened.writeCopy(toFile: copyURL)
        reopened.beginWrite()
        try reopened.writeCopy(toFile: writeCopyURL)
        reopened.cancelWrite()
        for url in [copyURL, writeCopyURL] {
            var copyConfig = config
            copyConfig.fileURL = url
            #expect(try ObjectFormatTests.marker(url.path) == ObjectFormatTests.thirdFormatMarker, "a copy keeps the keys' format")
            let copy = try Realm(configuration: copyConfig)
            try Self.expectFoundAfterWrites(in: copy)
        }
    }

    /// Ascending keys (the usual case: ids from a counter) append: the format-4 tree's leaves are
    /// full where the format-3 one, whose little-endian keys land all over it, splits leaves.
    @Test func ascendingKeysFillTheTreeOnlyInTheOrderedFormat() throws {
        func keyTree(third: Bool) throws -> StrataFile.TreeStatistics {
            let config = Self.configuration(third ? "pk-fill-3" : "pk-fill-4")
            let path = try #require(config.fileURL).path
            do {
                let realm = try Realm(configuration: config)
                try realm.write { realm.add(Dog(value: ["id": "rex", "name": "Rex", "age": 3])) }
            }
            if third { try ObjectFormatTests.setMarker(ObjectFormatTests.thirdFormatMarker, path) }
            let realm = try Realm(configuration: config)
            for batch in 0..<40 {
                try realm.write {
                    for id in (batch * 250)..<((batch + 1) * 250) { realm.add(KeyOrderItem(value: ["id": id, "label": ""])) }
                }
            }
            let stats = try StrataFile(path: path).treeStatistics()
            return try #require(stats.first { $0.name == "KeyOrderItem primary keys" }).statistics
        }
        let ordered = try keyTree(third: false)
        let littleEndian = try keyTree(third: true)
        #expect(ordered.entries == 10_000 && littleEndian.entries == 10_000)
        // Each leaf but the last is filled before the next begins.
        let orderedFill = ordered.leafFill
        let littleEndianFill = littleEndian.leafFill
        #expect(orderedFill > 0.9, "ordered fill \(orderedFill)")
        #expect(ordered.leafPages < littleEndian.leafPages, "\(ordered.leafPages) vs \(littleEndian.leafPages) leaves")
        #expect(littleEndianFill < orderedFill, "\(littleEndianFill) vs \(orderedFill)")
    }
}
