// One run as the history keeps it: the summary CSV's rows and the facts shared by all of them
// (revision, host, machine, time), plus the digest that identifies the run.
//
// Invariants: a record is only made from a table that `compare` would accept as a run report
// (required columns, at least one row, every cell valid), so the history never holds rows the
// rest of the harness cannot read. The digest is SHA-256 of the table rendered as CSV (header and
// rows, in order): the same rows give the same digest whether they come straight from a run or
// from its CSV imported later, so importing a run twice is recognised.

import Crypto
import Foundation

public struct RunRecord: Sendable {
    public var table: CSVTable
    /// The table's rows with their settings parsed (one per row, in order).
    public var records: [SummaryRecord]
    /// Hex SHA-256 of the canonical CSV text of `table`.
    public var digest: String
    /// The run's start, as its rows record it (`timestamp`), or "unknown".
    public var time: String
    public var revision: String
    public var host: String
    public var cpuModel: String?
    public var cores: Int?
    public var memoryBytes: Int64?
    public var kernel: String?
    public var build: String?
    /// The suite that produced it ("smoke", "sensors", "full", "custom"; "unknown" for imports).
    public var suite: String
    /// Where the rows came from: "run" or the imported file's path.
    public var source: String

    /// Validates `table` (read from `path`, which only labels errors) as a run report.
    public init(table: CSVTable, path: String, suite: String, source: String) throws {
        records = try Comparison.Side(table: table, path: path, role: .current).records
        self.table = table
        self.digest = RunRecord.digest(of: table)
        self.suite = suite
        self.source = source
        let first = table.record(0)
        func fact(_ column: String) -> String? {
            guard let value = first[column], !value.isEmpty else { return nil }
            return value
        }
        time = fact("timestamp") ?? "unknown"
        revision = fact("git_rev") ?? "unknown"
        host = fact("host") ?? "unknown"
        cpuModel = fact("cpu_model")
        cores = fact("cores").flatMap(DecimalText.integer)
        memoryBytes = fact("memory_bytes").flatMap(DecimalText.integer64)
        kernel = fact("kernel")
        build = fact("build")
    }

    /// Reads and validates a run's summary CSV.
    public static func read(path: String, suite: String = "unknown") throws -> RunRecord {
        try RunRecord(table: try CSVReader.read(path: path), path: path, suite: suite, source: path)
    }

    public static func digest(of table: CSVTable) -> String {
        let text = CSVWriter.render(header: table.header, rows: table.rows)
        return SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Distinct cases (`CaseSettings.key`) among the rows.
    public var caseCount: Int { Set(records.map(\.settings.key)).count }

    /// Columns that identify a case or a machine rather than measure it: not stored as metrics.
    static let nonMetricColumns: Set<String> = Set(CaseSettings.columns + ["repetition", "cores", "memory_bytes"])

    /// The numeric cells of row `index`, by column (empty and non-numeric cells are absent).
    func measurements(row index: Int) -> [(metric: String, value: Double)] {
        var values: [(String, Double)] = []
        for (column, name) in table.header.enumerated() where !RunRecord.nonMetricColumns.contains(name) {
            let cell = table.rows[index][column]
            if let value = DecimalText.double(cell) { values.append((name, value)) }
        }
        return values
    }
}
