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
import StrataStorage

struct WriteState {
    /// The open storage write transaction, nil outside a write.
    var transaction: WriteTransaction?
    /// The snapshot as it was at `beginWrite`, restored by `cancelWrite`.
    private(set) var snapshotAtBegin: Snapshot?
    /// The first failure met by a call that could not throw it (see the file header).
    private(set) var firstError: Realm.Error?
    /// The policy of the `add` running, applied to the objects it adds through links.
    var updatePolicy: Realm.UpdatePolicy = .error

    /// The failure of a `beginWrite()` that could not begin (see the file header).
    private(set) var beginFailure: Realm.Error?

    var isOpen: Bool { transaction != nil }

    /// Whether the open write (or the failed begin) met a failure: later calls do nothing.
    var hasFailed: Bool { (transaction != nil && firstError != nil) || beginFailure != nil }

    /// Marks a `beginWrite()` that could not begin (see the file header).
    mutating func failedToBegin(_ error: Realm.Error) {
        beginFailure = error
    }

    mutating func began(_ transaction: WriteTransaction, restoring snapshot: Snapshot) {
        self.transaction = transaction
        snapshotAtBegin = snapshot
        updatePolicy = .error
    }

    /// Forgets the transaction and everything kept for it.
    mutating func ended() {
        transaction = nil
        snapshotAtBegin = nil
        firstError = nil
        beginFailure = nil
        updatePolicy = .error
    }

    /// Keeps `error` unless an earlier failure is already kept.
    mutating func record(_ error: Realm.Error) {
        if firstError == nil { firstError = error }
    }

    /// Returns the failure kept outside a write and forgets it (it is reported once).
    mutating func takeError() -> Realm.Error? {
        defer { firstError = nil }
        return firstError
    }
}
