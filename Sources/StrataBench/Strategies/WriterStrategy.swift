// What every writer strategy shares: the hand-over unit and the measuring write (the stop rule
// and the open-loop schedule are `ProductionControl`).
//
// Invariants:
// - A reading is counted `produced` before it is handed over and `committed` only after the
//   transaction holding it returned; so backlog = produced − committed is never negative.
// - Commit latency is measured around the engine call (one sample per transaction); end-to-end
//   latency from production to commit (one sample per reading).
// - Closed loop: `submit` blocks while the strategy's window of in-flight readings is full, so
//   producers run as fast as the writer absorbs (the book's setting). Open loop (`--rate`):
//   `submit` never blocks; producers wait before producing when the backlog holds about a
//   second of the writer's throughput (`ProductionControl.waitForTurn`), so a rate the writer
//   cannot keep up with neither exhausts memory nor leaves a drain of minutes after the deadline.

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

    /// `stop` ends production early (the run was interrupted).
    public init(engine: any BenchEngine, spec: CaseSpec, stop: StopRequest = StopRequest()) {
        self.engine = engine
        self.spec = spec
        self.control = ProductionControl(spec: spec, counters: counters, stop: stop)
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
