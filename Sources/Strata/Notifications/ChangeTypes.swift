// The public shapes of notifications: realm notifications, collection change sets, object
// changes and the token that keeps an observation alive.
//
// Invariants:
// - A `NotificationToken` may be invalidated from any thread; invalidation only flips an atomic
//   flag on the observer, which its (confined) realm drops before the next delivery, so no
//   handler runs after `invalidate()` returns on the observer's own thread or queue.
// - Deinitialising the token invalidates it (Realm: delivery stops when the token is released).
import Dispatch
import Foundation
import Synchronization

/// Keeps an observation alive: every `observe` returns one, and delivery stops when the token is
/// invalidated or released.
///
/// Keep the token (in a property, for example) for as long as the handler should run.
/// ``invalidate()`` may be called from any thread; once it returns on the observer's own thread or
/// queue, the handler does not run again.
public final class NotificationToken: Sendable {
    let cancelled: ObserverFlag
    private let onInvalidate: Mutex<[@Sendable () -> Void]>

    /// A token that observes nothing (kept for source compatibility).
    public init() {
        cancelled = ObserverFlag()
        onInvalidate = Mutex([])
    }

    init(flag: ObserverFlag) {
        cancelled = flag
        onInvalidate = Mutex([])
    }

    /// A token that keeps `core` open while it is valid (Realm: an observed collection keeps
    /// its realm alive), released on invalidation.
    init(flag: ObserverFlag, retaining core: RealmCore) {
        cancelled = flag
        let kept = RetainedCore(core)
        onInvalidate = Mutex([{ kept.release() }])
    }

    /// Runs `action` when the token is invalidated (at once if it already is).
    func whenInvalidated(_ action: @escaping @Sendable () -> Void) {
        let runNow: Bool = onInvalidate.withLock { list in
            if cancelled.isSet { return true }
            list.append(action)
            return false
        }
        if runNow { action() }
    }

    /// Stops delivery. Safe to call more than once and from any thread.
    ///
    /// - Returns: whether this call stopped an observation (false when it was stopped already,
    ///   or never began).
    @discardableResult
    public func invalidate() -> Bool {
        let wasActive = !cancelled.setReturningPrevious()
        let actions = onInvalidate.withLock { list -> [@Sendable () -> Void] in
            defer { list.removeAll() }
            return list
        }
        for a in actions { a() }
        return wasActive
    }

    deinit { invalidate() }
}

/// An atomic "stop" flag shared by a token and its observer.
final class ObserverFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
    /// Sets the flag; whether it was set already.
    func setReturningPrevious() -> Bool { value.exchange(true, ordering: .acquiringAndReleasing) }

    /// A flag set from the start (an observation that never began).
    static func set() -> ObserverFlag {
        let flag = ObserverFlag()
        flag.set()
        return flag
    }
}

extension Realm {
    /// What `Realm.observe` reports.
    public enum Notification: String, Sendable {
        /// The realm advanced to a newer version (a commit here, on another thread or process).
        case didChange = "RLMRealmDidChangeNotification"
        /// A newer version exists but `autorefresh` is off: call `refresh()` to see it.
        case refreshRequired = "RLMRealmRefreshRequiredNotification"
    }
}

/// What a collection observer receives. Deletions and modifications are indices in the old
/// collection, insertions indices in the new one, as a table view's batch update takes them
/// (rows deleted and reloaded as they were shown, rows inserted where they will be). An object
/// that moved is reported as a deletion plus an insertion.
public enum RealmCollectionChange<CollectionType> {
    /// The first delivery: the collection as it is when observation starts.
    case initial(CollectionType)
    /// A later delivery after commits that changed the collection; several commits may come as one.
    ///
    /// The associated arrays are the indices deleted (in the old collection), inserted (in the
    /// new collection) and modified (in the old collection).
    case update(CollectionType, deletions: [Int], insertions: [Int], modifications: [Int])
    /// Observation could not start (for example an unmanaged or frozen collection, or an unknown key
    /// path); nothing follows it.
    case error(Swift.Error)
}

/// One changed property of an observed object.
///
/// `oldValue` is `nil` when the previous value is not reported: for collection properties, and,
/// as in RealmSwift, for a change whose delivery includes a commit made through the observing
/// realm itself (a write on its thread, queue or actor).
public struct PropertyChange {
    /// The property's name.
    public let name: String
    /// The value before the change, when known.
    public let oldValue: Any?
    /// The value after the change.
    public let newValue: Any?
}

/// What an object observer receives.
///
/// ```swift
/// let token = dog.observe { change in
///     switch change {
///     case .change(_, let properties):
///         for p in properties { print(p.name, p.oldValue ?? "?", "→", p.newValue ?? "nil") }
///     case .deleted: print("the dog was deleted")
///     case .error(let error): print(error)
///     }
/// }
/// ```
public enum ObjectChange<T> {
    /// The object changed: the object and its changed properties (only watched ones, when key paths
    /// were given).
    case change(T, [PropertyChange])
    /// The object was deleted; nothing follows.
    case deleted
    /// Observation could not start; nothing follows.
    case error(Swift.Error)
}

/// Holds a core for a token without using it.
final class RetainedCore: @unchecked Sendable {
    // @unchecked: the core is only retained and released here, never used. The last release of
    // a queue-confined core is sent to its queue, so its deinit (which ends its transactions)
    // runs where the core lives, never concurrently with a delivery.
    private let lock = NSLock()
    private var core: RealmCore?
    private let scheduler: RealmScheduler?
    init(_ core: RealmCore) {
        self.core = core
        self.scheduler = core.scheduler
    }
    func release() {
        lock.lock()
        let old = core
        core = nil
        lock.unlock()
        if let scheduler, let old {
            let box = QueueHandoff(value: old)
            scheduler.async { withExtendedLifetime(box) {} }
        }
    }
}

/// Observing what cannot change or cannot be watched (an unmanaged or frozen value, an unknown
/// key path) is a misuse RealmSwift raises for, from calls that cannot throw: it stops with a
/// `Strata:` message. Failures of the file while observation starts are delivered as `.error`.
enum ObservationMisuse {
    static func stop(_ code: Realm.Error.Code, _ message: String) -> Never {
        Stop.now(Realm.Error(code, message))
    }

    /// Stops for a misuse (`.invalidArgument`: a key path that names no property, or one given
    /// for values); anything else is left to the caller to deliver.
    static func stopIfMisuse(_ error: Swift.Error) {
        if let error = error as? Realm.Error, error.code == .invalidArgument { stop(error.code, error.message) }
    }
}
