// `compare-paired`: the base and the current build ran the same cases alternately, one summary
// CSV per build per round, on one machine; a case's throughput ratio current/base is estimated
// from the rounds with a confidence interval, so the host's drift between passes (up to 40%
// here) cancels within each round instead of widening a band.
//
// Rules:
// - Per case and round the log ratio ln(current / base) of `readings_per_s`; the Hodges–Lehmann
//   estimate and Wilcoxon signed-rank interval of those (PairedStatistics). The case regresses
//   only when the whole interval lies below 1 / (1 + T) — the current build is slower by more
//   than T with the confidence asked — and improves only when it lies above 1 + T.
// - Fewer rounds than the confidence needs: "not enough data", never a verdict.
// - Every case is judged on wall-clock throughput; every case but the durable ones on CPU time
//   per reading; each operation of the reads workload on its CPU time per operation
//   (PairedMetric.swift says why).
// - Integrity (lost readings, a failed end-of-run check) in any current round is a regression.
// - Counted work (CounterGate) compares the rounds' medians when the base build reports it.
// - A case of the base missing from the current rounds fails (exit 1) unless missing cases are
//   allowed; a case only in the current rounds is "new".
//
// Invariants: round i of the base pairs with round i of the current build (the caller ran them
// back to back); a case absent from either file of a round contributes no pair for that round.

import Foundation

public struct PairedOptions: Sendable {
    /// Slowdown (percent) the wall-clock throughput's interval must lie beyond to regress.
    public var thresholdPercent: Double
    /// Slowdown (percent) the CPU time per reading's interval must lie beyond to regress.
    public var cpuThresholdPercent: Double
    /// Slowdown (percent) a read operation's CPU time per operation must lie beyond to regress.
    public var readThresholdPercent: Double
    /// Two-sided confidence of the interval (0.95 = 95%).
    public var confidence: Double
    public var counterThresholds: [CounterThreshold]?
    public var allowMissing: Bool
    /// False when the rounds ran the two builds in alternation (each stopped while the other ran):
    /// their wall-clock times include the stops, so throughput is shown, not judged.
    public var judgesWallClock: Bool

    public init(thresholdPercent: Double = PairedComparison.defaultThreshold,
                cpuThresholdPercent: Double = PairedComparison.defaultCPUThreshold,
                readThresholdPercent: Double = PairedComparison.defaultReadThreshold,
                confidence: Double = PairedComparison.defaultConfidence,
                counterThresholds: [CounterThreshold]? = nil, allowMissing: Bool = false, judgesWallClock: Bool = true) {
        self.thresholdPercent = thresholdPercent
        self.cpuThresholdPercent = cpuThresholdPercent
        self.readThresholdPercent = readThresholdPercent
        self.confidence = confidence
        self.counterThresholds = counterThresholds
        self.allowMissing = allowMissing
        self.judgesWallClock = judgesWallClock
    }

    func thresholdPercent(for metric: PairedMetric) -> Double {
        switch metric.name {
        case PairedMetric.cpuPerReading.name: cpuThresholdPercent
        case PairedMetric.cpuPerOp.name: readThresholdPercent
        default: thresholdPercent
        }
    }
}

public enum PairedComparison {
    /// See docs/perf-gate.md for the identical-tree runs that chose these.
    public static let defaultThreshold = 3.0
    public static let defaultCPUThreshold = 3.0
    /// Wider than the commits' CPU threshold: a read operation of the gate's case runs for a few
    /// milliseconds, so its CPU time carries the caches' state after each stop of the build.
    public static let defaultReadThreshold = 10.0
    public static let defaultConfidence = 0.95

    /// The wall-clock metric judged per case (PairedMetric.swift).
    public static let metric = PairedMetric.throughput.name
    /// The CPU-time metric judged per case.
    public static let cpuMetric = PairedMetric.cpuPerReading.name
    /// Every timing judged per case, in report order.
    public static let metrics = [PairedMetric.cpuPerReading, PairedMetric.throughput, PairedMetric.cpuPerOp]
    static let metricNames = Set(metrics.map(\.name))

    /// Reads one summary CSV per round and side (`base[i]` pairs with `current[i]`).
    public static func compare(basePaths: [String], currentPaths: [String], options: PairedOptions) throws -> ComparisonReport {
        guard !basePaths.isEmpty, basePaths.count == currentPaths.count else {
            throw BenchError(.invalidOption, "give as many base rounds as current rounds (got \(basePaths.count) and \(currentPaths.count))")
        }
        let base = try basePaths.map { try Comparison.Side(table: CSVReader.read(path: $0), path: $0) }
        let current = try currentPaths.map { try Comparison.Side(table: CSVReader.read(path: $0), path: $0) }
        return try compare(base: base, current: current, options: options)
    }

    public static func compare(baseTables: [CSVTable], currentTables: [CSVTable], options: PairedOptions) throws -> ComparisonReport {
        guard !baseTables.isEmpty, baseTables.count == currentTables.count else {
            throw BenchError(.invalidOption, "give as many base rounds as current rounds (got \(baseTables.count) and \(currentTables.count))")
        }
        return try compare(base: baseTables.enumerated().map { try Comparison.Side(table: $1, path: "<base round \($0 + 1)>") },
                           current: currentTables.enumerated().map { try Comparison.Side(table: $1, path: "<current round \($0 + 1)>") },
                           options: options)
    }

    static func compare(base: [Comparison.Side], current: [Comparison.Side], options: PairedOptions) throws -> ComparisonReport {
        guard options.thresholdPercent > 0 && options.thresholdPercent < 100 else {
            throw BenchError(.invalidOption, "--threshold must be between 0 and 100 (percent), got \(CSVNumber.format(options.thresholdPercent))")
        }
        guard options.cpuThresholdPercent > 0 && options.cpuThresholdPercent < 100 else {
            throw BenchError(.invalidOption, "--cpu-threshold must be between 0 and 100 (percent), got \(CSVNumber.format(options.cpuThresholdPercent))")
        }
        guard options.confidence >= 0.5 && options.confidence < 1 else {
            throw BenchError(.invalidOption, "--confidence must be at least 0.5 and below 1, got \(CSVNumber.format(options.confidence))")
        }
        var report = ComparisonReport(lines: [], warnings: [], allowsMissing: options.allowMissing)
        for column in Comparison.provenanceColumns {
            let before = Set(base.flatMap { $0.records.compactMap { $0[column] } }).subtracting([""])
            let after = Set(current.flatMap { $0.records.compactMap { $0[column] } }).subtracting([""])
            if !before.isEmpty, !after.isEmpty, before != after {
                report.warnings.append("\(column) differs: base \(before.sorted().joined(separator: "/")), current \(after.sorted().joined(separator: "/"))")
            }
        }
        var keys: [String] = []
        for side in current { for key in side.keys where !keys.contains(key) { keys.append(key) } }
        var baseKeys: [String] = []
        for side in base { for key in side.keys where !baseKeys.contains(key) { baseKeys.append(key) } }

        for key in keys {
            let now = current.flatMap { $0.groups[key] ?? [] }
            let before = base.flatMap { $0.groups[key] ?? [] }
            guard !before.isEmpty else {
                report.lines.append(ComparisonLine(caseKey: key, metric: "-", baseline: nil, current: nil, verdict: .new, rule: "not in the base rounds"))
                continue
            }
            let lost = now.compactMap { DecimalText.double($0["lost"] ?? "") }.max() ?? 0
            report.lines.append(ComparisonLine(caseKey: key, metric: "lost", baseline: Comparison.median(before, "lost"), current: lost,
                                               verdict: lost > 0 ? .regressed : .unchanged, rule: "must be 0"))
            if now.contains(where: { $0["verified"] == "false" }) {
                report.lines.append(ComparisonLine(caseKey: key, metric: "verified", baseline: nil, current: nil,
                                                   verdict: .regressed, rule: "end-of-run check failed in a current round"))
            }
            // A read operation commits no readings: it is judged on its CPU time per operation
            // alone, and every other case on the per-reading timings alone.
            let readOperation = (before + now).contains(where: Self.isReadOperation)
            for metric in Self.metrics where (metric.name == PairedMetric.cpuPerOp.name) == readOperation {
                report.lines.append(judge(metric, key: key, base: base, current: current, options: options))
            }
            report.lines += CounterGate.judge(caseKey: key, baseline: before, current: now, thresholds: options.counterThresholds)
        }
        for key in baseKeys where !keys.contains(key) {
            report.lines.append(ComparisonLine(caseKey: key, metric: "-", baseline: nil, current: nil, verdict: .missing, rule: "not in the current rounds"))
            report.warnings.append("case \(key) ran in the base rounds but not in the current ones"
                                   + (options.allowMissing ? " (allowed)" : ": the comparison fails (--allow-missing accepts it)"))
        }
        if report.lines.allSatisfy({ !Self.metricNames.contains($0.metric) || $0.verdict == .insufficient }) {
            report.warnings.append("no case had enough paired rounds for a verdict")
        }
        return report
    }

    /// A row of one operation of the reads workload other than its fill (which stores readings).
    static func isReadOperation(_ record: SummaryRecord) -> Bool {
        let op = record["op"] ?? ""
        return !op.isEmpty && op != ReadOp.fill.rawValue
    }

    /// One timing of one case: the log ratio current / base per round, its Hodges–Lehmann
    /// interval, and the verdict of the metric's threshold.
    static func judge(_ metric: PairedMetric, key: String, base: [Comparison.Side], current: [Comparison.Side],
                      options: PairedOptions) -> ComparisonLine {
        func median(_ rows: [SummaryRecord]) -> Double? {
            let values = rows.compactMap(metric.value)
            return values.isEmpty ? nil : Statistics.median(values)
        }
        var logRatios: [Double] = []
        for round in 0..<min(base.count, current.count) {
            guard let b = base[round].groups[key].flatMap(median), let c = current[round].groups[key].flatMap(median) else { continue }
            logRatios.append(log(c / b))
        }
        let threshold = options.thresholdPercent(for: metric)
        let confidenceText = CSVNumber.format(options.confidence * 100, digits: 1) + "%"
        var line = ComparisonLine(caseKey: key, metric: metric.name,
                                  baseline: median(base.flatMap { $0.groups[key] ?? [] }),
                                  current: median(current.flatMap { $0.groups[key] ?? [] }), verdict: .insufficient, rule: "")
        guard let interval = PairedStatistics.hodgesLehmann(logRatios, confidence: options.confidence) else {
            let minimum = PairedStatistics.minimumPairs(confidence: options.confidence)
            line.rule = "\(logRatios.count) paired rounds; a \(confidenceText) interval needs at least \(minimum)"
            return line
        }
        let ratio = PairedRatio(estimate: exp(interval.estimate), lower: exp(interval.lower), upper: exp(interval.upper),
                                rounds: interval.pairs)
        line.paired = ratio
        if metric.name == PairedMetric.throughput.name && !options.judgesWallClock {
            line.verdict = .info
            line.rule = "shown, not judged: the builds ran in alternation, so wall-clock time includes the time each was stopped"
            return line
        }
        if let reason = (base.first { $0.groups[key] != nil }?.groups[key]?.first).flatMap(metric.reasonNotJudged) {
            line.verdict = .info
            line.rule = reason
            return line
        }
        line.rule = metric.ruleText(thresholdPercent: threshold, confidence: confidenceText)
        if metric.regresses(ratio, thresholdPercent: threshold) {
            line.verdict = .regressed
        } else if metric.improves(ratio, thresholdPercent: threshold) {
            line.verdict = .improved
            line.rule = line.rule.replacingOccurrences(of: "regresses", with: "improves")
        } else {
            line.verdict = .unchanged
        }
        return line
    }

    /// Exit status of a paired report: 2 regression; 1 when nothing could be judged or a case is
    /// missing (not allowed); 0 otherwise.
    public static func exitCode(_ report: ComparisonReport) -> Int32 {
        if !report.regressions.isEmpty { return 2 }
        let judged = report.lines.contains { metricNames.contains($0.metric) && $0.verdict != .insufficient }
        if !judged { return 1 }
        return report.exitCode
    }
}
