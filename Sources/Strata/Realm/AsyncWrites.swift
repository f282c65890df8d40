// Asynchronous writes: writeAsync / beginAsyncWrite / commitAsyncWrite / cancelAsyncWrite and
// Swift-concurrency asyncWrite.
//
// How they run (documented deviation from Realm, which needs a run loop):
// - On a realm confined to a dispatch queue, each async write is a block enqueued on that queue
//   (FIFO), so the caller returns at once and the write happens when the queue gets to it.
// - On a thread-confined realm (no run loop to come back to), the write runs immediately,
//   synchronously, and `onComplete` is called before the method returns.
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

/// Identifies an async write so it can be cancelled.
public typealias AsyncTransactionId = UInt32

struct AsyncWriteQueue {
    var nextId: AsyncTransactionId = 1
    var cancelled = Set<AsyncTransactionId>()
    var pending = Set<AsyncTransactionId>()
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
    /// Runs `block` in a write transaction without blocking the caller (see the file header),
    /// then calls `onComplete` with nil or the error.
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

    /// Begins a write asynchronously and runs `block` inside it; `block` must end it with
    /// `commitAsyncWrite` or `cancelWrite`.
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
            block()
        }
        if let q = core.queue {
            let bound = QueueBound(value: run)
            q.async { bound.value() }
        } else {
            run()
        }
        return id
    }

    /// Commits the current write; `onComplete` receives nil or the error once the commit is
    /// durable (see the file header for where and when).
    @discardableResult
    public func commitAsyncWrite(allowGrouping: Bool = false, _ onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        let id = core.asyncWrites.nextId
        core.asyncWrites.nextId &+= 1
        guard let queue = core.queue else {
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
            queue.async { bound.value.flushAsyncGroupWhenIdle() }
        } else {
            flushAsyncGroup()
        }
        return id
    }

    /// Flushes the grouped commits once no async write is queued before this check; otherwise
    /// checks again after them (FIFO), so a group is never left unflushed.
    private func flushAsyncGroupWhenIdle() {
        guard let queue = core.queue, !core.asyncWrites.group.isEmpty else { return }
        if core.asyncWrites.pending.isEmpty {
            flushAsyncGroup()
        } else {
            let bound = QueueBound(value: self)
            queue.async { bound.value.flushAsyncGroupWhenIdle() }
        }
    }

    /// Makes every commit of the group durable with one flush on a background thread, then runs
    /// their completions on the realm's queue, in commit order.
    ///
    /// The background block holds the core and the file only weakly: the in-flight entry keeps
    /// the realm alive until `finishAsyncFlush` runs on its queue, so the last reference to the
    /// realm is always dropped there, never on the flush thread after the completions ran.
    private func flushAsyncGroup() {
        guard let queue = core.queue, let target = core.asyncWrites.group.map(\.version).max() else { return }
        let id = core.asyncWrites.nextFlushId
        core.asyncWrites.nextFlushId &+= 1
        core.asyncWrites.inFlight[id] = (self, core.asyncWrites.group.map(\.onComplete))
        core.asyncWrites.group.removeAll()
        let refs = FlushReferences(core: core, file: core.file)
        core.asyncWrites.flusher.async {
            let outcome = refs.makeDurable(target)
            queue.async { refs.core?.finishAsyncFlush(id, outcome) }
        }
    }

    /// Cancels an async write that has not started yet. Throws `.invalidArgument` for an
    /// unknown or already started id.
    public func cancelAsyncWrite(_ id: AsyncTransactionId) throws {
        guard core.asyncWrites.pending.contains(id) else {
            throw Realm.Error(.invalidArgument, "async write \(id) is not pending (unknown, running or finished)")
        }
        core.asyncWrites.cancelled.insert(id)
    }

    /// Whether an async write is scheduled or running.
    public var isPerformingAsynchronousWriteOperations: Bool {
        !core.asyncWrites.pending.isEmpty || !core.asyncWrites.group.isEmpty || core.asyncWrites.flushesInFlight > 0
    }

    /// Swift concurrency: performs `block` in a write transaction and returns its value once the
    /// commit is durable, suspending the caller (not blocking it) while the commit is flushed.
    ///
    /// Call it from the isolation the realm is confined to (an actor whose executor runs on the
    /// realm's queue, or the thread the realm belongs to); it stays there (`isolation` defaults
    /// to the caller's). On a queue-confined realm the commit is published at once and flushed
    /// with `commitAsyncWrite(allowGrouping: true)`: while this call waits, other tasks of the
    /// same actor write, and their commits share the flush (Realm's grouped async commits). On a
    /// thread-confined realm, and on realms not flushed per commit (`.unsafe`, in-memory), it is
    /// `write(_:)`. A throwing `block` cancels the transaction.
    @discardableResult
    public func asyncWrite<Result>(isolation: isolated (any Actor)? = #isolation,
                                   _ block: () throws -> Result) async throws -> Result {
        // Only a commit that must be flushed has anything to wait for: without a flush per commit
        // (`.unsafe`, in-memory) the queue hops of a deferred completion would cost more (measured:
        // 14.6 → 100 µs per commit) than they could ever let other tasks share.
        guard core.queue != nil, core.file.options.durability == .full else { return try write(block) }
        let value = try beginWriteAndRun(block)
        guard isInWriteTransaction else { return value }
        try await withCheckedThrowingContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Swift.Error>) in
            commitAsyncWrite(allowGrouping: true) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
        return value
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
}

extension RealmCore {
    /// On the realm's queue: runs the completions of flush `id`, then drops the realm it kept.
    func finishAsyncFlush(_ id: UInt64, _ outcome: Realm.Error?) {
        guard let entry = asyncWrites.inFlight.removeValue(forKey: id) else { return }
        for onComplete in entry.completions { onComplete?(outcome) }
    }
}
