// The HTML report's "Durability" section: the rows of a `strata-bench stress` summary CSV
// (`StressReport.columns`), one per scenario × engine × durability × encryption × strategy, with
// their counts and verdict; a failing row is highlighted, a documented loss marked.
//
// Invariants: the file must be a stress summary (its identifying columns present, every verdict
// one of `StressVerdict`), else `BenchError(.invalidCSV)` naming the line; cells show the CSV's
// own text through `HTML.text`, in the CSV's row order, so the page can be checked against it.

import Foundation

public enum DurabilityHTMLSection {
    /// The columns shown, in order (those the file has).
    public static let columns = ["scenario", "engine", "durability", "encryption", "strategy", "rounds", "states",
                                 "acknowledged", "lost", "half_applied", "corrupt", "typed_errors", "crashes", "hangs",
                                 "writer_failures", "trends", "recovery_p50_ms", "recovery_p99_ms", "verdict", "promise", "note"]
    /// Columns a stress summary always has.
    static let required = ["scenario", "engine", "durability", "encryption", "verdict"]

    /// Reads and checks the stress CSV at `path`.
    public static func read(_ path: String) throws -> CSVTable {
        let table = try CSVReader.read(path: path)
        for column in required where table.column(column) == nil {
            throw BenchError(.invalidCSV, "not a stress summary: no '\(column)' column", path: path, line: 1)
        }
        for (index, record) in table.records.enumerated() where StressVerdict(rawValue: record["verdict"] ?? "") == nil {
            throw BenchError(.invalidCSV, "verdict '\(QuotedInput.clip(record["verdict"] ?? ""))' is not one of \(StressVerdict.allCases.map(\.rawValue).joined(separator: ", "))",
                             path: path, line: table.rowLines[index])
        }
        return table
    }

    /// The section for the stress CSV at `path`.
    public static func render(_ path: String) throws -> String {
        let table = try read(path)
        let shown = columns.filter { table.column($0) != nil }
        let rows = table.records.map { record in shown.map { record[$0] ?? "" } }
        let classes = table.records.map { record -> String in
            switch StressVerdict(rawValue: record["verdict"] ?? "") {
            case .fail: return "failed"
            case .documentedLoss: return "documented"
            default: return ""
            }
        }
        let failed = classes.filter { $0 == "failed" }.count
        let summary = "\(table.records.count) cases, \(failed) failed, \(classes.filter { $0 == "documented" }.count) with a documented loss"
        return "<h2 id=\"durability\">Durability</h2>\n<p id=\"durability-summary\">\(HTML.text(summary)) (\(HTML.text((path as NSString).lastPathComponent)))</p>\n"
            + HTML.table(id: "durability-table", header: shown, rows: rows, columns: shown, rowClasses: classes)
    }
}
