// The scale workload in the HTML report: each figure against the store's size on log–log axes,
// one line per engine in its registry colour, one chart per figure and durability. Medians over
// repetitions, as the other charts; every point carries its size and value (`data-x`,
// `data-value`) so the page can be checked against the CSV (scripts/check-report).

import Foundation

enum ScaleHTMLSection {
    /// A figure drawn against size: the rows of `op`, the value of `column`.
    struct Figure {
        var name: String
        var title: String
        var unit: String
        var op: ReadOp
        var column: String
    }

    /// The figures, in the order drawn (scripts/plot.py and scripts/check_report_dom.py list the
    /// same ones).
    static let figures: [Figure] = [
        Figure(name: "fill-rate", title: "fill: objects/s", unit: "objects/s", op: .fill, column: "ops_per_s"),
        Figure(name: "bytes-per-object", title: "bytes per object on disk", unit: "bytes", op: .fill, column: "bytes_per_object"),
        Figure(name: "first-open", title: "first open in a new process", unit: "µs", op: .firstOpen, column: "us_per_op"),
        Figure(name: "commit-full-p50", title: "durable one-sample commit p50", unit: "µs", op: .commitFull, column: "commit_p50_us"),
        Figure(name: "commit-full-p99", title: "durable one-sample commit p99", unit: "µs", op: .commitFull, column: "commit_p99_us"),
        Figure(name: "commit-unsafe-p50", title: "unsafe one-sample commit p50", unit: "µs", op: .commitUnsafe, column: "commit_p50_us"),
        Figure(name: "commit-unsafe-p99", title: "unsafe one-sample commit p99", unit: "µs", op: .commitUnsafe, column: "commit_p99_us"),
        Figure(name: "compact", title: "compaction time", unit: "ms", op: .compact, column: "compact_ms"),
    ] + ReadOp.queries.map { op in
        Figure(name: "read-" + op.rawValue, title: "\(op.rawValue): µs per operation", unit: "µs", op: op, column: "us_per_op")
    }

    static func render(_ records: [SummaryRecord]) -> String {
        let scale = records.filter { $0.settings.workload == .scale && $0.settings.op != nil }
        guard !scale.isEmpty else { return "" }
        var charts: [String] = []
        for durability in Durability.allCases where scale.contains(where: { $0.settings.durability == durability }) {
            let rows = scale.filter { $0.settings.durability == durability }
            for figure in figures {
                let medians = RunHTMLReport.medians(rows.filter { $0.settings.op == figure.op }, column: figure.column) { row in
                    "\(row.settings.engine.rawValue)|\(row["objects"] ?? "")"
                }
                var points: [String: [(x: Double, y: Double)]] = [:]
                for (key, value) in medians {
                    let parts = key.split(separator: "|", maxSplits: 1).map(String.init)
                    guard parts.count == 2, let objects = DecimalText.double(parts[1]) else { continue }
                    points[parts[0], default: []].append((objects, value))
                }
                guard !points.isEmpty else { continue }
                let engines = EngineKind.allCases.map(\.rawValue).filter { points[$0] != nil }
                let series = engines.map { (name: $0, points: (points[$0] ?? []).sorted { $0.x < $1.x }) }
                charts.append(SVGCharts.logLogLines(title: "scale: \(figure.title) — durability \(durability.rawValue)",
                                                    xUnit: "objects", yUnit: figure.unit, series: series,
                                                    id: "scale-\(figure.name)-\(durability.rawValue)"))
            }
        }
        return RunHTMLReport.section("Scale: each figure against the store's size (log–log)", charts: charts)
    }
}
