// ThreadSafeReference and @ThreadSafe to Results, LinkingObjects and AnyRealmCollection: resolved
// on another thread as the same query (or the same object's links) at the version that realm reads.
import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("ThreadSafeReference to results, links and wrapped collections")
struct ThreadSafeQueryReferenceTests {
    private func filledRealm() throws -> (Realm.Configuration, Realm, Person) {
        var config = tempConfig("query-handover")
        config.objectTypes = [Person.self, Dog.self]
        let realm = try Realm(configuration: config)
        let tim = Person()
        tim.name = "Tim"
        try realm.write {
            realm.add(tim)
            for (name, age) in [("Rex", 3), ("Ace", 9), ("Bo", 1)] {
                let dog = Dog()
                dog.id = name
                dog.name = name
                dog.age = age
                dog.owner = tim
                realm.add(dog)
            }
        }
        return (config, realm, tim)
    }

    @Test func resultsAreTheSameQueryOnTheOtherThread() throws {
        let (config, realm, _) = try filledRealm()
        let adults = realm.objects(Dog.self).filter("age > 2").sorted(byKeyPath: "name")
        let reference = ThreadSafeReference(to: adults)
        // Committed after the reference was made: the resolved results see it once their realm
        // refreshes (it resolves at the reference's version, as it read nothing before).
        try realm.write {
            let dog = Dog()
            dog.id = "Cy"
            dog.name = "Cy"
            dog.age = 5
            realm.add(dog)
        }
        let seen = LockedBox<[[String]]>([])
        try runOnNewThread {
            guard let other = try? Realm(configuration: config), let dogs = other.resolve(reference) else { return }
            let before = Array(dogs.map(\.name))
            other.refresh()
            seen.set([before, Array(dogs.map(\.name))])
        }
        #expect(seen.get() == [["Ace", "Rex"], ["Ace", "Cy", "Rex"]])
        #expect(reference.isInvalidated)
    }

    @Test func linksAndWrappedCollectionsAreResolved() throws {
        let (config, realm, tim) = try filledRealm()
        let pets = ThreadSafeReference(to: tim.pets)
        let wrapped = ThreadSafeReference(to: AnyRealmCollection(realm.objects(Dog.self).filter("age < 5")))
        let seen = LockedBox<(Int, [String])?>(nil)
        try runOnNewThread {
            guard let other = try? Realm(configuration: config),
                  let links = other.resolve(pets), let young = other.resolve(wrapped) else { return }
            seen.set((links.count, young.map(\.name).sorted()))
        }
        #expect(seen.get()?.0 == 3 && seen.get()?.1 == ["Bo", "Rex"])
    }

    @Test func linksOfADeletedObjectResolveToNil() throws {
        let (config, realm, tim) = try filledRealm()
        let pets = ThreadSafeReference(to: tim.pets)
        try realm.write { realm.delete(tim) }
        let resolved = LockedBox(true)
        try runOnNewThread {
            guard let other = try? Realm(configuration: config) else { return }
            // Read first: a realm that reads nothing yet resolves at the reference's version,
            // where the object still exists; this one reads the version that deleted it.
            _ = other.objects(Person.self).count
            resolved.set(other.resolve(pets) != nil)
        }
        #expect(resolved.get() == false)
    }

    @Test func resultsOfValuesCannotBeReferenced() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "values-reference"))
            let person = Person()
            try realm.write {
                realm.add(person)
                person.tags.append(objectsIn: ["b", "a"])
            }
            _ = ThreadSafeReference(to: person.tags.sorted())
        }
    }

    @Test func threadSafeResultsCrossThreads() throws {
        let (config, realm, _) = try filledRealm()
        final class Holder: @unchecked Sendable {
            @ThreadSafe var dogs: Results<Dog>?
        }
        let holder = Holder()
        holder.dogs = realm.objects(Dog.self).filter("age == 9")
        let seen = LockedBox<String?>(nil)
        try runOnNewThread {
            _ = try? Realm(configuration: config)
            seen.set(holder.dogs?.first?.name)
        }
        #expect(seen.get() == "Ace")
    }
}
