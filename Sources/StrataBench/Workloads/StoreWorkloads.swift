// Workloads that drive one writer thread directly: bulk-insert (also the encryption workload),
// pinned-growth and compaction.
//
// Invariants: each ends by reading the store back and checking its object count against what was
// written (`lost` = written − stored, minus deletions the workload made itself); file sizes are
// sampled on a timer and at every phase boundary so the peak is never missed by more than one
// sampling interval.

import Foundation

enum StoreWorkloads {
    /// bulk-insert / encryption: `readings` standalone readings in transactions of `batchSize`.
    static func bulkInsert(engine: any BenchEngine, spec: CaseSpec, stop: StopRequest = StopRequest()) async throws -> CaseResult {
        let total = spec.readings ?? 100_000
        let batch = max(1, spec.batchSize)
        let context = CaseContext(engine: engine, spec: spec, stop: stop)
        var result = CaseResult(spec: spec)
        result.engineSettings = engine.effectiveSettings
        result.fileBytesStart = engine.fileBytes()
        let sampler = sampler(engine: engine, counters: context.counters)
        sampler.start(intervalMs: 100)
        let meter = WorkMeter(engine: engine)
        let start = monotonicNanos()
        try await stoppingOnError(sampler) { try await onNewThread(name: "strata-bench.bulk") {
            let writer = try engine.makeWriter(placement: .currentThread)
            defer { writer.close() }
            var seq: Int64 = 1
            var readings: [SensorReading] = []
            readings.reserveCapacity(min(batch, total))
            while seq <= Int64(total) {
                try stop.check()
                readings.removeAll(keepingCapacity: true)
                let now = Date().timeIntervalSince1970
                while readings.count < batch && seq <= Int64(total) {
                    readings.append(SensorReading(value: Double(seq % 1000) / 10, seq: seq, timestamp: now))
                    seq += 1
                }
                context.counters.produced(readings.count)
                let began = monotonicNanos()
                try writer.insertStandalone(readings)
                context.commitLatency.record(nanos: monotonicNanos() - began)
                context.counters.committed(readings: readings.count, deleted: 0)
            }
        } }
        let end = monotonicNanos()
        sampler.stop()
        fill(&result, context: context, start: start, end: end)
        result.work = meter.finish(transactions: result.transactions, readings: result.readings)
        try await finish(&result, engine: engine, sampler: sampler, expectedReadings: total)
        return result
    }

    /// pinned-growth: commit a quarter of `readings` one-reading transactions with no reader,
    /// pin a version, commit `readings` more, release the pin, commit a tenth as many more,
    /// compact. file_bytes_start = before the pin, file_bytes_peak = while pinned,
    /// file_bytes_end = after the release, file_bytes_compacted = after compaction.
    ///
    /// An unpinned twin (a second store opened by `openTwin`, same engine and settings, never
    /// pinned) takes the same commits up to the release, so the pin is judged against what the
    /// same commits cost and occupy without it (issue #2: "grows by at most 1 MiB over its
    /// unpinned size"): unpinned_twin_bytes = the twin's file bytes after the pinned phase,
    /// pinned_extra_bytes = this store's bytes at that point − unpinned_twin_bytes,
    /// pinned_slowdown = this store's time for the pinned phase's commits / the twin's time for
    /// the same commits (1.10 = the pin made each commit 10% slower). The writer alternates
    /// between the two stores in chunks of commits, so machine noise and drift (this machine is
    /// shared) fall on both alike.
    static func pinnedGrowth(engine: any BenchEngine, spec: CaseSpec, stop: StopRequest = StopRequest(),
                             openTwin: () throws -> any BenchEngine) async throws -> CaseResult {
        let pinnedWrites = spec.readings ?? 20_000
        let unpinnedWrites = max(100, pinnedWrites / 4)
        let releasedWrites = max(100, pinnedWrites / 10)
        let context = CaseContext(engine: engine, spec: spec, stop: stop)
        var result = CaseResult(spec: spec)
        result.engineSettings = engine.effectiveSettings
        let sampler = sampler(engine: engine, counters: context.counters)
        let pinner = PinnedReaderThread(engine: engine)
        let twin = try openTwin()
        let twinContext = CaseContext(engine: twin, spec: spec, stop: stop)
        let start: UInt64
        let meter: WorkMeter
        let phases: PinnedPhases
        do {
            for store in [engine, twin] {
                try await onNewThread(name: "strata-bench.setup") {
                    let writer = try store.makeWriter(placement: .currentThread)
                    defer { writer.close() }
                    try writer.createSensors(SensorModel.symbols)
                }
            }
            sampler.start(intervalMs: 50)
            meter = WorkMeter(engine: engine)
            start = monotonicNanos()
            phases = try await onNewThread(name: "strata-bench.pinned-writer") {
                try runPinnedPhases(pinned: (engine, context), twin: (twin, twinContext), pinner: pinner, sampler: sampler,
                                    writes: (unpinnedWrites, pinnedWrites, releasedWrites))
            }
        } catch {
            sampler.stop()
            pinner.stop()
            try? twin.close()
            throw error
        }
        let end = monotonicNanos()
        sampler.stop()
        pinner.stop()
        try twin.close()
        fill(&result, context: context, start: start, end: end)
        result.work = meter.finish(transactions: result.transactions, readings: result.readings)
        result.fileBytesStart = phases.bytesBeforePin
        if let twinBytes = phases.twinBytesAfterPinnedPhase {
            result.unpinnedTwinBytes = twinBytes
            if let bytes = phases.bytesAfterPinnedPhase { result.pinnedExtraBytes = bytes - twinBytes }
        }
        if phases.twinPinnedPhaseNanos > 0, phases.pinnedPhaseNanos > 0 {
            result.pinnedSlowdown = Double(phases.pinnedPhaseNanos) / Double(phases.twinPinnedPhaseNanos)
        }
        result.note = "\(unpinnedWrites) commits before the pin, peak while \(pinnedWrites) commits ran under a pinned reader; end after release + \(releasedWrites) commits; an unpinned twin store took the first \(unpinnedWrites + pinnedWrites) commits alongside"
        try await finish(&result, engine: engine, sampler: sampler,
                         expectedReadings: unpinnedWrites + pinnedWrites + releasedWrites - (result.deleted ?? 0),
                         sensors: SensorModel.symbols.count)
        return result
    }

    struct PinnedPhases: Sendable {
        var bytesBeforePin: Int64?
        /// File bytes right after the last commit of the pinned phase (still pinned).
        var bytesAfterPinnedPhase: Int64?
        var twinBytesAfterPinnedPhase: Int64?
        var pinnedPhaseNanos: UInt64 = 0
        var twinPinnedPhaseNanos: UInt64 = 0
    }

    /// Chunks the pinned phase is cut into, alternating between the twin and the pinned store.
    static let pinnedPhaseChunks = 20

    /// On one thread: `writes.before` one-reading commits to each store, pin the pinned store,
    /// `writes.pinned` more to each (timed, alternating in chunks, the twin first in each),
    /// release the pin, `writes.after` more to the pinned store only. A reading depends only on
    /// its commit's index, so both stores hold the same data.
    static func runPinnedPhases(pinned: (engine: any BenchEngine, context: CaseContext),
                                twin: (engine: any BenchEngine, context: CaseContext),
                                pinner: PinnedReaderThread, sampler: TimelineSampler,
                                writes: (before: Int, pinned: Int, after: Int)) throws -> PinnedPhases {
        let writer = try pinned.engine.makeWriter(placement: .currentThread)
        defer { writer.close() }
        let twinWriter = try twin.engine.makeWriter(placement: .currentThread)
        defer { twinWriter.close() }
        let epoch = Date().timeIntervalSince1970
        func write(_ range: Range<Int>, _ writer: any SensorWriter, _ context: CaseContext) throws {
            let sensors = SensorModel.symbols.count
            for index in range {
                try context.control.checkInterrupted()
                let reading = SensorReading(value: Double(index % 100), seq: Int64(index / sensors + 1),
                                            timestamp: epoch + Double(index) * 1e-4)
                context.counters.produced()
                context.write(writer, [PendingReading(sensor: index % sensors, reading: reading, producedAt: monotonicNanos())])
            }
            if let failure = context.counters.snapshot().failure { throw failure }
        }
        try write(0..<writes.before, twinWriter, twin.context)
        try write(0..<writes.before, writer, pinned.context)
        var phases = PinnedPhases(bytesBeforePin: pinned.engine.fileBytes())
        try pinner.pin()
        let chunk = max(1, (writes.pinned + pinnedPhaseChunks - 1) / pinnedPhaseChunks)
        var next = writes.before
        let end = writes.before + writes.pinned
        while next < end {
            let range = next..<min(end, next + chunk)
            let twinStart = monotonicNanos()
            try write(range, twinWriter, twin.context)
            let pinnedStart = monotonicNanos()
            try write(range, writer, pinned.context)
            let pinnedEnd = monotonicNanos()
            phases.twinPinnedPhaseNanos += pinnedStart - twinStart
            phases.pinnedPhaseNanos += pinnedEnd - pinnedStart
            next = range.upperBound
        }
        phases.bytesAfterPinnedPhase = pinned.engine.fileBytes()
        phases.twinBytesAfterPinnedPhase = twin.engine.fileBytes()
        sampler.sample()
        pinner.unpin()
        try write(end..<(end + writes.after), writer, pinned.context)
        return phases
    }

    /// compaction: insert `readings` standalone readings, delete the oldest 80% (garbage), compact.
    /// The timed compaction is the shared last step (`finish`); file_bytes_end is the size before it.
    static func compaction(engine: any BenchEngine, spec: CaseSpec, stop: StopRequest = StopRequest()) async throws -> CaseResult {
        let total = spec.readings ?? 100_000
        let batch = max(1, spec.batchSize)
        let context = CaseContext(engine: engine, spec: spec, stop: stop)
        var result = CaseResult(spec: spec)
        result.engineSettings = engine.effectiveSettings
        result.fileBytesStart = engine.fileBytes()
        let sampler = sampler(engine: engine, counters: context.counters)
        sampler.start(intervalMs: 100)
        let meter = WorkMeter(engine: engine)
        let start = monotonicNanos()
        let garbageBound = Int64(total) * 8 / 10 + 1
        let deleted: Int = try await stoppingOnError(sampler) { try await onNewThread(name: "strata-bench.compaction") {
            let writer = try engine.makeWriter(placement: .currentThread)
            defer { writer.close() }
            var seq: Int64 = 1
            while seq <= Int64(total) {
                try stop.check()
                let count = min(batch, total - Int(seq) + 1)
                let readings = (0..<count).map { offset in
                    SensorReading(value: Double(offset), seq: seq + Int64(offset), timestamp: 0)
                }
                context.counters.produced(count)
                let began = monotonicNanos()
                try writer.insertStandalone(readings)
                context.commitLatency.record(nanos: monotonicNanos() - began)
                context.counters.committed(readings: count, deleted: 0)
                seq += Int64(count)
            }
            return try writer.deleteStandalone(seqBelow: garbageBound)
        } }
        let end = monotonicNanos()
        sampler.stop()
        // The delete was one transaction of its own, committing no new reading.
        context.counters.committed(readings: 0, deleted: deleted)
        fill(&result, context: context, start: start, end: end)
        result.work = meter.finish(transactions: result.transactions, readings: result.readings)
        result.note = "deleted the oldest \(deleted) of \(total) readings before compacting"
        try await finish(&result, engine: engine, sampler: sampler, expectedReadings: total - deleted)
        return result
    }

    // MARK: - Shared steps

    /// Runs `body`; if it throws (a failed writer, an interrupted run), stops `sampler` first so
    /// its timer does not outlive the case.
    static func stoppingOnError<T: Sendable>(_ sampler: TimelineSampler, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            sampler.stop()
            throw error
        }
    }

    static func sampler(engine: any BenchEngine, counters: RunCounters) -> TimelineSampler {
        TimelineSampler {
            let snapshot = counters.snapshot()
            return (engine.fileBytes(), snapshot.acknowledged - snapshot.deleted, snapshot.acknowledged)
        }
    }

    static func fill(_ result: inout CaseResult, context: CaseContext, start: UInt64, end: UInt64) {
        let snapshot = context.counters.snapshot()
        result.durationSeconds = Double(end - start) / 1e9
        result.readings = snapshot.acknowledged
        result.transactions = snapshot.transactions
        result.commit = context.commitLatency.summary()
        result.endToEnd = context.endToEndLatency.summary()
        result.backlogMax = snapshot.backlogMax
        result.deleted = snapshot.deleted
        result.writerHandles = 1
        if let failure = snapshot.failure {
            result.verified = false
            result.note = "writer failed: \(failure.message)"
        }
    }

    /// Counts what the store holds, records sizes, compacts (file stores), records the timeline.
    static func finish(_ result: inout CaseResult, engine: any BenchEngine, sampler: TimelineSampler,
                       expectedReadings: Int, sensors: Int = 0) async throws {
        let stats = try await onNewThread(name: "strata-bench.verify") {
            let reader = try engine.makeReader(placement: .currentThread)
            defer { reader.close() }
            return try reader.stats()
        }
        result.liveObjects = stats.liveObjects
        result.lost = expectedReadings - stats.readings
        if result.lost != 0 || stats.sensors != sensors {
            result.verified = false
            let problem = "store holds \(stats.readings) readings and \(stats.sensors) sensors, expected \(expectedReadings) and \(sensors)"
            result.note = result.note.isEmpty ? problem : result.note + "; " + problem
        }
        result.fileBytesEnd = engine.fileBytes()
        sampler.sample()
        result.fileBytesPeak = sampler.peakFileBytes
        if result.spec.durability != .memory {
            try await measureCompaction(&result, engine: engine)
            sampler.sample()
        }
        result.timeline = sampler.timeline
    }

    /// Times `compact()` and records the size after it. An engine that cannot compact leaves the
    /// two columns empty and says so in the note (an absent figure, never a made-up one).
    static func measureCompaction(_ result: inout CaseResult, engine: any BenchEngine) async throws {
        let began = monotonicNanos()
        do {
            try await onNewThread(name: "strata-bench.compact") { try engine.compact() }
        } catch let error as BenchError where error.code == .unsupported {
            let note = "no compaction: \(error.message)"
            result.note = result.note.isEmpty ? note : result.note + "; " + note
            return
        }
        result.compactMs = Double(monotonicNanos() - began) / 1e6
        result.fileBytesCompacted = engine.fileBytes()
    }
}

/// A thread that owns a reader handle, pins it on request and unpins it on request, so that the
/// pin and the release happen on the handle's own thread.
/// `@unchecked Sendable`: `command`/`error` are guarded by `condition`.
final class PinnedReaderThread: @unchecked Sendable {
    private enum Command { case none, pin, unpin, stop }
    private let engine: any BenchEngine
    private let condition = NSCondition()
    private var command = Command.none
    private var error: Error?
    private var started = false

    init(engine: any BenchEngine) {
        self.engine = engine
    }

    /// Starts the thread (first call) and pins; throws what the engine threw.
    func pin() throws {
        condition.lock()
        if !started {
            started = true
            let thread = Thread { [self] in loop() }
            thread.name = "strata-bench.pinned-reader"
            thread.start()
        }
        try perform(.pin)
    }

    func unpin() {
        condition.lock()
        try? perform(.unpin)
    }

    func stop() {
        condition.lock()
        guard started else { condition.unlock(); return }
        try? perform(.stop)
    }

    /// Called with `condition` locked; returns unlocked.
    private func perform(_ next: Command) throws {
        command = next
        condition.broadcast()
        while command != .none { condition.wait() }
        let failure = error
        error = nil
        condition.unlock()
        if let failure { throw failure }
    }

    private func loop() {
        var reader: (any SensorReader)?
        condition.lock()
        while true {
            while command == .none { condition.wait() }
            let current = command
            condition.unlock()
            var failure: Error?
            do {
                switch current {
                case .pin:
                    if reader == nil { reader = try engine.makeReader(placement: .currentThread) }
                    try reader?.pin()
                case .unpin:
                    reader?.unpin()
                case .stop:
                    reader?.close()
                    reader = nil
                case .none:
                    break
                }
            } catch {
                failure = error
            }
            condition.lock()
            error = failure
            command = .none
            condition.broadcast()
            if current == .stop { break }
        }
        condition.unlock()
    }
}
