// `primaryKey()`, `indexedProperties()` and `ignoredProperties()` answer from the `@Persisted`
// declarations, as RealmSwift's class methods do for generic code that asks a class about itself;
// and overriding `primaryKey()` / `indexedProperties()` declares them, RealmSwift's older way.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class Ticket: Object {
    @Persisted(primaryKey: true) var code = ""
    @Persisted(indexed: true) var holder = ""
    @Persisted(indexed: true) var seat = 0
    @Persisted var price = 0.0
    var scratch = 0
}

final class Stub: Object {
    @Persisted var note = ""
}

/// A model in RealmSwift's older style: key and index named by overrides.
final class LegacyAccount: Object {
    @Persisted var number = ""
    @Persisted var owner = ""
    @Persisted var balance = 0
    override class func primaryKey() -> String? { "number" }
    override class func indexedProperties() -> [String] { ["owner"] }
}

final class MisnamedKey: Object {
    @Persisted var id = 0
    override class func primaryKey() -> String? { "identifier" }
}

final class TwoKeys: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var code = ""
    override class func primaryKey() -> String? { "code" }
}

@Suite("Model class methods")
struct ModelClassMethodTests {
    @Test func theDeclarationsAnswer() {
        #expect(Ticket.primaryKey() == "code")
        // A primary key is indexed too (it is looked up by value), so it is listed.
        #expect(Ticket.indexedProperties() == ["code", "holder", "seat"])
        #expect(Ticket.ignoredProperties().isEmpty)
        #expect(Stub.primaryKey() == nil)
        #expect(Stub.indexedProperties().isEmpty)
    }

    @Test func genericCodeCanAskAnyClass() {
        func keyOf<T: Object>(_ type: T.Type) -> String? { type.primaryKey() }
        #expect(keyOf(Ticket.self) == "code")
        #expect(keyOf(Stub.self) == nil)
    }

    @Test func overridesDeclareThePrimaryKeyAndIndexes() throws {
        var configuration = tempConfig("legacy")
        configuration.objectTypes = [LegacyAccount.self]
        let realm = try Realm(configuration: configuration)
        let schema = try #require(realm.schema["LegacyAccount"])
        #expect(schema.primaryKeyProperty?.name == "number")
        #expect(schema["owner"]?.isIndexed == true && schema["balance"]?.isIndexed == false)
        try realm.write { realm.create(LegacyAccount.self, value: ["number": "A-1", "owner": "ann"]) }
        #expect(realm.object(ofType: LegacyAccount.self, forPrimaryKey: "A-1")?.owner == "ann")
        let duplicate = try #require(throws: Realm.Error.self) {
            try realm.write { realm.create(LegacyAccount.self, value: ["number": "A-1"]) }
        }
        #expect(duplicate.code == .duplicatePrimaryKey)
        try realm.write { realm.create(LegacyAccount.self, value: ["number": "A-1", "balance": 5], update: .modified) }
        #expect(realm.objects(LegacyAccount.self).count == 1 && realm.objects(LegacyAccount.self).first?.balance == 5)
    }

    @Test func anOverrideNamingNoPropertyOrAnotherKeyIsRefused() throws {
        for type in [MisnamedKey.self, TwoKeys.self] as [Object.Type] {
            var configuration = Realm.Configuration(inMemoryIdentifier: "overrides-\(type)")
            configuration.objectTypes = [type]
            let error = try #require(throws: Realm.Error.self) { try Realm(configuration: configuration) }
            #expect(error.code == .invalidSchema)
        }
    }
}
