// ThreadSafeReference: hands a managed object to another thread.
//
// Invariants:
// - The reference pins the version it was made at (it holds a read transaction) until resolved
//   or deallocated, as Realm documents: an unresolved reference keeps that version's pages.
// - It resolves at most once; later calls return nil. Resolving finds the object by its key in
//   the target realm's newest version (nil when it was deleted since).
import Synchronization
import StrataStorage

/// A reference to a managed object that may be passed to another thread and resolved there.
public final class ThreadSafeReference<Confined: Object>: Sendable {
    private struct State: @unchecked Sendable {
        // @unchecked: the pinned ReadTransaction is thread-safe for reads and only ended here.
        var pin: ReadTransaction?
        var resolved = false
    }
    private let state: Mutex<State>
    let key: UInt64
    let identity: String
    private let infoBox: TypeList

    /// Captures `object` (managed) for use on another thread.
    public init(to object: Confined) {
        let b = object._binding
        key = b?.key ?? 0
        identity = b?.core.fileIdentity ?? ""
        infoBox = TypeList(types: [Swift.type(of: object)])
        state = Mutex(State(pin: try? b?.core.file.beginRead(), resolved: b == nil))
    }

    /// Whether `resolve` was already called.
    public var isInvalidated: Bool { state.withLock { $0.resolved } }

    func take() -> Bool {
        state.withLock { s in
            if s.resolved { return false }
            s.resolved = true
            s.pin?.end()
            s.pin = nil
            return true
        }
    }

    var type: Object.Type { infoBox.types[0] }
}

extension Realm {
    /// The object of `reference` in this realm; nil if it was deleted, or the reference was
    /// already resolved or belongs to another file.
    public func resolve<Confined: Object>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        // Check the thread first so a call from the wrong thread does not consume the reference.
        guard core.confinement.isCurrent, reference.identity == core.fileIdentity, reference.take() else { return nil }
        guard let info = try? ClassInfo.of(Confined.self) else { return nil }
        // A failure to move to the newest version or to read the object (damage, too many
        // versions) stops, as any read that cannot throw does: nil would say "deleted".
        do {
            if !core.isInWriteTransaction { _ = try core.refresh() }
            return try core.objectIfExists(Confined.self, info: info, key: reference.key)
        } catch {
            core.readFailed(error)
        }
    }
}
