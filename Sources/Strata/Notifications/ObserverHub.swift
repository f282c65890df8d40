// The observers of one realm core, and what one delivery reports to them. When and on which
// thread or queue a delivery happens is NotificationScheduling.swift's.
//
// Invariants:
// - The hub and its observers are confined to the core's thread or queue, like the core —
//   except the observer lists themselves, which are locked: invalidating a token (from any
//   thread) removes its observer at once. Observers hold no reference to the core (it is passed
//   in), but what they report may (an old linked object, objects captured by the user's block),
//   so an invalidated observer must not wait in the hub for the next delivery: with nothing else
//   touching the core, that would keep the realm and its file open (core → hub → observer → core).
// - Nothing is delivered inside a write transaction or re-entrantly from a handler.
// - Each observer remembers the version it last reported; advancing to the same version twice
//   reports nothing, and several commits between two deliveries coalesce into one change.
import Dispatch
import Foundation

/// One registered observer; `advance` compares against what it last reported.
protocol ChangeObserver: AnyObject {
    var flag: ObserverFlag { get }
    /// Reads the current snapshot of `core`; reports the difference unless `silently`.
    func advance(core: RealmCore, silently: Bool)
}

final class RealmObserver {
    let flag: ObserverFlag
    let block: (Realm.Notification, Realm) -> Void
    var lastRefreshRequired: UInt64 = 0
    init(flag: ObserverFlag, block: @escaping (Realm.Notification, Realm) -> Void) {
        self.flag = flag
        self.block = block
    }
}

/// The observer lists of a hub, locked so that a token invalidated on any thread can remove its
/// observer at once.
/// `@unchecked Sendable`: every access takes `lock`; the observers themselves are only used on
/// the core's thread or queue (the lists hand out snapshots there).
final class ObserverLists: @unchecked Sendable {
    private let lock = NSLock()
    private var realm: [RealmObserver] = []
    private var change: [any ChangeObserver] = []

    var realmObservers: [RealmObserver] { lock.withLock { realm } }
    var observers: [any ChangeObserver] { lock.withLock { change } }
    var isEmpty: Bool { lock.withLock { realm.isEmpty && change.isEmpty } }

    func append(_ observer: RealmObserver) { lock.withLock { realm.append(observer) } }
    func append(_ observer: any ChangeObserver) { lock.withLock { change.append(observer) } }

    /// Drops the observers whose flag is set. The removed observers are released after the lock.
    func prune() {
        var dropped: [AnyObject] = []
        lock.withLock {
            dropped += realm.filter { $0.flag.isSet } as [AnyObject]
            dropped += change.filter { $0.flag.isSet } as [AnyObject]
            realm.removeAll { $0.flag.isSet }
            change.removeAll { $0.flag.isSet }
        }
        dropped.removeAll()
    }
}

final class ObserverHub {
    let lists = ObserverLists()
    var realmObservers: [RealmObserver] { lists.realmObservers }
    var observers: [any ChangeObserver] { lists.observers }
    var lastVersion: UInt64
    var delivering = false
    var deliveryScheduled = false
    var watched = false
    /// A commit made through this core has not been delivered yet.
    var localCommitUndelivered = false
    /// The delivery under way includes a commit made through this core: as in Realm, object
    /// observers then report no old values (`PropertyChange.oldValue` is nil).
    var deliveringLocalCommit = false

    /// Set when the hub (and so its core) goes away: tells the watcher to stop.
    let closed = ObserverFlag()

    init(version: UInt64) { lastVersion = version }
    deinit {
        closed.set()
        // The watcher's handle goes with the core's: left to the next tick, it would keep the
        // file open after the last instance (an in-memory realm keeping its objects).
        if watched { VersionWatcher.shared.stopWatching(closed) }
    }

    var isEmpty: Bool { lists.isEmpty }

    func prune() { lists.prune() }

    /// Registers an observer; invalidating `token` removes it (from any thread).
    func add(_ observer: any ChangeObserver, token: NotificationToken) {
        lists.append(observer)
        token.whenInvalidated { [weak lists] in lists?.prune() }
    }

    func add(_ observer: RealmObserver, token: NotificationToken) {
        lists.append(observer)
        token.whenInvalidated { [weak lists] in lists?.prune() }
    }

    // MARK: Delivery (when and on which queue: NotificationScheduling.swift)

    /// The flags of `tokens`, which identify their observers.
    static func flags(of tokens: [NotificationToken]) -> Set<ObjectIdentifier> {
        Set(tokens.map { ObjectIdentifier($0.cancelled) })
    }

    /// Reports the snapshot `core` reads (already loaded) to every live observer: realm
    /// observers when the version moved since the last delivery, change observers always (each
    /// compares with what it last reported). The observers of `skipped` advance silently.
    func deliver(at core: RealmCore, skipping skipped: Set<ObjectIdentifier>) {
        deliveringLocalCommit = localCommitUndelivered
        localCommitUndelivered = false
        defer { deliveringLocalCommit = false }
        let version = core.snap.version
        if version != lastVersion {
            lastVersion = version
            for r in realmObservers where !r.flag.isSet && !skipped.contains(ObjectIdentifier(r.flag)) {
                r.block(.didChange, Realm(core: core))
            }
        }
        for o in observers where !o.flag.isSet {
            o.advance(core: core, silently: skipped.contains(ObjectIdentifier(o.flag)))
        }
    }

    /// Advances the observers of `skipped` to `core`'s snapshot without a report
    /// (`commitWrite(withoutNotifying:)` on a queue-confined realm, whose delivery comes later).
    func advanceSilently(_ skipped: Set<ObjectIdentifier>, at core: RealmCore) {
        for o in observers where skipped.contains(ObjectIdentifier(o.flag)) {
            o.advance(core: core, silently: true)
        }
    }

    /// With autorefresh off: tells each realm observer once per newer version `latest` that a
    /// refresh is needed.
    func reportRefreshRequired(latest: UInt64, core: RealmCore) {
        prune()
        for r in realmObservers where r.lastRefreshRequired != latest {
            r.lastRefreshRequired = latest
            r.block(.refreshRequired, Realm(core: core))
        }
    }
}

