// propertiesMapping() and _realmObjectName(): the file stores properties and classes under the
// mapped names, while queries, key-value coding and key paths keep the Swift names.
import Foundation
import Testing
import Strata
import StrataTestSupport

final class MappedParcel: Object {
    @Persisted(primaryKey: true) var code = ""
    @Persisted var weight = 0
    @Persisted var labels: List<String>
    @Persisted var next: MappedParcel?

    override class func propertiesMapping() -> [String: String] {
        ["weight": "weight_grams", "labels": "tags", "next": "next_parcel"]
    }
}

/// The same stored class seen under the column names.
final class ParcelByColumn: Object {
    @Persisted(primaryKey: true) var code = ""
    @Persisted var weight_grams = 0
    @Persisted var tags: List<String>
    @Persisted var next_parcel: ParcelByColumn?

    override class func _realmObjectName() -> String { "MappedParcel" }
}

/// The stored class as it would be without the mapping: stored differently.
final class UnmappedParcel: Object {
    @Persisted(primaryKey: true) var code = ""
    @Persisted var weight = 0
    @Persisted var labels: List<String>
    @Persisted var next: UnmappedParcel?

    override class func _realmObjectName() -> String { "MappedParcel" }
}

final class ParcelMappingUnknown: Object {
    @Persisted var weight = 0
    override class func propertiesMapping() -> [String: String] { ["height": "h"] }
}

final class ParcelMappingClash: Object {
    @Persisted var weight = 0
    @Persisted var grams = 0
    override class func propertiesMapping() -> [String: String] { ["weight": "grams"] }
}

@Suite struct ColumnNameMappingTests {
    @Test func theSchemaTellsTheColumnNames() {
        let schema = MappedParcel().objectSchema
        #expect(schema.className == "MappedParcel")
        #expect(schema.properties.map(\.name) == ["code", "weight", "labels", "next"])
        #expect(schema.properties.map(\.columnName) == ["code", "weight_grams", "tags", "next_parcel"])
        #expect(ParcelByColumn().objectSchema.className == "MappedParcel")
        #expect(ParcelByColumn.className() == "MappedParcel")
    }

    @Test func queriesAndKeyValueCodingUseThePropertyNames() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            let a = realm.create(MappedParcel.self, value: ["code": "a", "weight": 5, "labels": ["x"]])
            realm.create(MappedParcel.self, value: ["code": "b", "weight": 9, "next": a])
        }
        let parcels = realm.objects(MappedParcel.self)
        #expect(parcels.filter("weight > 6").map(\.code) == ["b"])
        #expect(parcels.where { $0.weight < 6 }.map(\.code) == ["a"])
        #expect(parcels.sorted(byKeyPath: "weight", ascending: false).map(\.code) == ["b", "a"])
        #expect(parcels.filter("next.weight == 5").map(\.code) == ["b"])
        #expect(parcels.filter("ANY labels == 'x'").map(\.code) == ["a"])
        #expect(parcels.sum(ofProperty: "weight") == 14)
        let b = try #require(realm.object(ofType: MappedParcel.self, forPrimaryKey: "b"))
        #expect(b.value(forKey: "weight") as? Int == 9)
        try realm.write { b.setValue(10, forKey: "weight") }
        #expect(b.weight == 10)
        #expect(_name(for: \MappedParcel.next?.weight) == "next.weight")
        let dynamic = try #require(realm.dynamicObjects("MappedParcel").filter("code == 'b'").first)
        #expect(dynamic["weight"] as? Int == 10)
    }

    @Test func theFileStoresTheColumnNames() throws {
        let config = tempConfig("mapped")
        do {
            var c = config
            c.objectTypes = [MappedParcel.self]
            let realm = try Realm(configuration: c)
            try realm.write {
                let a = realm.create(MappedParcel.self, value: ["code": "a", "weight": 5, "labels": ["x", "y"]])
                realm.create(MappedParcel.self, value: ["code": "b", "weight": 7, "next": a])
            }
        }
        // the file, reopened by the mapped class, reads back by property name
        let mapped = try onAnotherThread { () throws -> (Int?, [String]?, [String]?) in
            var c = config
            c.objectTypes = [MappedParcel.self]
            let realm = try Realm(configuration: c)
            let b = realm.object(ofType: MappedParcel.self, forPrimaryKey: "b")
            return (b?.weight, b?.next?.labels.map { $0 }, realm.schema["MappedParcel"]?.properties.map(\.name))
        }
        #expect(mapped.0 == 7 && mapped.1 == ["x", "y"] && mapped.2 == ["code", "weight", "labels", "next"])
        // a class naming the properties by their columns reads the same data
        let byColumn = try onAnotherThread { () throws -> (Int?, [String]?) in
            var c = config
            c.objectTypes = [ParcelByColumn.self]
            let realm = try Realm(configuration: c)
            let b = realm.object(ofType: ParcelByColumn.self, forPrimaryKey: "b")
            return (b?.weight_grams, b?.next_parcel?.tags.map { $0 })
        }
        #expect(byColumn.0 == 7 && byColumn.1 == ["x", "y"])
        // without the mapping the class is stored differently: a migration is needed
        let refused = try onAnotherThread { () -> Realm.Error.Code? in
            var c = config
            c.objectTypes = [UnmappedParcel.self]
            do { _ = try Realm(configuration: c); return nil } catch { return (error as? Realm.Error)?.code }
        }
        #expect(refused == .schemaMismatch)
    }

    @Test func theSwiftClassesOfOneStoredClassAndItsDynamicObjectsAreTheSameObjects() throws {
        var c = memoryConfig()
        c.objectTypes = [MappedParcel.self, ParcelByColumn.self]
        let realm = try Realm(configuration: c)
        let parcel = MappedParcel()
        parcel.code = "b"
        try realm.write { realm.add(parcel) }
        let byColumn = try #require(realm.object(ofType: ParcelByColumn.self, forPrimaryKey: "b"))
        let dynamic = try #require(realm.dynamicObjects("MappedParcel").first)
        #expect(byColumn.isSameObject(as: parcel) && parcel.isSameObject(as: byColumn))
        #expect(dynamic.isSameObject(as: parcel) && parcel.isSameObject(as: dynamic))
        let objects: [Object] = [parcel, byColumn, dynamic]
        #expect(objects[0] == objects[1] && objects[0] == objects[2])
        #expect(Set(objects).count == 1)
        // Another stored object of the class is not the same.
        try realm.write { realm.create(MappedParcel.self, value: ["code": "c"]) }
        let other = try #require(realm.object(ofType: ParcelByColumn.self, forPrimaryKey: "c"))
        #expect(!other.isSameObject(as: parcel))
        #expect(Set(objects + [other]).count == 2)
    }

    @Test func aMappingThatNamesNoPropertyOrClashesIsAnInvalidSchema() throws {
        for type in [ParcelMappingUnknown.self, ParcelMappingClash.self] as [Object.Type] {
            var c = memoryConfig()
            c.objectTypes = [type]
            #expect { _ = try Realm(configuration: c) } throws: { ($0 as? Realm.Error)?.code == .invalidSchema }
        }
    }
}
