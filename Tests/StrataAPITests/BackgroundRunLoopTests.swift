// A realm of a thread other than the main one, used from inside that thread's run loop, is
// served by the loop as in Realm: other threads' commits reach it and its observers when the loop
// turns, with no refresh() call, and an async write made there waits for the loop's next turn.
import CoreFoundation
import Foundation
import Strata
import StrataTestSupport
import Synchronization
import Testing

final class RunLoopNote: Object {
    @Persisted var text: String
}

/// A thread that runs its run loop until stopped, and runs blocks inside it.
final class RunLoopThread: @unchecked Sendable {
    // @unchecked: `loop` is written once before `started` is signalled and only read after.
    private var loop: CFRunLoop?
    private let started = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    let finished = DispatchSemaphore(value: 0)
    private(set) var thread: Thread?

    init() {
        let thread = Thread { [self] in
            loop = CFRunLoopGetCurrent()
            // A timer far in the future keeps the loop from returning at once for lack of sources.
            RunLoop.current.add(Timer(timeInterval: 3_600, repeats: false) { _ in }, forMode: .default)
            started.signal()
            while !stopped.load(ordering: .acquiring) {
                _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
            }
            finished.signal()
        }
        self.thread = thread
        thread.start()
        started.wait()
    }

    /// Runs `body` inside the loop at its next turn.
    func perform(_ body: @escaping @Sendable () -> Void) {
        CFRunLoopPerformBlock(loop, kCFRunLoopCommonModes, body)
        CFRunLoopWakeUp(loop)
    }

    /// Runs `body` inside the loop and waits for it.
    func sync(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        perform {
            body()
            done.signal()
        }
        done.wait()
    }

    /// Whether the caller runs on this thread.
    var isCurrent: Bool { Thread.current == thread }

    func stop() {
        stopped.store(true, ordering: .releasing)
        perform {}
        finished.wait()
    }
}

/// What a handler on the loop's thread saw, read from the test's thread.
final class LoopRecord: @unchecked Sendable {
    // @unchecked: every field is read and written under `lock`.
    private let lock = NSLock()
    private var _counts: [Int] = []
    private var _onLoopThread: [Bool] = []
    var realm: Realm?
    var token: NotificationToken?

    func record(count: Int, onLoopThread: Bool) {
        lock.withLock {
            _counts.append(count)
            _onLoopThread.append(onLoopThread)
        }
    }
    var counts: [Int] { lock.withLock { _counts } }
    var onLoopThread: [Bool] { lock.withLock { _onLoopThread } }

    /// Waits (up to 20 s) until `done` holds.
    func wait(until done: ([Int]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 20)
        while Date() < deadline {
            if done(counts) { return true }
            usleep(2_000)
        }
        return done(counts)
    }
}

@Suite("A realm used inside a background thread's run loop")
struct BackgroundRunLoopTests {
    @Test func anotherThreadsCommitReachesTheObserverWhenTheLoopTurns() throws {
        let config = tempConfig("runloop-observe")
        let worker = RunLoopThread()
        defer { worker.stop() }
        let seen = LoopRecord()
        worker.sync {
            guard let realm = try? Realm(configuration: config) else { return }
            seen.realm = realm
            seen.token = realm.objects(RunLoopNote.self).observe { change in
                switch change {
                case .initial(let notes), .update(let notes, _, _, _):
                    seen.record(count: notes.count, onLoopThread: worker.isCurrent)
                case .error: seen.record(count: -1, onLoopThread: false)
                }
            }
        }
        #expect(seen.counts == [0], "the initial delivery")
        let writer = try Realm(configuration: config)
        try writer.write { writer.add(RunLoopNote(value: ["text": "first"])) }
        #expect(seen.wait { $0.last == 1 }, "delivered with no refresh() on the loop's thread: \(seen.counts)")
        try writer.write { writer.add(RunLoopNote(value: ["text": "second"])) }
        #expect(seen.wait { $0.last == 2 }, "\(seen.counts)")
        #expect(seen.onLoopThread.allSatisfy { $0 })
        // The realm itself advanced with its observer.
        let count = Mutex(-1)
        worker.sync { count.withLock { $0 = seen.realm?.objects(RunLoopNote.self).count ?? -1 } }
        #expect(count.withLock { $0 } == 2)
        worker.sync {
            seen.token?.invalidate()
            seen.token = nil
            seen.realm = nil
        }
    }

    @Test func anObserverMadeOutsideTheLoopWaitsForRefresh() throws {
        let config = tempConfig("runloop-outside")
        let seen = LoopRecord()
        let registered = DispatchSemaphore(value: 0), committed = DispatchSemaphore(value: 0)
        let refreshed = DispatchSemaphore(value: 0)
        let thread = Thread {
            guard let realm = try? Realm(configuration: config) else { return }
            let token = realm.objects(RunLoopNote.self).observe { change in
                if case .update(let notes, _, _, _) = change { seen.record(count: notes.count, onLoopThread: true) }
            }
            registered.signal()
            committed.wait()
            // Running the loop now delivers nothing: the observer was not made inside it.
            _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.3))
            seen.record(count: -2, onLoopThread: true)
            realm.refresh()
            token.invalidate()
            refreshed.signal()
        }
        thread.start()
        registered.wait()
        let writer = try Realm(configuration: config)
        try writer.write { writer.add(RunLoopNote(value: ["text": "first"])) }
        committed.signal()
        refreshed.wait()
        #expect(seen.counts == [-2, 1], "nothing before refresh(), the change at it")
    }

    @Test func anAsyncWriteMadeInsideTheLoopWaitsForItsNextTurn() throws {
        let config = tempConfig("runloop-async-write")
        let worker = RunLoopThread()
        defer { worker.stop() }
        let seen = LoopRecord()
        let ranBeforeReturn = Mutex<Bool?>(nil)
        worker.sync {
            guard let realm = try? Realm(configuration: config) else { return }
            seen.realm = realm
            let cancelled = realm.writeAsync { realm.add(RunLoopNote(value: ["text": "cancelled"])) }
            try? realm.cancelAsyncWrite(cancelled)
            _ = realm.writeAsync({ realm.add(RunLoopNote(value: ["text": "kept"])) }, onComplete: { error in
                seen.record(count: error == nil ? realm.objects(RunLoopNote.self).count : -1, onLoopThread: true)
            })
            ranBeforeReturn.withLock { $0 = !realm.objects(RunLoopNote.self).isEmpty }
        }
        #expect(ranBeforeReturn.withLock { $0 } == false, "the write waits for the loop")
        #expect(seen.wait { !$0.isEmpty })
        #expect(seen.counts == [1], "the cancelled write never ran")
        let reader = try Realm(configuration: config)
        #expect(reader.objects(RunLoopNote.self).map(\.text) == ["kept"])
        worker.sync { seen.realm = nil }
    }
}
