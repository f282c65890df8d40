// `Realm()` on a thread returns that thread's instance for the configuration, at the version it
// reads (only `refresh()`, a write or autorefresh moves it); an instance in a write stays alive
// (and in its write) though no caller holds it; `==` is instance identity.
import Foundation
import Strata
import Testing

final class Counter: Object {
    @Persisted var value = 0
}

@Suite("Realm instances per thread")
struct RealmInstanceTests {
    private func configuration() -> Realm.Configuration {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [Counter.self]
        return configuration
    }

    @Test func theSameThreadGetsTheSameInstance() throws {
        let configuration = configuration()
        let first = try Realm(configuration: configuration)
        let second = try Realm(configuration: configuration)
        #expect(first == second)
        var other = configuration
        other.inMemoryIdentifier = UUID().uuidString
        #expect(try Realm(configuration: other) != first, "another configuration")
        let fromAnotherThread = try onAnotherThread { () -> Bool in
            // Another thread's instance is not this thread's, whatever it compares with there.
            let there = try Realm(configuration: configuration)
            return there == (try Realm(configuration: configuration))
        }
        #expect(fromAnotherThread)
        #expect(first.freeze() != first)
    }

    @Test func aWriteBegunOnAnUnheldInstanceIsTheSameWriteAtTheNextCall() throws {
        // A file, so that what the write committed outlives the instance once the write ends.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("instances-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = Realm.Configuration(fileURL: folder.appendingPathComponent("counters.realm"))
        configuration.objectTypes = [Counter.self]
        let seen = try onAnotherThread { [configuration] () -> [String] in
            // Nothing holds the instance between these statements but its open write.
            try Realm(configuration: configuration).beginWrite()
            let inWrite = try Realm(configuration: configuration).isInWriteTransaction
            try Realm(configuration: configuration).add(Counter(value: ["value": 7]))
            try Realm(configuration: configuration).commitWrite()
            let afterCommit = try Realm(configuration: configuration).isInWriteTransaction
            let value = try Realm(configuration: configuration).objects(Counter.self).first?.value
            return ["\(inWrite)", "\(afterCommit)", "\(value.map(String.init) ?? "nil")"]
        }
        #expect(seen == ["true", "false", "7"])
    }

    @Test func aCancelledWriteOnAnUnheldInstanceLeavesNothing() throws {
        let configuration = configuration()
        let holder = try Realm(configuration: configuration)  // keeps the in-memory realm alive
        let count = try onAnotherThread { () -> Int in
            try Realm(configuration: configuration).beginWrite()
            try Realm(configuration: configuration).add(Counter())
            try Realm(configuration: configuration).cancelWrite()
            return try Realm(configuration: configuration).objects(Counter.self).count
        }
        #expect(count == 0)
        #expect(holder.objects(Counter.self).isEmpty)
    }

    @Test func aHeldInstanceStaysAtItsVersionUntilRefreshed() throws {
        let configuration = configuration()
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.add(Counter(value: ["value": 1])) }
        let counters = realm.objects(Counter.self)
        #expect(counters.count == 1)
        try onAnotherThread {
            let there = try Realm(configuration: configuration)
            try there.write { there.add(Counter(value: ["value": 2])) }
        }
        let again = try Realm(configuration: configuration)
        #expect(again == realm)
        #expect(again.objects(Counter.self).count == 1, "opening again does not move the instance")
        #expect(counters.count == 1)
        #expect(realm.refresh())
        #expect(counters.count == 2)
    }

    @Test func thawingGivesTheLiveInstanceAtItsOwnVersion() throws {
        let configuration = configuration()
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.add([Counter(value: ["value": 1]), Counter(value: ["value": 2])]) }
        let counters = realm.objects(Counter.self)
        let reference = ThreadSafeReference(to: counters)
        #expect(counters.count == 2)
        let frozen = try onAnotherThread { () -> Results<Counter> in
            let there = try Realm(configuration: configuration)
            let resolved = try #require(there.resolve(reference))
            try there.write { there.delete(resolved.where { $0.value == 2 }) }
            return resolved.freeze()
        }
        #expect(frozen.count == 1)
        let thawed = try #require(frozen.thaw())
        #expect(thawed.count == 2, "the thawed results read this thread's instance, not yet refreshed")
        #expect(counters.count == 2)
        realm.refresh()
        #expect(thawed.count == 1 && counters.count == 1)
    }

    @Test func invalidateCancelsAnOpenWrite() throws {
        let realm = try Realm(configuration: configuration())
        let counter = Counter(value: ["value": 1])
        try realm.write { realm.add(counter) }
        realm.beginWrite()
        counter.value = 2
        realm.invalidate()
        #expect(!realm.isInWriteTransaction)
        #expect(counter.isInvalidated)
        #expect(realm.objects(Counter.self).map(\.value) == [1])
    }
}
