// The reads workload: fill a read store with `--objects` samples (`ReadDataset`), then time each
// `ReadOp` on its own and check every answer against the generated data's known answers.
//
// Invariants: one summary row per operation (the case's spec with `op` set), in `ReadOp` order,
// `fill` first; an operation whose answer differs from the known one — on any of its passes —
// marks its row unverified with the wrong answer in the note, as a lost reading does for writes;
// a store that does not hold the N samples after the fill fails every row. All queries of a case
// run on one thread with one query handle, after the fill has committed.

import Foundation

/// What a timed read operation measured, for the summary row.
public struct ReadFigures: Sendable, Equatable {
    public var op: ReadOp
    /// Operations performed (queries run; for `fill`, samples stored).
    public var ops: Int
    /// Time over all of them.
    public var nanos: UInt64
    /// Samples visited over all of them (a scan: N per op; a lookup: the samples it returned).
    public var objectsScanned: Int
    /// Samples in the store.
    public var objects: Int
    /// File bytes / objects after the fill, nil in memory.
    public var bytesPerObject: Double?
    /// CPU time of the timing thread over all of them (nil where not measured: the fill, which
    /// the gate judges per reading, and the scale workload's figures).
    public var cpuNanos: UInt64? = nil

    public var opsPerSecond: Double? { nanos > 0 ? Double(ops) / (Double(nanos) / 1e9) : nil }
    public var microsPerOp: Double? { ops > 0 ? Double(nanos) / 1e3 / Double(ops) : nil }
    public var nanosPerObject: Double? { objectsScanned > 0 ? Double(nanos) / Double(objectsScanned) : nil }
    public var cpuMicrosPerOp: Double? { cpuNanos.flatMap { ops > 0 ? Double($0) / 1e3 / Double(ops) : nil } }
}

enum ReadsWorkload {
    /// Default samples when neither `--objects` nor `--readings` is given.
    static let defaultObjects = 100_000
    /// Lookups timed per lookup operation.
    static let lookups = 10_000
    /// Seq values per range lookup.
    static let rangeWidth: Int64 = 100

    /// Passes over the store per scan: enough to time a small store, one for a large one.
    static func scanPasses(objects: Int) -> Int {
        Swift.max(1, Swift.min(20, 2_000_000 / Swift.max(1, objects)))
    }

    /// Opens the case's read store, runs the workload, closes the store.
    static func run(kind: EngineKind, configuration: EngineConfiguration, spec: CaseSpec,
                    stop: StopRequest = StopRequest()) async throws -> [CaseResult] {
        let store = try Engines.openReadStore(kind, configuration)
        do {
            let results = try await run(store: store, spec: spec, stop: stop)
            try store.close()
            return results
        } catch {
            try? store.close()
            throw error
        }
    }

    /// Fills `store` and times every operation; one row per operation.
    static func run(store: any ReadStore, spec: CaseSpec, stop: StopRequest = StopRequest()) async throws -> [CaseResult] {
        let dataset = ReadDataset(objects: spec.readings ?? defaultObjects)
        let batch = Swift.max(1, spec.batchSize)
        let outcome = try await onNewThread(name: "strata-bench.reads") { () throws -> [Measured] in
            var measured: [Measured] = []
            var transactions = 0
            let fillStart = monotonicNanos()
            var next = 0
            while next < dataset.objects {
                try stop.check()
                let end = Swift.min(dataset.objects, next + batch)
                try store.insert(dataset.samples(next..<end))
                transactions += 1
                next = end
            }
            let fillNanos = monotonicNanos() - fillStart
            let bytes = store.fileBytes()
            let perObject = bytes.map { Double($0) / Double(Swift.max(1, dataset.objects)) }
            var fill = Measured(figures: ReadFigures(op: .fill, ops: dataset.objects, nanos: fillNanos,
                                                     objectsScanned: dataset.objects, objects: dataset.objects,
                                                     bytesPerObject: perObject))
            fill.transactions = transactions
            fill.fileBytes = bytes
            measured.append(fill)
            let queries = try store.makeQueries()
            defer { queries.close() }
            let checker = ReadChecker(dataset: dataset, queries: queries)
            for op in ReadOp.queries {
                try stop.check()
                var row = try checker.time(op)
                row.figures.bytesPerObject = perObject
                row.fileBytes = bytes
                measured.append(row)
            }
            if let count = checker.storedCount, count != dataset.objects {
                for index in measured.indices {
                    measured[index].problems.append("the store holds \(count) samples after the fill, expected \(dataset.objects)")
                }
            }
            // After the solo pass, whose answers are exact only while nothing writes.
            if spec.readers > 0 {
                let figures = try ReadersUnderWriter.measure(store: store, dataset: dataset, readers: spec.readers, stop: stop)
                for index in measured.indices {
                    let op = measured[index].figures.op
                    measured[index].load = ReadLoadFigures(figures, op: op)
                    measured[index].problems += figures.problems[op, default: []].map { "under the writer: " + $0 }
                }
            }
            return measured
        }
        return outcome.map { measured in
            var opSpec = spec
            opSpec.op = measured.figures.op
            var result = CaseResult(spec: opSpec)
            result.engineSettings = store.effectiveSettings
            result.read = measured.figures
            result.durationSeconds = Double(measured.figures.nanos) / 1e9
            result.readings = measured.figures.op == .fill ? dataset.objects : 0
            result.transactions = measured.transactions
            result.liveObjects = dataset.objects
            result.fileBytesEnd = measured.fileBytes
            result.writerHandles = 1
            result.load = measured.load
            result.reader = measured.load?.underWriter
            result.readerOps = measured.load?.callsUnderWriter
            if !measured.problems.isEmpty {
                result.verified = false
                result.note = measured.problems.joined(separator: "; ")
            }
            return result
        }
    }

    struct Measured: Sendable {
        var figures: ReadFigures
        var transactions = 0
        var fileBytes: Int64?
        var problems: [String] = []
        /// `--readers`: the operation's figures with R readers, alone and under the writer.
        var load: ReadLoadFigures?
    }
}

/// Runs each operation against one query handle and compares its answers with the known ones.
final class ReadChecker {
    let dataset: ReadDataset
    let answers: ReadAnswers
    let queries: any ReadQueries
    /// Samples the full iteration counted (nil until it ran).
    private(set) var storedCount: Int?

    init(dataset: ReadDataset, queries: any ReadQueries) {
        self.dataset = dataset
        self.answers = dataset.answers
        self.queries = queries
    }

    /// Times `op`'s passes and checks each answer.
    func time(_ op: ReadOp) throws -> ReadsWorkload.Measured {
        let n = dataset.objects
        let passes = ReadsWorkload.scanPasses(objects: n)
        var problems: [String] = []
        func expect<T: Equatable>(_ got: T, _ wanted: T, _ what: String) {
            if got != wanted, problems.count < 3 { problems.append("\(op.rawValue): \(what) returned \(got), expected \(wanted)") }
        }
        func expectClose(_ got: Double?, _ wanted: Double?, _ what: String) {
            let same = switch (got, wanted) {
            case (let a?, let b?): ReadAnswers.close(a, b)
            case (nil, nil): true
            default: false
            }
            if !same, problems.count < 3 {
                problems.append("\(op.rawValue): \(what) returned \(got.map { "\($0)" } ?? "nil"), expected \(wanted.map { "\($0)" } ?? "nil")")
            }
        }
        var ops = 0
        var scanned = 0
        let start = monotonicNanos()
        let cpuStart = threadCPUNanos()
        switch op {
        case .fill, .firstOpen, .commitFull, .commitUnsafe, .compact:
            break
        case .iterateOne:
            for _ in 0..<passes { expect(try queries.iterateValues(), answers.sum, "the sum of the values read") }
            (ops, scanned) = (passes, passes * n)
        case .iterateAll:
            for _ in 0..<passes {
                let totals = try queries.iterateAll()
                storedCount = totals.count
                expect(totals.count, n, "the number of samples visited")
                expect(totals.valueSum, answers.sum, "the sum of value")
                expect(totals.seqSum, answers.seqSum, "the sum of seq")
                expectClose(totals.timestampSum, answers.timestampSum, "the sum of timestamp")
            }
            (ops, scanned) = (passes, passes * n)
        case .sum:
            for _ in 0..<passes { expect(try queries.sum(), answers.sum, "sum(value)") }
            (ops, scanned) = (passes, passes * n)
        case .avg:
            for _ in 0..<passes { expectClose(try queries.average(), answers.average, "avg(value)") }
            (ops, scanned) = (passes, passes * n)
        case .min:
            for _ in 0..<passes { expect(try queries.min(), n > 0 ? answers.min : nil, "min(value)") }
            (ops, scanned) = (passes, passes * n)
        case .max:
            for _ in 0..<passes { expect(try queries.max(), n > 0 ? answers.max : nil, "max(value)") }
            (ops, scanned) = (passes, passes * n)
        case .filter0_1, .filter10, .filter90:
            let (threshold, expected) = dataset.threshold(keeping: op.selectivity ?? 0)
            for _ in 0..<passes { expect(try queries.count(valueAbove: threshold), expected, "count(value > \(threshold))") }
            (ops, scanned) = (passes, passes * n)
        case .top100:
            for _ in 0..<passes { expect(try queries.topIds(limit: ReadDataset.topCount), answers.topIds, "the top-100 ids") }
            (ops, scanned) = (passes, passes * n)
        case .primaryKey:
            for id in dataset.lookupIds(ReadsWorkload.lookups) {
                expect(try queries.value(id: id), dataset.sample(Int(id) - 1).value, "the value of id \(id)")
            }
            (ops, scanned) = (ReadsWorkload.lookups, ReadsWorkload.lookups)
        case .seqEqual:
            for seq in dataset.lookupSeqs(ReadsWorkload.lookups) {
                let count = try queries.count(seq: seq)
                expect(count, dataset.seqCount(seq...seq), "count(seq == \(seq))")
                scanned += count
            }
            ops = ReadsWorkload.lookups
        case .seqRange:
            let ranges = ReadsWorkload.lookups / 10
            for seq in dataset.lookupSeqs(ranges) {
                let range = seq...(seq + ReadsWorkload.rangeWidth - 1)
                let count = try queries.count(seqIn: range)
                expect(count, dataset.seqCount(range), "count(seq in \(range.lowerBound)...\(range.upperBound))")
                scanned += count
            }
            ops = ranges
        case .listTraversal:
            for _ in 0..<passes {
                var valueSum = 0.0
                for (index, symbol) in ReadDataset.sensors.enumerated() {
                    let totals = try queries.listTotals(sensor: symbol)
                    expect(totals.count, answers.perSensor[index], "the length of \(symbol)'s list")
                    let length = answers.perSensor[index]
                    expect(totals.seqSum, Double(length * (length + 1) / 2), "the sum of seq over \(symbol)'s list")
                    valueSum += totals.valueSum
                    scanned += totals.count
                }
                expect(valueSum, answers.sum, "the sum of value over every list")
            }
            ops = passes * ReadDataset.sensors.count
        }
        let cpuNanos = threadCPUNanos() - cpuStart
        let nanos = monotonicNanos() - start
        var measured = ReadsWorkload.Measured(figures: ReadFigures(op: op, ops: ops, nanos: nanos, objectsScanned: scanned,
                                                                   objects: n, bytesPerObject: nil, cpuNanos: cpuNanos))
        measured.problems = problems
        return measured
    }
}
