// Strategies fed by producer threads: main-async, gcd, dedicated, threads and batched.
//
// Confinement (checked at run time with dispatchPrecondition where a queue is involved):
// - main-async: one handle, made and used only inside main-queue blocks (`.queue(.main)`),
//   whatever OS thread runs them (under dispatchMain / async main that may not be the
//   process's first thread).
// - gcd: one handle per pool thread, made and used on that thread (`.currentThread`), cached
//   in thread-local storage like Realm's per-thread instance cache.
// - dedicated / batched: one handle, made and used only by the writer thread.
// - threads: one handle per writer thread, made and used only by that thread.

import DequeModule
import Foundation

/// Holds a non-Sendable handle for the one place allowed to use it.
/// `@unchecked Sendable`: the value is only touched at its placement (a queue or a thread), which
/// the owning strategy guarantees and checks; the box itself is only moved, never shared for use.
final class Confined<Value>: @unchecked Sendable {
    var value: Value?
    init(_ value: Value? = nil) { self.value = value }
}

/// `main-async`: producers enqueue `DispatchQueue.main.async { write }`.
final class MainAsyncStrategy: ThreadFedStrategy {
    private let context: CaseContext
    private let window: DispatchSemaphore?
    private let group = DispatchGroup()
    private let handle = Confined<any SensorWriter>()

    init(context: CaseContext, window: Int) {
        self.context = context
        self.window = context.spec.rate == nil ? DispatchSemaphore(value: window) : nil
    }

    var handlesCreated: Int { 1 }

    func submit(_ pending: PendingReading) {
        window?.wait()
        group.enter()
        DispatchQueue.main.async { [self] in
            dispatchPrecondition(condition: .onQueue(.main))
            defer { window?.signal(); group.leave() }
            guard let writer = writerOnMain() else { return }
            context.write(writer, [pending])
        }
    }

    private func writerOnMain() -> (any SensorWriter)? {
        if let writer = handle.value { return writer }
        guard let writer = context.makeWriter(.queue(.main)) else { return nil }
        handle.value = writer
        return writer
    }

    func finish() {
        group.wait()
        let semaphore = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { [self] in
            handle.value?.close()
            handle.value = nil
            semaphore.signal()
        }
        semaphore.wait()
    }
}

/// `gcd`: a concurrent queue; each block writes one reading through its thread's own handle.
final class GCDStrategy: ThreadFedStrategy {
    private let context: CaseContext
    private let queue = DispatchQueue(label: "strata-bench.gcd", qos: .background, attributes: .concurrent)
    private let width: DispatchSemaphore
    private let group = DispatchGroup()
    private let handles = HandleRegistry()
    /// Thread-local key of this strategy's cache (one per case, so handles never outlive it).
    private let key = "strata-bench.gcd.\(UUID().uuidString)"

    init(context: CaseContext) {
        self.context = context
        width = DispatchSemaphore(value: max(1, context.spec.writers))
    }

    var handlesCreated: Int { handles.count }

    func submit(_ pending: PendingReading) {
        // The width bound applies in both loops: it is the number of concurrently writing blocks.
        width.wait()
        group.enter()
        queue.async { [self] in
            defer { width.signal(); group.leave() }
            guard let writer = writerForThisThread() else { return }
            context.write(writer, [pending])
        }
    }

    private func writerForThisThread() -> (any SensorWriter)? {
        let dictionary = Thread.current.threadDictionary
        if let box = dictionary[key] as? Confined<any SensorWriter>, let writer = box.value { return writer }
        guard let writer = context.makeWriter(.currentThread) else { return nil }
        let box = Confined<any SensorWriter>(writer)
        dictionary[key] = box
        handles.add(box)
        return writer
    }

    func finish() {
        group.wait()
        handles.closeAll()
    }
}

/// The handles a strategy made, so they can be closed once the pool drained.
/// `@unchecked Sendable`: `boxes` is guarded by `lock`; handles are closed only after their last use.
final class HandleRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var boxes: [Confined<any SensorWriter>] = []
    private var created = 0

    func add(_ box: Confined<any SensorWriter>) {
        lock.lock()
        boxes.append(box)
        created += 1
        lock.unlock()
    }

    /// Handles made so far (closing them does not lower it).
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return created
    }

    func closeAll() {
        lock.lock()
        let all = boxes
        boxes = []
        lock.unlock()
        for box in all {
            box.value?.close()
            box.value = nil
        }
    }
}

/// `dedicated` (batchSize 1, one transaction per reading), `threads` (the same with `threads`
/// writer threads taking readings from one buffer, each through its own handle: concurrent
/// committers that a `.full` engine can group under one flush) and `batched` (one thread; a
/// transaction per `batchSize` readings or per `maxDelay`, whichever comes first, and a final
/// flush on shutdown).
///
/// Waking: producers wait for room in the closed-loop window on a semaphore, writers for readings
/// on `condition`, so a reading wakes one writer and a finished write one producer. (One shared
/// condition with broadcasts woke all 8 writers and the producers for every reading of `threads`:
/// on 2 cores that herd cost more than the commits.)
///
/// A writer thread waits on a condition with a deadline for the max-delay flush: the flush must
/// run on the thread that owns the handle, so a timer on another queue would only have to wake
/// this thread anyway.
///
/// `@unchecked Sendable`: `buffer`, `closed`, `running`, `done` are read and written only with
/// `condition` locked; `threads` is set once in `init`.
final class WriterThreadStrategy: ThreadFedStrategy, @unchecked Sendable {
    private let context: CaseContext
    private let batchSize: Int
    private let maxDelayNanos: UInt64
    /// Closed loop: permits for readings buffered or being written; nil in open loop.
    private let window: DispatchSemaphore?
    /// Guards the mutable state below; writers wait on it for readings, `finish` for `done`.
    private let condition = NSCondition()
    /// FIFO of handed-over readings. A deque: writers take from the front, and an array's
    /// `removeFirst` moved the whole backlog each time (quadratic under an open-loop backlog).
    private var buffer = Deque<PendingReading>()
    private var closed = false
    /// Writer threads that have not exited yet.
    private var running: Int
    private var done = false
    private var threads: [Thread] = []

    /// `threads` > 1 only with `batchSize` 1 (a batch belongs to one thread).
    init(context: CaseContext, batchSize: Int, maxDelayMs: Int, window: Int, threads: Int = 1) {
        self.context = context
        self.batchSize = max(1, batchSize)
        self.maxDelayNanos = UInt64(max(0, maxDelayMs)) * 1_000_000
        let threadCount = self.batchSize == 1 ? max(1, threads) : 1
        // Closed loop: every writer thread must find a reading waiting when it finishes one.
        self.window = context.spec.rate == nil
            ? DispatchSemaphore(value: max(window, 2 * self.batchSize, 2 * threadCount)) : nil
        running = threadCount
        // One batch up front, bounded: the batch size is a user's number.
        buffer.reserveCapacity(min(self.batchSize, 65_536))
        for index in 0..<threadCount {
            let thread = Thread { [self] in runWriter() }
            thread.name = threadCount == 1 ? "strata-bench.writer" : "strata-bench.writer.\(index)"
            thread.stackSize = 4 << 20
            self.threads.append(thread)
        }
        for thread in self.threads { thread.start() }
    }

    var handlesCreated: Int { threads.count }

    func submit(_ pending: PendingReading) {
        window?.wait()
        condition.lock()
        if done {
            // No writer is left (they failed): the reading is dropped and counts as lost.
            condition.unlock()
            window?.signal()
            return
        }
        buffer.append(pending)
        condition.signal()
        condition.unlock()
    }

    func finish() {
        condition.lock()
        closed = true
        condition.broadcast()
        while !done { condition.wait() }
        condition.unlock()
    }

    private func runWriter() {
        guard let writer = context.makeWriter(.currentThread) else {
            exitWriter(failed: true)
            return
        }
        condition.lock()
        while true {
            let ready = batchSize == 1 ? !buffer.isEmpty
                : buffer.count >= batchSize || (closed && !buffer.isEmpty)
                  || (!buffer.isEmpty && monotonicNanos() >= buffer[0].producedAt &+ maxDelayNanos)
            if ready {
                let take = min(buffer.count, batchSize)
                let batch = Array(buffer.prefix(take))
                buffer.removeFirst(take)
                condition.unlock()
                context.write(writer, batch)
                if let window { for _ in 0..<take { window.signal() } }
                condition.lock()
                continue
            }
            if closed && buffer.isEmpty { break }
            if buffer.isEmpty || batchSize == 1 {
                condition.wait()
            } else {
                let deadline = buffer[0].producedAt &+ maxDelayNanos
                let now = monotonicNanos()
                if deadline > now {
                    _ = condition.wait(until: Date(timeIntervalSinceNow: Double(deadline - now) / 1e9))
                }
            }
        }
        condition.unlock()
        writer.close()
        exitWriter(failed: false)
    }

    /// Counts this writer thread out; the last one out ends the strategy (and wakes `finish`).
    /// Without any handle left nothing can be written: the last one drops the buffer and gives
    /// its permits back, so blocked producers go on (those readings count as lost).
    private func exitWriter(failed: Bool) {
        condition.lock()
        running -= 1
        var dropped = 0
        if running == 0 {
            if failed {
                dropped = buffer.count
                buffer.removeAll()
            }
            done = true
        }
        condition.broadcast()
        condition.unlock()
        if let window { for _ in 0..<dropped { window.signal() } }
    }
}
