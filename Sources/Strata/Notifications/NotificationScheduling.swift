// When and where a realm core delivers its observers' notifications. What is delivered, and to
// whom, is the hub's (ObserverHub.swift).
//
// Delivery points (a documented deviation from Realm, which uses run loops):
// - Thread-confined realm: at the end of `commitWrite`/`write`, in `refresh()` and in `beginWrite`
//   (before the write begins, after advancing to the newest version) — synchronously; on the
//   main thread, or a thread running its run loop, also when another thread or process commits.
// - Queue-confined realm: asynchronously on its queue, after a local commit and when the version
//   watcher (VersionWatcher.swift) sees a commit of another thread or process.
// - Collection and object observers registered with `on: queue` open a realm on that queue and
//   observe there (Handover.swift).
//
// Invariants:
// - Nothing is delivered inside a write transaction, on a frozen core, or re-entrantly from a
//   handler (`ObserverHub.delivering`).
// - Observers hear about a version before a write begins on it (`deliverBeforeWrite`), so
//   handlers never see a version they were not told about.
// - Deliveries scheduled on a queue coalesce while one is pending, and hold the core weakly: a
//   pending delivery never keeps a realm open.
import Dispatch
import Foundation

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
        hub.deliver(at: self, skipping: ObserverHub.flags(of: skipping))
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
        if !skipping.isEmpty { hub.advanceSilently(ObserverHub.flags(of: skipping), at: self) }
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
            hub.reportRefreshRequired(latest: latest, core: self)
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
