// Key paths through links and embedded objects name the dotted property path (RealmSwift's
// `_name(for:)`), and sorting and distinct take them as they take the string form.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class KPCity: Object {
    @Persisted var name = ""
}

final class KPAddress: EmbeddedObject {
    @Persisted var street = ""
    @Persisted var city: KPCity?
}

final class KPPerson: Object {
    @Persisted var name = ""
    @Persisted var address: KPAddress?
    @Persisted var friends: List<KPPerson>
    @Persisted(originProperty: "friends") var friendOf: LinkingObjects<KPPerson>
    @Persisted var circle: MutableSet<KPPerson>
    @Persisted var byNickname: Map<String, KPPerson?>
    var nickname: String { "the " + name }
}

@Suite("Key path names")
struct KeyPathNameTests {
    @Test func namesFollowLinksAndEmbeddedObjects() {
        #expect(_name(for: \Dog.name) == "name")
        #expect(_name(for: \Dog.owner) == "owner")
        #expect(_name(for: \Dog.owner?.name) == "owner.name")
        #expect(_name(for: \Dog.owner?.picture) == "owner.picture")
        #expect(_name(for: \Person.dogs) == "dogs")
        #expect(_name(for: \Contact.address?.city) == "address.city")
        #expect(_name(for: \KPPerson.address?.city?.name) == "address.city.name")
        #expect(_name(for: \KPPerson.address?.city) == "address.city")
    }

    @Test func namesGoThroughAnElementOfAListOfObjects() {
        #expect(_name(for: \KPPerson.friends[0].name) == "friends.name")
        #expect(_name(for: \KPPerson.friends[0].address?.city?.name) == "friends.address.city.name")
        #expect(_name(for: \KPPerson.friends[0].friends) == "friends.friends")
        #expect(_name(for: \KPPerson.friends) == "friends")
    }

    @Test func namesGoThroughAnElementOfLinkingObjects() {
        #expect(_name(for: \KPPerson.friendOf[0].name) == "friendOf.name")
        #expect(_name(for: \KPPerson.friends[0].friendOf[0].address?.city?.name) == "friends.friendOf.address.city.name")
        #expect(_name(for: \KPPerson.friendOf) == "friendOf")
    }

    @Test func namesGoThroughAnElementOfASetOrAMapOfObjects() {
        #expect(_name(for: \KPPerson.circle[0].name) == "circle.name")
        #expect(_name(for: \KPPerson.byNickname[""]??.name) == "byNickname.name")
        #expect(_name(for: \KPPerson.circle[0].byNickname["x"]??.friendOf[0].name) == "circle.byNickname.friendOf.name")
    }

    @Test func keyPathsThatReadNoPersistedPropertyHaveNoName() {
        #expect(_name(for: \KPPerson.nickname) == "")
        #expect(_name(for: \AllTypes.notPersisted) == "")
        #expect(_name(for: \KPPerson.address?.city?.name.count) == "")
        #expect(_strataPropertyName(for: \KPPerson.address?.street) == "address")
    }

    @Test func sortingAndDistinctFollowLinks() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            for (name, city) in [("Ann", "Oslo"), ("Bob", "Bergen"), ("Cy", "Oslo"), ("Di", "Alta")] {
                let person = KPPerson()
                person.name = name
                let address = KPAddress()
                let c = KPCity()
                c.name = city
                address.city = c
                person.address = address
                realm.add(person)
            }
        }
        let people = realm.objects(KPPerson.self)
        #expect(people.sorted(by: \.address?.city?.name).map(\.name) == people.sorted(byKeyPath: "address.city.name").map(\.name))
        #expect(people.sorted(by: \.address?.city?.name, ascending: false).first?.address?.city?.name == "Oslo")
        #expect(people.sorted(by: [SortDescriptor(keyPath: \KPPerson.address?.city?.name)]).first?.name == "Di")
        #expect(Set(people.distinct(by: [\.address?.city?.name]).compactMap { $0.address?.city?.name }) == ["Oslo", "Bergen", "Alta"])
        #expect(people.distinct(by: [\.address?.city?.name]).count == 3)
    }

    @Test func observingAKeyPathThroughALinkWatchesTheLinkedProperty() throws {
        let realm = try Realm(configuration: memoryConfig())
        let owner = Person()
        owner.name = "Tim"
        try realm.write {
            let dog = Dog()
            dog.id = "rex"
            dog.owner = owner
            realm.add(dog)
        }
        var modified: [[Int]] = []
        let token = realm.objects(Dog.self).observe(keyPaths: [\.owner?.name]) { change in
            if case .update(_, _, _, let modifications) = change, !modifications.isEmpty { modified.append(modifications) }
        }
        defer { token.invalidate() }
        try realm.write { realm.objects(Dog.self)[0].age = 3 }
        try realm.write { owner.name = "Tom" }
        #expect(modified == [[0]])
    }
}

@Suite("ObjectSchema.objectClass")
struct ObjectClassTests {
    @Test func theSchemaNamesItsModelClass() throws {
        var configuration = memoryConfig()
        configuration.objectTypes = [Dog.self, Person.self]
        let realm = try Realm(configuration: configuration)
        let dog = try #require(realm.schema["Dog"])
        #expect(ObjectIdentifier(dog.objectClass) == ObjectIdentifier(Dog.self))
        #expect(ObjectIdentifier(try #require(realm.schema["Person"]).objectClass) == ObjectIdentifier(Person.self))
        let unknown = ObjectSchema(className: "NoSuchClassInThisProcess", properties: [])
        #expect(ObjectIdentifier(unknown.objectClass) == ObjectIdentifier(Object.self))
    }
}
