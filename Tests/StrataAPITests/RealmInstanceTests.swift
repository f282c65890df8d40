// `Realm()` on a thread returns that thread's instance for the configuration; an instance in a
// write stays alive (and in its write) though no caller holds it; `==` is instance identity.
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
