import Foundation
import Testing
@testable import StrataBench

/// One synthetic summary row of a sensors case.
private func row(engine: String = "strata", strategy: String = "main-sync", durability: String = "unsafe",
                 readingsPerSecond: Double, cpuSeconds: Double? = nil, lost: Int = 0, counters: [String: Double] = [:],
                 statsPasses: Int = 0) -> [String: String] {
    var record: [String: String] = [
        "workload": "sensors", "engine": engine, "strategy": strategy, "writers": "1", "batch_size": "1",
        "encryption": "off", "durability": durability, "repetition": "1", "readings": "10000", "transactions": "10000",
        "readings_per_s": CSVNumber.format(readingsPerSecond, digits: 1), "lost": String(lost), "verified": "true",
        "bound": "count", "target_readings": "10000", "max_delay_ms": "100", "rate": "", "build": "release",
        "stats_passes": String(statsPasses),
    ]
    for (column, value) in counters { record[column] = CSVNumber.format(value, digits: 3) }
    if let cpuSeconds {
        // Split unevenly between user and system time: the metric uses their sum.
        record["cpu_user_s"] = CSVNumber.format(cpuSeconds * 0.8, digits: 6)
        record["cpu_sys_s"] = CSVNumber.format(cpuSeconds * 0.2, digits: 6)
    }
    return record
}

/// A row as the comparison reads it: its settings parsed.
private func parsed(_ cells: [String: String]) throws -> SummaryRecord {
    try SummaryRecord(cells: cells, path: "test.csv", line: 2)
}

private func table(_ rows: [[String: String]]) throws -> CSVTable {
    try CSVReader.parse(CSVWriter.render(columns: SummaryColumns.all, records: rows))
}

/// `rounds` paired rounds; the host's speed drifts ±30% between rounds (both sides alike) and
/// each measurement has ±`noise` of its own.
private func rounds(_ count: Int, currentFactor: Double, noise: Double = 0.02, seed: UInt64 = 7,
                    extra: (Bool) -> [[String: String]] = { _ in [] }) throws -> (base: [CSVTable], current: [CSVTable]) {
    var generator = SeededGenerator(state: seed)
    var base: [CSVTable] = [], current: [CSVTable] = []
    for _ in 0..<count {
        let host = 100_000 * Double.random(in: 0.7...1.3, using: &generator)
        let b = host * (1 + noise * Double.random(in: -1...1, using: &generator))
        let c = host * currentFactor * (1 + noise * Double.random(in: -1...1, using: &generator))
        base.append(try table([row(readingsPerSecond: b)] + extra(false)))
        current.append(try table([row(readingsPerSecond: c)] + extra(true)))
    }
    return (base, current)
}

/// `count` paired rounds where the wall-clock throughput of each side swings ±`wallNoise` on its
/// own (another build took the CPU during one side's group) while the CPU time per reading has
/// only ±`cpuNoise`; the current build costs `cpuFactor` times the base's CPU.
private func loadedRounds(_ count: Int, cpuFactor: Double, wallNoise: Double = 0.3, cpuNoise: Double = 0.01,
                          durability: String = "unsafe", seed: UInt64 = 11) throws -> (base: [CSVTable], current: [CSVTable]) {
    var generator = SeededGenerator(state: seed)
    var base: [CSVTable] = [], current: [CSVTable] = []
    for _ in 0..<count {
        func side(_ factor: Double) throws -> CSVTable {
            let wall = 100_000 / factor * (1 + wallNoise * Double.random(in: -1...1, using: &generator))
            let cpu = 0.1 * factor * (1 + cpuNoise * Double.random(in: -1...1, using: &generator))
            return try table([row(durability: durability, readingsPerSecond: wall, cpuSeconds: cpu)])
        }
        base.append(try side(1))
        current.append(try side(cpuFactor))
    }
    return (base, current)
}

/// One synthetic row of a reads-workload operation: no readings, its thread's CPU time per op.
private func readRow(op: String, cpuMicrosPerOp: Double?) -> [String: String] {
    var record = row(strategy: "dedicated", readingsPerSecond: 0)
    record["workload"] = "reads"
    record["op"] = op
    record["readings"] = "0"
    record["transactions"] = "0"
    record["readings_per_s"] = "0"
    record["cpu_user_s"] = "0.5"
    record["cpu_sys_s"] = "0.01"
    record["cpu_us_per_op"] = cpuMicrosPerOp.map { CSVNumber.format($0, digits: 3) } ?? ""
    return record
}

/// `count` paired rounds of one sensors case (unchanged) and one read operation whose CPU time per
/// operation is `readFactor` times the base's, each measurement with ±`noise`.
private func readRounds(_ count: Int, readFactor: Double, noise: Double = 0.04, baseMeasuresOps: Bool = true,
                        seed: UInt64 = 13) throws -> (base: [CSVTable], current: [CSVTable]) {
    var generator = SeededGenerator(state: seed)
    var base: [CSVTable] = [], current: [CSVTable] = []
    for _ in 0..<count {
        func jitter() -> Double { 1 + noise * Double.random(in: -1...1, using: &generator) }
        let sensors = row(readingsPerSecond: 100_000, cpuSeconds: 0.1)
        base.append(try table([sensors, readRow(op: "pk-lookup", cpuMicrosPerOp: baseMeasuresOps ? 1.5 * jitter() : nil)]))
        current.append(try table([sensors, readRow(op: "pk-lookup", cpuMicrosPerOp: 1.5 * readFactor * jitter())]))
    }
    return (base, current)
}

private func lines(_ report: ComparisonReport, op: String) -> [ComparisonLine] {
    report.lines.filter { $0.caseKey.hasSuffix("op-\(op)") }
}

private func cpuLine(_ report: ComparisonReport) -> ComparisonLine? {
    report.lines.first { $0.metric == PairedComparison.cpuMetric }
}

private func pairedLine(_ report: ComparisonReport) -> ComparisonLine? {
    report.lines.first { $0.metric == PairedComparison.metric }
}

@Suite("paired gate")
struct PairedGateTests {
    @Test func alternatedRoundsJudgeCPUTimeOnly() throws {
        // CPU time 20% higher and wall-clock throughput 17% lower: with the builds run in
        // alternation only the CPU rule may decide; judged as usual, both rules flag it.
        let (base, current) = try loadedRounds(8, cpuFactor: 1.2, wallNoise: 0.01)
        var options = PairedOptions()
        options.judgesWallClock = false
        let report = try PairedComparison.compare(baseTables: base, currentTables: current, options: options)
        let wall = try #require(pairedLine(report))
        #expect(wall.verdict == .info)
        #expect(wall.rule.contains("alternation"))
        #expect(wall.paired != nil)
        #expect(try #require(cpuLine(report)).verdict == .regressed)
        #expect(PairedComparison.exitCode(report) == 2)

        let judged = try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions())
        #expect(try #require(pairedLine(judged)).verdict == .regressed)
    }

    @Test func aTenPercentSlowdownUnderDriftRegresses() throws {
        let (base, current) = try rounds(10, currentFactor: 0.90)
        let report = try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions())
        let line = try #require(pairedLine(report))
        #expect(line.verdict == .regressed)
        let paired = try #require(line.paired)
        #expect(paired.lower <= 0.90 && 0.90 <= paired.upper + 0.01)
        #expect(PairedComparison.exitCode(report) == 2)
    }

    @Test func identicalBuildsUnderDriftPass() throws {
        for seed: UInt64 in 1...20 {
            let (base, current) = try rounds(10, currentFactor: 1.0, seed: seed)
            let report = try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions())
            #expect(pairedLine(report)?.verdict == .unchanged, "seed \(seed)")
            #expect(PairedComparison.exitCode(report) == 0)
        }
    }

    @Test func tooFewRoundsIsNotEnoughDataNeverAVerdict() throws {
        let (base, current) = try rounds(4, currentFactor: 0.5)
        let report = try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions())
        let line = try #require(pairedLine(report))
        #expect(line.verdict == .insufficient)
        #expect(line.rule.contains("needs at least 6"))
        #expect(PairedComparison.exitCode(report) == 1)
    }

    @Test func durableAndConcurrentCasesAreJudgedToo() throws {
        let (base, current) = try rounds(8, currentFactor: 1.0) { isCurrent in
            [row(strategy: "gcd", durability: "full", readingsPerSecond: isCurrent ? 500 : 700)]
        }
        let report = try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions())
        let durable = report.lines.first { $0.caseKey.contains("/gcd/") && $0.metric == PairedComparison.metric }
        #expect(durable?.verdict == .regressed)
    }

    @Test func lostReadingsInAnyCurrentRoundFail() throws {
        var (base, current) = try rounds(8, currentFactor: 1.0)
        current[3] = try table([row(readingsPerSecond: 100_000, lost: 2)])
        let report = try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions())
        #expect(report.lines.contains { $0.metric == "lost" && $0.verdict == .regressed })
    }

    @Test func aCaseMissingFromTheCurrentRoundsFailsUnlessAllowed() throws {
        let (base, current) = try rounds(8, currentFactor: 1.0)
        let baseWithMore = try base.map { _ in
            try table([row(readingsPerSecond: 100_000), row(engine: "sqlite", readingsPerSecond: 50_000)])
        }
        let report = try PairedComparison.compare(baseTables: baseWithMore, currentTables: current, options: PairedOptions())
        #expect(report.count(.missing) == 1)
        #expect(PairedComparison.exitCode(report) == 1)
        let allowed = try PairedComparison.compare(baseTables: baseWithMore, currentTables: current,
                                                   options: PairedOptions(allowMissing: true))
        #expect(PairedComparison.exitCode(allowed) == 0)
    }

    @Test func unevenRoundsAndBadOptionsAreRefused() throws {
        let (base, current) = try rounds(6, currentFactor: 1.0)
        #expect(throws: BenchError.self) {
            try PairedComparison.compare(baseTables: base, currentTables: Array(current.dropLast()), options: PairedOptions())
        }
        #expect(throws: BenchError.self) {
            try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions(confidence: 1))
        }
        #expect(throws: BenchError.self) {
            try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions(thresholdPercent: 0))
        }
    }

    @Test func tenPercentMoreCPUUnderWallClockNoiseRegressesOnCPUTime() throws {
        let (base, current) = try loadedRounds(10, cpuFactor: 1.10)
        let report = try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions())
        let cpu = try #require(cpuLine(report))
        #expect(cpu.verdict == .regressed)
        let paired = try #require(cpu.paired)
        #expect(paired.lower > 1.03 && paired.lower <= 1.10 && 1.10 <= paired.upper)
        #expect(cpu.rule.contains("above x1.03"))
        // The same rounds' wall-clock intervals are too wide to call it.
        #expect(pairedLine(report)?.verdict == .unchanged)
        #expect(PairedComparison.exitCode(report) == 2)
    }

    @Test func identicalCPUUnderWallClockNoisePasses() throws {
        for seed: UInt64 in 1...20 {
            let (base, current) = try loadedRounds(10, cpuFactor: 1.0, seed: seed)
            let report = try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions())
            #expect(cpuLine(report)?.verdict == .unchanged, "seed \(seed)")
            #expect(PairedComparison.exitCode(report) == 0, "seed \(seed)")
        }
    }

    @Test func lessCPUImprovesAndTheCPUThresholdIsItsOwn() throws {
        let (base, current) = try loadedRounds(10, cpuFactor: 0.90)
        let report = try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions())
        #expect(cpuLine(report)?.verdict == .improved)
        let (slowerBase, slowerCurrent) = try loadedRounds(10, cpuFactor: 1.05)
        let strict = try PairedComparison.compare(baseTables: slowerBase, currentTables: slowerCurrent, options: PairedOptions())
        #expect(cpuLine(strict)?.verdict == .regressed)
        let lenient = try PairedComparison.compare(baseTables: slowerBase, currentTables: slowerCurrent,
                                                   options: PairedOptions(cpuThresholdPercent: 8))
        #expect(cpuLine(lenient)?.verdict == .unchanged)
        #expect(cpuLine(lenient)?.rule.contains("above x1.08") == true)
        #expect(throws: BenchError.self) {
            try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions(cpuThresholdPercent: 0))
        }
    }

    @Test func durableCasesShowTheirCPUTimeWithoutJudgingIt() throws {
        let (base, current) = try loadedRounds(10, cpuFactor: 1.20, durability: "full")
        let report = try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions())
        let cpu = try #require(cpuLine(report))
        #expect(cpu.verdict == .info)
        #expect(cpu.rule.contains("flush path"))
        #expect((cpu.paired?.lower ?? 0) > 1.03)  // the interval is still computed and shown
        #expect(pairedLine(report)?.verdict != .insufficient)  // the wall-clock rule still judges it
        #expect(!report.regressions.contains { $0.metric == PairedComparison.cpuMetric })
    }

    @Test func rowsWithoutCPUFiguresGiveNotEnoughDataForCPUOnly() throws {
        let (base, current) = try rounds(8, currentFactor: 1.0)
        let report = try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions())
        #expect(cpuLine(report)?.verdict == .insufficient)
        #expect(cpuLine(report)?.rule.contains("0 paired rounds") == true)
        #expect(pairedLine(report)?.verdict == .unchanged)
        #expect(PairedComparison.exitCode(report) == 0)
    }

    @Test func theCPUMetricIsUserPlusSystemTimePerReading() throws {
        let record = row(readingsPerSecond: 1, cpuSeconds: 0.5)
        #expect(abs((PairedMetric.cpuPerReading.value(try parsed(record)) ?? 0) - 50) < 1e-9)  // 0.5 s / 10,000 readings
        var noReadings = record
        noReadings["readings"] = "0"
        #expect(PairedMetric.cpuPerReading.value(try parsed(noReadings)) == nil)
    }

    @Test func aSlowerReadOperationRegressesOnItsCPUTimePerOperation() throws {
        let (base, current) = try readRounds(8, readFactor: 1.25)
        let report = try PairedComparison.compare(baseTables: base, currentTables: current,
                                                  options: PairedOptions(judgesWallClock: false))
        let read = lines(report, op: "pk-lookup")
        // Judged on its CPU time per operation only: a read operation has no readings to time.
        #expect(read.map(\.metric).sorted() == ["cpu_us_per_op", "lost"])
        let cpu = try #require(read.first { $0.metric == "cpu_us_per_op" })
        #expect(cpu.verdict == .regressed)
        #expect(cpu.rule.contains("x1.1"))
        #expect(PairedComparison.exitCode(report) == 2)
        // The sensors case beside it is judged as before, without a per-operation line.
        #expect(!report.lines.contains { !$0.caseKey.contains("op-") && $0.metric == "cpu_us_per_op" })
        #expect(report.lines.contains { !$0.caseKey.contains("op-") && $0.metric == PairedComparison.cpuMetric && $0.verdict == .unchanged })
    }

    @Test func anUnchangedReadOperationPassesAndAFasterOneImproves() throws {
        let (base, same) = try readRounds(8, readFactor: 1.0)
        let unchanged = try PairedComparison.compare(baseTables: base, currentTables: same, options: PairedOptions(judgesWallClock: false))
        #expect(lines(unchanged, op: "pk-lookup").first { $0.metric == "cpu_us_per_op" }?.verdict == .unchanged)
        #expect(PairedComparison.exitCode(unchanged) == 0)
        let (base2, faster) = try readRounds(8, readFactor: 0.7)
        let improved = try PairedComparison.compare(baseTables: base2, currentTables: faster, options: PairedOptions(judgesWallClock: false))
        #expect(lines(improved, op: "pk-lookup").first { $0.metric == "cpu_us_per_op" }?.verdict == .improved)
    }

    @Test func aBaseThatDidNotMeasureOperationsGivesNotEnoughDataNotAVerdict() throws {
        let (base, current) = try readRounds(8, readFactor: 1.5, baseMeasuresOps: false)
        let report = try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions(judgesWallClock: false))
        let cpu = try #require(lines(report, op: "pk-lookup").first { $0.metric == "cpu_us_per_op" })
        #expect(cpu.verdict == .insufficient)
        #expect(cpu.rule.contains("0 paired rounds"))
        #expect(PairedComparison.exitCode(report) == 0)  // the sensors case was judged
    }

    @Test func rendersIntervalAndRoundsInMarkdown() throws {
        let (base, current) = try rounds(8, currentFactor: 0.8)
        let report = try PairedComparison.compare(baseTables: base, currentTables: current, options: PairedOptions())
        let text = Comparison.render(report, format: .markdown, title: "paired")
        #expect(text.contains("| interval | rounds |"))
        #expect(text.contains("**Regressions:**"))
    }
}

@Suite("counter gate")
struct CounterGateTests {
    private let thresholds = [
        CounterThreshold(metric: "pages_written_per_txn", tolerancePercent: 1, floor: 0.02, reason: "exact"),
        CounterThreshold(metric: "heap_allocs_per_txn", tolerancePercent: 2, floor: 0.5, reason: "late tcache"),
        CounterThreshold(metric: "flushes_per_txn", tolerancePercent: 1, floor: 0.01, reason: ""),
    ]

    private func judge(_ base: [String: String], _ current: [String: String]) throws -> [String: ComparisonLine] {
        var lines: [String: ComparisonLine] = [:]
        for line in CounterGate.judge(caseKey: "k", baseline: [try parsed(base)], current: [try parsed(current)], thresholds: thresholds) {
            lines[line.metric] = line
        }
        return lines
    }

    @Test func oneMorePageOrFlushPerCommitRegresses() throws {
        let lines = try judge(row(readingsPerSecond: 1, counters: ["pages_written_per_txn": 3, "flushes_per_txn": 1]),
                          row(readingsPerSecond: 1, counters: ["pages_written_per_txn": 4, "flushes_per_txn": 2]))
        #expect(lines["pages_written_per_txn"]?.verdict == .regressed)
        #expect(lines["flushes_per_txn"]?.verdict == .regressed)
    }

    @Test func changesWithinToleranceOrFloorAreUnchanged() throws {
        let lines = try judge(row(readingsPerSecond: 1, counters: ["pages_written_per_txn": 3, "heap_allocs_per_txn": 40]),
                          row(readingsPerSecond: 1, counters: ["pages_written_per_txn": 3.01, "heap_allocs_per_txn": 40.4]))
        #expect(lines["pages_written_per_txn"]?.verdict == .unchanged)
        #expect(lines["heap_allocs_per_txn"]?.verdict == .unchanged)
        let more = try judge(row(readingsPerSecond: 1, counters: ["heap_allocs_per_txn": 40]),
                         row(readingsPerSecond: 1, counters: ["heap_allocs_per_txn": 41]))
        #expect(more["heap_allocs_per_txn"]?.verdict == .regressed)
    }

    @Test func timingDependentCasesAreShownNotGated() throws {
        for strategy in ["batched", "gcd", "threads", "async"] {
            let lines = try judge(row(strategy: strategy, readingsPerSecond: 1, counters: ["pages_written_per_txn": 3]),
                              row(strategy: strategy, readingsPerSecond: 1, counters: ["pages_written_per_txn": 9]))
            #expect(lines["pages_written_per_txn"]?.verdict == .info, "\(strategy)")
        }
    }

    @Test func processWideFiguresAreNotGatedWhenStatsPassesDiffer() throws {
        let lines = try judge(row(readingsPerSecond: 1, counters: ["heap_allocs_per_txn": 40, "pages_written_per_txn": 3], statsPasses: 0),
                          row(readingsPerSecond: 1, counters: ["heap_allocs_per_txn": 80, "pages_written_per_txn": 3], statsPasses: 1))
        #expect(lines["heap_allocs_per_txn"]?.verdict == .info)
        #expect(lines["pages_written_per_txn"]?.verdict == .unchanged)
    }

    @Test func durableCasesGateTheirFlushesButNotTheirHeap() throws {
        let lines = try judge(row(durability: "full", readingsPerSecond: 1, counters: ["heap_allocs_per_txn": 30, "flushes_per_txn": 1]),
                          row(durability: "full", readingsPerSecond: 1, counters: ["heap_allocs_per_txn": 33, "flushes_per_txn": 2]))
        #expect(lines["heap_allocs_per_txn"]?.verdict == .info)
        #expect(lines["flushes_per_txn"]?.verdict == .regressed)
    }

    @Test func emptyCellsAreNotJudgedAndOneSidedFiguresAreShown() throws {
        let lines = try judge(row(readingsPerSecond: 1, counters: ["pages_written_per_txn": 3, "heap_allocs_per_txn": 20]),
                          row(readingsPerSecond: 1, counters: ["heap_allocs_per_txn": 20]))
        #expect(lines["pages_written_per_txn"]?.verdict == .info)
        #expect(lines["pages_written_per_txn"]?.rule == "counter measured on one side only")
        #expect(lines["heap_allocs_per_txn"]?.verdict == .unchanged)
        #expect(lines["instructions_per_txn"] == nil)
    }

    @Test func aBaseWithoutCountersGivesNoCounterLines() throws {
        let lines = CounterGate.judge(caseKey: "k", baseline: [try parsed(row(readingsPerSecond: 1))],
                                      current: [try parsed(row(readingsPerSecond: 1, counters: ["pages_written_per_txn": 9]))], thresholds: thresholds)
        #expect(lines.isEmpty)
    }

    @Test func aCountersOnlyComparisonJudgesCountersAndIntegrityNotTimings() throws {
        let base = try table([row(readingsPerSecond: 100_000, counters: ["pages_written_per_txn": 3])])
        let slowerButSameWork = try table([row(readingsPerSecond: 10_000, counters: ["pages_written_per_txn": 3])])
        let same = try Comparison.compare(baseline: base, baselinePath: "b", current: slowerButSameWork, currentPath: "c",
                                          options: ComparisonOptions(counterThresholds: thresholds, countersOnly: true))
        #expect(same.exitCode == 0)
        #expect(!same.lines.contains { $0.metric == "readings_per_s" })
        let morePages = try table([row(readingsPerSecond: 100_000, counters: ["pages_written_per_txn": 4])])
        let worse = try Comparison.compare(baseline: base, baselinePath: "b", current: morePages, currentPath: "c",
                                           options: ComparisonOptions(counterThresholds: thresholds, countersOnly: true))
        #expect(worse.exitCode == 2)
        #expect(worse.regressions.map(\.metric) == ["pages_written_per_txn"])
    }

    @Test func withoutThresholdsCountersAreShown() throws {
        let lines = CounterGate.judge(caseKey: "k", baseline: [try parsed(row(readingsPerSecond: 1, counters: ["pages_written_per_txn": 3]))],
                                      current: [try parsed(row(readingsPerSecond: 1, counters: ["pages_written_per_txn": 9]))], thresholds: nil)
        #expect(lines.first?.verdict == .info)
        #expect(lines.first?.rule.contains("no thresholds file") == true)
    }

    @Test func theCommittedThresholdsFileParses() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let parsed = try CounterGate.thresholds(path: root.appendingPathComponent("results/baselines/counter-thresholds.csv").path)
        #expect(Set(parsed.map(\.metric)) == Set(WorkFigures.stems.map { $0 + "_per_txn" }))
    }

    @Test(arguments: [
        ("metric,tolerance_percent,floor,reason\nnope_per_txn,1,0,x\n", 2, 1, "unknown counter metric"),
        ("metric,tolerance_percent,floor,reason\npages_written_per_txn,abc,0,x\n", 2, 23, "tolerance_percent"),
        ("metric,tolerance_percent,floor,reason\npages_written_per_txn,1,-3,x\n", 2, 25, "floor"),
        ("metric,tolerance_percent,floor,reason\npages_written_per_txn,1,0,x\npages_written_per_txn,2,0,y\n", 3, 1, "twice"),
        ("metric,tolerance,floor,reason\npages_written_per_txn,1,0,x\n", 1, 1, "missing column"),
    ])
    func badThresholdFilesNameLineAndColumn(text: String, line: Int, column: Int, message: String) throws {
        let error = #expect(throws: BenchError.self) {
            try CounterGate.thresholds(table: CSVReader.parse(text, path: "t.csv"), path: "t.csv")
        }
        #expect(error?.code == .invalidCSV)
        #expect(error?.line == line && error?.column == column, "\(String(describing: error))")
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }
}
