// The sensors workload (the Realm book's sensors app): three sensors ("o3", "no2", "aqi") produce readings that a
// writer strategy persists; each sensor's list keeps the newest 10,000 readings (the excess is
// deleted); a stats reader runs once a second beside the writer. `read-while-write` is the same
// case plus a reader thread issuing count/average/primary-key queries back to back.
//
// End-of-case invariants (checked, never assumed):
// - lost = produced − (readings in the store + readings the engine deleted when trimming) = 0;
// - each sensor's list holds min(produced, 10,000) readings, distinct, all really produced;
// - for strategies that keep each sensor's order (all but gcd, threads and open-loop async) the list is
//   exactly the newest readings, in production order.

import Foundation

enum SensorsWorkload {
    /// Runs one case on an engine whose store is fresh. `withQueryReader` makes it read-while-write.
    static func run(engine: any BenchEngine, spec: CaseSpec, withQueryReader: Bool,
                    progress: ProgressHandler?, stop: StopRequest = StopRequest()) async throws -> CaseResult {
        var result = CaseResult(spec: spec)
        result.engineSettings = engine.effectiveSettings
        try await onNewThread(name: "strata-bench.setup") {
            let writer = try engine.makeWriter(placement: .currentThread)
            defer { writer.close() }
            try writer.createSensors(SensorModel.symbols)
        }
        result.fileBytesStart = engine.fileBytes()

        let context = CaseContext(engine: engine, spec: spec, stop: stop)
        let counters = context.counters
        let sampler = TimelineSampler {
            let snapshot = counters.snapshot()
            return (engine.fileBytes(), SensorModel.symbols.count + snapshot.acknowledged - snapshot.deleted,
                    snapshot.acknowledged)
        }
        let statsReader = StatsReader(engine: engine, context: context, label: spec.label, progress: progress)
        let queryReader = withQueryReader ? QueryReader(engine: engine, context: context) : nil

        let meter = WorkMeter(engine: engine)
        context.control.begin()
        sampler.start(intervalMs: 100)
        statsReader.start()
        queryReader?.start()

        switch spec.strategy {
        case .mainSync:
            try await onNewThread(name: "strata-bench.case") {
                try MainSyncDriver(context: context).run()
            }
        case .async:
            await AsyncStrategy.run(context: context)
        case .threads where spec.rate == nil:
            result.writerHandles = try await onNewThread(name: "strata-bench.case") {
                SelfFedWriters.run(context: context, threads: spec.writers)
            }
        case .mainAsync, .gcd, .dedicated, .batched, .threads:
            let strategy: any ThreadFedStrategy = makeThreadFed(spec.strategy, context: context)
            try await onNewThread(name: "strata-bench.case") {
                runProducers(context: context, strategy: strategy)
                strategy.finish()
            }
            result.writerHandles = strategy.handlesCreated
        }
        let end = monotonicNanos()
        if result.writerHandles == nil { result.writerHandles = 1 }
        let written = counters.snapshot()
        result.work = meter.finish(transactions: written.transactions, readings: written.acknowledged)

        statsReader.stop()
        let query = queryReader?.stop()
        sampler.stop()
        // Interrupted: production ended early and every handed-over reading was written; the
        // case is abandoned (its figures would describe a shortened case), not verified.
        try context.control.checkInterrupted()

        let snapshot = counters.snapshot()
        result.durationSeconds = Double(end - context.control.start) / 1e9
        result.readings = snapshot.acknowledged
        result.transactions = snapshot.transactions
        result.commit = context.commitLatency.summary()
        result.endToEnd = context.endToEndLatency.summary()
        result.backlogMax = snapshot.backlogMax
        result.deleted = snapshot.deleted
        result.statsPasses = statsReader.passes
        if let query {
            result.reader = query.latency
            result.readerOps = query.operations
        }

        let ordered = !spec.strategy.hasConcurrentWriters && !(spec.strategy == .async && spec.rate != nil)
        let produced = context.control.producedPerSensor
        let check = try await onNewThread(name: "strata-bench.verify") {
            try verify(engine: engine, produced: produced, deleted: snapshot.deleted, ordered: ordered)
        }
        result.liveObjects = check.liveObjects
        result.lost = check.lost
        result.verified = check.problems.isEmpty && snapshot.failure == nil
        var notes = check.problems
        if let failure = snapshot.failure { notes.insert("writer failed: \(failure.message)", at: 0) }
        if snapshot.acknowledged == 0, let duration = spec.duration {
            // A row of zeros marked ok would read as a measurement; it is none.
            result.verified = false
            notes.append("no reading was committed within \(CSVNumber.format(duration)) s: the case measured nothing")
        }
        if context.control.wasThrottled, let rate = spec.rate {
            notes.append("open loop fell behind \(CSVNumber.format(rate)) readings/s: producers waited while about a second of the writer's throughput was queued")
        }
        if let statsFailure = statsReader.failure { notes.append("stats reader failed: \(statsFailure)") }
        result.note = notes.joined(separator: "; ")

        result.fileBytesEnd = engine.fileBytes()
        sampler.sample()
        result.fileBytesPeak = sampler.peakFileBytes
        if spec.durability != .memory {
            try await StoreWorkloads.measureCompaction(&result, engine: engine)
        }
        result.timeline = sampler.timeline
        return result
    }

    static func makeThreadFed(_ strategy: StrategyKind, context: CaseContext) -> any ThreadFedStrategy {
        switch strategy {
        case .mainAsync: return MainAsyncStrategy(context: context, window: closedLoopWindow)
        case .gcd: return GCDStrategy(context: context)
        case .batched:
            return WriterThreadStrategy(context: context, batchSize: context.spec.batchSize,
                                        maxDelayMs: context.spec.maxDelayMs, window: closedLoopWindow)
        case .dedicated, .mainSync, .async:
            return WriterThreadStrategy(context: context, batchSize: 1, maxDelayMs: 0, window: closedLoopWindow)
        case .threads:
            return WriterThreadStrategy(context: context, batchSize: 1, maxDelayMs: 0, window: closedLoopWindow,
                                        threads: context.spec.writers)
        }
    }

    /// Closed loop: readings that may be in flight at once (main-async, dedicated; batched uses
    /// at least two batches). Large enough that producers never wait on each other, small enough
    /// that the backlog stays bounded.
    static let closedLoopWindow = 256

    /// One producer thread per sensor; returns when all of them stopped.
    static func runProducers(context: CaseContext, strategy: any ThreadFedStrategy) {
        let group = DispatchGroup()
        for sensor in SensorModel.symbols.indices {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                var index: Int64 = 0
                while true {
                    context.control.waitForTurn(index: index)
                    guard let pending = context.control.next(sensor: sensor) else { break }
                    index += 1
                    strategy.submit(pending)
                }
            }
            thread.name = "strata-bench.producer.\(SensorModel.symbols[sensor])"
            thread.start()
        }
        group.wait()
    }

    struct Check: Sendable {
        var liveObjects: Int
        var lost: Int
        var problems: [String]
    }

    /// Reads the store back and checks the end-of-case invariants.
    static func verify(engine: any BenchEngine, produced: [Int64], deleted: Int, ordered: Bool) throws -> Check {
        let reader = try engine.makeReader(placement: .currentThread)
        defer { reader.close() }
        let stats = try reader.stats()
        let totalProduced = Int(produced.reduce(0, +))
        var problems: [String] = []
        for (index, symbol) in SensorModel.symbols.enumerated() {
            let made = produced[index]
            let sequences = try reader.sequences(sensor: symbol)
            let expected = Int(min(made, Int64(SensorModel.keep)))
            if sequences.count != expected {
                problems.append("\(symbol): list holds \(sequences.count) readings, expected \(expected)")
                continue
            }
            if ordered {
                let first = made - Int64(expected) + 1
                if sequences != Array(stride(from: first, through: made, by: 1)) {
                    problems.append("\(symbol): list is not the newest \(expected) readings in order")
                }
            } else if Set(sequences).count != sequences.count || sequences.contains(where: { $0 < 1 || $0 > made }) {
                problems.append("\(symbol): list holds duplicate or never-produced readings")
            }
        }
        let lost = totalProduced - (stats.readings + deleted)
        if lost != 0 { problems.append("\(lost) readings lost (produced \(totalProduced), stored \(stats.readings), deleted \(deleted))") }
        return Check(liveObjects: stats.liveObjects, lost: lost, problems: problems)
    }
}

/// The sensors app's once-a-second stats pass, on a DispatchSourceTimer (the dependable periodic
/// timer on Linux). Its reader handle is made and used only on `queue`.
/// `@unchecked Sendable`: mutable state is touched only on `queue`, except `passes`/`failure`
/// which are read after `stop()` (which waits for the queue).
final class StatsReader: @unchecked Sendable {
    private let engine: any BenchEngine
    private let context: CaseContext
    private let label: String
    private let progress: ProgressHandler?
    private let queue = DispatchQueue(label: "strata-bench.stats")
    private var timer: DispatchSourceTimer?
    private var reader: (any SensorReader)?
    private var lastCommitted = 0
    private var lastTick: UInt64 = 0
    private(set) var passes = 0
    private(set) var failure: String?

    init(engine: any BenchEngine, context: CaseContext, label: String, progress: ProgressHandler?) {
        self.engine = engine
        self.context = context
        self.label = label
        self.progress = progress
    }

    func start() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [self] in tick() }
        lastTick = monotonicNanos()
        self.timer = timer
        timer.resume()
    }

    func stop() {
        timer?.cancel()
        queue.sync {
            reader?.close()
            reader = nil
        }
    }

    private func tick() {
        dispatchPrecondition(condition: .onQueue(queue))
        do {
            if reader == nil { reader = try engine.makeReader(placement: .queue(queue)) }
            _ = try reader?.stats()
            passes += 1
        } catch {
            if failure == nil { failure = "\(error)" }
        }
        let now = monotonicNanos()
        let committed = context.counters.snapshot().acknowledged
        let rate = Double(committed - lastCommitted) / max(1e-9, Double(now - lastTick) / 1e9)
        lastCommitted = committed
        lastTick = now
        progress?(.tick(label: label, elapsed: Double(now - context.control.start) / 1e9,
                        committed: committed, readingsPerSecond: rate))
    }
}

/// read-while-write: a thread issuing queries back to back (count + averages, primary-key
/// lookups) while the writer runs; its handle lives on that thread.
/// `@unchecked Sendable`: `running` is guarded by `lock`; the results are read after `stop()`.
final class QueryReader: @unchecked Sendable {
    private let engine: any BenchEngine
    private let context: CaseContext
    private let lock = NSLock()
    private var running = true
    private let finished = DispatchSemaphore(value: 0)
    private let recorder = LatencyRecorder()
    private var count = 0

    init(engine: any BenchEngine, context: CaseContext) {
        self.engine = engine
        self.context = context
    }

    /// Starts the reader thread and returns once its handle is open, so the writer never races
    /// ahead of a reader still opening; the reader then queries at least once (a short case still
    /// measures reads while writing).
    func start() {
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            defer { finished.signal() }
            guard let reader = try? engine.makeReader(placement: .currentThread) else {
                ready.signal()
                return
            }
            defer { reader.close() }
            ready.signal()
            var operation = 0
            repeat {
                let start = monotonicNanos()
                do {
                    if operation % 2 == 0 {
                        _ = try reader.stats()
                    } else {
                        _ = try reader.readingCount(sensor: SensorModel.symbols[operation % SensorModel.symbols.count])
                    }
                } catch {
                    break
                }
                recorder.record(nanos: monotonicNanos() - start)
                operation += 1
            } while isRunning
            count = operation
        }
        thread.name = "strata-bench.query-reader"
        thread.start()
        ready.wait()
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    func stop() -> (latency: LatencySummary?, operations: Int) {
        lock.lock()
        running = false
        lock.unlock()
        finished.wait()
        return (recorder.summary(), count)
    }
}
