// When producers make readings and when they stop: the count quota or the deadline, a stop
// request, and the open-loop schedule.
//
// Invariants:
// - No producer sleeps past the case's deadline or past a stop request: every wait is cut at the
//   deadline and taken in slices of at most `waitSlice`, so `--rate 0.001 --duration 2` ends
//   after ~2 s, not after the first reading's due time (~3,000 s later).
// - Open loop: a producer produces only while the backlog (produced − committed) is below about
//   one second of the writer's throughput so far (never below `backlogFloor`). A rate far above
//   what the writer absorbs then holds the backlog at that bound instead of growing without
//   limit: memory stays bounded and the drain after the deadline takes about a second. The case
//   records that it was throttled (its note says so); the readings it did produce are all
//   written and checked.

import Foundation

/// Decides when producers stop and numbers their readings. Thread-safe.
///
/// `@unchecked Sendable`: the mutable state (`stopped`, `nextSeq`, `startNanos`, `wasThrottled`)
/// is guarded by `lock`.
public final class ProductionControl: @unchecked Sendable {
    private let lock = NSLock()
    private let spec: CaseSpec
    private let counters: RunCounters
    private let stopRequest: StopRequest
    private var stopped = false
    private var startNanos: UInt64 = 0
    private var throttled = false
    /// Next sequence number per sensor (1-based).
    private var nextSeq: [Int64]
    /// Count-bound cases: readings each sensor must produce.
    public let quota: [Int64]?
    /// Open loop: the backlog producers may always build up, whatever the writer's throughput so
    /// far (the closed-loop window; `batched` needs two batches to fill one).
    let backlogFloor: Int

    /// Longest single sleep of a waiting producer: how late it notices a stop request.
    static let waitSlice: UInt64 = 50_000_000

    init(spec: CaseSpec, counters: RunCounters, stop: StopRequest) {
        self.spec = spec
        self.counters = counters
        self.stopRequest = stop
        backlogFloor = max(256, 2 * spec.batchSize)
        nextSeq = Array(repeating: 1, count: SensorModel.symbols.count)
        if let total = spec.readings {
            let sensors = SensorModel.symbols.count
            quota = (0..<sensors).map { Int64(total / sensors + ($0 < total % sensors ? 1 : 0)) }
        } else {
            quota = nil
        }
    }

    /// Marks the production start (the throughput clock starts here).
    public func begin() {
        lock.lock()
        startNanos = monotonicNanos()
        lock.unlock()
    }

    public var start: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return startNanos
    }

    /// Time-bound cases: when production ends, in monotonic nanos (nil for count-bound cases).
    public var deadline: UInt64? {
        guard let duration = spec.duration else { return nil }
        return start &+ UInt64(max(0, duration) * 1e9)
    }

    /// Ends production early (a writer failed).
    public func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    /// Whether the run was asked to stop (the case is abandoned, not measured).
    public var isInterrupted: Bool { stopRequest.isRequested }

    /// Throws `BenchError(.interrupted)` when the run was asked to stop.
    public func checkInterrupted() throws { try stopRequest.check() }

    /// Whether open-loop producers had to wait for the writer (the rate was not sustained).
    public var wasThrottled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return throttled
    }

    /// Whether production is over: stopped, interrupted, or past the deadline.
    public var isOver: Bool {
        if stopRequest.isRequested { return true }
        lock.lock()
        defer { lock.unlock() }
        return stopped || isPastDeadlineLocked(monotonicNanos())
    }

    private func isPastDeadlineLocked(_ now: UInt64) -> Bool {
        guard let duration = spec.duration else { return false }
        return Double(now &- startNanos) / 1e9 >= duration
    }

    /// The next reading of `sensor`, or nil when production is over (quota met, time up, stopped,
    /// interrupted). Counts it as produced.
    public func next(sensor: Int) -> PendingReading? {
        let now = monotonicNanos()
        let interrupted = stopRequest.isRequested
        lock.lock()
        if interrupted || isPastDeadlineLocked(now) { stopped = true }
        if stopped { lock.unlock(); return nil }
        let seq = nextSeq[sensor]
        if let quota, seq > quota[sensor] { lock.unlock(); return nil }
        nextSeq[sensor] = seq + 1
        lock.unlock()
        counters.produced()
        // A deterministic value per (sensor, seq): a slow sine plus a little wobble.
        let value = 50 + 40 * sin(Double(seq) / 500 + Double(sensor)) + Double((seq &* 7919) % 97) / 97
        let reading = SensorReading(value: value, seq: seq, timestamp: Date().timeIntervalSince1970)
        return PendingReading(sensor: sensor, reading: reading, producedAt: now)
    }

    /// Readings produced so far per sensor.
    public var producedPerSensor: [Int64] {
        lock.lock()
        defer { lock.unlock() }
        return nextSeq.map { $0 - 1 }
    }

    /// Open loop: when the `index`-th (0-based) reading of one sensor is due, in monotonic nanos
    /// (saturating: a due time beyond the clock's range is "never", cut at the deadline anyway).
    public func dueTime(index: Int64) -> UInt64? {
        guard let rate = spec.rate, rate > 0 else { return nil }
        let perSensor = rate / Double(SensorModel.symbols.count)
        let offset = Double(index) / perSensor * 1e9
        return start &+ (offset < Double(UInt64.max / 2) ? UInt64(offset) : UInt64.max / 2)
    }

    /// What a producer thread waits for before producing its `index`-th reading: its due time
    /// (open loop) and room in the backlog (open loop), each cut at the deadline and at a stop
    /// request. Closed loop: returns at once (the strategy's window paces the producer).
    public func waitForTurn(index: Int64) {
        while let wait = nextWait(index: index) {
            sleepFor(wait)
        }
    }

    /// `waitForTurn` for a producer task (sleeps without holding a thread).
    public func waitForTurnAsync(index: Int64) async {
        while let wait = nextWait(index: index) {
            try? await Task.sleep(nanoseconds: wait)
        }
    }

    /// How long to sleep before looking again (at most `waitSlice`), or nil when the producer may
    /// go on: due, room in the backlog, or production over (`next` then returns nil).
    func nextWait(index: Int64) -> UInt64? {
        guard spec.rate != nil, !isOver else { return nil }
        let now = monotonicNanos()
        if let due = dueTime(index: index), due > now {
            let until = min(due, deadline ?? due)
            return until > now ? min(until - now, Self.waitSlice) : nil
        }
        if backlogIsFull(now: now) {
            lock.lock()
            throttled = true
            lock.unlock()
            return 1_000_000
        }
        return nil
    }

    /// Open loop: whether producers are about one second of the writer's throughput ahead.
    func backlogIsFull(now: UInt64) -> Bool {
        let snapshot = counters.snapshot()
        let elapsed = max(1.0, Double(now &- start) / 1e9)
        let limit = max(backlogFloor, Int(Double(snapshot.acknowledged) / elapsed))
        return snapshot.produced - snapshot.acknowledged >= limit
    }
}

/// Sleeps the calling thread for `nanos`.
func sleepFor(_ nanos: UInt64) {
    var request = timespec(tv_sec: Int(nanos / 1_000_000_000), tv_nsec: Int(nanos % 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}
