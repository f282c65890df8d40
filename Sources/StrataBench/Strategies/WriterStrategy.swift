// What every writer strategy shares: the hand-over unit, the measuring write, the stop rule.
//
// Invariants:
// - A reading is counted `produced` before it is handed over and `committed` only after the
//   transaction holding it returned; so backlog = produced − committed is never negative.
// - Commit latency is measured around the engine call (one sample per transaction); end-to-end
//   latency from production to commit (one sample per reading).
// - Closed loop: `submit` blocks while the strategy's window of in-flight readings is full, so
//   producers run as fast as the writer absorbs (the book's setting). Open loop (`--rate`):
//   `submit` never blocks and the backlog grows if the writer cannot keep up.

import Foundation

/// A reading on its way from a producer to a writer.
public struct PendingReading: Sendable {
    /// Index into `SensorModel.symbols`.
    public var sensor: Int
    public var reading: SensorReading
    /// `monotonicNanos()` at production.
    public var producedAt: UInt64
}

/// The collectors of one case, shared by every thread of it. Thread-safe (each member is).
public final class CaseContext: Sendable {
    public let engine: any BenchEngine
    public let spec: CaseSpec
    public let counters = RunCounters()
    public let commitLatency = LatencyRecorder()
    public let endToEndLatency = LatencyRecorder()
    public let control: ProductionControl

    public init(engine: any BenchEngine, spec: CaseSpec) {
        self.engine = engine
        self.spec = spec
        self.control = ProductionControl(spec: spec, counters: counters)
    }

    /// A writer handle at `placement`, or nil after recording the failure and stopping production
    /// (a strategy that cannot get a handle writes nothing; what it was handed counts as lost).
    /// Call it at `placement`.
    public func makeWriter(_ placement: WriterPlacement) -> (any SensorWriter)? {
        do {
            return try engine.makeWriter(placement: placement)
        } catch {
            counters.fail(error)
            control.stop()
            return nil
        }
    }

    /// Writes one transaction through `writer` and records it: latency, counters, failure.
    /// Must be called at the writer's placement.
    public func write(_ writer: any SensorWriter, _ readings: [PendingReading]) {
        guard !readings.isEmpty else { return }
        let start = monotonicNanos()
        do {
            let deleted: Int
            if readings.count == 1 || readings.allSatisfy({ $0.sensor == readings[0].sensor }) {
                deleted = try writer.addReadings(sensor: SensorModel.symbols[readings[0].sensor],
                                                 readings: readings.map(\.reading))
            } else {
                var groups: [(sensor: String, readings: [SensorReading])] =
                    SensorModel.symbols.map { ($0, []) }
                for pending in readings { groups[pending.sensor].readings.append(pending.reading) }
                deleted = try writer.addReadings(batch: groups)
            }
            record(readings, start: start, deleted: deleted)
        } catch {
            counters.fail(error)
            control.stop()
        }
    }

    /// `write` for one sensor's readings through the engine's async write path, in the caller's
    /// isolation (the `async` strategy's actor). The commit latency includes the wait for the
    /// (possibly shared) flush.
    public func writeAsync(isolation: isolated (any Actor)? = #isolation, _ writer: any SensorWriter,
                           _ readings: [PendingReading]) async {
        guard !readings.isEmpty else { return }
        let start = monotonicNanos()
        do {
            let deleted = try await writer.addReadingsAsync(isolation: isolation, sensor: SensorModel.symbols[readings[0].sensor],
                                                            readings: readings.map(\.reading))
            record(readings, start: start, deleted: deleted)
        } catch {
            counters.fail(error)
            control.stop()
        }
    }

    private func record(_ readings: [PendingReading], start: UInt64, deleted: Int) {
        let end = monotonicNanos()
        commitLatency.record(nanos: end - start)
        for pending in readings { endToEndLatency.record(nanos: end &- pending.producedAt) }
        counters.committed(readings: readings.count, deleted: deleted)
    }
}

/// Decides when producers stop and numbers their readings. Thread-safe.
///
/// `@unchecked Sendable`: the mutable state (`stopped`, `nextSeq`, `startNanos`) is guarded by `lock`.
public final class ProductionControl: @unchecked Sendable {
    private let lock = NSLock()
    private let spec: CaseSpec
    private let counters: RunCounters
    private var stopped = false
    private var startNanos: UInt64 = 0
    /// Next sequence number per sensor (1-based).
    private var nextSeq: [Int64]
    /// Count-bound cases: readings each sensor must produce.
    public let quota: [Int64]?

    init(spec: CaseSpec, counters: RunCounters) {
        self.spec = spec
        self.counters = counters
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

    /// Ends production early (a writer failed).
    public func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    /// The next reading of `sensor`, or nil when production is over (quota met, time up, stopped).
    /// Counts it as produced.
    public func next(sensor: Int) -> PendingReading? {
        let now = monotonicNanos()
        lock.lock()
        if let duration = spec.duration, Double(now - startNanos) / 1e9 >= duration { stopped = true }
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

    /// Open loop: when the `index`-th (0-based) reading of one sensor is due, in monotonic nanos.
    public func dueTime(index: Int64) -> UInt64? {
        guard let rate = spec.rate, rate > 0 else { return nil }
        let perSensor = rate / Double(SensorModel.symbols.count)
        return start + UInt64(Double(index) / perSensor * 1e9)
    }
}

/// A strategy fed by producer threads.
public protocol ThreadFedStrategy: AnyObject, Sendable {
    /// Hands a reading over. Closed loop: blocks while the window is full.
    func submit(_ pending: PendingReading)
    /// Called once after every producer returned: blocks until everything submitted was
    /// written (or failed), then releases the strategy's handles.
    func finish()
    /// Handles (writer connections/realms) the strategy created.
    var handlesCreated: Int { get }
}

/// Sleeps the calling thread until `deadline` (monotonic nanos).
func sleepUntil(_ deadline: UInt64) {
    let now = monotonicNanos()
    guard deadline > now else { return }
    let delta = deadline - now
    var request = timespec(tv_sec: Int(delta / 1_000_000_000), tv_nsec: Int(delta % 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}

/// Runs `body` on a new thread and waits for it without blocking a Swift concurrency thread
/// (the cooperative pool has only as many threads as cores: two here).
func onNewThread<T: Sendable>(name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }
        thread.name = name
        thread.stackSize = 4 << 20
        thread.start()
    }
}
