// `compare BASELINE CURRENT --confirm RETRY`: a regression must show in two passes to fail.
//
// Why: the gate compares absolute timings against a baseline made on other days, and this machine
// class is shared. A fresh-clone CI pass once met a host that ran SQLite's pinned-growth case at
// 9–13k readings/s against a 28k baseline median (the old and the new binaries gave the same
// SQLite figures side by side afterwards): the case fell below the 0.4× band with no change of
// code. A slowdown of the code is there in every pass; a slow host usually is not. So CI runs the
// smoke suite a second time when the first comparison regresses, and only what regresses in both
// passes fails.
//
// Invariants:
// - Integrity never needs confirming: `lost` or `verified` regressions of either pass fail.
// - A regression stays one unless the retry has the same case and metric with another verdict;
//   a case missing from the retry stays regressed.
// - The confirmed report keeps the first pass's figures (the retry's ratio is named in the rule),
//   so the report reads like any other comparison.

public extension Comparison {
    /// Metrics whose regression fails at once, without a second pass.
    static let integrityMetrics: Set<String> = ["lost", "verified"]

    /// `first` (baseline vs the first pass) with each non-integrity regression kept only when
    /// `retry` (the same baseline vs a second pass) regresses on the same case and metric.
    static func confirm(_ first: ComparisonReport, with retry: ComparisonReport) -> ComparisonReport {
        var retried: [String: ComparisonLine] = [:]
        func key(_ line: ComparisonLine) -> String { line.caseKey + "\u{1F}" + line.metric }
        for line in retry.lines { retried[key(line)] = line }
        var confirmed = ComparisonReport(lines: [], warnings: first.warnings, allowsMissing: first.allowsMissing)
        for var line in first.lines {
            if line.verdict == .regressed && !integrityMetrics.contains(line.metric),
               let again = retried[key(line)], again.verdict != .regressed {
                line.verdict = .unchanged
                line.rule += "; regressed in the first pass (\(ratioText(line))), not in the retry (\(ratioText(again))): not confirmed"
            } else if line.verdict == .regressed && !integrityMetrics.contains(line.metric) {
                line.rule += "; confirmed by the retry"
            }
            confirmed.lines.append(line)
        }
        let seen = Set(first.lines.filter { $0.verdict == .regressed }.map(key))
        for var line in retry.regressions where integrityMetrics.contains(line.metric) {
            guard !seen.contains(key(line)) else { continue }
            line.rule += " (in the retry)"
            confirmed.lines.append(line)
        }
        for warning in retry.warnings where !confirmed.warnings.contains(warning) {
            confirmed.warnings.append("retry: " + warning)
        }
        return confirmed
    }

    /// Reads the three files and confirms the first comparison's regressions with the retry.
    static func compare(baselinePath: String, currentPath: String, confirmingPath: String,
                        options: ComparisonOptions) throws -> ComparisonReport {
        let first = try compare(baselinePath: baselinePath, currentPath: currentPath, options: options)
        let retry = try compare(baselinePath: baselinePath, currentPath: confirmingPath, options: options)
        return confirm(first, with: retry)
    }

    private static func ratioText(_ line: ComparisonLine) -> String {
        line.ratio.map { "x" + CSVNumber.format($0, digits: 2) } ?? "no ratio"
    }
}
