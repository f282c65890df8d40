// Judging the counted work of a case (WorkCounters.swift) against the other side: per metric a
// tolerance read from a thresholds file (data, not code: results/baselines/counter-thresholds.csv).
//
// Which cases are judged, and why:
// - Count-bound, with one writer thread committing one transaction per reading (main-sync,
//   main-async, dedicated) or a fixed batch (the store workloads): they do the same work every
//   run, so a rise of a few percent is a change of code. `batched` (batches depend on timing),
//   concurrent writers (gcd, threads: group commits and contention), `async` (flushes shared
//   between tasks as they happen to wait) and time-bound cases vary with the machine: shown, not
//   gated. `read-while-write` too: its reader thread allocates as fast as it can.
// - Heap and instruction figures count the whole process, so the sensors app's once-a-second
//   stats reader adds to them when a case crosses a second: when the two sides' `stats_passes`
//   differ those figures are shown, not gated. Heap figures are exact only when jemalloc runs
//   without thread caches (`MALLOC_CONF=tcache:false`, as scripts/perf-gate's counted pass
//   does): a thread cache reports its requests to the arena only when it flushes, which in
//   identical runs moved Strata's dedicated-writer figure between 5.5 and 24 per transaction;
//   without caches three runs agreed within 0.1%.
// - Heap and instruction figures of durable (`full`) cases are shown, not gated: producers outrun
//   a flush-bound writer by as much as the flushes are slow, and the queued readings allocate
//   (Strata's main-async full: 3,472 vs 4,228 heap bytes per transaction in identical passes).
//   Their pages, bytes, flushes and write calls are gated.
// - Heap figures of runs with different allocators (`allocator`: jemalloc with or without thread
//   caches, system) are shown, not gated.
// - A metric with no figure on either side (an empty cell: no PMU, no jemalloc, SQLite's
//   flushes) is not judged; a figure on one side only is reported as a warning line.
//
// Invariants: a line regresses only when current > baseline × (1 + tolerance) and current −
// baseline > floor (the floor absorbs the one stray page or call of a case that commits a few
// hundred times); the rule text names the tolerance and the file's reason for it.

import Foundation

/// The tolerance of one counted metric.
public struct CounterThreshold: Sendable, Equatable {
    /// The column judged, e.g. `pages_written_per_txn`.
    public var metric: String
    /// Allowed rise, percent of the other side's figure.
    public var tolerancePercent: Double
    /// Rises at or below this absolute amount (the metric's unit) are unchanged.
    public var floor: Double
    /// Why this tolerance (shown in the report).
    public var reason: String

    public init(metric: String, tolerancePercent: Double, floor: Double, reason: String) {
        self.metric = metric
        self.tolerancePercent = tolerancePercent
        self.floor = floor
        self.reason = reason
    }
}

public enum CounterGate {
    /// Columns of a thresholds file.
    public static let thresholdColumns = ["metric", "tolerance_percent", "floor", "reason"]

    /// Reads a thresholds file; every problem is `.invalidCSV` naming line and column.
    public static func thresholds(path: String) throws -> [CounterThreshold] {
        try thresholds(table: CSVReader.read(path: path), path: path)
    }

    public static func thresholds(table: CSVTable, path: String) throws -> [CounterThreshold] {
        for column in thresholdColumns where table.column(column) == nil {
            throw BenchError(.invalidCSV, "missing column '\(column)' (expected \(thresholdColumns.joined(separator: ",")))",
                             path: path, line: 1, column: 1)
        }
        var result: [CounterThreshold] = []
        for index in table.rows.indices {
            let record = table.record(index)
            func cell(_ name: String) -> (String, (line: Int, column: Int)) {
                (record[name] ?? "", table.position(row: index, column: table.column(name) ?? 0))
            }
            let (metric, metricAt) = cell("metric")
            guard WorkFigures.columns.contains(metric) else {
                throw BenchError(.invalidCSV, "unknown counter metric '\(QuotedInput.clip(metric))' (expected one of \(WorkFigures.columns.joined(separator: ", ")))",
                                 path: path, line: metricAt.line, column: metricAt.column)
            }
            if result.contains(where: { $0.metric == metric }) {
                throw BenchError(.invalidCSV, "metric '\(QuotedInput.clip(metric))' appears twice", path: path, line: metricAt.line, column: metricAt.column)
            }
            let (tolerance, toleranceAt) = cell("tolerance_percent")
            guard let percent = DecimalText.double(tolerance), percent >= 0, percent < 1000 else {
                throw BenchError(.invalidCSV, "tolerance_percent needs a number from 0 to 1000, found '\(QuotedInput.clip(tolerance))'",
                                 path: path, line: toleranceAt.line, column: toleranceAt.column)
            }
            let (floorText, floorAt) = cell("floor")
            guard let floor = DecimalText.double(floorText), floor >= 0 else {
                throw BenchError(.invalidCSV, "floor needs a number of 0 or more, found '\(QuotedInput.clip(floorText))'",
                                 path: path, line: floorAt.line, column: floorAt.column)
            }
            result.append(CounterThreshold(metric: metric, tolerancePercent: percent, floor: floor, reason: record["reason"] ?? ""))
        }
        return result
    }

    /// Strategies whose count-bound cases do the same work every run.
    static let deterministicStrategies: Set<StrategyKind> = [.mainSync, .mainAsync, .dedicated]

    /// Why a case's counters are not gated, nil when they are.
    static func notGatedReason(_ settings: CaseSettings) -> String? {
        if settings.bound != .count { return "time-bound: work depends on the machine's speed" }
        if settings.workload == .readWhileWrite { return "a concurrent reader allocates as fast as it can" }
        if !deterministicStrategies.contains(settings.strategy) { return "\(settings.strategy.rawValue): grouping depends on timing" }
        return nil
    }

    /// The lines of one case: every counter column present on either side, judged where the
    /// rules above allow and a threshold exists.
    static func judge(caseKey: String, baseline: [SummaryRecord], current: [SummaryRecord],
                      thresholds: [CounterThreshold]?) -> [ComparisonLine] {
        guard let first = current.first else { return [] }
        // A side from a build without counters (older than them) has nothing to judge against.
        let baseHasCounters = WorkFigures.columns.contains { Comparison.median(baseline, $0) != nil }
        let currentHasCounters = WorkFigures.columns.contains { Comparison.median(current, $0) != nil }
        guard baseHasCounters && currentHasCounters else { return [] }
        let excluded = notGatedReason(first.settings)
        let passesDiffer = Comparison.median(baseline, "stats_passes") != Comparison.median(current, "stats_passes")
        let allocators = Set((baseline + current).map { $0["allocator"] ?? "" })
        var lines: [ComparisonLine] = []
        for metric in WorkFigures.columns {
            let base = Comparison.median(baseline, metric), now = Comparison.median(current, metric)
            if base == nil && now == nil { continue }
            guard let base, let now else {
                lines.append(ComparisonLine(caseKey: caseKey, metric: metric, baseline: base, current: now, verdict: .info,
                                            rule: "counter measured on one side only"))
                continue
            }
            var line = ComparisonLine(caseKey: caseKey, metric: metric, baseline: base, current: now, verdict: .info, rule: "")
            if let excluded {
                line.rule = "counter not gated: " + excluded
            } else if metric.hasSuffix("_per_reading") {
                line.rule = "counter shown: the _per_txn figure is judged"
            } else if passesDiffer && (metric.hasPrefix("heap_") || metric.hasPrefix("instructions")) {
                line.rule = "counter not gated: stats passes differ (process-wide figure)"
            } else if first.settings.durability == .full && (metric.hasPrefix("heap_") || metric.hasPrefix("instructions")) {
                line.rule = "counter not gated: a flush-bound writer's backlog (queued readings) depends on flush latency"
            } else if allocators.count > 1 && metric.hasPrefix("heap_") {
                line.rule = "counter not gated: allocators differ (\(allocators.sorted().joined(separator: " vs ")))"
            } else if let thresholds {
                if let threshold = thresholds.first(where: { $0.metric == metric }) {
                    (line.verdict, line.rule) = verdict(base: base, current: now, threshold: threshold)
                } else {
                    line.rule = "counter not gated: no threshold for it"
                }
            } else {
                line.rule = "counter not gated: no thresholds file given"
            }
            lines.append(line)
        }
        return lines
    }

    static func verdict(base: Double, current: Double, threshold: CounterThreshold) -> (Verdict, String) {
        let rule = "counter: +\(CSVNumber.format(threshold.tolerancePercent))%, floor \(CSVNumber.format(threshold.floor))"
            + (threshold.reason.isEmpty ? "" : " (\(threshold.reason))")
        let limit = base * (1 + threshold.tolerancePercent / 100)
        if current > limit && current - base > threshold.floor { return (.regressed, rule) }
        if current < base / (1 + threshold.tolerancePercent / 100) && base - current > threshold.floor { return (.improved, rule) }
        return (.unchanged, rule)
    }
}
