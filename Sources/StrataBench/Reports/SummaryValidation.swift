// What a summary CSV's cells may hold, checked when `compare` or `baseline` reads one: a gate fed
// "verified=maybe", "durability=sometimes" or a negative throughput would judge nonsense.
//
// Invariants: every problem is `BenchError(.invalidCSV)` naming file, line and column of the
// offending cell (the caller exits 1); enumerated columns hold exactly the spellings runs write;
// measured figures are finite and never negative (an empty cell means "not measured" and is
// allowed, except where a row cannot be judged without it); a file written by an interrupted run
// is refused as a baseline (its missing cases would never be gated). Columns a file does not have
// are not required here (older files lack the newest columns); `Comparison` names the ones it
// needs.

import Foundation

public enum SummaryValidation {
    /// How a file is used: a baseline must come from a run that finished.
    public enum Role: Sendable {
        case baseline, current
    }

    /// Columns whose cells must be one of these spellings; `required` ones may not be empty.
    static let enumerated: [(column: String, values: [String], required: Bool)] = [
        ("workload", WorkloadKind.allCases.map(\.rawValue), true),
        ("engine", EngineKind.allCases.map(\.rawValue), true),
        ("strategy", StrategyKind.allCases.map(\.rawValue), true),
        ("encryption", EncryptionSetting.allCases.map(\.rawValue), true),
        ("durability", Durability.allCases.map(\.rawValue), true),
        ("bound", CaseBound.allCases.map(\.rawValue), false),
        ("trim", TrimStyle.allCases.map(\.rawValue), false),
        ("op", ReadOp.allCases.map(\.rawValue), false),
        ("verified", ["true", "false"], false),
        ("build", ["debug", "release"], false),
        ("interrupted", ["true", "false"], false),
    ]

    /// Whole numbers of at least 1 that identify a case (never empty).
    static let positiveIntegers: Set<String> = ["writers", "batch_size", "repetition"]

    /// Figures that cannot be negative; empty = not measured. `lost` must be present.
    static let nonNegative: Set<String> = Set([
        "duration_s", "readings", "transactions", "readings_per_s", "transactions_per_s", "commit_p50_us",
        "commit_p99_us", "commit_max_us", "e2e_p50_us", "e2e_p99_us", "backlog_max", "file_bytes_end",
        "file_bytes_peak", "file_bytes_compacted", "compact_ms", "live_objects", "lost", "cpu_user_s", "cpu_sys_s",
        "peak_rss_bytes", "target_readings", "rate", "max_delay_ms", "commit_p90_us", "e2e_p90_us", "e2e_max_us",
        "file_bytes_start", "deleted", "writer_handles", "stats_passes", "reader_ops", "reader_p50_us",
        "reader_p99_us", "encryption_overhead", "pinned_slowdown", "unpinned_twin_bytes",
        "jemalloc_allocated_bytes", "jemalloc_resident_bytes", "cores", "memory_bytes",
    ] + SummaryColumns.reads.filter { $0 != "op" }).union(FloorColumns.all)

    /// Figures that may be negative but must be numbers (a pin can leave a file smaller).
    static let signed: Set<String> = ["pinned_extra_bytes"]

    /// Checks every cell of `table` (read from `path`) for its column's rule.
    public static func validate(_ table: CSVTable, path: String, role: Role) throws {
        let choices = Dictionary(uniqueKeysWithValues: enumerated.map { ($0.column, $0) })
        for (rowIndex, row) in table.rows.enumerated() {
            for (columnIndex, name) in table.header.enumerated() {
                let cell = row[columnIndex]
                func fail(_ message: String) -> BenchError {
                    let position = table.position(row: rowIndex, column: columnIndex)
                    return BenchError(.invalidCSV, message, path: path, line: position.line, column: position.column)
                }
                if let rule = choices[name] {
                    if cell.isEmpty && !rule.required { continue }
                    guard rule.values.contains(cell) else {
                        throw fail("column '\(name)' must be \(alternatives(rule.values)), found '\(QuotedInput.clip(cell))'")
                    }
                    if role == .baseline && name == "interrupted" && cell == "true" {
                        throw fail("this run was interrupted before its last case: it cannot be a baseline (the cases it lacks would never be gated); use a run that finished")
                    }
                } else if positiveIntegers.contains(name) {
                    guard let value = DecimalText.integer(cell), value >= 1 else {
                        throw fail("column '\(name)' must be a whole number of at least 1, found '\(QuotedInput.clip(cell))'")
                    }
                } else if nonNegative.contains(name) {
                    if cell.isEmpty && name != "lost" { continue }
                    guard let value = DecimalText.double(cell), value >= 0 else {
                        throw fail("column '\(name)' must be a number of at least 0, found '\(QuotedInput.clip(cell))'")
                    }
                } else if signed.contains(name) {
                    if cell.isEmpty { continue }
                    guard DecimalText.double(cell) != nil else {
                        throw fail("column '\(name)' must be a number, found '\(QuotedInput.clip(cell))'")
                    }
                }
            }
        }
    }

    /// Validates `table` and parses its rows' settings, once, for everything that reads it.
    /// Throws `invalidCSV` for a file without the columns that identify a case.
    public static func records(_ table: CSVTable, path: String, role: Role) throws -> [SummaryRecord] {
        for column in CaseSettings.columns + ["repetition"]
        where !CaseSettings.optionalColumns.contains(column) && table.column(column) == nil {
            throw BenchError(.invalidCSV, "missing column '\(column)' (is this a strata-bench summary CSV?)", path: path, line: 1, column: 1)
        }
        try validate(table, path: path, role: role)
        return try table.rows.indices.map { index in
            try SummaryRecord(cells: table.record(index), path: path, line: table.rowLines[index])
        }
    }

    static func alternatives(_ values: [String]) -> String {
        let quoted = values.map { "'\($0)'" }
        guard let last = quoted.last, quoted.count > 1 else { return quoted.first ?? "" }
        return quoted.dropLast().joined(separator: ", ") + " or " + last
    }
}
