// A query the engine rejects reaches the caller as the library's one error type, `Realm.Error`,
// with the query engine's detail (kind, offset) attached, and leaves the realm usable.
import Foundation
import Strata
import Testing

final class QueriedPet: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
}

@Suite struct RejectedQueryTests {
    private func seeded() throws -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: "rejected-query-\(UUID())")
        configuration.objectTypes = [QueriedPet.self]
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for id in 1...3 { realm.add(QueriedPet(value: ["id": id, "name": "k\(id)", "age": id * 2])) }
        }
        return realm
    }

    private func rejection(_ body: () throws -> Void) -> Realm.Error? {
        do { try body(); return nil } catch { return error as? Realm.Error }
    }

    @Test(arguments: [
        ("age >", QueryError.Kind.syntax, 5),
        ("nope == 1", .unknownProperty, 0),
        ("name > 3", .typeMismatch, nil),
        ("age == %@", .argumentCount, 7),
    ] as [(String, QueryError.Kind, Int?)])
    func aRejectedQueryIsARealmErrorWithTheQueryDetail(text: String, kind: QueryError.Kind, offset: Int?) throws {
        let realm = try seeded()
        let error = try #require(rejection { _ = try realm.objects(QueriedPet.self).filtering(text, []) })
        #expect(error.code == .invalidQuery)
        #expect(error.queryError?.kind == kind)
        if let offset { #expect(error.queryError?.offset == offset) }
        #expect(error.message.contains("\(kind)"))
        #expect(error.storageError == nil)
        // Nothing was spent: the same results still answer queries.
        #expect(realm.objects(QueriedPet.self).filter("age >= 4").count == 2)
    }

    @Test func anArgumentNoQueryCanUseIsAnInvalidArgument() throws {
        let realm = try seeded()
        let error = try #require(rejection { _ = try realm.objects(QueriedPet.self).filtering("age == %@", [NSObject()]) })
        #expect(error.code == .invalidArgument)
        #expect(error.queryError == nil)
    }

    @Test func aValidQueryThroughTheThrowingFormMatchesTheOtherForm() throws {
        let realm = try seeded()
        let thrown = try realm.objects(QueriedPet.self).filtering("age > %@ AND name BEGINSWITH %@", [2, "k"])
        let trapped = realm.objects(QueriedPet.self).filter("age > %@ AND name BEGINSWITH %@", 2, "k")
        #expect(thrown.map(\.id) == [2, 3])
        #expect(trapped.map(\.id) == thrown.map(\.id))
    }
}
