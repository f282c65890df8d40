// Results.filter / where / sorted / distinct wired to the query engine, over managed objects.
import Foundation
import Testing
import Strata
import StrataTestSupport

@Suite struct ResultsQueryTests {
    func seeded() throws -> Realm {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            let ann = Person(value: ["name": "Ann"])
            let bob = Person(value: ["name": "Bob"])
            for (i, name) in ["Rex", "rover", "Fido", "Max", "Rambo"].enumerated() {
                let d = Dog(value: ["id": "\(i)", "name": name, "age": i + 1])
                d.owner = i % 2 == 0 ? ann : bob
                realm.add(d)
            }
        }
        return realm
    }

    @Test func stringQueriesWithArguments() throws {
        let realm = try seeded()
        let dogs = realm.objects(Dog.self)
        let r = dogs.filter("age > %@ AND name BEGINSWITH[c] %@", 2, "r")
        #expect(r.count == 1)
        #expect(r.first?.name == "Rambo")
        #expect(dogs.filter("owner.name == 'Ann'").count == 3)
        #expect(dogs.filter("age IN %@", [1, 3, 9]).map(\.name) == ["Rex", "Fido"])
        #expect(dogs.filter("age BETWEEN {2, 4}").sum(ofProperty: "age") == 9)
        #expect(dogs.filter("age > 1").filter("age < 4").count == 2, "filters chain")
    }

    @Test func typedWhere() throws {
        let realm = try seeded()
        let r = realm.objects(Dog.self).where { $0.age > 2 && $0.name.starts(with: "R") }
        #expect(r.map(\.name) == ["Rambo"])
        #expect(realm.objects(Person.self).where { $0.pets.age > 4 }.map(\.name) == ["Ann"])
    }

    @Test func sortingAndDistinct() throws {
        let realm = try seeded()
        let byName = realm.objects(Dog.self).sorted(byKeyPath: "name")
        #expect(byName.map(\.name) == ["Fido", "Max", "Rambo", "Rex", "rover"])
        let byAgeDesc = realm.objects(Dog.self).sorted(by: [SortDescriptor(keyPath: "age", ascending: false)])
        #expect(byAgeDesc.first?.age == 5)
        #expect(realm.objects(Dog.self).sorted(byKeyPath: "owner.name").first?.owner?.name == "Ann")
        #expect(realm.objects(Dog.self).distinct(by: ["owner"]).count == 2)
    }

    // An object a distinct path does not reach (a nil link on the way) is left out, as in Realm;
    // a nil value at the end of the path is a value like any other. Before, the unreached object
    // was kept as if its value were nil.
    @Test func distinctLeavesOutObjectsThePathDoesNotReach() throws {
        let realm = try seeded()
        try realm.write {
            realm.add(Dog(value: ["id": "10", "name": "Stray", "age": 1]))  // no owner
            realm.add(Dog(value: ["id": "11", "name": "Lost", "age": 2]))   // no owner
        }
        let byOwnerName = realm.objects(Dog.self).distinct(by: ["owner.name"])
        #expect(byOwnerName.map(\.name) == ["Rex", "rover"])
        #expect(realm.objects(Dog.self).distinct(by: ["owner"]).count == 3, "a nil link itself is a value")
        #expect(realm.objects(Dog.self).distinct(by: ["owner.name", "age"]).count == 5)
    }

    @Test func filteredResultsAreLive() throws {
        let realm = try seeded()
        let old = realm.objects(Dog.self).filter("age >= 4")
        #expect(old.count == 2)
        try realm.write { realm.add(Dog(value: ["id": "9", "name": "Zed", "age": 10])) }
        #expect(old.count == 3)
    }

    @Test func badQueriesAreTypedErrors() throws {
        let realm = try seeded()
        let dogs = realm.objects(Dog.self)
        #expect { _ = try dogs.filtering("age >", []) } throws: { ($0 as? Realm.Error)?.queryError?.kind == .syntax }
        #expect { _ = try dogs.filtering("nope == 1", []) } throws: { ($0 as? Realm.Error)?.queryError?.kind == .unknownProperty }
        #expect { _ = try dogs.filtering("age == %@", []) } throws: { ($0 as? Realm.Error)?.queryError?.kind == .argumentCount }
        #expect { _ = try dogs.filtering("age == %@", [NSObject()]) } throws: { ($0 as? Realm.Error)?.code == .invalidArgument }
    }
}
