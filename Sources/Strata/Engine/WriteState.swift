// The state of a core's write transaction: the storage transaction, the snapshot to restore if
// it is cancelled, the first failure met inside it, and the update policy of the `add` running.
//
// Invariants:
// - `transaction` is non-nil exactly between `began(_:restoring:)` and `ended()`; `ended()` is
//   the one place that forgets everything the write kept (called at commit and at cancel).
// - `firstError` keeps the first failure only: later ones are consequences of it. It is thrown by
//   the commit (which rolls back instead), so a half-applied change is never committed. A
//   failure recorded outside a write stays until the next `beginWrite` reports it.
// - Once a write has failed (`hasFailed`), the calls that cannot throw (`add`, `create`,
//   `delete`, setters, list edits) change nothing until the write ends: what they would change
//   is rolled back anyway, and they might act on a state the failure left half-changed.
// - `beginFailure` is a `beginWrite()` that could not begin (it cannot throw, as in Realm): the
//   write counts as open and failed until `commitWrite()` throws the failure or
//   `cancelWrite()` drops it.
// - `keptAlive` holds the core from the begin of a write (failed begins included) to its end, as
//   Realm keeps a realm in a write alive: `try Realm().beginWrite()` followed by
//   `try Realm().commitWrite()` on the same thread is one write, although no caller kept the
//   instance in between (the per-thread cache holds instances weakly).
// - A class, and `hasFailed` a stored flag: every `add`, `create` and setter asks it, and a
//   struct read through the core's property was copied (and its references retained) each time.
import StrataStorage

final class WriteState {
    /// The open storage write transaction, nil outside a write.
    var transaction: WriteTransaction?
    /// The snapshot as it was at `beginWrite`, restored by `cancelWrite`.
    private(set) var snapshotAtBegin: Snapshot?
    /// The first failure met by a call that could not throw it (see the file header).
    private(set) var firstError: Realm.Error?
    /// The policy of the `add` running, applied to the objects it adds through links.
    var updatePolicy: Realm.UpdatePolicy = .error
    /// While `create` runs (nil otherwise): the copies it made of objects another realm manages,
    /// which it links as values, each copied once however many links reach it.
    var foreignCopies: [ForeignObject: Object]?

    /// The failure of a `beginWrite()` that could not begin (see the file header).
    private(set) var beginFailure: Realm.Error?

    var isOpen: Bool { transaction != nil }

    /// The core whose write this is, from its begin to its end (see the file header).
    var keptAlive: AnyObject?

    /// Whether the open write (or the failed begin) met a failure: later calls do nothing. Kept
    /// in step by the methods below, never derived from the optional errors: reading an optional
    /// `Realm.Error` copies it, which showed in the CPU time of every `add`.
    private(set) var hasFailed = false

    /// Marks a `beginWrite()` that could not begin (see the file header).
    func failedToBegin(_ error: Realm.Error) {
        beginFailure = error
        hasFailed = true
    }

    func began(_ transaction: WriteTransaction, restoring snapshot: Snapshot) {
        self.transaction = transaction
        hasFailed = firstError != nil || beginFailure != nil
        snapshotAtBegin = snapshot
        updatePolicy = .error
    }

    /// Forgets the transaction and everything kept for it.
    func ended() {
        transaction = nil
        snapshotAtBegin = nil
        firstError = nil
        beginFailure = nil
        hasFailed = false
        updatePolicy = .error
        foreignCopies = nil
        keptAlive = nil
    }

    /// Keeps `error` unless an earlier failure is already kept.
    func record(_ error: Realm.Error) {
        if firstError == nil { firstError = error }
        if transaction != nil { hasFailed = true }
    }

    /// Returns the failure kept outside a write and forgets it (it is reported once).
    func takeError() -> Realm.Error? {
        defer { firstError = nil; hasFailed = beginFailure != nil }
        return firstError
    }
}

/// An object of another realm instance, by its core, table and key.
struct ForeignObject: Hashable {
    let core: ObjectIdentifier
    let table: Int
    let key: UInt64
}
