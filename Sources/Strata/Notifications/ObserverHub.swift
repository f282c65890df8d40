// The observers of one realm core and how they are advanced.
//
// Delivery points (documented deviation from Realm, which uses run loops):
// - Thread-confined realm: at the end of `commitWrite`/`write`, in `refresh()` and in `beginWrite`
//   (before the write begins, after advancing to the newest version) — synchronously.
// - Queue-confined realm: asynchronously on its queue, after a local commit and when the version
//   watcher (VersionWatcher.swift) sees a commit of another thread or process.
// - Collection and object observers registered with `on: queue` open a realm on that queue and
//   observe there (Handover.swift).
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
import StrataStorage

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
}

/// Carries a value to the queue a realm is confined to.
struct QueueHandoff<T>: @unchecked Sendable {
    // @unchecked: the value is created for, and only used on, the queue it is sent to.
    let value: T
}

extension RealmCore {
    /// Called on the core's queue or actor by the watcher.
    func scheduleDeliveryNow() {
        guard let hub = notificationHub, !hub.isEmpty else { return }
        advanceForNotifications()
    }

    /// The hub, created on first use (and registered with the watcher for queue-confined realms).
    func observerHub() -> ObserverHub {
        if let h = notificationHub { return h }
        _ = try? pages()
        let h = ObserverHub(version: snap.version)
        notificationHub = h
        return h
    }

    /// Registers the hub with the watcher when commits elsewhere reach this core's observers
    /// without a `refresh()` call: a queue- or actor-confined core, one of the main thread, or one
    /// of a thread running its run loop.
    func startWatchingIfQueueConfined(_ hub: ObserverHub) {
        adoptRunningRunLoop()
        guard let autorefreshScheduler, !hub.watched else { return }
        hub.watched = true
        VersionWatcher.shared.watch(core: self, hub: hub, scheduler: autorefreshScheduler, version: snap.version)
    }

    /// Called on the core's own thread: when that thread is running its run loop (the call comes
    /// from inside it), the loop serves the core from now on, as in Realm (ThreadRunLoop.swift).
    func adoptRunningRunLoop() {
        guard autorefreshScheduler == nil, scheduler == nil, !isFrozen,
              let loop = ThreadRunLoop.runningOnCurrentThread() else { return }
        autorefreshScheduler = .runLoop(loop)
    }

    /// Reports the changes up to the current snapshot to every observer. `skipping` tokens are
    /// advanced silently (`commitWrite(withoutNotifying:)`).
    func deliverNotifications(skipping: [NotificationToken] = []) {
        guard let hub = notificationHub, writeTxn == nil, !hub.delivering, !isFrozen else { return }
        hub.delivering = true
        defer { hub.delivering = false }
        hub.prune()
        guard !hub.isEmpty else { return }
        do { _ = try pages() } catch {
            record(error)
            return
        }
        let skipped = Set(skipping.map { ObjectIdentifier($0.cancelled) })
        hub.deliveringLocalCommit = hub.localCommitUndelivered
        hub.localCommitUndelivered = false
        defer { hub.deliveringLocalCommit = false }
        if snap.version != hub.lastVersion {
            hub.lastVersion = snap.version
            for r in hub.realmObservers where !r.flag.isSet && !skipped.contains(ObjectIdentifier(r.flag)) {
                r.block(.didChange, Realm(core: self))
            }
        }
        for o in hub.observers where !o.flag.isSet {
            o.advance(core: self, silently: skipped.contains(ObjectIdentifier(o.flag)))
        }
    }

    /// After a local commit: thread-confined realms deliver now; queue-confined ones advance the
    /// skipped observers now and deliver to the others asynchronously on their queue.
    func notifyAfterCommit(skipping: [NotificationToken]) {
        // Queue-confined observers of this file on other cores hear about it now, not at the
        // watcher's next tick (VersionWatcher.swift).
        VersionWatcher.shared.commitHappened()
        guard let hub = notificationHub, !hub.isEmpty else { return }
        hub.localCommitUndelivered = true
        guard let scheduler else {
            deliverNotifications(skipping: skipping)
            return
        }
        if !skipping.isEmpty {
            let skipped = Set(skipping.map { ObjectIdentifier($0.cancelled) })
            for o in hub.observers where skipped.contains(ObjectIdentifier(o.flag)) {
                o.advance(core: self, silently: true)
            }
        }
        scheduleDelivery(on: scheduler)
    }

    /// Enqueues one delivery on the realm's queue or actor (coalesced while one is pending).
    func scheduleDelivery(on scheduler: RealmScheduler) {
        guard let hub = notificationHub, !hub.deliveryScheduled else { return }
        hub.deliveryScheduled = true
        let weakCore = QueueHandoff(value: WeakCore(self))
        scheduler.async {
            guard let core = weakCore.value.core else { return }
            core.notificationHub?.deliveryScheduled = false
            core.advanceForNotifications()
        }
    }

    /// On the realm's queue, when another thread or process committed: refresh (or report
    /// `.refreshRequired` when autorefresh is off) and deliver.
    func advanceForNotifications() {
        guard writeTxn == nil, let hub = notificationHub else { return }
        if autorefresh {
            do { _ = try refresh() } catch {
                record(error)
                return
            }
            deliverNotifications()
        } else {
            guard let latest = try? file.latestVersion(), latest != snap.version else {
                deliverNotifications()
                return
            }
            hub.prune()
            for r in hub.realmObservers where r.lastRefreshRequired != latest {
                r.lastRefreshRequired = latest
                r.block(.refreshRequired, Realm(core: self))
            }
        }
    }

    /// Runs `initial` now (thread-confined realm) or soon on the realm's queue.
    func deliverInitial(flag: ObserverFlag, _ initial: @escaping (RealmCore) -> Void) {
        guard let scheduler else {
            initial(self)
            return
        }
        let box = QueueHandoff(value: (WeakCore(self), initial))
        scheduler.async {
            guard !flag.isSet, let core = box.value.0.core else { return }
            box.value.1(core)
        }
    }
}

/// A weak reference to a core (observers and the watcher never keep a realm open).
final class WeakCore {
    weak var core: RealmCore?
    init(_ core: RealmCore) { self.core = core }
}

extension RealmCore {
    /// `beginWrite` advances to the newest version; observers hear about it first (Realm does
    /// the same), so handlers never see a version they were not told about.
    func deliverBeforeWrite() {
        guard writeTxn == nil, let hub = notificationHub, !hub.isEmpty, !hub.delivering else { return }
        do { _ = try refresh() } catch {
            record(error)
            return
        }
        deliverNotifications()
    }
}
