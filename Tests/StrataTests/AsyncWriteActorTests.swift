// Swift-concurrency asyncWrite on an actor whose executor is the realm's queue: each call returns
// once its commit is durable, while it waits the actor runs other writers' calls, and their
// commits share flushes. Flushes are counted through the storage file (no timing asserted).

import Dispatch
import Foundation
import Testing
import Strata
import StrataTestSupport
import StrataStorage

/// Runs the actor's jobs on one dispatch queue, so a realm confined to that queue can be used
/// from the actor.
final class QueueExecutor: SerialExecutor {
    let queue: DispatchQueue
    init(label: String) { queue = DispatchQueue(label: label) }
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

actor ToDoWriter {
    let executor: QueueExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private let configuration: Realm.Configuration
    private var realm: Realm?

    init(configuration: Realm.Configuration) {
        self.configuration = configuration
        executor = QueueExecutor(label: "strata.tests.async-writer")
    }

    func open() throws -> Realm {
        if let realm { return realm }
        let opened = try Realm(configuration: configuration, queue: executor.queue)
        realm = opened
        return opened
    }

    /// Adds one item; returns the number of items this realm sees right after its own commit.
    func add(_ text: String) async throws -> Int {
        let realm = try open()
        return try await realm.asyncWrite {
            realm.add(ToDoItem(value: ["text": text]))
            return realm.objects(ToDoItem.self).count
        }
    }

    func failingWrite() async throws {
        let realm = try open()
        struct Refused: Swift.Error {}
        try await realm.asyncWrite {
            realm.add(ToDoItem(value: ["text": "never"]))
            throw Refused()
        }
    }

    func count() throws -> Int { try open().objects(ToDoItem.self).count }
    func isInWriteTransaction() throws -> Bool { try open().isInWriteTransaction }
    func flushCount() throws -> Int { try StrataTestSupport.flushCount(of: open()) }
    func isPerformingAsyncWork() throws -> Bool { try open().isPerformingAsynchronousWriteOperations }
    func close() { realm = nil }
}

@Suite("asyncWrite on an actor")
struct AsyncWriteActorTests {
    @Test func concurrentAsyncWritesShareFlushesAndAllLand() async throws {
        let config = tempConfig("actor", durability: .full)
        let writer = ToDoWriter(configuration: config)
        let before = try await writer.flushCount()
        let writes = 40
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<writes { group.addTask { try await writer.add("item \(index)") } }
            var seen = Set<Int>()
            for try await count in group { seen.insert(count) }
            // Each commit saw its own item: the counts are 1...40, each once.
            #expect(seen == Set(1...writes))
        }
        let flushes = try await writer.flushCount() - before
        #expect(flushes >= 1)
        // While one commit's flush runs, later calls commit and join the next flush.
        #expect(flushes < writes, "\(flushes) flushes for \(writes) grouped commits")
        #expect(try await writer.count() == writes)
        await writer.close()
        // Every acknowledged write is durable and visible to another instance.
        let other = try Realm(configuration: config)
        #expect(other.objects(ToDoItem.self).count == writes)
    }

    /// Without a flush per commit there is nothing to wait for: each asyncWrite commits like
    /// `write` (no flush, no deferred completion).
    @Test func unflushedRealmsCommitSynchronously() async throws {
        let writer = ToDoWriter(configuration: tempConfig("actor-unsafe", durability: .unsafe))
        let before = try await writer.flushCount()
        for index in 0..<5 { #expect(try await writer.add("item \(index)") == index + 1) }
        #expect(try await writer.flushCount() == before)
        #expect(try await writer.isPerformingAsyncWork() == false)
    }

    @Test func aThrowingBlockCancelsTheTransaction() async throws {
        let writer = ToDoWriter(configuration: tempConfig("actor-throws", durability: .full))
        _ = try await writer.add("kept")
        await #expect(throws: (any Swift.Error).self) { try await writer.failingWrite() }
        #expect(try await writer.isInWriteTransaction() == false)
        #expect(try await writer.count() == 1)
        _ = try await writer.add("after")
        #expect(try await writer.count() == 2)
    }
}
