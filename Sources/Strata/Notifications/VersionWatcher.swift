// Watches the newest committed version of the files that queue-confined observers look at, so
// commits of other threads and of OTHER PROCESSES are delivered without anyone calling refresh.
//
// How: one process-wide DispatchSourceTimer (every 10 ms, only while something is watched) asks
// each watched file for `latestVersion()` — one read of the shared version record, no page is
// touched — and, when it moved, enqueues a delivery on the observer realm's queue.
// Commits made in THIS process do not wait for the timer: every commit pokes the watcher
// (`commitHappened()`), which runs one check at once on the timer queue (pokes that arrive while
// one is pending coalesce). The timer remains for other processes' commits.
//
// Invariants:
// - The watcher never touches a core: it opens its OWN `StorageFile` of the same file (so no
//   other thread can close it under a version read), reads only that, and hands a weak reference
//   to the core to the core's own queue.
// - An entry whose core went away (its hub's `closed` flag, set by the hub's deinit) is dropped
//   and its file handle closed by that deinit (`stopWatching`), so the file closes with its last
//   instance; with no entries left the timer stops. A tick reading a closed handle gets an
//   error and drops the entry (closing a handle is thread-safe).
// - At most one delivery per entry waits to run: while one is enqueued and has not started, a
//   newer version enqueues nothing more (the waiting one refreshes to the newest when it runs).
//   A thread that stops running its run loop therefore holds one block, not one per commit.
import Dispatch
import Foundation
import StrataStorage
import Synchronization

final class VersionWatcher: Sendable {
    static let shared = VersionWatcher()

    private struct Entry: @unchecked Sendable {
        // @unchecked: `core` (a weak reference) is only loaded on `queue`, the queue the core is
        // confined to (never on the timer queue, where a last release would deinit it); `file`
        // is Sendable.
        let core: WeakCore
        let file: StorageFile
        let closed: ObserverFlag
        let scheduler: RealmScheduler
        let pending = PendingDelivery()
        var lastVersion: UInt64
    }

    private struct State: @unchecked Sendable {
        // @unchecked: only touched under the mutex.
        var entries: [Entry] = []
        var timer: DispatchSourceTimer?
    }

    private let state = Mutex(State())
    private let timerQueue = DispatchQueue(label: "strata.version-watcher")
    /// A poke's check is queued and has not started yet (further pokes add nothing).
    private let pokePending = Atomic<Bool>(false)
    /// Whether commits poke the watcher (always, except in the benchmark that measures delivery
    /// by the timer alone).
    let commitPokes = Atomic<Bool>(true)
    static let interval: DispatchTimeInterval = .milliseconds(10)

    /// Starts watching; false when the file could not be opened a second time.
    @discardableResult
    func watch(core: RealmCore, hub: ObserverHub, scheduler: RealmScheduler, version: UInt64) -> Bool {
        guard let options = try? core.configuration.storageOptions(),
              let file = try? StorageFile.open(options) else { return false }
        let entry = Entry(core: WeakCore(core), file: file, closed: hub.closed, scheduler: scheduler, lastVersion: version)
        state.withLock { s in
            s.entries.append(entry)
            if s.timer == nil {
                let t = DispatchSource.makeTimerSource(queue: timerQueue)
                t.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
                t.setEventHandler { [weak self] in self?.tick() }
                t.resume()
                s.timer = t
            }
        }
        return true
    }

    /// Drops the entries of the hub whose `closed` flag this is and closes their handles.
    func stopWatching(_ closed: ObserverFlag) {
        let dropped = state.withLock { s -> [Entry] in
            let dropped = s.entries.filter { $0.closed === closed }
            s.entries.removeAll { $0.closed === closed }
            return dropped
        }
        for e in dropped { e.file.close() }
    }

    /// Called after every commit in this process: checks the watched files now instead of at
    /// the next timer tick. Costs one lock when nothing is watched.
    func commitHappened() {
        guard commitPokes.load(ordering: .relaxed), state.withLock({ $0.timer != nil }) else { return }
        guard !pokePending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        timerQueue.async { [self] in
            pokePending.store(false, ordering: .releasing)
            tick()
        }
    }

    private func tick() {
        // Read versions outside the lock (a read may wait on file locks briefly).
        let snapshot = state.withLock { $0.entries }
        var versions: [UInt64?] = []
        for e in snapshot {
            if e.closed.isSet {
                e.file.close()
                versions.append(nil)
            } else {
                versions.append(try? e.file.latestVersion())
            }
        }
        var wake: [Entry] = []
        state.withLock { s in
            // One entry per hub, so its `closed` flag names it.
            let stillWatched = Set(s.entries.map { ObjectIdentifier($0.closed) })
            var kept: [Entry] = []
            for (i, var e) in snapshot.enumerated() {
                // The core went away (or the file failed), or `stopWatching` dropped it meanwhile.
                guard let v = versions[i], stillWatched.contains(ObjectIdentifier(e.closed)) else { continue }
                if v != e.lastVersion {
                    e.lastVersion = v
                    wake.append(e)
                }
                kept.append(e)
            }
            // Entries added while versions were read are kept as they are.
            let read = Set(snapshot.map { ObjectIdentifier($0.closed) })
            kept.append(contentsOf: s.entries.filter { !read.contains(ObjectIdentifier($0.closed)) })
            s.entries = kept
            if s.entries.isEmpty {
                s.timer?.cancel()
                s.timer = nil
            }
        }
        for e in wake where e.pending.claim() {
            let weak = e.core
            let box = QueueHandoff(value: weak)
            let pending = e.pending
            e.scheduler.async {
                pending.release()
                guard let core = box.value.core else { return }
                core.scheduleDeliveryNow()
            }
        }
    }
}

/// Whether a delivery enqueued for a watched entry has not started yet.
final class PendingDelivery: Sendable {
    private let waiting = Atomic<Bool>(false)
    /// Marks a delivery as waiting; false when one already is (enqueue nothing then).
    func claim() -> Bool { !waiting.exchange(true, ordering: .acquiringAndReleasing) }
    /// Called as the delivery starts, before it reads the version.
    func release() { waiting.store(false, ordering: .releasing) }
}
