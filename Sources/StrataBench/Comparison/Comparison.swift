// `compare BASELINE CURRENT`: per case (rows grouped by `CaseKey`) and metric, the medians of
// both sides, their ratio and a verdict; exit status 0 (nothing regressed) or 2 (something did).
//
// Invariants: input problems are `BenchError(.invalidCSV)` naming file, line and column (the
// caller exits 1); verdicts follow `MetricPolicy` (timings, sizes, counts) and `CounterGate`
// (counted work, with the thresholds file's tolerances); `lost` > 0 or `verified` false in the
// current run is a regression whatever the baseline says. Rows are matched on the full case key
// (`CaseKey`, bound and target included); a baseline case missing from the current run makes the
// comparison fail (exit 1: it could not judge that case) unless missing cases are allowed.

import Foundation

public enum Verdict: String, Sendable {
    case improved, unchanged, regressed
    /// Shown, not gated.
    case info
    /// The case is only in the current run / only in the baseline.
    case new, missing
    /// Paired mode: too few rounds for a confidence interval; never a verdict either way.
    case insufficient = "not enough data"
}

public struct ComparisonLine: Sendable, Equatable {
    public var caseKey: String
    public var metric: String
    public var baseline: Double?
    public var current: Double?
    public var verdict: Verdict
    /// The rule applied, e.g. "timing: -60%" (for the reader of the report).
    public var rule: String
    /// Paired mode: the estimated ratio current / base and its confidence interval (the medians
    /// in `baseline`/`current` are then for the reader only).
    public var paired: PairedRatio? = nil

    public var ratio: Double? {
        if let paired { return paired.estimate }
        guard let baseline, let current, baseline != 0 else { return nil }
        return current / baseline
    }
}

/// A ratio estimated from paired rounds, with its interval.
public struct PairedRatio: Sendable, Equatable {
    public var estimate: Double
    public var lower: Double
    public var upper: Double
    public var rounds: Int
}

public struct ComparisonReport: Sendable {
    public var lines: [ComparisonLine]
    /// Things a reader must know (different build or host, missing cases).
    public var warnings: [String]
    /// Whether baseline cases missing from the current run are accepted (`--allow-missing`).
    public var allowsMissing = false

    public init(lines: [ComparisonLine], warnings: [String], allowsMissing: Bool = false) {
        self.lines = lines
        self.warnings = warnings
        self.allowsMissing = allowsMissing
    }

    public var regressions: [ComparisonLine] { lines.filter { $0.verdict == .regressed } }
    /// 2 when something regressed; else 1 when a baseline case is missing (not allowed) — the
    /// gate could not judge it; else 0. Invalid input is raised as an error (exit 1 too).
    public var exitCode: Int32 {
        if !regressions.isEmpty { return 2 }
        if !allowsMissing && count(.missing) > 0 { return 1 }
        return 0
    }

    public func count(_ verdict: Verdict) -> Int { lines.filter { $0.verdict == verdict }.count }
}

public enum OutputFormat: String, CaseIterable, Sendable {
    case table, markdown, csv
}

public struct ComparisonOptions: Sendable {
    /// Slowdown threshold for timings, in percent (0 < T < 100); see `defaultThreshold`.
    public var timingThreshold: Double = Comparison.defaultThreshold
    /// Gate the timings of `durability = full` cases too. Off by default: durable commits wait for
    /// the disk's flush, whose latency on this machine class is bimodal (~0.2 ms or ~4 ms per
    /// fsync, 20-30x apart between identical runs), so no threshold separates noise from change.
    public var gateDurableTimings: Bool = false
    /// Tolerances of the counted work (`CounterGate`); nil: counters are shown, not gated.
    public var counterThresholds: [CounterThreshold]?
    /// Accept baseline cases that the current run lacks (otherwise the comparison exits 1).
    public var allowMissing = false
    /// Judge only integrity and the counted work (a counted pass, whose timings were taken
    /// without allocator caches, must not be judged as timings).
    public var countersOnly = false

    public init(timingThreshold: Double = Comparison.defaultThreshold, gateDurableTimings: Bool = false,
                counterThresholds: [CounterThreshold]? = nil, allowMissing: Bool = false, countersOnly: Bool = false) {
        self.timingThreshold = timingThreshold
        self.gateDurableTimings = gateDurableTimings
        self.counterThresholds = counterThresholds
        self.allowMissing = allowMissing
        self.countersOnly = countersOnly
    }
}

public enum Comparison {
    /// 60%: a case regresses when it is 2.5x slower (throughput below 0.4x, latency above 2.5x).
    /// Identical smoke runs on this 2-core machine, shared with four parallel builds, differed by
    /// up to 2.1x on single cases (medians of 3 repetitions); 50% (2x) failed on that noise.
    public static let defaultThreshold = 60.0

    /// Columns a file must have to be compared.
    public static let requiredColumns = CaseSettings.columns.filter { !CaseSettings.optionalColumns.contains($0) } + ["repetition", "lost"]

    /// Columns whose differing values between the two sides make timings incomparable.
    public static let provenanceColumns = ["build", "host", "cpu_model", "allocator"]

    /// Reads both files and compares them.
    public static func compare(baselinePath: String, currentPath: String, options: ComparisonOptions) throws -> ComparisonReport {
        guard options.timingThreshold > 0 && options.timingThreshold < 100 else {
            throw BenchError(.invalidOption, "--threshold must be between 0 and 100 (percent), got \(CSVNumber.format(options.timingThreshold))")
        }
        let baseline = try Side(table: CSVReader.read(path: baselinePath), path: baselinePath, role: .baseline)
        let current = try Side(table: CSVReader.read(path: currentPath), path: currentPath)
        return compare(baseline: baseline, current: current, options: options)
    }

    /// Compares parsed tables (`path`s label errors).
    public static func compare(baseline: CSVTable, baselinePath: String, current: CSVTable, currentPath: String,
                               options: ComparisonOptions) throws -> ComparisonReport {
        compare(baseline: try Side(table: baseline, path: baselinePath, role: .baseline),
                current: try Side(table: current, path: currentPath), options: options)
    }

    static func compare(baseline: Side, current: Side, options: ComparisonOptions) -> ComparisonReport {
        var report = ComparisonReport(lines: [], warnings: [], allowsMissing: options.allowMissing)
        for column in provenanceColumns {
            let before = Set(baseline.records.compactMap { $0[column] }), after = Set(current.records.compactMap { $0[column] })
            if !before.isEmpty, !after.isEmpty, before != after {
                report.warnings.append("\(column) differs: baseline \(before.sorted().map { QuotedInput.clip($0) }.joined(separator: "/")), current \(after.sorted().map { QuotedInput.clip($0) }.joined(separator: "/")) — timings may not compare")
            }
        }
        let factor = 1 / (1 - options.timingThreshold / 100)
        for key in current.keys {
            guard let now = current.groups[key] else { continue }
            guard let before = baseline.groups[key] else {
                report.lines.append(ComparisonLine(caseKey: key, metric: "-", baseline: nil, current: nil, verdict: .new, rule: "not in baseline"))
                continue
            }
            guard let settings = now.first?.settings else { continue }
            let countBound = settings.bound == .count
            let durable = settings.durability == .full && !options.gateDurableTimings
            let closedLoop = settings.rate == nil
            let batched = settings.strategy == .batched
            let concurrentWriters = settings.strategy.hasConcurrentWriters
            // Integrity first: lost readings or a failed check are always regressions.
            let lost = now.compactMap { DecimalText.double($0["lost"] ?? "") }.max() ?? 0
            report.lines.append(ComparisonLine(caseKey: key, metric: "lost", baseline: median(before, "lost"), current: lost,
                                               verdict: lost > 0 ? .regressed : .unchanged, rule: "must be 0"))
            if now.contains(where: { $0["verified"] == "false" }) {
                report.lines.append(ComparisonLine(caseKey: key, metric: "verified", baseline: nil, current: nil,
                                                   verdict: .regressed, rule: "end-of-run check failed in the current run"))
            }
            for policy in MetricPolicy.gated where !options.countersOnly {
                guard let base = median(before, policy.column), let value = median(now, policy.column) else { continue }
                var (verdict, rule) = judge(policy.rule, baseline: base, current: value, factor: factor,
                                            threshold: options.timingThreshold, countBound: countBound, batched: batched,
                                            workload: settings.workload)
                if durable && policy.isTiming && verdict != .info {
                    verdict = .info
                    rule = "durable commit timing: not gated (" + rule + ")"
                }
                if policy.isTiming && verdict != .info, let spread = spread(before, policy.column), spread > factor {
                    // The baseline's own repetitions disagree by more than the gate's band: no
                    // threshold can tell a change from noise for this case (e.g. `async` on 2 cores).
                    verdict = .info
                    rule = "baseline repetitions spread x\(CSVNumber.format(spread, digits: 2)): not gated"
                }
                if batched && policy.column == "transactions_per_s" && verdict != .info {
                    // How many readings share a commit depends on timing (size or max-delay flush).
                    verdict = .info
                    rule = "batched: batches depend on timing, judged by readings_per_s"
                }
                if concurrentWriters && policy.column.hasPrefix("commit_") && verdict != .info {
                    // With dozens of writers on 2 cores a commit's latency is mostly its wait for the
                    // writer lock and a CPU: SQLite's gcd commit p50 measured 31 µs and 340 µs in
                    // identical smoke runs. Throughput judges these cases.
                    verdict = .info
                    rule = "concurrent writers: commit latency is contention, judged by throughput"
                }
                if closedLoop && policy.column.hasPrefix("e2e_") && verdict != .info {
                    verdict = .info
                    rule = "closed loop: e2e = window / throughput, not gated"
                }
                report.lines.append(ComparisonLine(caseKey: key, metric: policy.column, baseline: base, current: value,
                                                   verdict: verdict, rule: rule))
            }
            for column in MetricPolicy.informational where !options.countersOnly {
                guard let base = median(before, column), let value = median(now, column) else { continue }
                report.lines.append(ComparisonLine(caseKey: key, metric: column, baseline: base, current: value,
                                                   verdict: .info, rule: "not gated"))
            }
            report.lines += CounterGate.judge(caseKey: key, baseline: before, current: now, thresholds: options.counterThresholds)
        }
        for key in baseline.keys where current.groups[key] == nil {
            report.lines.append(ComparisonLine(caseKey: key, metric: "-", baseline: nil, current: nil, verdict: .missing, rule: "not in current run"))
            report.warnings.append("case \(key) is in the baseline but not in the current run"
                                   + (options.allowMissing ? " (allowed)" : ": the comparison fails (--allow-missing accepts it)"))
        }
        return report
    }

    static func judge(_ rule: MetricRule, baseline: Double, current: Double, factor: Double, threshold: Double,
                      countBound: Bool, batched: Bool, workload: WorkloadKind) -> (Verdict, String) {
        let percent = CSVNumber.format(threshold, digits: 1)
        switch rule {
        case .throughput:
            if baseline <= 0 { return (.info, "baseline is 0") }
            if current < baseline / factor { return (.regressed, "timing: -\(percent)%") }
            if current > baseline * factor { return (.improved, "timing: -\(percent)%") }
            return (.unchanged, "timing: -\(percent)%")
        case .latency(let power, let floor):
            let limit = pow(factor, power)
            let rule = "timing: x\(CSVNumber.format(limit, digits: 2)), floor \(CSVNumber.format(floor))"
            if abs(current - baseline) < floor { return (.unchanged, rule) }
            if current > baseline * limit { return (.regressed, rule) }
            if current < baseline / limit { return (.improved, rule) }
            return (.unchanged, rule)
        case .bytes(let tolerance):
            func scaled(_ limit: Double, _ why: String) -> (Verdict, String) {
                let rule = "\(why) size: x\(CSVNumber.format(limit, digits: 2))"
                if current > baseline * limit { return (.regressed, rule) }
                if current < baseline / limit { return (.improved, rule) }
                return (.unchanged, rule)
            }
            switch workload {
            case .readWhileWrite:
                // A reader reading back to back decides when the writer may reuse space.
                return (.info, "size depends on the concurrent reader")
            case .sensors:
                // The once-a-second stats reader holds a version while it reads.
                return scaled(factor * factor, "stats-reader")
            default:
                if !countBound { return scaled(factor, "time-bound") }
            }
            let rule = "size: ±\(CSVNumber.format(tolerance * 100))%"
            if baseline == 0 { return (current == 0 ? .unchanged : .regressed, rule) }
            if current > baseline * (1 + tolerance) { return (.regressed, rule) }
            if current < baseline * (1 - tolerance) { return (.improved, rule) }
            return (.unchanged, rule)
        case .exact(let unlessBatched):
            if !countBound || (unlessBatched && batched) { return (.info, "depends on timing") }
            return (current == baseline ? .unchanged : .regressed, "exact (count-bound)")
        }
    }

    /// max / min of a column over repetitions (nil with fewer than 3 values or a non-positive one).
    static func spread(_ rows: [SummaryRecord], _ column: String) -> Double? {
        let values = rows.compactMap { $0[column].flatMap(DecimalText.double) }
        guard values.count >= 3, let low = values.min(), let high = values.max(), low > 0 else { return nil }
        return high / low
    }

    static func median(_ rows: [SummaryRecord], _ column: String) -> Double? {
        let values = rows.compactMap { $0[column].flatMap(DecimalText.double) }
        return values.isEmpty ? nil : Statistics.median(values)
    }

    /// One side of a comparison: validated rows grouped by case key, keys in first-seen order.
    struct Side {
        var records: [SummaryRecord]
        var groups: [String: [SummaryRecord]] = [:]
        var keys: [String] = []

        init(table: CSVTable, path: String, role: SummaryValidation.Role = .current) throws {
            for column in Comparison.requiredColumns where table.column(column) == nil {
                throw BenchError(.invalidCSV, "missing column '\(column)' (is this a strata-bench summary CSV?)", path: path, line: 1, column: 1)
            }
            if table.rows.isEmpty {
                throw BenchError(.invalidCSV, "no data rows after the header", path: path, line: 2, column: 1)
            }
            records = try SummaryValidation.records(table, path: path, role: role)
            let numeric = Set(MetricPolicy.gated.map(\.column) + MetricPolicy.informational + WorkFigures.columns
                              + ["lost", "repetition"])
            for (rowIndex, row) in table.rows.enumerated() {
                for (columnIndex, name) in table.header.enumerated() where numeric.contains(name) {
                    let cell = row[columnIndex]
                    if cell.isEmpty && name != "lost" && name != "repetition" { continue }
                    if DecimalText.double(cell) == nil {
                        let position = table.position(row: rowIndex, column: columnIndex)
                        throw BenchError(.invalidCSV, "column '\(name)' needs a number, found '\(QuotedInput.clip(cell))'", path: path,
                                         line: position.line, column: position.column)
                    }
                }
            }
            for record in records {
                let key = record.settings.key
                if groups[key] == nil { keys.append(key) }
                groups[key, default: []].append(record)
            }
        }
    }

    // MARK: - Rendering

    public static func render(_ report: ComparisonReport, format: OutputFormat, verbose: Bool = true,
                              title: String = "strata-bench comparison") -> String {
        let withIntervals = report.lines.contains { $0.paired != nil }
        let header = ["case", "metric", "baseline", "current", "ratio"] + (withIntervals ? ["interval", "rounds"] : [])
            + ["verdict", "rule"]
        let shown = report.lines.filter { verbose || ($0.verdict != .unchanged && $0.verdict != .info) || format == .csv }
        func cells(_ line: ComparisonLine) -> [String] {
            var row = [line.caseKey, line.metric, CSVNumber.format(line.baseline, digits: 1), CSVNumber.format(line.current, digits: 1),
                       line.ratio.map { CSVNumber.format($0, digits: 3) } ?? ""]
            if withIntervals {
                row.append(line.paired.map { "[\(CSVNumber.format($0.lower, digits: 3)), \(CSVNumber.format($0.upper, digits: 3))]" } ?? "")
                row.append(line.paired.map { String($0.rounds) } ?? "")
            }
            return row + [line.verdict.rawValue, line.rule]
        }
        let rows = shown.map(cells)
        var summary = "\(report.count(.regressed)) regressed, \(report.count(.improved)) improved, \(report.count(.unchanged)) unchanged, \(report.count(.info)) informational, \(report.count(.new)) new, \(report.count(.missing)) missing"
        if report.count(.insufficient) > 0 { summary += ", \(report.count(.insufficient)) not enough data" }
        switch format {
        case .csv:
            return CSVWriter.render(header: header, rows: rows)
        case .table:
            var text = TextTable.render(header: header, rows: rows, rightAligned: [2, 3, 4])
            for warning in report.warnings { text += "warning: \(warning)\n" }
            text += summary + "\n"
            return text
        case .markdown:
            var text = "### \(title)\n\n"
            // The brief table lists regressions already; the full one is long, so they go first too.
            if verbose && !report.regressions.isEmpty {
                text += "**Regressions:**\n\n" + TextTable.markdown(header: header, rows: report.regressions.map(cells)) + "\n"
            }
            text += TextTable.markdown(header: header, rows: rows)
            for warning in report.warnings { text += "\n> warning: \(warning)\n" }
            text += "\n" + summary + "\n"
            return text
        }
    }
}
