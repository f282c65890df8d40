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
// - Durable (`full`), `gcd` and `async` cases are judged like the rest: base and current meet
//   the same fsync latency and the same scheduler within a round.
// - Integrity (lost readings, a failed end-of-run check) in any current round is a regression.
// - Counted work (CounterGate) compares the rounds' medians when the base build reports it.
// - A case of the base missing from the current rounds fails (exit 1) unless missing cases are
//   allowed; a case only in the current rounds is "new".
//
// Invariants: round i of the base pairs with round i of the current build (the caller ran them
// back to back); a case absent from either file of a round contributes no pair for that round.

import Foundation

public struct PairedOptions: Sendable {
    /// Slowdown (percent) the interval must lie beyond to regress.
    public var thresholdPercent: Double
    /// Two-sided confidence of the interval (0.95 = 95%).
    public var confidence: Double
    public var counterThresholds: [CounterThreshold]?
    public var allowMissing: Bool

    public init(thresholdPercent: Double = PairedComparison.defaultThreshold, confidence: Double = PairedComparison.defaultConfidence,
                counterThresholds: [CounterThreshold]? = nil, allowMissing: Bool = false) {
        self.thresholdPercent = thresholdPercent
        self.confidence = confidence
        self.counterThresholds = counterThresholds
        self.allowMissing = allowMissing
    }
}

public enum PairedComparison {
    /// See the README's gate section for the identical-tree runs that chose these.
    public static let defaultThreshold = 3.0
    public static let defaultConfidence = 0.95

    /// The metric judged per case.
    public static let metric = "readings_per_s"

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
        let slowest = 1 / (1 + options.thresholdPercent / 100)
        let fastest = 1 + options.thresholdPercent / 100
        let minimum = PairedStatistics.minimumPairs(confidence: options.confidence)
        let confidenceText = CSVNumber.format(options.confidence * 100, digits: 1) + "%"

        for key in keys {
            let now = current.flatMap { $0.groups[key] ?? [] }
            let before = base.flatMap { $0.groups[key] ?? [] }
            guard !before.isEmpty else {
                report.lines.append(ComparisonLine(caseKey: key, metric: "-", baseline: nil, current: nil, verdict: .new, rule: "not in the base rounds"))
                continue
            }
            let lost = now.compactMap { Double($0["lost"] ?? "") }.max() ?? 0
            report.lines.append(ComparisonLine(caseKey: key, metric: "lost", baseline: Comparison.median(before, "lost"), current: lost,
                                               verdict: lost > 0 ? .regressed : .unchanged, rule: "must be 0"))
            if now.contains(where: { $0["verified"] == "false" }) {
                report.lines.append(ComparisonLine(caseKey: key, metric: "verified", baseline: nil, current: nil,
                                                   verdict: .regressed, rule: "end-of-run check failed in a current round"))
            }
            var logRatios: [Double] = []
            for round in 0..<min(base.count, current.count) {
                guard let b = base[round].groups[key].flatMap({ Comparison.median($0, metric) }),
                      let c = current[round].groups[key].flatMap({ Comparison.median($0, metric) }), b > 0, c > 0 else { continue }
                logRatios.append(log(c / b))
            }
            var line = ComparisonLine(caseKey: key, metric: metric, baseline: Comparison.median(before, metric),
                                      current: Comparison.median(now, metric), verdict: .insufficient, rule: "")
            if let interval = PairedStatistics.hodgesLehmann(logRatios, confidence: options.confidence) {
                let ratio = PairedRatio(estimate: exp(interval.estimate), lower: exp(interval.lower), upper: exp(interval.upper),
                                        rounds: interval.pairs)
                line.paired = ratio
                let bound = "paired \(confidenceText): regresses when the interval lies below x\(CSVNumber.format(slowest, digits: 3))"
                if ratio.upper < slowest {
                    line.verdict = .regressed
                    line.rule = bound
                } else if ratio.lower > fastest {
                    line.verdict = .improved
                    line.rule = "paired \(confidenceText): improves when the interval lies above x\(CSVNumber.format(fastest, digits: 3))"
                } else {
                    line.verdict = .unchanged
                    line.rule = bound
                }
            } else {
                line.rule = "\(logRatios.count) paired rounds; a \(confidenceText) interval needs at least \(minimum)"
            }
            report.lines.append(line)
            report.lines += CounterGate.judge(caseKey: key, baseline: before, current: now, thresholds: options.counterThresholds)
        }
        for key in baseKeys where !keys.contains(key) {
            report.lines.append(ComparisonLine(caseKey: key, metric: "-", baseline: nil, current: nil, verdict: .missing, rule: "not in the current rounds"))
            report.warnings.append("case \(key) ran in the base rounds but not in the current ones"
                                   + (options.allowMissing ? " (allowed)" : ": the comparison fails (--allow-missing accepts it)"))
        }
        if report.lines.allSatisfy({ $0.metric != metric || $0.verdict == .insufficient }) {
            report.warnings.append("no case had enough paired rounds for a verdict")
        }
        return report
    }

    /// Exit status of a paired report: 2 regression; 1 when nothing could be judged or a case is
    /// missing (not allowed); 0 otherwise.
    public static func exitCode(_ report: ComparisonReport) -> Int32 {
        if !report.regressions.isEmpty { return 2 }
        let judged = report.lines.contains { $0.metric == metric && $0.verdict != .insufficient }
        if !judged { return 1 }
        return report.exitCode
    }
}
