// `create` ignores dictionary keys that name no property, as RealmSwift's does (one dictionary may
// describe several classes), for a new object and for an update alike.
import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite struct CreateUnknownKeyTests {
    @Test func keysThatNameNoPropertyAreIgnored() throws {
        var configuration = memoryConfig()
        configuration.objectTypes = [Dog.self, Person.self]
        let realm = try Realm(configuration: configuration)
        let shared: [String: Any] = ["id": "rex", "name": "Rex", "age": 3, "dogs": [], "wingspan": 1.5]
        try realm.write {
            realm.create(Dog.self, value: shared)
            realm.create(Person.self, value: shared)
        }
        let dog = try #require(realm.object(ofType: Dog.self, forPrimaryKey: "rex"))
        #expect(dog.name == "Rex" && dog.age == 3)
        #expect(realm.objects(Person.self).first?.name == "Rex")
        try realm.write { realm.create(Dog.self, value: ["id": "rex", "age": 4, "wingspan": 2.0], update: .modified) }
        #expect(dog.age == 4 && dog.name == "Rex")
    }
}
