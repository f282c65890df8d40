// ThreadSafeReference: hands a managed object to another thread.
//
// Invariants:
// - The reference pins the version it was made at (it holds a read transaction) until resolved
//   or deallocated, as Realm documents: an unresolved reference keeps that version's pages.
// - It resolves at most once; later calls return nil. Resolving finds the object by its key in
//   the target realm's newest version (nil when it was deleted since).
import Synchronization
import StrataStorage

/// A handle to a managed object that can cross to another thread or queue and be resolved there.
///
/// Managed objects are confined to their realm's thread. To use one elsewhere, wrap it in a
/// reference, send the reference, and resolve it with ``Realm/resolve(_:)`` in a realm of the
/// same file on the destination. A reference resolves once. Until it is resolved or released it
/// keeps the version it was made at readable, so the file cannot reuse that version's space:
/// resolve references promptly.
///
/// ```swift
/// let reference = ThreadSafeReference(to: dog)
/// DispatchQueue.global().async {
///     guard let realm = try? Realm(configuration: config),
///           let dog = realm.resolve(reference) else { return }  // nil: deleted meanwhile
///     try? realm.write { dog.age += 1 }
/// }
/// ```
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

    /// Creates a reference to a managed object.
    ///
    /// - Parameter object: a managed object of a realm open on the calling thread. A reference to an
    ///   unmanaged object resolves to nothing.
    public init(to object: Confined) {
        let b = object._binding
        key = b?.key ?? 0
        identity = b?.core.fileIdentity ?? ""
        infoBox = TypeList(types: [Swift.type(of: object)])
        state = Mutex(State(pin: try? b?.core.file.beginRead(), resolved: b == nil))
    }

    /// Whether the reference can no longer be resolved: it was resolved already, or was made from an
    /// unmanaged object.
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
    /// Returns the object a reference points to, as seen by this realm's newest version.
    ///
    /// This realm moves to its newest version first (unless a write is open), so the object reflects
    /// every commit made up to now.
    ///
    /// - Parameter reference: a reference made in a realm of the same file.
    /// - Returns: the object, or `nil` when it was deleted since, when the reference was already
    ///   resolved or belongs to another file, or when called off this realm's thread (the reference
    ///   then stays resolvable).
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
