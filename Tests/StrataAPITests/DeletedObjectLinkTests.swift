// A link to a deleted object is refused: setting one on a to-one property, adding one to a list,
// a set or a map, or storing one in an `AnyRealmValue` stops with a `Strata:` message, as RealmSwift raises.
// Before, the link was stored and committed, naming a row that no longer existed, and the file
// failed verification. Objects that link to each other before `add` (a cycle) still go in.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class DeletedLinkDog: Object {
    @Persisted var name = ""
    @Persisted var owner: DeletedLinkOwner?
}

final class DeletedLinkOwner: Object {
    @Persisted var dog: DeletedLinkDog?
    @Persisted var dogs: List<DeletedLinkDog>
    @Persisted var dogSet: MutableSet<DeletedLinkDog>
    @Persisted var dogsByName: Map<String, DeletedLinkDog?>
    @Persisted var anything: AnyRealmValue
}

@Suite("Linking a deleted object")
struct DeletedObjectLinkTests {
    /// A realm of this suite's classes in a new file (exit tests make their own: they capture nothing).
    static func realm(_ name: String) throws -> Realm {
        var configuration = tempConfig(name)
        configuration.objectTypes = [DeletedLinkDog.self, DeletedLinkOwner.self]
        return try Realm(configuration: configuration)
    }

    private static func stopMessage(_ result: ExitTest.Result) -> String {
        String(decoding: result.standardErrorContent, as: UTF8.self)
    }

    @Test func settingADeletedObjectStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try DeletedObjectLinkTests.realm("deleted-to-one")
            try realm.write {
                let dog = realm.create(DeletedLinkDog.self, value: ["name": "Rex"])
                let owner = realm.create(DeletedLinkOwner.self)
                realm.delete(dog)
                owner.dog = dog
            }
        }
        #expect(Self.stopMessage(result).contains("Strata: objectInvalidated: this 'DeletedLinkDog' object was deleted or invalidated and cannot be linked"))
    }

    @Test func appendingADeletedObjectStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try DeletedObjectLinkTests.realm("deleted-list")
            let dog = try realm.write { realm.create(DeletedLinkDog.self, value: ["name": "Rex"]) }
            try realm.write { realm.delete(dog) }
            try realm.write { realm.create(DeletedLinkOwner.self).dogs.append(dog) }
        }
        #expect(Self.stopMessage(result).contains("Strata: objectInvalidated: this 'DeletedLinkDog' object was deleted or invalidated and cannot be linked"))
    }

    @Test func addingADeletedObjectToASetOrAMapStops() async throws {
        let set = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try DeletedObjectLinkTests.realm("deleted-set")
            try realm.write {
                let dog = realm.create(DeletedLinkDog.self, value: ["name": "Rex"])
                let owner = realm.create(DeletedLinkOwner.self)
                realm.delete(dog)
                owner.dogSet.insert(dog)
            }
        }
        #expect(Self.stopMessage(set).contains("Strata: objectInvalidated: this 'DeletedLinkDog' object was deleted or invalidated and cannot be linked"))
        let map = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try DeletedObjectLinkTests.realm("deleted-map")
            try realm.write {
                let dog = realm.create(DeletedLinkDog.self, value: ["name": "Rex"])
                let owner = realm.create(DeletedLinkOwner.self)
                realm.delete(dog)
                owner.dogsByName["rex"] = dog
            }
        }
        #expect(Self.stopMessage(map).contains("Strata: objectInvalidated: this 'DeletedLinkDog' object was deleted or invalidated and cannot be linked"))
    }

    @Test func storingADeletedObjectInAnAnyRealmValueStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try DeletedObjectLinkTests.realm("deleted-mixed")
            try realm.write {
                let dog = realm.create(DeletedLinkDog.self, value: ["name": "Rex"])
                let owner = realm.create(DeletedLinkOwner.self)
                realm.delete(dog)
                owner.anything = .object(dog)
            }
        }
        #expect(Self.stopMessage(result).contains("Strata: objectInvalidated: this 'DeletedLinkDog' object was deleted or invalidated and cannot be linked"))
    }

    @Test func objectsLinkedBothWaysBeforeAddGoIn() throws {
        var configuration = tempConfig("cycle")
        configuration.objectTypes = [DeletedLinkDog.self, DeletedLinkOwner.self]
        let realm = try Realm(configuration: configuration)
        let owner = DeletedLinkOwner(), dog = DeletedLinkDog()
        dog.name = "Rex"
        dog.owner = owner
        owner.dog = dog
        owner.dogs.append(dog)
        owner.anything = .object(dog)
        try realm.write { realm.add(owner) }
        let stored = try #require(realm.objects(DeletedLinkOwner.self).first)
        #expect(stored.dog?.owner?.dog?.name == "Rex" && stored.dogs.first?.owner != nil)
        let file = try StrataFile(path: try #require(configuration.fileURL).path)
        defer { file.close() }
        #expect(file.verify().isEmpty)
    }
}
