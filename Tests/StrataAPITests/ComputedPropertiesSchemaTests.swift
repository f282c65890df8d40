// A class's LinkingObjects are its computed properties, as in RealmSwift: `ObjectSchema.properties`
// lists the persisted ones and `computedProperties` the linking objects, wherever the class
// declares them; an array value fills the persisted properties in order.
import Foundation
import Testing
import Strata
import StrataTestSupport

final class SchemaListener: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "listeners") var stations: LinkingObjects<SchemaStation>
    @Persisted var age = 0
}

final class SchemaStation: Object {
    @Persisted var call = ""
    @Persisted var listeners: List<SchemaListener>
}

@Suite struct ComputedPropertiesSchemaTests {
    private func configuration() -> Realm.Configuration {
        var configuration = tempConfig("computed-properties")
        configuration.objectTypes = [SchemaListener.self, SchemaStation.self]
        return configuration
    }

    @Test func linkingObjectsAreComputedNotPersisted() throws {
        let realm = try Realm(configuration: configuration())
        let schema = try #require(realm.schema["SchemaListener"])
        #expect(schema.properties.map(\.name) == ["name", "age"])
        #expect(schema.computedProperties.map(\.name) == ["stations"])
        #expect(schema["stations"]?.type == .linkingObjects, "the subscript finds a computed property too")
        #expect(SchemaListener().objectSchema.properties.map(\.name) == ["name", "age"])
        #expect(realm.schema["SchemaStation"]?.computedProperties.isEmpty == true)

        var edited = schema
        edited.properties = Array(edited.properties.prefix(1))
        #expect(edited.properties.map(\.name) == ["name"] && edited.computedProperties.map(\.name) == ["stations"],
                "setting the persisted properties keeps the computed ones")
    }

    @Test func anArrayValueFillsThePersistedPropertiesInOrder() throws {
        let configuration = configuration()
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                let ann = realm.create(SchemaListener.self, value: ["Ann", 41])
                realm.create(SchemaStation.self, value: ["call": "KXYZ", "listeners": [ann]])
            }
            let unmanaged = SchemaListener(value: ["Bo", 7])
            #expect(unmanaged.name == "Bo" && unmanaged.age == 7)
        }
        let reopened = try Realm(configuration: configuration)
        let ann = try #require(reopened.objects(SchemaListener.self).first)
        #expect(ann.name == "Ann" && ann.age == 41)
        #expect(ann.stations.map(\.call) == ["KXYZ"])
    }
}
