// `Schema` equality: the same classes with the same properties, in any order.
import Foundation
import Strata
import Testing

final class Kite: Object {
    @Persisted var colour = ""
}

final class Spool: Object {
    @Persisted var length = 0
}

@Suite("Schema equality")
struct SchemaEqualityTests {
    private func realm(_ types: [Object.Type]) throws -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = types
        return try Realm(configuration: configuration)
    }

    @Test func theSameClassesInAnyOrderAreEqual() throws {
        let one = try realm([Kite.self, Spool.self])
        let other = try realm([Spool.self, Kite.self])
        #expect(one.schema == other.schema)
        #expect(one.schema == one.schema)
    }

    @Test func anotherSetOfClassesIsNot() throws {
        #expect(try realm([Kite.self]).schema != (try realm([Kite.self, Spool.self])).schema)
    }
}
