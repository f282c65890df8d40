// `add` makes an object's unmanaged List, MutableSet and Map the accessors of what it stored, as
// Realm does: a reference taken before `add` reads the realm and writes into it.
import Foundation
import Testing
import Strata
import StrataTestSupport

@Suite struct AddAdoptsCollectionsTests {
    @Test func aListTakenBeforeAddWritesIntoTheRealm() throws {
        let realm = try Realm(configuration: tempConfig())
        let person = Person()
        person.tags.append("a")
        person.dogs.append(Dog(value: ["id": "1", "name": "Rex"]))
        let tags = person.tags, dogs = person.dogs
        #expect(tags.realm == nil)
        try realm.write { realm.add(person) }
        #expect(tags.realm != nil)
        #expect(dogs.realm != nil)
        #expect(Array(tags) == ["a"])
        #expect(dogs.map(\.id) == ["1"])
        try realm.write {
            tags.append("b")
            dogs.append(Dog(value: ["id": "2", "name": "Fido"]))
        }
        let stored = try #require(realm.objects(Person.self).first)
        #expect(Array(stored.tags) == ["a", "b"])
        #expect(stored.dogs.map(\.id) == ["1", "2"])
        // Both references see changes made through the object.
        try realm.write { stored.tags.remove(at: 0) }
        #expect(Array(tags) == ["b"])
        #expect(Array(person.tags) == ["b"])
    }

    @Test func aSetAndAMapTakenBeforeAddWriteIntoTheRealm() throws {
        let realm = try Realm(configuration: tempConfig())
        let profile = Profile()
        profile.tags.insert("x")
        profile.scores["one"] = 1
        profile.friends.insert(Dog(value: ["id": "d", "name": "Rex"]))
        let tags = profile.tags, scores = profile.scores, friends = profile.friends
        try realm.write { realm.add(profile) }
        #expect(tags.realm != nil && scores.realm != nil && friends.realm != nil)
        try realm.write {
            tags.insert("y")
            scores["two"] = 2
            friends.insert(Dog(value: ["id": "e", "name": "Fido"]))
        }
        let stored = try #require(realm.objects(Profile.self).first)
        #expect(Set(stored.tags) == ["x", "y"])
        #expect(stored.scores["one"] == 1 && stored.scores["two"] == 2 && stored.scores.count == 2)
        #expect(Set(stored.friends.map(\.id)) == ["d", "e"])
    }

    @Test func theChangesSurviveReopeningTheFile() throws {
        let config = tempConfig()
        let tags: List<String>
        do {
            let realm = try Realm(configuration: config)
            let person = Person()
            tags = person.tags
            try realm.write { realm.add(person) }
            try realm.write { tags.append(contentsOf: ["kept", "too"]) }
        }
        let reopened = try Realm(configuration: config)
        #expect(reopened.objects(Person.self).map { Array($0.tags) } == [["kept", "too"]])
        #expect(Array(tags) == ["kept", "too"])
    }

    @Test func aListSharedByTwoUnmanagedObjectsIsCopiedIntoTheSecond() throws {
        let realm = try Realm(configuration: tempConfig())
        let first = Person(), second = Person()
        first.name = "first"
        second.name = "second"
        first.tags.append("shared")
        second.tags = first.tags
        let shared = first.tags
        try realm.write { realm.add([first, second]) }
        // The instance now belongs to the first object's list; the second stored a copy.
        try realm.write { shared.append("first only") }
        let byName = Dictionary(uniqueKeysWithValues: realm.objects(Person.self).map { ($0.name, Array($0.tags)) })
        #expect(byName["first"] == ["shared", "first only"])
        #expect(byName["second"] == ["shared"])
    }

    @Test func aCancelledAddLeavesTheAdoptedListInvalidated() throws {
        let realm = try Realm(configuration: tempConfig())
        let person = Person()
        person.tags.append("a")
        let tags = person.tags
        realm.beginWrite()
        realm.add(person)
        realm.cancelWrite()
        #expect(person.isInvalidated)
        #expect(tags.isInvalidated)
        #expect(realm.objects(Person.self).isEmpty)
    }
}
