// Key-value coding on collections: one array of each element's value, set on every object, and
// isEqual as the collections' ==.
import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("Key-value coding on collections")
struct CollectionKeyValueCodingTests {
    private func realmWithDogs() throws -> (Realm, Person) {
        let realm = try Realm(configuration: memoryConfig())
        let tim = Person()
        tim.name = "Tim"
        try realm.write {
            realm.add(tim)
            for (id, name, owned) in [("1", "Rex", true), ("2", "Fido", false), ("3", "Max", true)] {
                let dog = Dog()
                dog.id = id
                dog.name = name
                dog.age = Int(id)!
                if owned { dog.owner = tim }
                realm.add(dog)
                if owned { tim.dogs.append(dog) }
            }
        }
        return (realm, tim)
    }

    @Test func valuesComeAsOneArrayInOrder() throws {
        let (realm, tim) = try realmWithDogs()
        #expect(tim.dogs.value(forKey: "name") as? [String] == ["Rex", "Max"])
        let dogs = realm.objects(Dog.self).sorted(byKeyPath: "id")
        #expect(dogs.value(forKey: "age") as? [Int] == [1, 2, 3])
        // A nil on the way is nil, so positions do not shift, and the array reads as optionals
        // (as RealmSwift's does on Apple platforms, where Foundation turns NSNull into nil).
        let owners = try #require(dogs.value(forKeyPath: "owner.name") as? [Any?])
        #expect(owners.count == 3 && owners[0] as? String == "Tim" && owners[1] == nil && owners[2] as? String == "Tim")
        #expect(dogs.value(forKeyPath: "owner.name") as? [String?] == ["Tim", nil, "Tim"])
        #expect(dogs.value(forKey: "owner") as? [Person?] != nil)
        #expect((dogs.value(forKey: "owner") as? [Person?])?.map { $0?.name } == ["Tim", nil, "Tim"])
        #expect((dogs.value(forKey: "self") as? [Dog])?.map(\.name) == ["Rex", "Fido", "Max"])
        #expect(tim.tags.value(forKey: "self") as? [String] == [])
        let unmanaged = List<Int>()
        unmanaged.append(objectsIn: [4, 5])
        #expect(unmanaged.value(forKey: "self") as? [Int] == [4, 5])
    }

    @Test func aSetGivesItsValuesAsASet() throws {
        let (realm, _) = try realmWithDogs()
        let profile = Profile()
        try realm.write {
            realm.add(profile)
            profile.friends.insert(objectsIn: realm.objects(Dog.self))
            for dog in profile.friends { dog.age = dog.name == "Max" ? 1 : dog.age }
        }
        let friends = profile.friends
        // The `Any?` forms give a set of the distinct values, as RealmSwift gives an NSSet.
        #expect(friends.value(forKey: "age") as Any? as? Set<Int> == [1, 2])
        #expect(friends.value(forKeyPath: "name") as? Set<String> == ["Rex", "Fido", "Max"])
        #expect(AnyRealmCollection(friends).value(forKey: "age") as? Set<Int> == [1, 2])
        // The array form gives each distinct value once.
        let ages = friends.value(forKey: "age") as [AnyObject]
        #expect(ages.count == 2 && Set(ages.compactMap { $0 as? Int }) == [1, 2])
        // Collection operators read every element, duplicates included.
        #expect((friends.value(forKeyPath: "@count") as? NSNumber)?.intValue == 3)
        #expect((friends.value(forKeyPath: "@sum.age") as? NSNumber)?.intValue == 4)
        #expect((friends.value(forKeyPath: "@max.age") as? NSNumber)?.intValue == 2)
        // A list keeps one value per element, in order.
        let tim = try #require(realm.objects(Person.self).first)
        try realm.write { tim.dogs.append(tim.dogs[0]) }
        #expect(tim.dogs.value(forKey: "name") as? [String] == ["Rex", "Max", "Rex"])
    }

    @Test func setValueSetsEveryObject() throws {
        let (realm, tim) = try realmWithDogs()
        try realm.write { tim.dogs.setValue(9, forKey: "age") }
        #expect(realm.objects(Dog.self).sorted(byKeyPath: "id").map(\.age) == [9, 2, 9])
        // Setting the property a Results filters on changes the Results, not the objects set.
        let young = realm.objects(Dog.self).filter("age < 5")
        try realm.write { young.setValue(7, forKey: "age") }
        #expect(realm.objects(Dog.self).map(\.age).sorted() == [7, 9, 9])
        // A bad value fails the write as a whole.
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.objects(Dog.self).setValue("old", forKey: "age") }
        }
        #expect(realm.objects(Dog.self).map(\.age).sorted() == [7, 9, 9])
    }

    @Test func isEqualIsTheSameCollection() throws {
        let (realm, tim) = try realmWithDogs()
        #expect(tim.dogs.isEqual(tim.dogs) && !tim.dogs.isEqual(nil) && !tim.dogs.isEqual("dogs"))
        let other = Person()
        try realm.write { realm.add(other) }
        #expect(!tim.dogs.isEqual(other.dogs))
    }
}
