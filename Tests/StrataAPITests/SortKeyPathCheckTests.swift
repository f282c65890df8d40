// Sort and distinct key paths are checked when the results are made, as RealmSwift checks them:
// an unknown property, a step through a list, or a key path ending on a collection (or, for a
// sort, on a link) stops with a `Strata:` message naming the key path, before any object is read.
import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("Sort and distinct key paths are checked at once")
struct SortKeyPathCheckTests {
    private static func stopMessage(_ result: ExitTest.Result) -> String {
        String(decoding: result.standardErrorContent, as: UTF8.self)
    }

    static func dogs() throws -> Results<Dog> {
        try Realm(configuration: memoryConfig()).objects(Dog.self)
    }

    @Test func anUnknownPropertyStops() async throws {
        let sorted = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try SortKeyPathCheckTests.dogs().sorted(byKeyPath: "noSuchProperty")
        }
        #expect(Self.stopMessage(sorted).contains("Strata: invalidArgument: cannot sort by 'noSuchProperty': 'Dog' has no property 'noSuchProperty'"))
        let described = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try SortKeyPathCheckTests.dogs().sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "owner.noSuchProperty")])
        }
        #expect(Self.stopMessage(described).contains("Strata: invalidArgument: cannot sort by 'owner.noSuchProperty': 'Person' has no property 'noSuchProperty'"))
    }

    @Test func aKeyPathThroughOrOntoACollectionOrALinkStops() async throws {
        let through = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try SortKeyPathCheckTests.dogs().sorted(byKeyPath: "owner.dogs.name")
        }
        #expect(Self.stopMessage(through).contains("Strata: invalidArgument: cannot sort by 'owner.dogs.name': 'Person.dogs' is a list, and a key path goes on only through a to-one link"))
        let onto = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try SortKeyPathCheckTests.dogs().sorted(byKeyPath: "owner")
        }
        #expect(Self.stopMessage(onto).contains("Strata: invalidArgument: cannot sort by 'owner': 'Dog.owner' holds a link, not one value per object"))
        let ontoList = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: memoryConfig()).objects(Person.self).distinct(by: ["dogs"])
        }
        #expect(Self.stopMessage(ontoList).contains("Strata: invalidArgument: cannot distinct by 'dogs': 'Person.dogs' holds a list, not one value per object"))
        let aggregate = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try SortKeyPathCheckTests.dogs().distinct(by: ["@count"])
        }
        #expect(Self.stopMessage(aggregate).contains("Strata: invalidArgument: cannot distinct by '@count': 'Dog' has no property '@count'"))
    }

    @Test func keyPathsThroughToOneLinksSortAndDistinct() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            let ada = realm.create(Person.self, value: ["name": "Ada"])
            let tim = realm.create(Person.self, value: ["name": "Tim"])
            realm.create(Dog.self, value: ["id": "rex", "name": "Rex", "age": 3, "owner": tim])
            realm.create(Dog.self, value: ["id": "bo", "name": "Bo", "age": 3, "owner": ada])
            realm.create(Dog.self, value: ["id": "fido", "name": "Fido", "age": 5, "owner": ada])
        }
        let dogs = realm.objects(Dog.self)
        #expect(dogs.sorted(by: [SortDescriptor(keyPath: "owner.name"), SortDescriptor(keyPath: "name")]).map(\.id) == ["bo", "fido", "rex"])
        #expect(dogs.sorted(byKeyPath: "age").distinct(by: ["age"]).count == 2)
        #expect(dogs.distinct(by: ["owner.name"]).count == 2 && dogs.distinct(by: ["owner"]).count == 2)
    }
}
