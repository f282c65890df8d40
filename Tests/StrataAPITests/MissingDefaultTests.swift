// A `FailableCustomPersistable` property declared without an initial value, whose type refuses
// its persisted type's default, has no value until one is set (as in RealmSwift): making the
// object works, reading the property stops with a `Strata:` message, and storing the object fails
// the write. Before, making the object stopped, so schema discovery, which makes one object of
// every model class, stopped every realm opened without `objectTypes` in such a program.
import Foundation
import Strata
import StrataTestSupport
import Testing

/// Stored as an Int; 0 (the Int default) has no counterpart.
struct NonZeroCount: FailableCustomPersistable, Hashable {
    typealias PersistedType = Int
    let count: Int
    init(_ count: Int) { self.count = count }
    init?(persistedValue: Int) {
        guard persistedValue != 0 else { return nil }
        count = persistedValue
    }
    var persistableValue: Int { count }
}

/// Stored as a String; "" (the String default) has no counterpart.
struct MailAddress: FailableCustomPersistable, Hashable {
    typealias PersistedType = String
    let text: String
    init?(persistedValue: String) {
        guard persistedValue.contains("@") else { return nil }
        text = persistedValue
    }
    var persistableValue: String { text }
}

final class MissingDefaultTally: Object {
    @Persisted var count: NonZeroCount
    @Persisted var mail: MailAddress
    @Persisted var note = ""
}

@Suite("a property without a default value")
struct MissingDefaultTests {
    static func realm(_ name: String) throws -> Realm {
        var configuration = tempConfig(name)
        configuration.objectTypes = [MissingDefaultTally.self]
        return try Realm(configuration: configuration)
    }

    @Test func makingTheObjectWorksAndSettingGivesAValue() throws {
        for _ in 0..<100 { _ = MissingDefaultTally() }  // made and dropped without a value
        let tally = MissingDefaultTally()
        tally.count = NonZeroCount(3)
        tally.mail = try #require(MailAddress(persistedValue: "a@b"))
        #expect(tally.count.count == 3 && tally.mail.text == "a@b")
        let realm = try Self.realm("missing-default-set")
        try realm.write { realm.add(tally) }
        #expect(realm.objects(MissingDefaultTally.self).first?.count.count == 3)
    }

    @Test func readingThePropertyStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = MissingDefaultTally().count
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("Strata: invalidArgument:") && message.contains("NonZeroCount"))
    }

    @Test func storingTheObjectFailsTheWrite() throws {
        let realm = try Self.realm("missing-default-add")
        let tally = MissingDefaultTally()
        tally.count = NonZeroCount(1)  // `mail` still has no value
        #expect { try realm.write { realm.add(tally) } } throws: { error in
            let e = error as? Realm.Error
            return e?.code == .invalidArgument && e?.message.contains("'mail'") == true
        }
        #expect { try realm.write { realm.create(MissingDefaultTally.self) } } throws: {
            ($0 as? Realm.Error)?.code == .invalidArgument
        }
        #expect(realm.objects(MissingDefaultTally.self).isEmpty)
        try realm.write { realm.create(MissingDefaultTally.self, value: ["count": 2, "mail": "c@d"]) }
        #expect(realm.objects(MissingDefaultTally.self).first?.mail.text == "c@d")
    }

    @Test func theDefaultSchemaListsTheClass() throws {
        let realm = try Realm(configuration: tempConfig("missing-default-schema"))
        let schema = try #require(realm.schema["MissingDefaultTally"])
        #expect(schema.properties.map(\.name) == ["count", "mail", "note"])
    }
}
