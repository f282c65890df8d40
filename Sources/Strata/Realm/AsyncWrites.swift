// Asynchronous writes: writeAsync / beginAsyncWrite / commitAsyncWrite / cancelAsyncWrite and
// Swift-concurrency asyncWrite.
//
// How they run (documented deviation from Realm, which needs a run loop):
// - On a realm confined to a dispatch queue, each async write is a block enqueued on that queue
//   (FIFO), so the caller returns at once and the write happens when the queue gets to it.
// - On a realm of the main thread, the write is enqueued on the main queue, which the main run
//   loop drains (RunLoop.main, dispatchMain), as Realm runs it from the run loop: until then its
//   id can be cancelled.
// - On a realm of another thread, when the call comes from inside that thread's run loop, the
//   write is performed by the loop at its next turn (ThreadRunLoop.swift); outside it, the write
//   runs immediately, synchronously, and `onComplete` is called before the method returns.
// - `commitAsyncWrite` on a queue-confined realm publishes the commit at once (the writer lock is
//   released, later writes and readers see it) and flushes it on a background thread; `onComplete`
//   runs on the realm's queue once the commit is durable. With `allowGrouping: true` the flush
//   waits until no further async write is queued, so consecutive grouped commits share one
//   flush and their completions run together after it (Realm's documented grouping). On a
//   thread-confined realm the commit flushes synchronously and `onComplete` runs before return.
// Invariants: ids are unique per realm; a cancelled, not yet started write never runs; every
// committed async write's `onComplete` runs exactly once, after its flush (or with its error).
// A deferred commit is published before it is durable: a crash before its flush may lose it, as
// `onComplete` has not reported it yet (never a partial commit: the storage layer's guarantee).
import Dispatch
import Foundation
import StrataStorage

/// Identifies a scheduled asynchronous write, so that it can be cancelled with
/// ``Realm/cancelAsyncWrite(_:)``.
public typealias AsyncTransactionId = UInt32

struct AsyncWriteQueue {
    var nextId: AsyncTransactionId = 1
    var cancelled = Set<AsyncTransactionId>()
    var pending = Set<AsyncTransactionId>()
    /// Asynchronous write blocks running now (a block may begin another one).
    var running = 0
    /// Committed, published async writes waiting for their shared flush.
    var group: [(version: UInt64, onComplete: ((Swift.Error?) -> Void)?)] = []
    /// Background flushes started and not yet reported back on the realm's queue, by id: the
    /// realm (kept alive until its completions ran, as Realm keeps a realm with pending async
    /// writes) and the completions. Only the realm's queue touches this.
    var inFlight: [UInt64: (realm: Realm, completions: [((Swift.Error?) -> Void)?])] = [:]
    var nextFlushId: UInt64 = 0
    var flushesInFlight: Int { inFlight.count }
    /// Runs the background flushes one after another, so completions keep commit order (and a
    /// flush that already covered a later commit makes that commit's wait immediate).
    lazy var flusher = DispatchQueue(label: "strata.async-flush", qos: .userInitiated)
}

/// Carries a non-Sendable block to the queue its realm is confined to, where it was created for.
private struct QueueBound<T>: @unchecked Sendable {
    // @unchecked: the value is only used on the realm's own queue, the one it targets.
    let value: T
}

extension Realm {
    /// Runs a block in a write transaction without blocking the caller, then reports the outcome.
    ///
    /// On a realm confined to a dispatch queue, the write is enqueued on that queue and this method
    /// returns at once; writes run in the order they were scheduled, and `onComplete` runs on the
    /// queue once the commit is durable. On a realm of the main thread the write is enqueued on the
    /// main queue and runs when the main run loop turns, as in RealmSwift. On a realm of another
    /// thread there is nothing to come back to, so the write runs at once and `onComplete` is
    /// called before this method returns. If `block`
    /// ends the transaction itself (`cancelWrite()`), `onComplete` receives `nil`.
    ///
    /// ```swift
    /// // on writerQueue:
    /// let realm = try Realm(configuration: config, queue: writerQueue)
    /// realm.writeAsync({
    ///     realm.add(Reading(value: ["celsius": 21.5]))
    /// }, onComplete: { error in
    ///     if let error { print("not saved:", error) }
    /// })
    /// ```
    ///
    /// - Parameters:
    ///   - block: the changes to make; it runs inside the write transaction.
    ///   - onComplete: called with `nil` once the commit is durable, or with the `Realm.Error` that
    ///     stopped the write from beginning or committing (such as `.readOnly`, or a storage failure
    ///     such as `.fileAccess` or `.diskFull`).
    /// - Returns: the write's id, for ``cancelAsyncWrite(_:)`` while it has not started.
    @discardableResult
    public func writeAsync(_ block: @escaping () -> Void, onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        beginAsyncWrite {
            block()
            if self.isInWriteTransaction {
                self.commitAsyncWrite(onComplete)
            } else {
                onComplete?(nil)
            }
        } onError: { onComplete?($0) }
    }

    /// Begins a write transaction asynchronously and runs a block inside it; the block ends the
    /// transaction with ``commitAsyncWrite(allowGrouping:_:)`` or `cancelWrite()`. A block that
    /// returns with the transaction still open has it cancelled, as in RealmSwift.
    ///
    /// Scheduling follows ``writeAsync(_:onComplete:)``. If the transaction cannot begin, `block` does
    /// not run.
    ///
    /// ```swift
    /// realm.beginAsyncWrite {
    ///     realm.add(reading)
    ///     realm.commitAsyncWrite { error in if let error { print(error) } }
    /// }
    /// ```
    ///
    /// - Parameter block: runs inside the new write transaction.
    /// - Returns: the write's id, for ``cancelAsyncWrite(_:)`` while it has not started.
    @discardableResult
    public func beginAsyncWrite(_ block: @escaping () -> Void) -> AsyncTransactionId {
        beginAsyncWrite(block, onError: { _ in })
    }

    private func beginAsyncWrite(_ block: @escaping () -> Void, onError: @escaping (Swift.Error) -> Void) -> AsyncTransactionId {
        let id = core.asyncWrites.nextId
        core.asyncWrites.nextId &+= 1
        core.asyncWrites.pending.insert(id)
        let run = {
            self.core.asyncWrites.pending.remove(id)
            if self.core.asyncWrites.cancelled.remove(id) != nil { return }
            do {
                try self.beginWriteThrowing()
            } catch {
                onError(error)
                return
            }
            self.core.asyncWrites.running += 1
            block()
            self.core.asyncWrites.running -= 1
            // A block that neither committed nor cancelled its write has it cancelled, as
            // RealmSwift does: left open, its changes would join whatever write came next.
            if self.core.isInWriteTransaction || self.core.write.beginFailure != nil { self.core.cancelWrite() }
        }
        // A realm of the main thread, or of a thread running its run loop, runs the block when
        // the loop turns, as RealmSwift does, so the id can be cancelled until then; a realm of
        // a thread outside its run loop runs it at once.
        core.adoptRunningRunLoop()
        if let scheduler = core.scheduler ?? core.autorefreshScheduler {
            let bound = QueueBound(value: run)
            scheduler.async { bound.value() }
        } else {
            run()
        }
        return id
    }

    /// Commits the current write transaction and reports once the commit is durable.
    ///
    /// On a queue-confined realm the commit is visible to other readers at once and made durable on a
    /// background thread; `onComplete` then runs on the realm's queue. Until then a crash may lose the
    /// commit, never leave half of it. On a thread-confined realm the commit is flushed before this
    /// method returns.
    ///
    /// - Parameters:
    ///   - allowGrouping: whether the flush waits until no further asynchronous write is queued, so
    ///     that consecutive grouped commits share one flush and their completions run together.
    ///   - onComplete: called with `nil` once the commit is durable, or with the `Realm.Error` that
    ///     made it fail (`.notInWriteTransaction` without an open write, or a storage failure such as
    ///     `.fileAccess` or `.diskFull`).
    /// - Returns: an id for this commit.
    @discardableResult
    public func commitAsyncWrite(allowGrouping: Bool = false, _ onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        let id = core.asyncWrites.nextId
        core.asyncWrites.nextId &+= 1
        guard let scheduler = core.scheduler else {
            do {
                try commitWrite()
                onComplete?(nil)
            } catch {
                onComplete?(error)
            }
            return id
        }
        let version: UInt64
        do {
            version = try core.commitWrite(deferringFlush: true)
        } catch {
            onComplete?(error)
            return id
        }
        core.notifyAfterCommit(skipping: [])
        core.asyncWrites.group.append((version, onComplete))
        if allowGrouping {
            let bound = QueueBound(value: self)
            scheduler.async { bound.value.flushAsyncGroupWhenIdle() }
        } else {
            flushAsyncGroup()
        }
        return id
    }

    /// Flushes the grouped commits once no async write is queued before this check; otherwise
    /// checks again after them (FIFO), so a group is never left unflushed.
    private func flushAsyncGroupWhenIdle() {
        guard let scheduler = core.scheduler, !core.asyncWrites.group.isEmpty else { return }
        if core.asyncWrites.pending.isEmpty {
            flushAsyncGroup()
        } else {
            let bound = QueueBound(value: self)
            scheduler.async { bound.value.flushAsyncGroupWhenIdle() }
        }
    }

    /// Makes every commit of the group durable with one flush on a background thread, then runs
    /// their completions on the realm's queue, in commit order.
    ///
    /// The background block holds the core and the file only weakly: the in-flight entry keeps
    /// the realm alive until `FlushReferences.finish` runs on its queue, so the last reference to the
    /// realm is always dropped there, never on the flush thread after the completions ran.
    private func flushAsyncGroup() {
        guard let scheduler = core.scheduler, let target = core.asyncWrites.group.map(\.version).max() else { return }
        let id = core.asyncWrites.nextFlushId
        core.asyncWrites.nextFlushId &+= 1
        core.asyncWrites.inFlight[id] = (self, core.asyncWrites.group.map(\.onComplete))
        core.asyncWrites.group.removeAll()
        let refs = FlushReferences(core: core, file: core.file)
        core.asyncWrites.flusher.async {
            let outcome = refs.makeDurable(target)
            scheduler.async { refs.finish(id, outcome) }
        }
    }

    /// Cancels an asynchronous write that has not started; its block never runs.
    ///
    /// - Parameter id: the id ``writeAsync(_:onComplete:)`` or ``beginAsyncWrite(_:)`` returned.
    /// - Throws: `Realm.Error` with code `.invalidArgument` when no write with that id is waiting
    ///   (unknown, already running, or finished).
    public func cancelAsyncWrite(_ id: AsyncTransactionId) throws {
        guard core.asyncWrites.pending.contains(id) else {
            throw Realm.Error(.invalidArgument, "async write \(id) is not pending (unknown, running or finished)")
        }
        core.asyncWrites.cancelled.insert(id)
    }

    /// Whether an asynchronous write is scheduled, running, or waiting for its commit to become
    /// durable.
    public var isPerformingAsynchronousWriteOperations: Bool {
        !core.asyncWrites.pending.isEmpty || core.asyncWrites.running > 0 || !core.asyncWrites.group.isEmpty
            || core.asyncWrites.flushesInFlight > 0
    }

    /// Performs a block in a write transaction and returns its value once the commit is durable,
    /// suspending the caller rather than blocking it while the commit is flushed.
    ///
    /// Call it from the isolation the realm is confined to: an actor whose executor runs on the realm's
    /// queue, or the realm's own thread. On a queue-confined realm the commit is visible at once and
    /// flushed in the background; while this call waits, other tasks of the same actor can write, and
    /// their commits share one flush. On a thread-confined realm, and on realms that do not flush each
    /// commit (`.unsafe` durability, in-memory), it behaves as `write(_:)`.
    ///
    /// On an actor-confined realm (`Realm(configuration:actor:)`), a write that another
    /// realm, thread or process holds is waited for by suspending the task, not by blocking the
    /// actor. A task cancelled before the write begins, or while it waits, throws
    /// `CancellationError` and changes nothing; `block` does not run.
    ///
    /// ```swift
    /// actor Recorder {
    ///     let realm: Realm
    ///     func record(_ value: Double) async throws {
    ///         try await realm.asyncWrite {
    ///             realm.add(Reading(value: ["celsius": value]))
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - isolation: the actor the call runs on; the caller's by default.
    ///   - block: the changes to make. If it throws, the transaction is cancelled and the error
    ///     is rethrown.
    /// - Returns: what `block` returned.
    /// - Throws: the error `block` threw, `CancellationError` (see above), or `Realm.Error` from beginning or committing the write
    ///   (`.wrongThread` outside the realm's isolation, `.alreadyInWriteTransaction`, `.readOnly`, or a
    ///   storage failure such as `.fileAccess` or `.diskFull`).
    @discardableResult
    public func asyncWrite<Result>(isolation: isolated (any Actor)? = #isolation,
                                   _ block: () throws -> Result) async throws -> Result {
        // A task cancelled before the write begins writes nothing, as in RealmSwift.
        try Task.checkCancellation()
        core.asyncWrites.running += 1
        defer { core.asyncWrites.running -= 1 }
        let value: Result
        if case .actor = core.confinement {
            // An actor-confined realm waits for another writer by suspending its task, so the
            // actor's thread stays free for the writer it waits for, and a cancelled task stops
            // waiting; once the write has begun, a cancelled task's block does not run.
            try await beginWriteSuspending(isolation: isolation)
            do {
                try Task.checkCancellation()
                value = try block()
            } catch {
                if isInWriteTransaction { cancelWrite() }
                throw error
            }
        } else {
            // Only a commit that must be flushed has anything to wait for: without a flush per
            // commit (`.unsafe`, in-memory) the queue hops of a deferred completion would cost more
            // (measured: 14.6 → 100 µs per commit) than they could ever let other tasks share.
            guard core.scheduler != nil, core.file.options.durability == .full else { return try write(block) }
            value = try beginWriteAndRun(block)
        }
        guard isInWriteTransaction else { return value }
        guard core.file.options.durability == .full else {
            try commitWrite()
            return value
        }
        try await withCheckedThrowingContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Swift.Error>) in
            commitAsyncWrite(allowGrouping: true) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
        return value
    }

    /// Begins a write transaction, suspending the task while another writer (thread or process)
    /// holds the file: it tries again after a pause that doubles from 50 µs up to 2 ms. A task
    /// cancelled while it waits throws `CancellationError`, having begun nothing.
    private func beginWriteSuspending(isolation: isolated (any Actor)?) async throws {
        var pause: UInt64 = 50_000
        while true {
            if core.notificationHub != nil && core.confinement.isCurrent { core.deliverBeforeWrite() }
            if try core.beginWrite(waiting: false) { return }
            try await Task.sleep(nanoseconds: pause)
            pause = Swift.min(pause * 2, 2_000_000)
        }
    }
}

/// What a background flush may reach: weak references, so that it never extends the life of a
/// realm (see `flushAsyncGroup`).
/// `@unchecked Sendable`: `core` is only dereferenced on the core's own queue (in the block the
/// flush enqueues there); `file` is Sendable.
private final class FlushReferences: @unchecked Sendable {
    weak var core: RealmCore?
    weak var file: StorageFile?

    init(core: RealmCore, file: StorageFile) {
        self.core = core
        self.file = file
    }

    /// Waits until `version` is durable; the error, if the flush failed. The strong reference to
    /// the file lives only for this call.
    func makeDurable(_ version: UInt64) -> Realm.Error? {
        guard let file else { return nil }
        do throws(Realm.Error) {
            try Realm.Error.wrap { try file.waitUntilDurable(version) }
            return nil
        } catch {
            return error
        }
    }

    /// On the realm's queue: runs the completions of flush `id`, then drops the realm it kept.
    func finish(_ id: UInt64, _ outcome: Realm.Error?) {
        guard let entry = core?.asyncWrites.inFlight.removeValue(forKey: id) else { return }
        for onComplete in entry.completions { onComplete?(outcome) }
    }
}
