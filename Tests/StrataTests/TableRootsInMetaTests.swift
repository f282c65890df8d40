// Where the object layer keeps its table roots: in the meta page's root data when they fit
// (Catalog.swift), under the catalog's "tables" key otherwise and in files written before.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport
import StrataStorage

@Suite(.serialized)
struct TableRootsInMetaTests {
    @Test func tableRootsLiveInTheMetaAndSurviveReopen() throws {
        let config = tempConfig("roots")
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let s = Sensor()
                s.symbol = "o3"
                realm.add(s)
                for i in 0..<500 {
                    let r = Reading()
                    r.seq = Int64(i)
                    s.readings.append(r)
                }
            }
            let roots = try #require(realm.core.readTxn?.roots)
            #expect(roots.data.first == Catalog.rootDataTag)
            // Both tables' metas (with the primary-key index trailer, IndexKeys.swift) decode.
            let metaBytes = Array(roots.data.dropFirst())
            #expect(try Catalog.decodeMetas(metaBytes, count: Catalog.tableCount(metaBytes)).count == 2)
            #expect(realm.objects(Reading.self).count == 500)
        }
        let realm = try Realm(configuration: config)
        let s = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "o3"))
        #expect(s.readings.count == 500)
        #expect(s.readings[499].seq == 499)
        try realm.write { realm.add(Sensor(value: ["symbol": "pm10"])) }
        #expect(realm.objects(Sensor.self).count == 2)
    }

    /// A file whose table roots are only in the catalog (as written before root data existed):
    /// it opens, reads, and its next write moves the roots into the meta.
    @Test func tableRootsInTheCatalogStillOpen() throws {
        let config = tempConfig("oldroots")
        let path = try #require(config.fileURL?.path)
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let s = Sensor()
                s.symbol = "o3"
                realm.add(s)
                for i in 0..<50 {
                    let r = Reading()
                    r.seq = Int64(i)
                    s.readings.append(r)
                }
            }
        }
        // Rewrite the last version the old way: metas under "tables", no root data.
        do {
            let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
            defer { file.close() }
            let w = try file.beginWrite()
            #expect(w.roots.data.first == Catalog.rootDataTag)
            let metas = Array(w.roots.data.dropFirst())
            var catalog = BytesTree(root: PageRef(UInt32(truncatingIfNeeded: w.roots[2])))
            try Catalog.tablesKey.withUnsafeBytes { k in try metas.withUnsafeBytes { v in _ = try catalog.put(k, v, in: w) } }
            w.roots[2] = UInt64(catalog.root.raw)
            w.roots.data = []
            try w.commit()
        }
        let realm = try Realm(configuration: config)
        let s = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "o3"))
        #expect(s.readings.count == 50)
        #expect(s.readings[49].seq == 49)
        try realm.write {
            let r = Reading()
            r.seq = 50
            s.readings.append(r)
        }
        #expect(realm.core.readTxn?.roots.data.first == Catalog.rootDataTag)
        #expect(s.readings.count == 51)
        #expect(realm.objects(Reading.self).count == 51)
    }
}
