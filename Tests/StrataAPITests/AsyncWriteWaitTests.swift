// `asyncWrite` on an actor-confined realm waits for another writer by suspending its task, never
// by blocking the actor, and a cancelled task stops waiting with `CancellationError`, writing
// nothing, as in RealmSwift. Before, the call blocked the actor's thread until the writer
// finished: a holder that awaited the waiting task never finished, and a cancellation was not seen.
import Dispatch
import Foundation
import Strata
import StrataTestSupport
import Synchronization
import Testing

/// The waiting writer's actor. It runs on a dispatch queue of its own, not on Swift's shared pool
/// of threads, which the suite's long synchronous tests can occupy for minutes on a small machine.
@globalActor actor WaitingWriter {
    static let shared = WaitingWriter()
    private let executor = QueueExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
}

final class QueueExecutor: SerialExecutor {
    private let queue = DispatchQueue(label: "strata-tests.waiting-writer")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

final class AsyncWaitEntry: Object {
    @Persisted var label = ""
}

@Suite("asyncWrite waits for another writer by suspending")
struct AsyncWriteWaitTests {
    /// Ends the test process with a message unless `finish()` is called within twenty minutes. Were
    /// the waiter to block its actor's thread again, the test would wait for it forever, and Swift
    /// Testing's time limit, which needs a thread of Swift's shared pool, would not end it. The
    /// margin is wide: in the whole suite on 2 cores, this test's steps wait up to five minutes
    /// for the shared pool and the main actor, which the suite's long synchronous tests occupy.
    private final class Watchdog: Sendable {
        private let finished = Mutex(false)

        init(_ name: String) {
            DispatchQueue.global().asyncAfter(deadline: .now() + 1200) { [self] in
                guard !finished.withLock({ $0 }) else { return }
                FileHandle.standardError.write(Data("\(name): asyncWrite blocked its actor for twenty minutes\n".utf8))
                exit(1)
            }
        }

        func finish() { finished.withLock { $0 = true } }
    }

    private static func configuration(_ name: String) -> Realm.Configuration {
        var configuration = tempConfig(name, durability: .full)
        configuration.objectTypes = [AsyncWaitEntry.self]
        return configuration
    }

    @MainActor @Test func aWaitingWriteBeginsOnceTheHolderCommits() async throws {
        let watchdog = Watchdog("aWaitingWriteBeginsOnceTheHolderCommits")
        defer { watchdog.finish() }
        let configuration = Self.configuration("waits")
        let holder = try await Realm(configuration: configuration, actor: MainActor.shared)
        holder.beginWrite()
        let (ready, signal) = AsyncStream<Void>.makeStream()
        let waiter = Task { @WaitingWriter in
            let realm = try await Realm(configuration: configuration, actor: WaitingWriter.shared)
            signal.finish()
            return try await realm.asyncWrite {
                let seen = realm.objects(AsyncWaitEntry.self).map(\.label)
                realm.create(AsyncWaitEntry.self, value: ["label": "second"])
                return seen
            }
        }
        for await _ in ready {}
        // The waiter keeps its actor until it suspends inside asyncWrite: past this hop it waits
        // there, and the holder's commit is what lets it begin.
        await Task { @WaitingWriter in }.value
        holder.create(AsyncWaitEntry.self, value: ["label": "first"])
        try holder.commitWrite()
        #expect(try await waiter.value == ["first"])
        holder.refresh()
        #expect(holder.objects(AsyncWaitEntry.self).map(\.label).sorted() == ["first", "second"])
    }

    @MainActor @Test func aCancelledWaitThrowsAndWritesNothing() async throws {
        let watchdog = Watchdog("aCancelledWaitThrowsAndWritesNothing")
        defer { watchdog.finish() }
        let configuration = Self.configuration("cancelled-wait")
        let holder = try await Realm(configuration: configuration, actor: MainActor.shared)
        holder.beginWrite()
        let (ready, signal) = AsyncStream<Void>.makeStream()
        let waiter = Task { @WaitingWriter in
            let realm = try await Realm(configuration: configuration, actor: WaitingWriter.shared)
            signal.finish()
            try await realm.asyncWrite { realm.create(AsyncWaitEntry.self, value: ["label": "never"]) }
        }
        for await _ in ready {}
        // Cancelled from the waiter's actor, so that the waiter is suspended in asyncWrite by then.
        await Task { @WaitingWriter in waiter.cancel() }.value
        await #expect(throws: CancellationError.self) { try await waiter.value }
        holder.create(AsyncWaitEntry.self, value: ["label": "holder"])
        try holder.commitWrite()
        #expect(holder.objects(AsyncWaitEntry.self).map(\.label) == ["holder"])
    }

    @Test func aTaskCancelledBeforeTheWriteWritesNothing() async throws {
        let configuration = Self.configuration("cancelled-before")
        let task = Task { @WaitingWriter in
            let realm = try await Realm(configuration: configuration, actor: WaitingWriter.shared)
            withUnsafeCurrentTask { $0?.cancel() }
            try await realm.asyncWrite { realm.create(AsyncWaitEntry.self, value: ["label": "never"]) }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        let count = try await Task { @WaitingWriter in
            try await Realm(configuration: configuration, actor: WaitingWriter.shared).objects(AsyncWaitEntry.self).count
        }.value
        #expect(count == 0)
    }
}
