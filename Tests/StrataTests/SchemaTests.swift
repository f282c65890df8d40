// Schema discovery and validation, without storage.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport

@Suite struct SchemaDiscoveryTests {
    @Test func dogSchemaIsDiscoveredInDeclarationOrder() throws {
        let s = Dog().objectSchema
        #expect(s.className == "Dog")
        #expect(s.properties.map(\.name) == ["id", "name", "age", "owner"])
        #expect(s["id"]?.isPrimary == true)
        #expect(s["id"]?.type == .string)
        #expect(s["name"]?.isIndexed == true)
        #expect(s["age"]?.type == .int)
        #expect(s["owner"]?.type == .object)
        #expect(s["owner"]?.isOptional == true)
        #expect(s["owner"]?.objectClassName == "Person")
        #expect(s.primaryKeyProperty?.name == "id")
        #expect(!s.isEmbedded)
    }

    @Test func collectionsAndBacklinksAreDescribed() throws {
        let s = Person().objectSchema
        #expect(s["dogs"]?.collection == .list)
        #expect(s["dogs"]?.objectClassName == "Dog")
        #expect(s["tags"]?.collection == .list)
        #expect(s["tags"]?.type == .string)
        #expect(s["pets"]?.type == .linkingObjects)
        #expect(s["pets"]?.linkOriginPropertyName == "owner")
        #expect(s["picture"]?.type == .data)
        #expect(s["picture"]?.isOptional == true)
    }

    @Test func everyPropertyTypeMapsToItsStorageType() throws {
        let s = AllTypes().objectSchema
        let types = Dictionary(uniqueKeysWithValues: s.properties.map { ($0.name, $0.type) })
        #expect(types["b"] == .bool)
        for n in ["i", "i8", "i16", "i32", "i64", "optInt"] { #expect(types[n] == .int) }
        #expect(types["f"] == .float)
        #expect(types["d"] == .double)
        #expect(types["s"] == .string)
        #expect(types["data"] == .data)
        #expect(types["date"] == .date)
        #expect(types["dec"] == .decimal128)
        #expect(types["oid"] == .objectId)
        #expect(types["uuid"] == .uuid)
        #expect(types["dept"] == .string)
        #expect(types["notPersisted"] == nil, "plain stored properties are not persisted")
        #expect(s["optStrings"]?.isOptional == true)
        #expect(s["optStrings"]?.collection == .list)
    }

    @Test func embeddedClassesAreMarked() {
        #expect(Address().objectSchema.isEmbedded)
        #expect(Contact().objectSchema["address"]?.objectClassName == "Address")
    }

    @Test func propertyNamesFromKeyPaths() {
        #expect(_strataPropertyName(for: \Dog.name) == "name")
        #expect(_strataPropertyName(for: \Dog.age) == "age")
        #expect(_strataPropertyName(for: \Dog.owner) == "owner")
        #expect(_strataPropertyName(for: \Person.dogs) == "dogs")
        #expect(_strataPropertyName(for: \AllTypes.notPersisted) == nil)
    }
}

final class NonOptionalLink: Object {
    @Persisted var name = ""
    @Persisted var dog: Dog = Dog()
}

final class DoublePrimaryKey: Object {
    @Persisted(primaryKey: true) var id: Double
}

final class TwoPrimaryKeys: Object {
    @Persisted(primaryKey: true) var a: Int
    @Persisted(primaryKey: true) var b: Int
}

final class IndexedDouble: Object {
    @Persisted(indexed: true) var d: Double
}

final class AClassWhoseNameIsFarTooLongForTheStrataSchemaLimitOfFiftySevenBytes: Object {
    @Persisted var x = 0
}

final class LongPropertyName: Object {
    @Persisted var aPropertyNameThatIsLongerThanSixtyThreeBytesWhichRealmDoesNotAllowAtAll = 0
}

final class EmbeddedWithKey: EmbeddedObject {
    @Persisted(primaryKey: true) var id = 0
}

final class NoProperties: Object {
    var plain = 1
}

@Suite struct SchemaValidationTests {
    func expectInvalid(_ type: Object.Type, mentioning word: String) {
        do {
            _ = try ClassInfo.of(type)
            Issue.record("\(type) should be rejected")
        } catch {
            #expect(error.code == .invalidSchema)
            #expect(error.message.contains(word), "message: \(error.message)")
        }
    }

    @Test func nonOptionalLinkIsRejected() { expectInvalid(NonOptionalLink.self, mentioning: "must be optional") }
    @Test func doublePrimaryKeyIsRejected() { expectInvalid(DoublePrimaryKey.self, mentioning: "primary key") }
    @Test func twoPrimaryKeysAreRejected() { expectInvalid(TwoPrimaryKeys.self, mentioning: "more than one primary key") }
    @Test func indexedDoubleIsRejected() { expectInvalid(IndexedDouble.self, mentioning: "cannot be indexed") }
    @Test func longClassNameIsRejected() {
        expectInvalid(AClassWhoseNameIsFarTooLongForTheStrataSchemaLimitOfFiftySevenBytes.self, mentioning: "class name")
    }
    @Test func longPropertyNameIsRejected() { expectInvalid(LongPropertyName.self, mentioning: "property name") }
    @Test func embeddedPrimaryKeyIsRejected() { expectInvalid(EmbeddedWithKey.self, mentioning: "embedded") }
    @Test func classWithoutPropertiesIsRejected() { expectInvalid(NoProperties.self, mentioning: "no @Persisted") }

    @Test func schemaDifferencesAreNamed() throws {
        let dog = Dog().objectSchema
        var renamed = dog
        renamed.properties[2].name = "years"
        #expect(dog.difference(fromStored: dog) == nil)
        #expect(dog.difference(fromStored: renamed)?.contains("'Dog.age' was added") == true)
        var retyped = dog
        retyped.properties[2].type = .string
        #expect(dog.difference(fromStored: retyped)?.contains("'Dog.age' changed") == true)
    }
}
