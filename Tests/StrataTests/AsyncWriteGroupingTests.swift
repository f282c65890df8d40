// Asynchronous commits on a queue-confined realm: published at once, flushed on a background
// thread, completions on the realm's queue after the flush; `allowGrouping` shares one flush
// among consecutive commits. Flushes are counted through the storage file (no timing asserted).

import Dispatch
import Foundation
import Testing
@testable import Strata
import StrataTestSupport
@testable import StrataStorage

@Suite("Async commits and grouping")
struct AsyncWriteGroupingTests {
    /// Opens a `.full` realm confined to `queue` and returns it (used only on `queue`).
    func openOnQueue(_ config: Realm.Configuration, _ queue: DispatchQueue) throws -> Unchecked<Realm> {
        try queue.sync { Unchecked(value: try Realm(configuration: config, queue: queue)) }
    }

    /// Enqueues `count` async writes of one ToDoItem each, then waits for every completion.
    /// Returns the completions' errors (nil = success) in the order they ran.
    func writeMany(_ realm: Unchecked<Realm>, on queue: DispatchQueue, count: Int, grouping: Bool) -> [String?] {
        let results = LockedBox<[String?]>([])
        let done = DispatchSemaphore(value: 0)
        queue.sync {
            let r = realm.value
            for i in 0..<count {
                r.beginAsyncWrite {
                    r.add(ToDoItem(value: ["text": "item \(i)"]))
                    r.commitAsyncWrite(allowGrouping: grouping) { error in
                        results.set(results.get() + [error.map { "\($0)" }])
                        done.signal()
                    }
                }
            }
        }
        for _ in 0..<count { _ = done.wait(timeout: .now() + 60) }
        return results.get()
    }

    @Test func groupedCommitsShareOneFlushAndAllComplete() throws {
        let config = tempConfig("grouped", durability: .full)
        let queue = DispatchQueue(label: "strata.grouping")
        let realm = try openOnQueue(config, queue)
        let flushesBefore = queue.sync { realm.value.core.file.flushCount }
        let results = writeMany(realm, on: queue, count: 20, grouping: true)
        #expect(results.count == 20)
        #expect(results.allSatisfy { $0 == nil })
        // Every write was queued before the first ran, so the group is flushed once at its end —
        // plus one forced flush per 7 unflushed commits: the meta ring (8 slots) never overwrites
        // the newest durable version's slot.
        let flushes = queue.sync { realm.value.core.file.flushCount } - flushesBefore
        #expect(flushes >= 1)
        #expect(flushes <= 1 + 20 / (MetaLayout.slotCount - 1))
        #expect(queue.sync { realm.value.objects(ToDoItem.self).count } == 20)
        // Durable and visible to another instance.
        let other = try Realm(configuration: config)
        #expect(other.objects(ToDoItem.self).count == 20)
    }

    @Test func ungroupedCommitsEachGetAFlushAndCompleteInOrder() throws {
        let config = tempConfig("ungrouped", durability: .full)
        let queue = DispatchQueue(label: "strata.ungrouped")
        let realm = try openOnQueue(config, queue)
        let order = LockedBox<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        let flushesBefore = queue.sync { realm.value.core.file.flushCount }
        queue.sync {
            let r = realm.value
            for i in 0..<5 {
                r.writeAsync({ r.add(ToDoItem(value: ["text": "\(i)"])) }, onComplete: { error in
                    if error == nil { order.set(order.get() + [i]) }
                    done.signal()
                })
            }
        }
        for _ in 0..<5 { _ = done.wait(timeout: .now() + 60) }
        #expect(order.get() == [0, 1, 2, 3, 4])
        let flushes = queue.sync { realm.value.core.file.flushCount } - flushesBefore
        // Flushes may be shared when one starts while an earlier one is running, never skipped.
        #expect(flushes >= 1)
        #expect(flushes <= 5)
        #expect(queue.sync { realm.value.isPerformingAsynchronousWriteOperations } == false)
    }

    @Test func aCommitIsVisibleBeforeItsCompletionAndBusyUntilThen() throws {
        let config = tempConfig("visible", durability: .full)
        let queue = DispatchQueue(label: "strata.visible")
        let realm = try openOnQueue(config, queue)
        let observed = LockedBox<(count: Int, busy: Bool)>((0, false))
        let done = DispatchSemaphore(value: 0)
        queue.sync {
            let r = realm.value
            // Slow flushes keep the commit pending long enough to look at it.
            r.core.file.core.injectedFlushDelayMicroseconds = 200_000
            r.beginAsyncWrite {
                r.add(ToDoItem())
                r.commitAsyncWrite { _ in done.signal() }
                // Published at once: this realm and the file's newest version have it.
                observed.set((r.objects(ToDoItem.self).count, r.isPerformingAsynchronousWriteOperations))
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(observed.get().count == 1)
        #expect(observed.get().busy)
        #expect(queue.sync { realm.value.isPerformingAsynchronousWriteOperations } == false)
    }

    @Test func aFailedFlushReachesEveryCompletionOfTheGroup() throws {
        let config = tempConfig("failing", durability: .full)
        let queue = DispatchQueue(label: "strata.failing")
        let realm = try openOnQueue(config, queue)
        queue.sync { realm.value.core.file.core.injectedFlushErrno = EIO }
        let results = writeMany(realm, on: queue, count: 3, grouping: true)
        #expect(results.count == 3)
        #expect(results.allSatisfy { $0?.contains("fdatasync") == true })
    }

    @Test func threadConfinedRealmsCompleteBeforeReturning() throws {
        let realm = try Realm(configuration: tempConfig("thread", durability: .full))
        var completed = false
        realm.beginAsyncWrite {
            realm.add(ToDoItem())
            realm.commitAsyncWrite(allowGrouping: true) { error in completed = error == nil }
        }
        #expect(completed)
        #expect(!realm.isPerformingAsynchronousWriteOperations)
    }
}
