// Collection and realm notifications on thread-confined realms (delivery at commit/refresh),
// change-set diffs, key-path filters, tokens and withoutNotifying.
import Foundation
import Synchronization
import Testing
@testable import Strata
import StrataTestSupport

@Suite struct NotificationCollectionTests {
    @Test func diffReportsDeletionsInsertionsModificationsAndMoves() {
        let a: [UInt8] = [1], b: [UInt8] = [2]
        // remove at 0, then modify what is now index 1 → deletion 0, modification 2 (its old index)
        var c = CollectionDiff.diff(old: [10, 11, 12], oldPrints: [a, a, a], new: [11, 12], newPrints: [a, b])
        #expect(c == CollectionChangeSet(deletions: [0], insertions: [], modifications: [2]))
        // a move (12 to the front) is a deletion plus an insertion, never a modification
        c = CollectionDiff.diff(old: [10, 11, 12], oldPrints: [a, a, a], new: [12, 10, 11], newPrints: [b, a, a])
        #expect(c == CollectionChangeSet(deletions: [2], insertions: [0], modifications: []))
        c = CollectionDiff.diff(old: [], oldPrints: [], new: [5, 6], newPrints: [a, a])
        #expect(c == CollectionChangeSet(deletions: [], insertions: [0, 1], modifications: []))
        #expect(CollectionDiff.longestIncreasing([3, 0, 1, 2]) == [false, true, true, true])
    }

    @Test func resultsObserverGetsInitialThenChangeSets() throws {
        let realm = try Realm(configuration: tempConfig())
        let dogs = try addDogs(realm, ["a", "b", "c"])
        let log = ChangeLog<Results<Dog>>()
        let token = realm.objects(Dog.self).observe { log.record($0) }
        #expect(log.initials == 1 && log.updates.isEmpty)
        // one write: delete index 0 and modify what becomes index 1 ("c"), at 2 before the write
        try realm.write {
            realm.delete(dogs[0])
            dogs[2].age = 7
        }
        #expect(log.updates.count == 1)
        #expect(log.updates.last?.deletions == [0])
        #expect(log.updates.last?.insertions == [])
        #expect(log.updates.last?.modifications == [2])
        _ = try addDogs(realm, ["d"])
        #expect(log.updates.last?.insertions == [2])
        // a commit that changes nothing observed reports nothing
        try realm.write { realm.create(ToDoItemStub.self) }
        #expect(log.updates.count == 2)
        token.invalidate()
        try realm.write { dogs[1].age = 9 }
        #expect(log.updates.count == 2)
        #expect(log.errors.isEmpty)
    }

    @Test func filteredAndSortedResultsReportIndicesOfTheirOwnOrder() throws {
        let realm = try Realm(configuration: tempConfig())
        let dogs = try addDogs(realm, ["a", "b", "c"])
        let log = ChangeLog<Results<Dog>>()
        let results = realm.objects(Dog.self).filter("age > 0").sorted(byKeyPath: "name", ascending: false)
        let token = results.observe { log.record($0) }  // c, b, a
        try realm.write { dogs[0].age = 0 }            // "a" leaves the filter: old index 2
        #expect(log.updates.last?.deletions == [2])
        try realm.write { dogs[0].age = 5 }            // comes back at index 2
        #expect(log.updates.last?.insertions == [2])
        try realm.write { dogs[1].name = "z" }         // b moves to the front: deletion 1, insertion 0
        #expect(log.updates.last?.deletions == [1])
        #expect(log.updates.last?.insertions == [0])
        #expect(log.updates.last?.modifications == [])
        token.invalidate()
    }

    @Test func keyPathFiltersDecideWhatCountsAsAModification() throws {
        let realm = try Realm(configuration: tempConfig())
        let dogs = try addDogs(realm, ["a", "b"])
        let owner = try realm.write { realm.create(Person.self, value: ["name": "Ann"]) }
        try realm.write { dogs[1].owner = owner }
        let byName = ChangeLog<Results<Dog>>(), byOwnerName = ChangeLog<Results<Dog>>()
        let t1 = realm.objects(Dog.self).observe(keyPaths: ["name"]) { byName.record($0) }
        let t2 = realm.objects(Dog.self).observe(keyPaths: ["owner.name"]) { byOwnerName.record($0) }
        try realm.write { dogs[0].age = 3 }
        #expect(byName.updates.isEmpty && byOwnerName.updates.isEmpty)
        try realm.write { dogs[0].name = "A" }
        #expect(byName.updates.last?.modifications == [0])
        #expect(byOwnerName.updates.isEmpty)
        try realm.write { owner.name = "Bob" }          // linked object changes: watched via owner.name
        #expect(byOwnerName.updates.last?.modifications == [1])
        #expect(byName.updates.count == 1)
        t1.invalidate()
        t2.invalidate()
    }

    /// Realm raises for an unknown key path, from a call that cannot throw: it stops the process.
    @Test func unknownKeyPathStops() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "results-unknown-key-path"))
            try realm.write { realm.add(Dog()) }
            _ = realm.objects(Dog.self).observe(keyPaths: ["nope"]) { _ in }
        }
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "results-key-path-past-value"))
            try realm.write { realm.add(Dog()) }
            _ = realm.objects(Dog.self).observe(keyPaths: ["name.first"]) { _ in }
        }
    }

    @Test func withoutNotifyingSkipsOnlyTheGivenTokens() throws {
        let realm = try Realm(configuration: tempConfig())
        let dogs = try addDogs(realm, ["a"])
        let skipped = ChangeLog<Results<Dog>>(), told = ChangeLog<Results<Dog>>()
        let t1 = realm.objects(Dog.self).observe { skipped.record($0) }
        let t2 = realm.objects(Dog.self).observe { told.record($0) }
        try realm.write(withoutNotifying: [t1]) { dogs[0].age = 2 }
        #expect(skipped.updates.isEmpty)
        #expect(told.updates.count == 1)
        // the skipped change is not reported later either
        try realm.write { dogs[0].name = "x" }
        #expect(skipped.updates.count == 1)
        #expect(skipped.updates.last?.modifications == [0])
        t1.invalidate()
        t2.invalidate()
    }

    @Test func releasingTheTokenStopsDelivery() throws {
        let realm = try Realm(configuration: tempConfig())
        let dogs = try addDogs(realm, ["a"])
        let log = ChangeLog<Results<Dog>>()
        do {
            let token = realm.objects(Dog.self).observe { log.record($0) }
            try realm.write { dogs[0].age = 2 }
            #expect(log.updates.count == 1)
            withExtendedLifetime(token) {}
        }
        try realm.write { dogs[0].age = 3 }
        #expect(log.updates.count == 1)
    }

    @Test func beginWriteDeliversChangesOfOtherThreadsFirst() throws {
        let config = tempConfig()
        let realm = try Realm(configuration: config)
        _ = try addDogs(realm, ["a"])
        let log = ChangeLog<Results<Dog>>()
        let token = realm.objects(Dog.self).observe { log.record($0) }
        let failure = FailureBox()
        try runOnNewThread {
            do {
                let other = try Realm(configuration: config)
                try other.write { other.object(ofType: Dog.self, forPrimaryKey: "a")?.age = 8 }
            } catch { failure.set("\(error)") }
        }
        #expect(failure.value == nil)
        #expect(log.updates.isEmpty)
        realm.beginWrite()
        #expect(log.updates.count == 1)
        #expect(log.updates.last?.modifications == [0])
        realm.cancelWrite()
        token.invalidate()
    }

    @Test func commitsOfAnotherThreadCoalesceIntoOneChangeOnRefresh() throws {
        let config = tempConfig()
        let realm = try Realm(configuration: config)
        _ = try addDogs(realm, ["a", "b"])
        let log = ChangeLog<Results<Dog>>()
        var realmChanges = 0
        let token = realm.objects(Dog.self).observe { log.record($0) }
        let rt = realm.observe { n, _ in if n == .didChange { realmChanges += 1 } }
        let failure = FailureBox()
        try runOnNewThread {
            do {
                let other = try Realm(configuration: config)
                let a = try #require(other.object(ofType: Dog.self, forPrimaryKey: "a"))
                try other.write { other.delete(a) }
                try other.write {
                    let d = Dog()
                    d.id = "c"
                    other.add(d)
                }
                try other.write { other.object(ofType: Dog.self, forPrimaryKey: "b")?.age = 5 }
            } catch { failure.set("\(error)") }
        }
        #expect(failure.value == nil)
        #expect(log.updates.isEmpty)      // no run loop: nothing until refresh
        realm.refresh()
        #expect(log.updates.count == 1)
        #expect(log.updates.last?.deletions == [0])
        #expect(log.updates.last?.insertions == [1])
        #expect(log.updates.last?.modifications == [1])  // "b", at 1 before "a" went
        #expect(realmChanges == 1)
        token.invalidate()
        rt.invalidate()
    }
}

final class ToDoItemStub: Object {
    @Persisted var note = ""
}
