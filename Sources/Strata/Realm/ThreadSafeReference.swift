// ThreadSafeReference: hands a managed object, list, set or map — or a realm — to another thread.
//
// Invariants:
// - The reference pins the version it was made at (it holds a read transaction of exactly that
//   version) until resolved or deallocated, as Realm documents: an unresolved reference keeps
//   that version's pages.
// - It is made only from a managed, valid value, and resolves at most once: anything else is a
//   misuse that stops with a `Strata:` message, as Realm raises. Resolving finds the object, or the
//   collection's owner, by its key in the version the target realm reads (nil when it was deleted
//   there). That version is, as in Realm: the reference's, when the target reads nothing yet (just
//   opened, or invalidated; it takes over the pin and stays there until refreshed); the newest,
//   when it read an older version than the reference's, or the reference was made in a write; and
//   otherwise the one it reads already.
//   Table and column numbers are the same in every realm of one file (tables are only ever
//   appended), so a collection is found again by (table, column, owner key).
import Synchronization
import StrataStorage

/// What can be handed to another thread with a ``ThreadSafeReference``: an `Object`, a `List`,
/// `MutableSet` or `Map` of a managed object, or a ``Realm``.
public protocol ThreadConfined: SendableMetatype {
    /// How to find this value again in another realm of the same file; nil when unmanaged.
    var _strataHandover: _Handover? { get }
    /// The value `handover` describes, in `realm` (nil when it no longer exists there).
    static func _strataResolve(_ handover: _Handover, in realm: Realm) -> Self?
}

/// Where a thread-confined value lives in its file. Public only so that `ThreadConfined`'s
/// requirements can name it.
public struct _Handover: @unchecked Sendable {
    // @unchecked: `configuration` is only copied and read.
    enum Place {
        case object(key: UInt64)
        case collection(table: Int, column: Int, owner: UInt64)
        case realm(Realm.Configuration)
        /// Results of objects: how to rebuild their class and query in a realm (ThreadSafeQueries.swift).
        case results(Any)
        /// The links to one object through one property.
        case linkingObjects(table: Int, key: UInt64, originProperty: String)
        /// A wrapped value: the wrapped value's handover and how to rebuild the wrapper from it.
        indirect case wrapped(inner: _Handover, resolve: (_Handover, Realm) -> Any?)
    }
    let place: Place
    let identity: String
    /// The core it was made in, to pin its version (dropped once the reference is made).
    let core: RealmCore?

    /// The configuration of the realm the value belongs to, when known.
    var configuration: Realm.Configuration? {
        if case .realm(let configuration) = place { return configuration }
        return core?.configuration
    }
}

/// A handle to a managed object, list, set or map, or to a realm, that can cross to another
/// thread or queue and be resolved there.
///
/// Managed objects and collections are confined to their realm's thread. To use one elsewhere,
/// wrap it in a reference, send the reference, and resolve it with ``Realm/resolve(_:)`` in a
/// realm of the same file on the destination. A reference resolves once. Until it is resolved or
/// released it keeps the version it was made at readable, so the file cannot reuse that version's
/// space: resolve references promptly.
///
/// ```swift
/// let reference = ThreadSafeReference(to: dog)
/// DispatchQueue.global().async {
///     guard let realm = try? Realm(configuration: config),
///           let dog = realm.resolve(reference) else { return }  // nil: deleted meanwhile
///     try? realm.write { dog.age += 1 }
/// }
/// ```
public final class ThreadSafeReference<Confined: ThreadConfined>: Sendable {
    private struct State: @unchecked Sendable {
        // @unchecked: the pinned ReadTransaction is thread-safe for reads and only ended here.
        var pin: ReadTransaction?
        var resolved = false
    }
    private let state: Mutex<State>
    let handover: _Handover
    /// The version a realm must read for the value to exist: the version the making realm read,
    /// or the one after it when the reference was made inside a write (the value may be new in
    /// that write, visible only once it commits).
    let version: UInt64?

    /// Creates a reference to a managed value.
    ///
    /// - Parameter value: a managed object or collection of a realm open on the calling thread, or
    ///   a realm. An unmanaged value (or results of values), or one deleted or invalidated, stops
    ///   with a `Strata:` message, as Realm raises.
    public init(to value: Confined) {
        guard let made = value._strataHandover else {
            Stop.now("Strata: invalidArgument: cannot make a ThreadSafeReference to an unmanaged \(Confined.self) (or to results of values)")
        }
        if let reporting = value as? any InvalidationReporting, reporting.isInvalidated {
            Stop.now("Strata: objectInvalidated: cannot make a ThreadSafeReference to an invalidated \(Confined.self)")
        }
        handover = _Handover(place: made.place, identity: made.identity, core: nil)
        // Pinned before the version is read: outside a write, the pin is the version the making
        // realm reads (it begins reading if it did not yet).
        let pin = try? made.core?.pinForHandover()
        version = pin?.version ?? made.core.map { $0.isInWriteTransaction ? $0.snap.version + 1 : $0.snap.version }
        state = Mutex(State(pin: pin, resolved: false))
    }

    /// Whether the reference was resolved already (it resolves once).
    public var isInvalidated: Bool { state.withLock { $0.resolved } }

    /// Marks the reference resolved; false when it was already. `pin` receives the pinned
    /// version's read transaction, which the caller then owns (adopts or ends).
    func take(pin: inout ReadTransaction?) -> Bool {
        state.withLock { s in
            if s.resolved { return false }
            s.resolved = true
            pin = s.pin
            s.pin = nil
            return true
        }
    }
}

extension Realm {
    /// Returns the value a reference points to, as this realm sees it.
    ///
    /// As in Realm: a realm that reads nothing yet (opened, or invalidated, and not used since)
    /// begins reading at the reference's version and stays there until `refresh()`, a write or
    /// autorefresh, so the value and everything else read from the realm show what the reference
    /// saw, not what was committed after it. A realm that reads a version older than the
    /// reference's (or any version, for a reference made inside a write) moves to its newest
    /// version first, unless a write is open; a realm at the reference's version or a newer one
    /// stays where it is, so resolving never changes what the thread's other objects read.
    ///
    /// - Parameter reference: a reference made in a realm of the same file.
    /// - Returns: the value, or `nil` when it (or a collection's owner) was deleted since, when the
    ///   reference belongs to another file, or when called off this realm's thread (the reference
    ///   then stays resolvable). Resolving a reference a second time stops with a `Strata:`
    ///   message, as Realm raises.
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        // Check the thread first so a call from the wrong thread does not consume the reference.
        let handover = reference.handover
        guard core.confinement.isCurrent, handover.identity == core.fileIdentity else { return nil }
        var pin: ReadTransaction?
        guard reference.take(pin: &pin) else {
            Stop.now("Strata: invalidState: a ThreadSafeReference resolves once, and this one was resolved already")
        }
        // A failure to move to the version (damage, too many versions) stops, as any read that
        // cannot throw does: nil would say "deleted".
        do {
            if let pin, !core.isReading {
                try core.adoptRead(pin)
            } else {
                pin?.end()
                if !core.isInWriteTransaction {
                    _ = try core.pages()
                    if reference.version.map({ $0 > core.snap.version }) ?? true {
                        _ = try core.refresh()
                    }
                }
            }
        } catch {
            core.readFailed(error)
        }
        return Confined._strataResolve(handover, in: self)
    }
}

// MARK: - Conformances

extension Object: ThreadConfined {
    public var _strataHandover: _Handover? {
        _binding.map { _Handover(place: .object(key: $0.key), identity: $0.core.fileIdentity, core: $0.core) }
    }

    public static func _strataResolve(_ handover: _Handover, in realm: Realm) -> Self? {
        guard case .object(let key) = handover.place, let info = try? ClassInfo.of(self) else { return nil }
        do { return try realm.core.objectIfExists(self, info: info, key: key) } catch { realm.core.readFailed(error) }
    }
}

extension Realm: ThreadConfined {
    public var _strataHandover: _Handover? {
        _Handover(place: .realm(configuration), identity: core.fileIdentity, core: nil)
    }

    /// The realm of the same configuration on the resolving thread.
    public static func _strataResolve(_ handover: _Handover, in realm: Realm) -> Realm? {
        guard case .realm(let configuration) = handover.place else { return nil }
        return try? Realm(configuration: configuration)
    }
}

extension CollectionRef {
    var handover: _Handover {
        _Handover(place: .collection(table: table, column: column.index, owner: owner), identity: core.fileIdentity, core: core)
    }

    /// The collection `handover` describes in `realm`, nil when its owner no longer exists.
    static func resolving(_ handover: _Handover, in realm: Realm) -> CollectionRef? {
        guard case .collection(let table, let column, let owner) = handover.place, table < realm.core.snap.schemas.count else { return nil }
        let columns = realm.core.layout(ofTable: table).columns
        guard column < columns.count else { return nil }
        let ref = CollectionRef(core: realm.core, table: table, column: columns[column], owner: owner)
        guard (try? realm.core.collectionState(table: table, column: ref.column, owner: owner)) != nil else { return nil }
        return ref
    }
}

extension List: ThreadConfined {
    public var _strataHandover: _Handover? { ref?.handover }
    public static func _strataResolve(_ handover: _Handover, in realm: Realm) -> List<Element>? {
        CollectionRef.resolving(handover, in: realm).map { List(ref: $0) }
    }
}

extension MutableSet: ThreadConfined {
    public var _strataHandover: _Handover? { ref?.handover }
    public static func _strataResolve(_ handover: _Handover, in realm: Realm) -> MutableSet<Element>? {
        CollectionRef.resolving(handover, in: realm).map { MutableSet(ref: $0) }
    }
}

extension Map: ThreadConfined {
    public var _strataHandover: _Handover? { ref?.handover }
    public static func _strataResolve(_ handover: _Handover, in realm: Realm) -> Map<Key, Value>? {
        CollectionRef.resolving(handover, in: realm).map { Map(ref: $0) }
    }
}

/// A thread-confined value that can tell it was deleted or invalidated (a reference to it is refused).
protocol InvalidationReporting {
    var isInvalidated: Bool { get }
}

extension Object: InvalidationReporting {}
extension List: InvalidationReporting {}
extension MutableSet: InvalidationReporting where Element: RealmCollectionValue {}
extension Map: InvalidationReporting {}
