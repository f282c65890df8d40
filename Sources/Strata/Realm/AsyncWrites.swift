// Asynchronous writes: writeAsync / beginAsyncWrite / commitAsyncWrite / cancelAsyncWrite and
// Swift-concurrency asyncWrite.
//
// How they run (documented deviation from Realm, which needs a run loop):
// - On a realm confined to a dispatch queue, each async write is a block enqueued on that queue
//   (FIFO), so the caller returns at once and the write happens when the queue gets to it.
// - On a thread-confined realm (no run loop to come back to), the write runs immediately,
//   synchronously, and `onComplete` is called before the method returns.
// - `commitAsyncWrite(allowGrouping:)` commits synchronously; grouping is accepted but each
//   commit flushes on its own (the storage layer has no deferred group flush yet).
// Invariants: ids are unique per realm; a cancelled, not yet started write never runs.
import Dispatch
import Foundation

/// Identifies an async write so it can be cancelled.
public typealias AsyncTransactionId = UInt32

struct AsyncWriteQueue {
    var nextId: AsyncTransactionId = 1
    var cancelled = Set<AsyncTransactionId>()
    var pending = Set<AsyncTransactionId>()
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
                try self.beginWrite()
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

    /// Commits the current write; `onComplete` receives nil or the error.
    @discardableResult
    public func commitAsyncWrite(allowGrouping: Bool = false, _ onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        let id = core.asyncWrites.nextId
        core.asyncWrites.nextId &+= 1
        do {
            try commitWrite()
            onComplete?(nil)
        } catch {
            onComplete?(error)
        }
        return id
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
    public var isPerformingAsynchronousWriteOperations: Bool { !core.asyncWrites.pending.isEmpty }

    /// Swift concurrency: performs `block` in a write transaction on the calling task's
    /// thread (the realm must be confined to it) and returns its value.
    @discardableResult
    public func asyncWrite<Result>(_ block: () throws -> Result) async throws -> Result {
        try write(block)
    }
}
