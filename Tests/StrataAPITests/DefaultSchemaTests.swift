// A configuration without `objectTypes` has every model class of the program in its schema, as
// RealmSwift's default schema does, even classes this process has not used yet.
import Foundation
import Strata
import StrataTestSupport
import Testing

/// Used by no other test: it can only be in the schema if the program's classes are found.
final class NeverUsedModel: Object {
    @Persisted var label = ""
    @Persisted var count: Int?
}

private final class PrivateNeverUsedModel: Object {
    @Persisted var flag = false
}

/// Stored in a file, then left out of the configuration that reopens it (no other test uses it).
final class LeftOutModel: Object {
    @Persisted var label = ""
}

@Suite("Default schema")
struct DefaultSchemaTests {
    @Test func everyModelClassOfTheProgramIsInTheSchema() throws {
        let realm = try Realm(configuration: memoryConfig())
        let schema = try #require(realm.schema["NeverUsedModel"])
        #expect(schema.properties.map(\.name) == ["label", "count"])
        #expect(schema["count"]?.isOptional == true && schema.objectClass == NeverUsedModel.self)
        #expect(realm.schema["PrivateNeverUsedModel"] != nil)
        #expect(realm.schema["Dog"] != nil && realm.schema["Person"] != nil)
        // Not models: the base classes themselves.
        #expect(realm.schema["Object"] == nil && realm.schema["EmbeddedObject"] == nil)
        #expect(realm.isEmpty, "listing classes writes nothing")
    }

    @Test func objectTypesLimitTheSchema() throws {
        var configuration = memoryConfig()
        configuration.objectTypes = [Dog.self, Person.self]
        let realm = try Realm(configuration: configuration)
        #expect(realm.schema["NeverUsedModel"] == nil && realm.schema["Dog"] != nil)
    }

    @Test func objectTypesLeaveOutTheFilesOtherClasses() throws {
        var wider = tempConfig("schema-other-tables")
        wider.objectTypes = [Dog.self, Person.self, LeftOutModel.self]
        do {
            let realm = try Realm(configuration: wider)
            try realm.write { realm.create(LeftOutModel.self, value: ["label": "kept"]) }
        }
        var narrower = wider
        narrower.objectTypes = [Dog.self, Person.self]
        let realm = try Realm(configuration: narrower)
        #expect(Set(realm.schema.objectSchema.map(\.className)) == ["Dog", "Person"])
        // The file still holds the other class's objects, readable dynamically.
        #expect(realm.dynamicObjects("LeftOutModel").first?["label"] as? String == "kept")
    }
}
