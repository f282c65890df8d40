// The model of Strata.docc's "Models" article, as it shows it (in a namespace: its `Dog` and
// `Address` are not the other examples'), used the way the article describes each property.
import Foundation
import Strata
import Testing

enum ModelsExample {
    final class Person: Object {
        @Persisted(primaryKey: true) var id = UUID()
        @Persisted(indexed: true) var name = ""
        @Persisted var born = Date.distantPast
        @Persisted var photo: Data?
        @Persisted var dogs: List<Dog>              // ordered to-many links
        @Persisted var tags: MutableSet<String>     // unordered, no duplicates
        @Persisted var scores: Map<String, Int>     // string keys
        @Persisted var address: Address?            // an embedded object
        @Persisted var bestFriend: Person?          // a to-one link
    }

    final class Dog: Object {
        @Persisted var name = ""
        @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
    }

    final class Address: EmbeddedObject {
        @Persisted var street = ""
        @Persisted var city = ""
    }
}

extension ModelsExample {
    @Suite struct ExampleTests {
        @Test func everyKindOfPropertyStoresAndReadsBack() throws {
            let directory = try TemporaryDirectory()
            let configuration = Realm.Configuration(fileURL: directory.file("people.realm"),
                                                    objectTypes: [Person.self, Dog.self, Address.self])
            let ada = Person(), bob = Person()
            do {
                let realm = try Realm(configuration: configuration)
                try realm.write {
                    ada.name = "Ada"
                    ada.photo = Data([1, 2, 3])
                    let rex = Dog()
                    rex.name = "Rex"
                    ada.dogs.append(rex)
                    ada.tags.insert(objectsIn: ["a", "b", "a"])
                    ada.scores["chess"] = 3
                    let address = Address()
                    address.city = "Lyon"
                    ada.address = address
                    bob.name = "Bob"
                    bob.dogs.append(rex)
                    ada.bestFriend = bob
                    realm.add(ada)
                }
            }
            let realm = try Realm(configuration: configuration)
            let stored = try #require(realm.object(ofType: Person.self, forPrimaryKey: ada.id))
            #expect(stored.name == "Ada" && stored.born == Date.distantPast && stored.photo == Data([1, 2, 3]))
            #expect(stored.dogs.map(\.name) == ["Rex"])
            #expect(Set(stored.tags) == ["a", "b"])
            #expect(stored.scores["chess"] == 3)
            #expect(stored.address?.city == "Lyon")
            #expect(stored.bestFriend?.name == "Bob")
            let rex = try #require(realm.objects(Dog.self).first)
            #expect(Set(rex.owners.map(\.name)) == ["Ada", "Bob"])
            #expect(realm.objects(Person.self).filter("name == %@", "Bob").count == 1)
        }
    }
}
