// Notification latency: a commit on one thread → the handler of an observer on a queue-confined
// realm. Skipped unless STRATA_NOTIFY_BENCH=1; run in release:
//   swift build -c release --build-tests -Xswiftc -enable-testing
//   STRATA_NOTIFY_BENCH=1 swift test -c release -Xswiftc -enable-testing --skip-build --filter NotificationBenchmarks
// Measured 2026-11-22 (release, 2 cores shared with other builds, load 2–6; 3 runs, medians / p99
// of write-begin → handler-entered over 1,000 commits, durability .unsafe):
//   Results.observe (100 objects)            47–77 µs / 81–210 µs   (commit alone 11–23 µs)
//   Object.observe                            24–47 µs / 55–151 µs   (commit alone 16–34 µs)
//   Results.observe, timer only (no poke)    9.93–9.97 ms / 10.1–17.2 ms (the 10 ms watcher tick,
//                                            which is what another process's commits still get)
// Figures are printed, not asserted (targets belong to benchmarks, never to unit tests); each
// run still checks that every commit was delivered, in order, with the right change.
import Foundation
import Synchronization
import Testing
@testable import Strata
import StrataTestSupport

final class NotifyBenchItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var value: Int
}

/// Nanosecond timestamps written by the handler (another queue), read by the committing thread.
final class NotifyBenchStamps: Sendable {
    let handled = Mutex<[Int: UInt64]>([:])
}

private func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

private func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let i = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
    return Double(sorted[max(0, i)]) / 1000
}

@Suite(.enabled(if: ProcessInfo.processInfo.environment["STRATA_NOTIFY_BENCH"] == "1"), .serialized)
struct NotificationBenchmarks {
    static let commits = 1_000
    static let objects = 100

    /// Commits `commits` single-object updates from this thread, waiting (≤ 30 s) for each to
    /// reach the handler before the next, and prints median and p99 of write-began →
    /// handler-entered (the commit plus the delivery), of the commit alone (write-began →
    /// write-returned), and how often the handler started before `write` had returned (the
    /// delivery runs on another thread as soon as the commit pokes the version watcher).
    /// `target(n)`: the id of the object commit n updates.
    func measure(_ label: String, target: (Int) -> Int,
                 observe: (Realm, NotifyBenchStamps, DispatchSemaphore) -> NotificationToken?) throws {
        var config = Realm.Configuration(fileURL: FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-notify-bench-\(UUID().uuidString).realm"))
        config.durability = .unsafe
        let writer = try Realm(configuration: config)
        try writer.write {
            for i in 0..<Self.objects {
                let o = NotifyBenchItem()
                o.id = i
                writer.add(o)
            }
        }
        let queue = DispatchQueue(label: "notify-bench-observer")
        let stamps = NotifyBenchStamps()
        let signal = DispatchSemaphore(value: 0)
        let tokenBox = Mutex<NotificationToken?>(nil)
        let opened = Mutex<String?>(nil)
        queue.sync {
            do {
                let realm = try Realm(configuration: config, queue: queue)
                let token = observe(realm, stamps, signal)
                tokenBox.withLock { $0 = token }
            } catch { opened.withLock { $0 = "\(error)" } }
        }
        #expect(opened.withLock { $0 } == nil)
        #expect(signal.wait(timeout: .now() + 30) == .success)   // .initial
        var commitOnly: [UInt64] = [], fromBegin: [UInt64] = []
        var handledBeforeReturn = 0
        commitOnly.reserveCapacity(Self.commits)
        fromBegin.reserveCapacity(Self.commits)
        for n in 1...Self.commits {
            let target = writer.object(ofType: NotifyBenchItem.self, forPrimaryKey: target(n))
            let t0 = now()
            try writer.write { target?.value = n }
            let t1 = now()
            guard signal.wait(timeout: .now() + 30) == .success else {
                Issue.record("commit \(n) was not delivered within 30 s")
                return
            }
            guard let th = stamps.handled.withLock({ $0[n] }) else {
                Issue.record("the handler did not see commit \(n) (coalesced or wrong value)")
                return
            }
            commitOnly.append(t1 - t0)
            fromBegin.append(th > t0 ? th - t0 : 0)
            if th < t1 { handledBeforeReturn += 1 }
        }
        commitOnly.sort()
        fromBegin.sort()
        print(String(format: "notify-bench %@: %d commits; write-begin→handler median %.1f µs p99 %.1f µs; commit alone median %.1f µs p99 %.1f µs; handler started before write returned: %d",
                     label, Self.commits, percentile(fromBegin, 0.5), percentile(fromBegin, 0.99),
                     percentile(commitOnly, 0.5), percentile(commitOnly, 0.99), handledBeforeReturn))
        queue.sync { _ = tokenBox.withLock { $0?.invalidate() } }
    }

    /// Observes every item; stamps the handler time under the modified object's value (which
    /// names the commit).
    static func observeResults(_ realm: Realm, _ stamps: NotifyBenchStamps, _ signal: DispatchSemaphore) -> NotificationToken? {
        realm.objects(NotifyBenchItem.self).observe { change in
            let t = now()
            switch change {
            case .initial: signal.signal()
            case .update(let r, _, _, let m):
                if m.count == 1 { stamps.handled.withLock { $0[r[m[0]].value] = t } }
                signal.signal()
            case .error: signal.signal()
            }
        }
    }

    @Test func resultsObserverLatency() throws {
        try measure("Results.observe (100 objects)", target: { $0 % Self.objects }, observe: Self.observeResults)
    }

    /// The same without the commit's poke: delivery waits for the version watcher's timer
    /// (VersionWatcher.interval), which is what commits of other processes get.
    @Test func resultsObserverLatencyByTheTimerAlone() throws {
        VersionWatcher.shared.commitPokes.store(false, ordering: .relaxed)
        defer { VersionWatcher.shared.commitPokes.store(true, ordering: .relaxed) }
        try measure("Results.observe, timer only (no commit poke)", target: { $0 % Self.objects }, observe: Self.observeResults)
    }

    @Test func objectObserverLatency() throws {
        // Observe object 1 and update only it: every commit changes the observed object.
        try measure("Object.observe", target: { _ in 1 }) { realm, stamps, signal in
            guard let o = realm.object(ofType: NotifyBenchItem.self, forPrimaryKey: 1) else { return nil }
            signal.signal()   // object observers have no .initial
            return o.observe { (change: ObjectChange<NotifyBenchItem>) in
                let t = now()
                if case .change(let obj, _) = change { stamps.handled.withLock { $0[obj.value] = t } }
                signal.signal()
            }
        }
    }
}
