// ThreadSafeReference to lists, sets, maps and realms: resolved on another thread as the same
// stored collection (at the version the resolving realm reads), once; nil when the owner is gone.
import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("ThreadSafeReference to collections and realms")
struct ThreadSafeCollectionReferenceTests {
    private func fileConfig() -> Realm.Configuration {
        var config = tempConfig("handover")
        config.objectTypes = [Person.self, Dog.self, Profile.self]
        return config
    }

    @Test func aListIsResolvedOnAnotherThreadAsTheSameStoredList() throws {
        let config = fileConfig()
        let realm = try Realm(configuration: config)
        let tim = Person()
        tim.name = "Tim"
        tim.tags.append(objectsIn: ["a", "b"])
        try realm.write { realm.add(tim) }
        let reference = ThreadSafeReference(to: tim.tags)
        // A commit made after the reference: a realm that reads nothing yet resolves at the
        // reference's version, and sees the commit once it refreshes (or writes).
        try realm.write { tim.tags.append("c") }
        let seen = LockedBox<[[String]]>([])
        try runOnNewThread {
            guard let other = try? Realm(configuration: config), let tags = other.resolve(reference) else { return }
            let before = Array(tags)
            other.refresh()
            seen.set([before, Array(tags)])
            try? other.write { tags.append("from the other thread") }
        }
        #expect(seen.get() == [["a", "b"], ["a", "b", "c"]])
        #expect(reference.isInvalidated)
        realm.refresh()
        #expect(Array(tim.tags) == ["a", "b", "c", "from the other thread"])
    }

    @Test func setsAndMapsAreResolved() throws {
        let config = fileConfig()
        let realm = try Realm(configuration: config)
        let profile = Profile()
        profile.tags.insert(objectsIn: ["x", "y"])
        profile.scores["math"] = 9
        try realm.write { realm.add(profile) }
        let tags = ThreadSafeReference(to: profile.tags)
        let scores = ThreadSafeReference(to: profile.scores)
        let seen = LockedBox<(Set<String>, Int?)?>(nil)
        try runOnNewThread {
            guard let other = try? Realm(configuration: config),
                  let t = other.resolve(tags), let s = other.resolve(scores) else { return }
            seen.set((Set(t), s["math"]))
        }
        #expect(seen.get()?.0 == ["x", "y"] && seen.get()?.1 == 9)
    }

    @Test func aCollectionWhoseOwnerWasDeletedResolvesToNil() throws {
        let config = fileConfig()
        let realm = try Realm(configuration: config)
        let tim = Person()
        try realm.write { realm.add(tim) }
        let reference = ThreadSafeReference(to: tim.dogs)
        try realm.write { realm.delete(tim) }
        let resolved = LockedBox(true)
        try runOnNewThread {
            guard let other = try? Realm(configuration: config) else { return }
            // Read first: a realm that reads nothing yet resolves at the reference's version,
            // where the object still exists; this one reads the version that deleted it.
            _ = other.objects(Person.self).count
            resolved.set(other.resolve(reference) != nil)
        }
        #expect(resolved.get() == false)
    }

    @Test func aRealmHandsOver() throws {
        let config = fileConfig()
        let realm = try Realm(configuration: config)
        let realmReference = ThreadSafeReference(to: realm)
        let path = LockedBox<String?>(nil)
        try runOnNewThread {
            guard let other = try? Realm(configuration: config), let resolved = other.resolve(realmReference) else { return }
            path.set(resolved.configuration.fileURL?.path)
        }
        #expect(path.get() == config.fileURL?.path)
    }
}

final class DogHolder: @unchecked Sendable {
    @ThreadSafe var dog: Dog?
    @ThreadSafe var dogs: List<Dog>?
}

@Suite("@ThreadSafe")
struct ThreadSafeWrapperTests {
    @Test func aThreadSafePropertyReadsOnAnyThreadAnyNumberOfTimes() throws {
        var config = tempConfig("threadsafe")
        config.objectTypes = [Person.self, Dog.self]
        let realm = try Realm(configuration: config)
        let rex = Dog()
        rex.id = "rex"
        rex.name = "Rex"
        let tim = Person()
        try realm.write {
            realm.add(rex)
            tim.dogs.append(rex)
            realm.add(tim)
        }
        let holder = DogHolder()
        holder.dog = rex
        holder.dogs = tim.dogs
        #expect(holder.dog?.name == "Rex" && holder.dog?.name == "Rex")  // twice on this thread
        let seen = LockedBox<[String?]>([])
        try runOnNewThread {
            seen.set([holder.dog?.name, holder.dog?.id, holder.dogs?.first?.name])
        }
        #expect(seen.get() == ["Rex", "rex", "Rex"])
        try realm.write { realm.delete(rex) }
        let afterDelete = LockedBox<Bool>(true)
        // Read twice: a deleted value stays nil (its spent reference is not resolved again). The
        // thread's realm reads the newest version first: one that reads nothing yet would resolve
        // at the version of the reference the last read left, where Rex still exists.
        let configuration = config
        try runOnNewThread {
            let current = try? Realm(configuration: configuration)
            _ = current?.objects(Dog.self).count
            afterDelete.set(holder.dog != nil || holder.dog != nil)
        }
        #expect(afterDelete.get() == false)
        holder.dog = nil
        #expect(holder.dog == nil && holder.dogs?.count == 0)
    }

    @Test func aReferenceToAnUnmanagedOrDeletedValueStops() async {
        await #expect(processExitsWith: .failure) {
            _ = ThreadSafeReference(to: List<Int>())
        }
        await #expect(processExitsWith: .failure) {
            _ = ThreadSafeReference(to: Person())
        }
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "reference-to-deleted"))
            let person = Person()
            try realm.write { realm.add(person) }
            let tags = person.tags
            try realm.write { realm.delete(person) }
            _ = ThreadSafeReference(to: tags)
        }
    }

    @Test func resolvingTwiceStops() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "resolve-twice"))
            let person = Person()
            try realm.write { realm.add(person) }
            let reference = ThreadSafeReference(to: person)
            _ = realm.resolve(reference)
            _ = realm.resolve(reference)
        }
    }
}
