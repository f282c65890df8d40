// `--readers R`: R reader threads run the reads workload's operations on the filled store, first
// on their own, then while one writer commits a sample per transaction (the sensors workload's
// one-reading commits) to the same store. Each call of an operation is timed on its own, so a
// reader that blocks behind the writer shows in the p99, where a mean would hide it.
//
// The writer is paced to add a tenth of the store over as long as the readers took alone
// (`writerRate`): closed loop, it would grow a small store tenfold while the readers scan it, and
// the readers' latencies would measure the growth rather than the writer. Its commits/s is what
// it achieved; below the pace means its commits waited (for the readers, or for the disk).
//
// Termination never depends on time or luck: every reader does a fixed number of rounds, the
// writer stops at a shared flag raised once every reader has returned (or at `maxWriterCommits`,
// or at the first error anywhere; its pacing sleeps are short and look at the flag), and every
// thread is joined before a phase returns. Readers start only after the writer's first commit,
// so every reader sees at least one written sample.
//
// Under the writer the answers move, so the exact checks of the solo pass do not apply; what
// must still hold is checked instead: a reader never sees fewer samples than it saw before (a
// commit is never undone in a reader's eyes), never fewer than the fill stored, never more than
// fill + commits, and a sample of the fill keeps its value.

import Foundation
import Synchronization

/// Latency per call of each operation, with R readers, on their own and under the writer.
public struct ConcurrentReadFigures: Sendable, Equatable {
    public var readers: Int
    /// Per-call latency with no writer, per operation.
    public var alone: [ReadOp: LatencySummary]
    /// Per-call latency while the writer commits, per operation.
    public var underWriter: [ReadOp: LatencySummary]
    /// Calls made under the writer, per operation (all readers).
    public var callsUnderWriter: [ReadOp: Int]
    /// Transactions the writer committed while the readers ran.
    public var writerCommits: Int
    /// Seconds from the writer's start to its stop.
    public var writerSeconds: Double
    /// The most samples any reader counted in a full pass under the writer.
    public var objectsSeen: Int
    /// What did not hold under the writer, per operation (empty when all held).
    public var problems: [ReadOp: [String]]

    public var writerCommitsPerSecond: Double? { writerSeconds > 0 ? Double(writerCommits) / writerSeconds : nil }
}

/// One row's share of `ConcurrentReadFigures`: its operation's latencies (none for the fill) and
/// the writer's figures, which every row of the case repeats.
public struct ReadLoadFigures: Sendable, Equatable {
    public var readers: Int
    public var alone: LatencySummary?
    public var underWriter: LatencySummary?
    public var callsUnderWriter: Int?
    public var writerCommits: Int
    public var writerCommitsPerSecond: Double?
    public var objectsSeen: Int

    init(_ figures: ConcurrentReadFigures, op: ReadOp) {
        readers = figures.readers
        alone = figures.alone[op]
        underWriter = figures.underWriter[op]
        callsUnderWriter = figures.callsUnderWriter[op]
        writerCommits = figures.writerCommits
        writerCommitsPerSecond = figures.writerCommitsPerSecond
        objectsSeen = figures.objectsSeen
    }
}

enum ReadersUnderWriter {
    /// The most reader threads `--readers` takes (the machine has few cores; more only queue).
    static let maxReaders = 64
    /// A bound on the writer, so that it ends even if its stop flag were never raised.
    static let maxWriterCommits = 10_000_000
    /// Lookups per operation per round (one timed call each).
    static let lookupsPerRound = 100

    /// Rounds per reader: enough calls for a p99 of a small store, one pass of each scan per
    /// round of a large one (a 10M-object scan takes seconds).
    static func rounds(objects: Int) -> Int {
        Swift.max(5, Swift.min(50, 2_000_000 / Swift.max(1, objects)))
    }

    /// Commits per second that add a tenth of `objects` over `seconds` (the solo phase's length),
    /// at least 10/s.
    static func writerRate(objects: Int, seconds: Double) -> Double {
        Swift.max(10, Double(objects) / 10 / Swift.max(seconds, 1e-3))
    }

    /// The longest pacing sleep: how soon a writer notices its stop flag.
    static let maxPauseNanos: UInt64 = 5_000_000

    /// Both phases on `store` (filled with `dataset`), readers alone first. Runs on the caller's
    /// thread, which it blocks until every thread it started has ended.
    static func measure(store: any ReadStore, dataset: ReadDataset, readers: Int,
                        stop: StopRequest) throws -> ConcurrentReadFigures {
        let rounds = rounds(objects: dataset.objects)
        let started = monotonicNanos()
        let alone = try phase(store: store, dataset: dataset, readers: readers, rounds: rounds, writerRate: nil, stop: stop)
        let rate = writerRate(objects: dataset.objects, seconds: Double(monotonicNanos() - started) / 1e9)
        let loaded = try phase(store: store, dataset: dataset, readers: readers, rounds: rounds, writerRate: rate, stop: stop)
        return ConcurrentReadFigures(readers: readers, alone: alone.summaries, underWriter: loaded.summaries,
                                     callsUnderWriter: loaded.calls, writerCommits: loaded.commits,
                                     writerSeconds: Double(loaded.writerNanos) / 1e9, objectsSeen: loaded.objectsSeen,
                                     problems: loaded.problems)
    }

    /// The operations the readers call (everything but the fill).
    static var operations: [ReadOp] { ReadOp.queries }

    struct Phase {
        var summaries: [ReadOp: LatencySummary] = [:]
        var calls: [ReadOp: Int] = [:]
        var commits = 0
        var writerNanos: UInt64 = 0
        var objectsSeen = 0
        var problems: [ReadOp: [String]] = [:]
    }

    /// What the threads of one phase share. Sendable: every field is atomic, locked or immutable.
    final class Shared: Sendable {
        let recorders: [ReadOp: LatencyRecorder]
        let done = Atomic<Bool>(false)
        let commits = Atomic<Int>(0)
        /// Commits begun: a reader may see a commit before `commits` counts it, never before this.
        let begun = Atomic<Int>(0)
        let objectsSeen = Atomic<Int>(0)
        let failure = Mutex<(any Error)?>(nil)
        let problems = Mutex<[ReadOp: [String]]>([:])
        let calls = Mutex<[ReadOp: Int]>([:])

        init() {
            recorders = Dictionary(uniqueKeysWithValues: ReadersUnderWriter.operations.map { ($0, LatencyRecorder()) })
        }

        func fail(_ error: any Error) {
            failure.withLock { if $0 == nil { $0 = error } }
            done.store(true, ordering: .releasing)
        }

        var stopped: Bool { done.load(ordering: .acquiring) }

        func problem(_ op: ReadOp, _ text: String) {
            problems.withLock { all in
                if all[op, default: []].count < 3 { all[op, default: []].append(text) }
            }
        }
    }

    /// One phase: `readers` readers of `rounds` rounds, with a writer committing at `writerRate`
    /// commits per second when given.
    static func phase(store: any ReadStore, dataset: ReadDataset, readers: Int, rounds: Int, writerRate: Double?,
                      stop: StopRequest) throws -> Phase {
        let shared = Shared()
        let ended = DispatchSemaphore(value: 0)
        let firstCommit = DispatchSemaphore(value: 0)
        let writerNanos = Mutex<UInt64>(0)
        if let writerRate {
            start("strata-bench.reads-writer", ended) {
                let started = monotonicNanos()
                let interval = 1e9 / writerRate
                defer { writerNanos.withLock { $0 = monotonicNanos() - started } }
                var signalled = false
                defer { if !signalled { firstCommit.signal() } }
                var next = dataset.objects
                while !shared.stopped && !stop.isRequested && next - dataset.objects < maxWriterCommits {
                    let due = started + UInt64(Double(next - dataset.objects) * interval)
                    let now = monotonicNanos()
                    if now < due {
                        usleep(UInt32(Swift.min(due - now, maxPauseNanos) / 1_000))
                        continue
                    }
                    shared.begun.store(next + 1 - dataset.objects, ordering: .releasing)
                    do {
                        try store.insert([dataset.sample(next)])
                    } catch {
                        shared.fail(error)
                        return
                    }
                    next += 1
                    shared.commits.store(next - dataset.objects, ordering: .releasing)
                    if !signalled { signalled = true; firstCommit.signal() }
                }
            }
            firstCommit.wait()
        }
        for index in 0..<readers {
            start("strata-bench.reader-\(index + 1)", ended) {
                do {
                    try read(store: store, dataset: dataset, rounds: rounds, shared: shared, stop: stop)
                } catch {
                    shared.fail(error)
                }
            }
        }
        for _ in 0..<readers { ended.wait() }
        shared.done.store(true, ordering: .releasing)
        if writerRate != nil { ended.wait() }
        if let error = shared.failure.withLock({ $0 }) { throw error }
        try stop.check()
        var phase = Phase()
        for (op, recorder) in shared.recorders { phase.summaries[op] = recorder.summary() }
        phase.calls = shared.calls.withLock { $0 }
        phase.commits = shared.commits.load(ordering: .acquiring)
        phase.writerNanos = writerNanos.withLock { $0 }
        phase.objectsSeen = shared.objectsSeen.load(ordering: .acquiring)
        phase.problems = shared.problems.withLock { $0 }
        return phase
    }

    /// Starts a thread running `body` that signals `ended` when it returns.
    static func start(_ name: String, _ ended: DispatchSemaphore, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            body()
            ended.signal()
        }
        thread.name = name
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// One reader: `rounds` rounds over every operation with its own query handle, each call timed.
    static func read(store: any ReadStore, dataset: ReadDataset, rounds: Int, shared: Shared, stop: StopRequest) throws {
        let queries = try store.makeQueries()
        defer { queries.close() }
        let n = dataset.objects
        var lastCount = n
        var calls: [ReadOp: Int] = [:]
        for round in 0..<rounds {
            for op in operations {
                if shared.stopped && shared.failure.withLock({ $0 != nil }) { return }
                try stop.check()
                let recorder = shared.recorders[op]
                func timed<T>(_ call: () throws -> T) rethrows -> T {
                    let start = monotonicNanos()
                    let result = try call()
                    recorder?.record(nanos: monotonicNanos() - start)
                    calls[op, default: 0] += 1
                    return result
                }
                // Lookups move through the store round by round, over the filled ids only (the
                // spread of `ReadDataset.lookupIds` and `lookupSeqs`).
                let offset = round * lookupsPerRound
                switch op {
                case .fill, .firstOpen, .commitFull, .commitUnsafe, .compact: break
                case .iterateOne: _ = try timed { try queries.iterateValues() }
                case .iterateAll:
                    let count = try timed { try queries.iterateAll() }.count
                    let written = shared.begun.load(ordering: .acquiring)
                    if count < lastCount {
                        shared.problem(op, "a reader counted \(count) samples after counting \(lastCount)")
                    } else if count > n + written {
                        shared.problem(op, "a reader counted \(count) samples; the fill stored \(n) and the writer \(written)")
                    }
                    lastCount = Swift.max(lastCount, count)
                    _ = shared.objectsSeen.max(count, ordering: .acquiringAndReleasing)
                case .sum: _ = try timed { try queries.sum() }
                case .avg: _ = try timed { try queries.average() }
                case .min: _ = try timed { try queries.min() }
                case .max: _ = try timed { try queries.max() }
                case .filter0_1, .filter10, .filter90:
                    let threshold = dataset.threshold(keeping: op.selectivity ?? 0).threshold
                    _ = try timed { try queries.count(valueAbove: threshold) }
                case .top100: _ = try timed { try queries.topIds(limit: ReadDataset.topCount) }
                case .primaryKey:
                    for call in offset..<(offset + lookupsPerRound) {
                        let id = Int64(((call &* 7_919) % n) + 1)
                        let value = try timed { try queries.value(id: id) }
                        let wanted = dataset.sample(Int(id) - 1).value
                        if value != wanted { shared.problem(op, "the value of id \(id) read \(value.map { "\($0)" } ?? "nil"), expected \(wanted)") }
                    }
                case .seqEqual:
                    for call in offset..<(offset + lookupsPerRound) {
                        let seq = Int64((call &* 104_729) % Int(dataset.maxSeq)) + 1
                        _ = try timed { try queries.count(seq: seq) }
                    }
                case .seqRange:
                    let ranges = lookupsPerRound / 10
                    for call in (round * ranges)..<(round * ranges + ranges) {
                        let seq = Int64((call &* 104_729) % Int(dataset.maxSeq)) + 1
                        _ = try timed { try queries.count(seqIn: seq...(seq + ReadsWorkload.rangeWidth - 1)) }
                    }
                case .listTraversal:
                    for symbol in ReadDataset.sensors { _ = try timed { try queries.listTotals(sensor: symbol) } }
                }
            }
        }
        shared.calls.withLock { all in
            for (op, count) in calls { all[op, default: 0] += count }
        }
    }
}
