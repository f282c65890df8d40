// The write session of a core: its state (`WriteState`: the storage transaction, the snapshot
// to restore if it is cancelled, the first failure met inside it, and the update policy of the
// `add` running) and the core's calls that begin, commit and cancel a write and that keep the
// failures met inside one.
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
// - During a write, table roots, the backlink root and open collection roots change only in
//   memory (`snap`, `openCollections`); `commitWrite` writes them once: dirty collection roots
//   into their rows, the catalog (Snapshot.swift) and the catalog/backlink roots into the
//   UserRoots. `cancelWrite` restores the snapshot taken at begin.
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

extension RealmCore {
    /// For accessors: a write must be open on the calling thread. Nil once the write has
    /// failed (see the file header): the accessor then changes nothing.
    @inline(__always) func requireWrite(_ what: @autoclosure () -> String) -> WriteTransaction? {
        checkThread()
        guard let writing = write.transaction, write.firstError == nil else {
            if write.hasFailed { return nil }
            if isFrozen { misuse(.readOnly, RealmSwiftMessages.modifyingFrozen(what())) }
            misuse(.notInWriteTransaction, "\(what()) outside a write transaction; use realm.write { }")
        }
        return writing
    }

    /// Runs a write call that cannot throw (`add`, `create`, `delete`, `setValue`…): misuse
    /// Realm reports with an exception (another thread, no write open, a frozen realm) stops
    /// with a `Strata:` message; once the write has failed, `body` does not run; a failure of
    /// `body` fails the write (`record(_:)`), whose commit throws it.
    func deferringFailure(_ what: @autoclosure () -> String, _ body: () throws -> Void) {
        checkThread()
        if write.hasFailed { return }
        guard write.isOpen else {
            if isFrozen { misuse(.readOnly, "cannot \(what()) in a frozen realm") }
            misuse(.notInWriteTransaction, "cannot \(what()) outside a write transaction; use realm.write { }")
        }
        do { try body() } catch { record(surfacing(error)) }
    }

    /// Runs the throwing counterpart of a write call: throws its failure at once and, inside a
    /// write, fails the write as well, so that catching the error cannot commit half a change.
    /// Once the write has failed, throws that first failure without running `body`.
    func failingWrite<Result>(_ body: () throws -> Result) throws -> Result {
        if write.hasFailed, let first = write.firstError ?? write.beginFailure { throw first }
        do {
            return try body()
        } catch {
            let surfaced = surfacing(error)
            if write.isOpen { record(surfaced) }
            throw surfaced
        }
    }

    /// Keeps the failure of a `beginWrite()` that cannot throw (see the file header).
    func beginFailed(_ error: Realm.Error) {
        noteDamage(error)
        write.failedToBegin(error)
        write.keptAlive = self
    }

    /// For throwing APIs.
    func requireWriteThrowing(_ what: String) throws(Realm.Error) -> WriteTransaction {
        try checkThreadThrowing()
        guard let writing = write.transaction else {
            if isFrozen { throw Realm.Error(.readOnly, "cannot \(what) in a frozen realm") }
            throw Realm.Error(.notInWriteTransaction, "cannot \(what) outside a write transaction")
        }
        return writing
    }

    func checkWritable(name: String) throws(Realm.Error) {
        _ = try requireWriteThrowing("set '\(name)'")
    }

    /// A failure of a mutating accessor (or of a background step such as notification delivery):
    /// kept for the next commit, or for the next `beginWrite` outside a write.
    func record(_ error: Swift.Error) {
        let realmError = Self.realmError(error)
        noteDamage(realmError)
        write.record(realmError)
    }

    /// The first failure kept by `record(_:)` and not yet thrown.
    var pendingError: Realm.Error? { write.firstError }

    /// `error` as the `Realm.Error` a public call throws.
    static func realmError(_ error: Swift.Error) -> Realm.Error {
        if let realmError = error as? Realm.Error { return realmError }
        if let storageError = error as? StorageError { return Realm.Error(storageError) }
        return Realm.Error(.invalidState, "\(error)")
    }

    // MARK: - Write transactions

    func beginWrite() throws(Realm.Error) {
        _ = try beginWrite(waiting: true)
    }

    /// `beginWrite()`; with `waiting: false`, returns false at once, changing nothing, while
    /// another writer holds the file. The snapshot being read stays pinned until the writer lock
    /// is taken (ending it first would let that writer reuse its pages), so pages only it held
    /// are reused from the next commit on.
    func beginWrite(waiting: Bool) throws(Realm.Error) -> Bool {
        try checkThreadThrowing()
        if isFrozen { throw Realm.Error(.readOnly, RealmSwiftMessages.frozenTransaction) }
        if configuration.readOnly { throw Realm.Error(.readOnly, "the realm '\(fileIdentity)' was opened read-only") }
        guard !write.isOpen else {
            throw Realm.Error(.alreadyInWriteTransaction, "the realm '\(fileIdentity)' is already in a write transaction")
        }
        try refuseIfDamaged("begin a write")
        // Recorded outside a write (e.g. while delivering notifications): reported here once.
        if let recorded = write.takeError() { throw recorded }
        let writing: WriteTransaction
        if waiting {
            readTxn?.end()
            readTxn = nil
            writing = try Realm.Error.wrap { try file.beginWrite() }
        } else {
            guard let free = try Realm.Error.wrap({ try file.beginWriteIfFree() }) else { return false }
            writing = free
            readTxn?.end()
            readTxn = nil
        }
        do {
            try load(roots: writing.roots, version: writing.baseVersion, pages: writing)
        } catch {
            writing.rollback()
            noteDamage(error)
            throw error
        }
        write.began(writing, restoring: snap)
        write.keptAlive = self
        snapshotMoved()
        return true
    }

    /// Commits the write transaction. With `deferringFlush` the new version is published at once
    /// and its flush is left to a later `file.waitUntilDurable(_:)` (grouped async commits).
    @discardableResult
    func commitWrite(deferringFlush: Bool = false) throws(Realm.Error) -> UInt64 {
        try checkThreadThrowing()
        guard let writing = write.transaction else {
            if let beginFailure = write.beginFailure {
                write.ended()
                throw beginFailure
            }
            throw Realm.Error(.notInWriteTransaction, "commitWrite without beginWrite on '\(fileIdentity)'")
        }
        if let recorded = write.firstError {
            cancelWrite()
            throw recorded
        }
        if let damage {
            // Met by a read inside this write: nothing of it may be committed.
            cancelWrite()
            throw damage
        }
        do {
            try flushCollections(writing)
            var roots = writing.roots
            try snap.writeCatalog(into: &roots, in: writing)
            writing.roots = roots
            if deferringFlush { writing.durability = .unsafe }
            let committed = try writing.commit()
            write.ended()
            snap.committed(as: committed)
            snapValid = true
            snapshotMoved()
            // Realm semantics: after a commit the realm reads its own version until refreshed.
            // Pinning now costs one registry update; a newer version (another writer slipped in)
            // is simply parsed on the next read.
            if let reading = try? file.beginRead() {
                readTxn = reading
                if reading.version != committed { snapValid = false }
            }
            Logger.log(.debug, "DB: \(fileIdentity) committed version \(committed)")
            return committed
        } catch {
            cancelWrite()
            let realmError = Self.realmError(error)
            noteDamage(realmError)
            throw realmError
        }
    }

    func cancelWrite() {
        guard let writing = write.transaction else {
            if write.beginFailure != nil { write.ended() }
            return
        }
        writing.rollback()
        if let snapshotAtBegin = write.snapshotAtBegin { snap = snapshotAtBegin } else { snapValid = false }
        write.ended()
        snapshotMoved()
    }

    var isInWriteTransaction: Bool { write.isOpen }
}
