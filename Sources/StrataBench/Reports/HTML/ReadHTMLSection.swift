// The reads workload in the HTML report: per operation, the engines' time per object scanned
// (log scale: scans and lookups span decades) and their time per operation, then a table of
// every read row (with `--readers`, each operation's per-call p50/p99 alone and under the writer). Medians over repetitions, as the other charts.

import Foundation

enum ReadHTMLSection {
    static let tableColumns = ["engine", "durability", "repetition", "objects", "op", "ops", "ops_per_s", "us_per_op",
                               "ns_per_object", "bytes_per_object", "verified"]
    /// `--readers` runs' columns, shown when the rows have them.
    static let loadColumns = ["readers", "alone_p50_us", "alone_p99_us", "reader_p50_us", "reader_p99_us",
                              "writer_commits_per_s", "objects_seen"]

    static func render(_ records: [SummaryRecord]) -> String {
        let reads = records.filter { $0.settings.workload == .reads && $0.settings.op != nil }
        guard !reads.isEmpty else { return "" }
        let ops = ReadOp.reads.filter { op in reads.contains { $0.settings.op == op } }.map(\.rawValue)
        let engines = EngineKind.allCases.filter { engine in reads.contains { $0.settings.engine == engine } }.map(\.rawValue)
        func chart(_ column: String, title: String, unit: String, id: String) -> String {
            var values: [String: [String: Double]] = [:]
            let medians = RunHTMLReport.medians(reads, column: column) { row in
                "\(row.settings.op?.rawValue ?? "")|\(row.settings.engine.rawValue)"
            }
            for (key, value) in medians {
                let parts = key.split(separator: "|", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { continue }
                values[parts[0], default: [:]][parts[1]] = value
            }
            return SVGCharts.groupedBars(title: title, unit: unit, categories: ops, series: engines, values: values,
                                         logScale: true, id: id)
        }
        var html = RunHTMLReport.section("Reads: time per operation and per object scanned", charts: [
            chart("ns_per_object", title: "reads: ns per object scanned (median)", unit: "ns", id: "reads-ns-per-object"),
            chart("us_per_op", title: "reads: µs per operation (median)", unit: "µs", id: "reads-us-per-op"),
        ])
        let loaded = reads.contains { $0.settings.readers != nil }
        let columns = tableColumns + (loaded ? loadColumns : [])
        let rows = reads.map { record in
            columns.map { column in
                switch column {
                case "engine": return record.settings.engine.rawValue
                case "durability": return record.settings.durability.rawValue
                case "op": return record.settings.op?.rawValue ?? ""
                default: return record[column] ?? ""
                }
            }
        }
        let classes = reads.map { $0["verified"] == "false" ? "failed" : "" }
        html += HTML.table(id: "reads-table", header: columns, rows: rows, columns: columns, rowClasses: classes)
        return html
    }
}
