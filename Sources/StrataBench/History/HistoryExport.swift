// The history as a time-series database takes it: InfluxDB line protocol or OpenMetrics text,
// one point per summary row and numeric column.
//
// Invariants: a point's tags identify its case and run (workload, engine, strategy, durability,
// encryption, writers, batch size, the other case-key columns when set, repetition, host, rev),
// so no two rows of the history share a series and timestamp (repetitions of one run share the
// run's time, hence the repetition tag). Fields are the row's numeric columns, as
// stored. The timestamp is the run's (`timestamp` column). Every name and value is escaped for
// its format: line protocol escapes ',', '=' and ' ' in tags (and ',' and ' ' in the
// measurement); OpenMetrics quotes label values escaping '\', '"' and newline, and keeps metric
// names to [a-zA-Z0-9_].

import Foundation
import GRDB

public enum HistoryExport {
    public enum Format: String, CaseIterable, Sendable {
        case influx, openmetrics
    }

    /// The measurement (line protocol) and the metric-name prefix (OpenMetrics).
    public static let measurement = "strata_bench"

    /// Tag columns, in order; empty cells are left out. Every case-key column is one (a reads
    /// case's operations differ only in `op`: without it their points would share a series).
    public static let tagColumns = ["workload", "engine", "strategy", "durability", "encryption", "writers", "batch_size",
                                    "rate", "max_delay_ms", "bound", "target_readings", "trim", "op", "readers", "repetition"]

    /// One exported row: its tags (name, value) and numeric fields, at `nanoseconds` since 1970.
    public struct Point: Sendable, Equatable {
        public var tags: [(String, String)]
        public var fields: [(String, Double)]
        public var nanoseconds: Int64
        public static func == (lhs: Point, rhs: Point) -> Bool {
            lhs.tags.map { $0.0 + "=" + $0.1 } == rhs.tags.map { $0.0 + "=" + $0.1 }
                && lhs.fields.map(\.0) == rhs.fields.map(\.0) && lhs.fields.map(\.1) == rhs.fields.map(\.1)
                && lhs.nanoseconds == rhs.nanoseconds
        }
    }

    /// Every stored row of runs whose time is at or after `since` (ISO 8601; nil: all).
    public static func points(_ store: HistoryStore, since: Date? = nil) throws -> [Point] {
        let rows = try store.readRows()
        var points: [Point] = []
        for row in rows {
            guard let time = parseTime(row.runTime) else { continue }
            if let since, time < since { continue }
            let record = try CSVReader.parse(row.header + row.cells, path: store.path).record(0)
            var tags: [(String, String)] = []
            for column in tagColumns {
                if let value = record[column], !value.isEmpty { tags.append((column, value)) }
            }
            tags.append(("host", row.host))
            tags.append(("rev", row.revision))
            var fields: [(String, Double)] = []
            for column in row.headerColumns where !RunRecord.nonMetricColumns.contains(column) && !tagColumns.contains(column) {
                if let value = DecimalText.double(record[column] ?? "") { fields.append((column, value)) }
            }
            guard !fields.isEmpty else { continue }
            points.append(Point(tags: tags, fields: fields, nanoseconds: Int64((time.timeIntervalSince1970 * 1e9).rounded())))
        }
        return points
    }

    public static func render(_ points: [Point], format: Format) -> String {
        switch format {
        case .influx: return lineProtocol(points)
        case .openmetrics: return openMetrics(points)
        }
    }

    static func lineProtocol(_ points: [Point]) -> String {
        func escapeTag(_ text: String) -> String {
            var escaped = ""
            for character in text {
                if character == "," || character == "=" || character == " " || character == "\\" { escaped.append("\\") }
                if character == "\n" || character == "\r" { escaped.append(" "); continue }
                escaped.append(character)
            }
            return escaped
        }
        var text = ""
        for point in points {
            text += measurement
            for (name, value) in point.tags { text += "," + escapeTag(name) + "=" + escapeTag(value) }
            text += " " + point.fields.map { escapeTag($0.0) + "=" + number($0.1) }.joined(separator: ",")
            text += " \(point.nanoseconds)\n"
        }
        return text
    }

    static func openMetrics(_ points: [Point]) -> String {
        func name(_ column: String) -> String {
            measurement + "_" + String(column.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
        }
        func label(_ value: String) -> String {
            // Escaped scalar by scalar: `replacingOccurrences` compares Characters, and missed a
            // quote or backslash followed by a combining mark (one Character), or the "\r\n" pair.
            var escaped = "\""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\\": escaped += "\\\\"
                case "\"": escaped += "\\\""
                case "\n": escaped += "\\n"
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped + "\""
        }
        // A metric family's samples must be together: one family per column, points in time order.
        var families: [String] = []
        var samples: [String: [(Int64, String)]] = [:]
        for point in points {
            let labels = "{" + point.tags.map { name in String(name.0.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }) + "=" + label(name.1) }
                .joined(separator: ",") + "}"
            for (column, value) in point.fields {
                let family = name(column)
                if samples[family] == nil { families.append(family) }
                let seconds = Double(point.nanoseconds) / 1e9
                samples[family, default: []].append((point.nanoseconds, family + labels + " " + number(value) + " " + CSVNumber.format(seconds, digits: 3)))
            }
        }
        var text = ""
        for family in families {
            text += "# TYPE \(family) gauge\n"
            for sample in (samples[family] ?? []).sorted(by: { $0.0 < $1.0 }) { text += sample.1 + "\n" }
        }
        return text + "# EOF\n"
    }

    /// Shortest text that reads back as the same double.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }

    public static func parseTime(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

extension HistoryStore {
    struct StoredRow {
        var runTime: String
        var host: String
        var revision: String
        var header: String
        var headerColumns: [String]
        var cells: String
    }

    /// Every stored row with its run's header, oldest run first.
    func readRows() throws -> [StoredRow] {
        // Decoded inside `reading` with `decode` (not the subscripts, which stop the process on a
        // value of another type), so that a damaged file is a BenchError.
        let rows = try reading { db in
            try Row.fetchAll(db, sql: """
                SELECT u.run_time, u.host, u.revision, u.header, r.cells FROM results r JOIN runs u ON u.id = r.run_id
                ORDER BY u.run_time, u.id, r.row_index
                """).map { row in
                (runTime: try row.decode(String.self, atIndex: 0), host: try row.decode(String.self, atIndex: 1),
                 revision: try row.decode(String.self, atIndex: 2), header: try row.decode(String.self, atIndex: 3),
                 cells: try row.decode(String.self, atIndex: 4))
            }
        }
        var headers: [String: [String]] = [:]
        return try rows.map { row in
            if headers[row.header] == nil { headers[row.header] = try CSVReader.parse(row.header, path: path).header }
            return StoredRow(runTime: row.runTime, host: row.host, revision: row.revision, header: row.header,
                             headerColumns: headers[row.header] ?? [], cells: row.cells)
        }
    }
}
