// Index roots in the catalog: the "tables" value with and without its index trailer, files
// written before indexes existed (the legacy encoding, built here by stripping the trailer of a
// real file), damaged trailers (typed `.corruptFile`), and migrations that add, remove and
// rename indexed properties or transform indexed data.
import Foundation
import StrataStorage
import Testing
@testable import Strata
import StrataTestSupport

final class IxMigV1: Object {
    override class func className() -> String { "IxMig" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var label = ""
    @Persisted var score = 0
}

final class IxMigV2: Object {
    override class func className() -> String { "IxMig" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var name = ""
    @Persisted(indexed: true) var score = 0
}

final class IxMigV3: Object {
    override class func className() -> String { "IxMig" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted(indexed: true) var score = 0
}

@Suite struct IndexCatalogEncodingTests {
    static func metas() -> [TableMeta] {
        var a = TableMeta(objects: KeyedTree(root: PageRef(11)), primaryKeys: BytesTree(root: PageRef(12)), nextKey: 99)
        a.indexes = [IndexTree(column: 1, tree: BytesTree(root: PageRef(13))), IndexTree(column: 4, tree: BytesTree())]
        let b = TableMeta(objects: KeyedTree(root: PageRef(21)), primaryKeys: BytesTree(), nextKey: 1)
        return [a, b]
    }

    @Test func roundTripWithIndexes() throws {
        let bytes = Catalog.encode(metas: Self.metas())
        #expect(bytes.count == 2 * 16 + (2 + 2 * 6) + 2 + 8)
        #expect(Catalog.tableCount(bytes) == 2)
        let decoded = try Catalog.decodeMetas(bytes, count: 2)
        #expect(decoded == Self.metas())
    }

    @Test func withoutIndexesTheEncodingIsTheLegacyOne() throws {
        var metas = Self.metas()
        metas[0].indexes = []
        let bytes = Catalog.encode(metas: metas)
        #expect(bytes.count == 32, "no trailer: files without indexes keep the pre-index bytes")
        #expect(Catalog.tableCount(bytes) == 2)
        #expect(try Catalog.decodeMetas(bytes, count: 2) == metas)
    }

    @Test func damagedTrailersAreTypedErrors() throws {
        let good = Catalog.encode(metas: Self.metas())
        func expectCorrupt(_ bytes: [UInt8], _ what: Comment) {
            #expect(what) { _ = try Catalog.decodeMetas(bytes, count: Catalog.tableCount(bytes)) } throws: {
                ($0 as? Realm.Error)?.code == .corruptFile
            }
        }
        // Columns not ascending: swap the two (column, root) pairs of table 0.
        var swapped = good
        let pairs = Array(good[34..<46])
        swapped.replaceSubrange(34..<40, with: pairs[6..<12])
        swapped.replaceSubrange(40..<46, with: pairs[0..<6])
        expectCorrupt(swapped, "index columns out of order")
        // An index count that runs past the trailer.
        var long = good
        long[32] = 9
        expectCorrupt(long, "index section overruns")
        // An index count that stops before the trailer.
        var short = good
        short[32] = 1
        expectCorrupt(short, "index section ends early")
        // A table count in the trailer that disagrees with the fixed part.
        var count = good
        count[good.count - 8] = 3
        expectCorrupt(count, "trailer's table count")
        // Truncated in the middle of the fixed part.
        expectCorrupt(Array(good[0..<20]), "truncated value")
    }
}

@Suite struct IndexFileFormatTests {
    /// Rewrites the file's "tables" value in the encoding used before indexes existed (no
    /// trailer) and frees the index trees, as a file written by the previous code would be.
    static func stripIndexes(path: String) throws {
        let file = try StorageFile.open(StorageOptions(path: path, durability: .full))
        defer { file.close() }
        let w = try file.beginWrite()
        do {
            var roots = w.roots
            var catalog = BytesTree(root: PageRef(UInt32(truncatingIfNeeded: roots[2])))
            // The metas live in the meta page's root data when they fit (Catalog.swift), else under
            // "tables"; files written before either existed keep them under "tables" only.
            let bytes: [UInt8]
            if roots.data.first == Catalog.rootDataTag {
                bytes = Array(roots.data.dropFirst())
            } else {
                let value = try Catalog.tablesKey.withUnsafeBytes { k in try catalog.withValue(forKey: k, in: w) { [UInt8]($0) } }
                bytes = try #require(value)
            }
            let count = Catalog.tableCount(bytes)
            var metas = try Catalog.decodeMetas(bytes, count: count)
            #expect(metas.contains { !$0.indexes.isEmpty }, "the file had indexes to strip")
            for t in metas.indices {
                for var i in metas[t].indexes { try i.tree.destroy(in: w) }
                metas[t].indexes = []
            }
            let legacy = Catalog.encode(metas: metas)
            #expect(legacy.count == count * Catalog.metaSize)
            try Catalog.tablesKey.withUnsafeBytes { k in try legacy.withUnsafeBytes { _ = try catalog.put(k, $0, in: w) } }
            roots[2] = UInt64(catalog.root.raw)
            roots.data = []
            w.roots = roots
            _ = try w.commit()
        } catch {
            w.rollback()
            throw error
        }
    }

    @Test func aFileWrittenBeforeIndexesOpensScansThenGetsItsIndexes() throws {
        let config = tempConfig()
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                for i in 0..<60 { realm.add(IxItem(value: ["rank": i % 6, "tag": "t\(i % 4)"])) }
                for i in 0..<10 { realm.add(IxNamed(value: ["id": "n\(i)", "n": i])) }
            }
        }
        try Self.stripIndexes(path: try #require(config.fileURL?.path))
        let realm = try Realm(configuration: config)
        #expect(realm.core.snap.metas.allSatisfy { $0.indexes.isEmpty }, "the legacy value lists no index")
        #expect(realm.indexProblems(requireAll: false) == [])
        #expect(realm.indexProblems(requireAll: true).count == 3, "IxItem, IxNamed and IxPart (embedded, empty) lack their indexes")
        let scanned = realm.keysBothWays { realm.objects(IxItem.self).filter("rank == 2") }
        #expect(scanned.plan == .scan && scanned.index.count == 10 && scanned.index == scanned.scan)
        // The first write that touches a table builds its missing indexes.
        try realm.write { realm.add(IxItem(value: ["rank": 2])) }
        let indexed = realm.keysBothWays { realm.objects(IxItem.self).filter("rank == 2") }
        #expect(indexed.plan == .index(property: "rank", values: 1) && indexed.index.count == 11 && indexed.index == indexed.scan)
        #expect(realm.indexProblems(requireAll: false) == [])
        #expect(realm.indexProblems(requireAll: true).count == 2, "IxNamed and IxPart are built on their first write")
        try realm.write {
            realm.add(IxNamed(value: ["id": "late"]))
            realm.add(IxItem(value: ["rank": 5, "child": ["code": 3]]))
        }
        #expect(realm.indexProblems() == [])
        #expect(realm.objects(IxNamed.self).filter("id == 'n3'").first?.n == 3)
    }

    @Test func copiesKeepOrRebuildTheirIndexes() throws {
        let config = tempConfig()
        let realm = try Realm(configuration: config)
        try realm.write {
            for i in 0..<40 { realm.add(IxItem(value: ["rank": i % 4])) }
        }
        let dir = try #require(config.fileURL?.deletingLastPathComponent())
        // A copy of a committed version copies the index pages.
        let committed = dir.appendingPathComponent("committed.realm")
        try realm.writeCopy(toFile: committed)
        // A copy made inside a write rebuilds the trees it copies; it lists no index, so its
        // queries scan until its first write builds them.
        let uncommitted = dir.appendingPathComponent("uncommitted.realm")
        try realm.write {
            realm.add(IxItem(value: ["rank": 1]))
            try realm.writeCopy(toFile: uncommitted)
        }
        let a = try Realm(configuration: Realm.Configuration(fileURL: committed))
        #expect(a.indexProblems() == [])
        #expect(a.keysBothWays { a.objects(IxItem.self).filter("rank == 1") }.plan == .index(property: "rank", values: 1))
        let b = try Realm(configuration: Realm.Configuration(fileURL: uncommitted))
        #expect(b.indexProblems(requireAll: false) == [])
        let scanned = b.keysBothWays { b.objects(IxItem.self).filter("rank == 1") }
        #expect(scanned.index.count == 11 && scanned.index == scanned.scan)
        try b.write { b.objects(IxItem.self)[0].rank = 1 }
        #expect(b.indexProblems(requireAll: false) == [])
        #expect(b.objects(IxItem.self).filter("rank == 1").count == 12)
    }

    @Test func migrationAddsRemovesAndRenamesIndexes() throws {
        let base = tempConfig()
        do {
            var c = base
            c.schemaVersion = 1
            c.objectTypes = [IxMigV1.self]
            let realm = try Realm(configuration: c)
            try realm.write {
                for i in 0..<30 { realm.add(IxMigV1(value: ["id": i, "label": "L\(i % 5)", "score": i % 3])) }
            }
            #expect(realm.indexProblems() == [])
        }
        do {
            var c = base
            c.schemaVersion = 2
            c.objectTypes = [IxMigV2.self]
            c.migrationBlock = { migration, _ in
                migration.renameProperty(onType: "IxMig", from: "label", to: "name")
                migration.enumerateObjects(ofType: "IxMig") { old, new in
                    let score = old?["score"] as? Int ?? 0
                    new?["score"] = score * 10
                    if (old?["id"] as? Int) == 0, let new { migration.delete(new) }
                }
                migration.create("IxMig", value: ["id": 100, "name": "L1", "score": 10])
            }
            let realm = try Realm(configuration: c)
            #expect(realm.indexProblems() == [])
            let names = realm.keysBothWays { realm.objects(IxMigV2.self).filter("name == 'L1'") }
            #expect(names.plan == .index(property: "name", values: 1) && names.index == names.scan && names.index.count == 7)
            let scores = realm.keysBothWays { realm.objects(IxMigV2.self).filter("score == 10") }
            #expect(scores.plan == .index(property: "score", values: 1) && scores.index == scores.scan && scores.index.count == 11)
            #expect(realm.objects(IxMigV2.self).filter("score == 1").isEmpty, "the index holds the transformed values")
            #expect(realm.core.snap.metas[0].indexes.map(\.column) == [1, 2])
        }
        var c = base
        c.schemaVersion = 3
        c.objectTypes = [IxMigV3.self]
        let realm = try Realm(configuration: c)
        #expect(realm.indexProblems() == [])
        #expect(realm.core.snap.metas[0].indexes.map(\.column) == [2], "the index of 'name' is gone")
        let names = realm.keysBothWays { realm.objects(IxMigV3.self).filter("name == 'L1'") }
        #expect(names.plan == .scan && names.index == names.scan && names.index.count == 7)
        try realm.write { realm.objects(IxMigV3.self).filter("score == 20").first?.score = 10 }
        #expect(realm.indexProblems() == [])
    }

    @Test func migrationChangingStringPrimaryKeysRebuildsTheirIndex() throws {
        let base = tempConfig()
        try examsV1(base)
        let realm = try Realm(configuration: config(base, version: 3, types: [ExamV3.self, MarkV3.self]))
        #expect(realm.indexProblems() == [])
        let e1 = realm.keysBothWays { realm.objects(ExamV3.self).filter("id == 'E1'") }
        #expect(e1.plan == .index(property: "id", values: 1) && e1.index.count == 1 && e1.index == e1.scan)
    }
}
