// `strata-bench report`: one self-contained HTML file for one run — the run's table, the charts
// `scripts/plot.py` draws (as inline SVG), the comparison verdicts against a baseline, and the
// trend of each gated metric in the history. Opened, it needs nothing but the file: no script,
// no stylesheet or font from elsewhere.
//
// Invariants: the run must be a run report (`Comparison.Side`: required columns, valid cells),
// else `BenchError(.invalidCSV)`; a timeline that is not one is refused the same way. Every value
// in the page comes from the inputs through `HTML.text`/`HTML.attribute`. Table cells show the
// CSV's own text (no reformatting), and chart marks carry the medians they draw in `data-value`,
// so the page can be checked against the CSV (scripts/check-report).

import Foundation

public enum RunHTMLReport {
    public struct Inputs: Sendable {
        public var runPath: String
        /// nil: `RUN.timeline.csv` beside the run when it exists.
        public var timelinePath: String?
        public var baselinePath: String?
        public var history: HistoryStore?
        /// A `strata-bench stress` summary CSV: adds the "Durability" section.
        public var stressPath: String?
        public init(runPath: String, timelinePath: String? = nil, baselinePath: String? = nil, history: HistoryStore? = nil,
                    stressPath: String? = nil) {
            self.runPath = runPath
            self.timelinePath = timelinePath
            self.baselinePath = baselinePath
            self.history = history
            self.stressPath = stressPath
        }
    }

    /// The columns of the run table, in order (those the file has).
    public static let tableColumns = ["workload", "op", "engine", "strategy", "writers", "batch_size", "encryption", "durability",
                                      "repetition", "readings", "readings_per_s", "transactions_per_s", "commit_p50_us",
                                      "commit_p99_us", "e2e_p50_us", "file_bytes_end", "file_bytes_peak",
                                      "file_bytes_compacted", "compact_ms", "lost", "verified", "floor_us",
                                      "commit_p50_over_floor"]

    public static func render(_ inputs: Inputs, generated: Date = Date()) throws -> String {
        let table = try CSVReader.read(path: inputs.runPath)
        let records = try Comparison.Side(table: table, path: inputs.runPath, role: .current).records
        let timeline = try readTimeline(inputs)
        var body = header(records, path: inputs.runPath, generated: generated)
        body += section("Throughput per writer strategy and engine", charts: throughputCharts(records))
        body += section("Latency per writer strategy", charts: latencyCharts(records))
        body += section("File size over time (repetition 1)", charts: fileSizeCharts(timeline))
        body += section("Encryption and compaction", charts: encryptionAndCompactionCharts(records))
        body += ReadHTMLSection.render(records)
        body += ScaleHTMLSection.render(records)
        if let baseline = inputs.baselinePath {
            let report = try Comparison.compare(baselinePath: baseline, currentPath: inputs.runPath, options: ComparisonOptions())
            body += verdicts(report, baseline: baseline)
        }
        if let history = inputs.history {
            body += try trends(records, history: history)
        }
        if let stress = inputs.stressPath {
            body += try DurabilityHTMLSection.render(stress)
        }
        body += "<h2>The run's rows</h2>\n" + runTable(table)
        return page(title: "strata-bench run " + ((inputs.runPath as NSString).lastPathComponent), body: body)
    }

    // MARK: - Inputs

    static func readTimeline(_ inputs: Inputs) throws -> [[String: String]] {
        let derived = (inputs.runPath.hasSuffix(".csv") ? String(inputs.runPath.dropLast(4)) : inputs.runPath) + ".timeline.csv"
        let path: String
        if let given = inputs.timelinePath {
            path = given
        } else if FileManager.default.fileExists(atPath: derived) {
            path = derived
        } else {
            return []
        }
        let table = try CSVReader.read(path: path)
        for column in RunReport.timelineColumns where table.column(column) == nil {
            throw BenchError(.invalidCSV, "missing column '\(column)' (is this a strata-bench timeline CSV?)", path: path, line: 1, column: 1)
        }
        return table.records
    }

    // MARK: - Medians

    /// Median of `column` over the rows matching each key.
    static func medians(_ rows: [SummaryRecord], column: String, key: (SummaryRecord) -> String) -> [String: Double] {
        var groups: [String: [Double]] = [:]
        for row in rows {
            guard let value = DecimalText.double(row[column] ?? "") else { continue }
            groups[key(row), default: []].append(value)
        }
        return groups.mapValues(Statistics.median)
    }

    /// The (durability, encryption) pairs of `rows`, in the harness's order.
    static func settings(_ rows: [SummaryRecord]) -> [(durability: Durability, encryption: EncryptionSetting)] {
        let present = Set(rows.map { "\($0.settings.durability.rawValue)|\($0.settings.encryption.rawValue)" })
        return Durability.allCases.flatMap { durability in
            EncryptionSetting.allCases.filter { present.contains("\(durability.rawValue)|\($0.rawValue)") }.map { (durability, $0) }
        }
    }

    static func ordered(_ values: Set<String>, by order: [String]) -> [String] {
        values.sorted { (order.firstIndex(of: $0) ?? Int.max, $0) < (order.firstIndex(of: $1) ?? Int.max, $1) }
    }

    // MARK: - Charts

    static func strategyCharts(_ records: [SummaryRecord], column: String, title: String, unit: String, idPrefix: String) -> [String] {
        let sensors = records.filter { $0.settings.workload == .sensors }
        return settings(sensors).map { setting in
            let rows = sensors.filter { $0.settings.durability == setting.durability && $0.settings.encryption == setting.encryption }
            let strategies = StrategyKind.allCases.filter { strategy in rows.contains { $0.settings.strategy == strategy } }.map(\.rawValue)
            let engines = EngineKind.allCases.filter { engine in rows.contains { $0.settings.engine == engine } }.map(\.rawValue)
            let medians = medians(rows, column: column) { $0.settings.strategy.rawValue + "\u{1}" + $0.settings.engine.rawValue }
            var values: [String: [String: Double]] = [:]
            for (key, value) in medians {
                let parts = key.split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
                values[parts[0], default: [:]][parts[1]] = value
            }
            return SVGCharts.groupedBars(title: "\(title) — durability \(setting.durability.rawValue), encryption \(setting.encryption.rawValue)",
                                         unit: unit, categories: strategies, series: engines, values: values, logScale: true,
                                         id: "\(idPrefix)-\(setting.durability.rawValue)-\(setting.encryption.rawValue)")
        }
    }

    static func throughputCharts(_ records: [SummaryRecord]) -> [String] {
        strategyCharts(records, column: "readings_per_s", title: "sensors: readings/s (median)", unit: "readings/s", idPrefix: "throughput")
    }

    static func latencyCharts(_ records: [SummaryRecord]) -> [String] {
        [("commit_p50_us", "commit p50"), ("commit_p99_us", "commit p99"), ("e2e_p50_us", "end-to-end p50")].flatMap { column, title in
            strategyCharts(records, column: column, title: "\(title) µs (median)", unit: "µs", idPrefix: column)
        }
    }

    static func fileSizeCharts(_ timeline: [[String: String]]) -> [String] {
        var panels: [String] = []
        var points: [String: [String: [(x: Double, y: Double)]]] = [:]
        for point in timeline where point["repetition"] == "1" {
            guard let workload = point["workload"], workload != WorkloadKind.bulkInsert.rawValue,
                  workload != WorkloadKind.encryption.rawValue,
                  let elapsed = DecimalText.double(point["elapsed_ms"] ?? ""), let bytes = DecimalText.double(point["file_bytes"] ?? "") else { continue }
            let strategy = workload == WorkloadKind.sensors.rawValue || workload == WorkloadKind.readWhileWrite.rawValue ? point["strategy"] ?? "" : ""
            let title = [workload, strategy, point["durability"] ?? "", point["encryption"] == "on" ? "enc on" : ""]
                .filter { !$0.isEmpty }.joined(separator: " ")
            if points[title] == nil { panels.append(title) }
            points[title, default: [:]][point["engine"] ?? "", default: []].append((elapsed / 1000, bytes))
        }
        return panels.prefix(32).enumerated().map { index, title in
            let engines = ordered(Set(points[title]?.keys.map { $0 } ?? []), by: EngineKind.allCases.map(\.rawValue))
            return SVGCharts.lines(title: title, xUnit: "seconds", yUnit: "file bytes",
                                   series: engines.map { ($0, points[title]?[$0] ?? []) }, id: "file-size-\(index)")
        }
    }

    static func encryptionAndCompactionCharts(_ records: [SummaryRecord]) -> [String] {
        var charts: [String] = []
        let encrypted = records.filter { $0.settings.workload == .encryption }
        if !encrypted.isEmpty {
            let medians = medians(encrypted, column: "readings_per_s") {
                $0.settings.engine.rawValue + " " + $0.settings.durability.rawValue + "\u{1}" + $0.settings.encryption.rawValue
            }
            var values: [String: [String: Double]] = [:]
            for (key, value) in medians {
                let parts = key.split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
                values[parts[0], default: [:]]["encryption " + parts[1]] = value
            }
            charts.append(SVGCharts.groupedBars(title: "encryption: readings/s (median) — key off and on", unit: "readings/s",
                                                categories: values.keys.sorted(), series: ["encryption off", "encryption on"],
                                                values: values, logScale: false, id: "encryption"))
        }
        // As plot.py: the workloads that compact a file they built (sensors rows only report it).
        let compacting: Set<WorkloadKind> = [.compaction, .pinnedGrowth, .bulkInsert]
        let compacted = records.filter { compacting.contains($0.settings.workload) && DecimalText.double($0["file_bytes_compacted"] ?? "") != nil }
        if !compacted.isEmpty {
            func key(_ row: SummaryRecord) -> String {
                [row.settings.engine.rawValue, row.settings.workload.rawValue, row.settings.durability.rawValue].joined(separator: " ")
            }
            var values: [String: [String: Double]] = [:]
            for (column, label) in [("file_bytes_peak", "before (peak)"), ("file_bytes_compacted", "after compaction")] {
                for (name, value) in medians(compacted, column: column, key: key) { values[name, default: [:]][label] = value }
            }
            charts.append(SVGCharts.groupedBars(title: "compaction: file bytes before and after (median)", unit: "bytes",
                                                categories: values.keys.sorted(), series: ["before (peak)", "after compaction"],
                                                values: values, logScale: true, id: "compaction-bytes"))
            var millis: [String: [String: Double]] = [:]
            for (name, value) in medians(compacted, column: "compact_ms", key: key) { millis[name, default: [:]]["compact ms"] = value }
            charts.append(SVGCharts.groupedBars(title: "compaction: time (median)", unit: "ms", categories: millis.keys.sorted(),
                                                series: ["compact ms"], values: millis, logScale: false, id: "compaction-time"))
        }
        return charts
    }

    // MARK: - Sections

    static func header(_ records: [SummaryRecord], path: String, generated: Date) -> String {
        func values(_ column: String) -> String {
            let distinct = ordered(Set(records.compactMap { $0[column] }.filter { !$0.isEmpty }), by: [])
            return distinct.isEmpty ? "unknown" : distinct.joined(separator: ", ")
        }
        // A run assembled from many processes (the gate's rounds) has a time per process: its span.
        func span(_ column: String) -> String {
            let times = Set(records.compactMap { $0[column] }.filter { !$0.isEmpty }).sorted()
            guard let first = times.first, let last = times.last, times.count > 2 else { return values(column) }
            return "\(first) to \(last) (\(times.count) distinct start times)"
        }
        let facts = [("run", path), ("time", span("timestamp")), ("revision", values("git_rev")), ("host", values("host")),
                     ("CPU", values("cpu_model")), ("cores", values("cores")), ("build", values("build")),
                     ("rows", String(records.count)),
                     ("cases", String(Set(records.map(\.settings.key)).count)),
                     ("lost readings", CSVNumber.format(records.compactMap { DecimalText.double($0["lost"] ?? "") }.reduce(0, +))),
                     ("report written", RunReport.timestamp(generated))]
        var html = "<h1>strata-bench run</h1>\n<dl id=\"facts\">"
        for (name, value) in facts { html += "<dt>\(HTML.text(name))</dt><dd data-fact=\(HTML.attribute(name))>\(HTML.text(value))</dd>" }
        return html + "</dl>\n"
    }

    static func section(_ title: String, charts: [String]) -> String {
        guard !charts.isEmpty else { return "" }
        return "<h2>\(HTML.text(title))</h2>\n<div class=\"charts\">\n" + charts.joined() + "</div>\n"
    }

    static func runTable(_ table: CSVTable) -> String {
        let columns = tableColumns.filter { table.column($0) != nil }
        let rows = table.records.map { record in columns.map { record[$0] ?? "" } }
        let classes = table.records.map { record in (record["lost"] ?? "0") != "0" || record["verified"] == "false" ? "failed" : "" }
        return HTML.table(id: "run-table", header: columns, rows: rows, columns: columns, rowClasses: classes)
    }

    static func verdicts(_ report: ComparisonReport, baseline: String) -> String {
        let order: [Verdict] = [.regressed, .missing, .improved, .new, .unchanged, .insufficient, .info]
        let lines = report.lines.filter { $0.verdict != .info }
            .sorted { (order.firstIndex(of: $0.verdict) ?? 9) < (order.firstIndex(of: $1.verdict) ?? 9) }
        let counts = order.map { verdict in "\(report.count(verdict)) \(verdict.rawValue)" }.joined(separator: ", ")
        var html = "<h2>Compared with \(HTML.text(baseline))</h2>\n<p id=\"verdict-summary\">\(HTML.text(counts))</p>\n"
        for warning in report.warnings { html += "<p class=\"warning\">\(HTML.text(warning))</p>\n" }
        let rows = lines.map { line in
            [line.caseKey, line.metric, CSVNumber.format(line.baseline), CSVNumber.format(line.current),
             line.ratio.map { CSVNumber.format($0, digits: 3) } ?? "", line.verdict.rawValue, line.rule]
        }
        return html + HTML.table(id: "verdicts", header: ["case", "metric", "baseline", "current", "ratio", "verdict", "rule"],
                                 rows: rows, columns: ["case", "metric", "baseline", "current", "ratio", "verdict", "rule"],
                                 rowClasses: lines.map { "verdict-" + $0.verdict.rawValue.replacingOccurrences(of: " ", with: "-") })
    }

    static func trends(_ records: [SummaryRecord], history: HistoryStore) throws -> String {
        var caseOrder: [String] = []
        for record in records where !caseOrder.contains(record.settings.key) { caseOrder.append(record.settings.key) }
        let html = "<h2>Trends in the history (gated metrics, median per revision, oldest first)</h2>\n"
        var rows: [[String]] = []
        var sparks: [String] = []
        for policy in MetricPolicy.gated {
            let metric = policy.column
            guard records.contains(where: { DecimalText.double($0[metric] ?? "") != nil }) else { continue }
            let series = MetricSeries.make(try history.observations(metric: metric, filter: .init()), metric: metric)
            for one in series where caseOrder.contains(one.caseKey) {
                let medians = one.points.map(\.median)
                let changes = ChangePoints.changes(in: one)
                rows.append([one.caseKey, metric, String(one.points.count), CSVNumber.format(medians.first),
                             CSVNumber.format(medians.last), changes.map { $0.revision }.joined(separator: " ")])
                sparks.append(sparkline(medians))
            }
        }
        guard !rows.isEmpty else { return html + "<p>No run of this run's cases in the history.</p>\n" }
        var table = "<table id=\"trends\"><thead><tr>"
        for name in ["case", "metric", "revisions", "first", "latest", "trend", "changes at"] { table += "<th>\(HTML.text(name))</th>" }
        table += "</tr></thead><tbody>\n"
        for (row, spark) in zip(rows, sparks) {
            table += "<tr><td data-col=\"case\">\(HTML.text(row[0]))</td><td data-col=\"metric\">\(HTML.text(row[1]))</td>"
            table += "<td data-col=\"revisions\">\(HTML.text(row[2]))</td><td data-col=\"first\">\(HTML.text(row[3]))</td>"
            table += "<td data-col=\"latest\">\(HTML.text(row[4]))</td><td>\(spark)</td><td data-col=\"changes\">\(HTML.text(row[5]))</td></tr>\n"
        }
        return html + table + "</tbody></table>\n"
    }

    static func sparkline(_ values: [Double]) -> String {
        let finite = values.filter(\.isFinite)
        guard let low = finite.min(), let high = finite.max() else { return "" }
        let width = 120.0, height = 24.0
        let span = high > low ? high - low : 1
        let step = values.count > 1 ? width / Double(values.count - 1) : 0
        let points = values.enumerated().compactMap { index, value -> String? in
            guard value.isFinite else { return nil }
            return "\(Double(index) * step),\(height - 2 - (height - 4) * (value - low) / span)"
        }.joined(separator: " ")
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" class=\"spark\"><polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"\(points)\"/></svg>"
    }

    static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
        <title>\(HTML.text(title))</title>
        <style>
        body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
        h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 28px; border-bottom: 1px solid #ddd; }
        dl#facts { display: grid; grid-template-columns: max-content auto; gap: 2px 14px; }
        dt { font-weight: 600; } dd { margin: 0; }
        .charts { display: flex; flex-wrap: wrap; gap: 12px; }
        figure.chart { margin: 0; border: 1px solid #eee; padding: 4px; }
        svg text { font: 10px system-ui, sans-serif; fill: #333; } svg text.title { font-size: 11px; font-weight: 600; }
        svg text.value { font-size: 9px; } svg .grid { stroke: #e5e5e5; }
        table { border-collapse: collapse; font-size: 12px; margin: 8px 0; }
        th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: right; white-space: nowrap; }
        th { background: #f4f4f4; } td:first-child, th:first-child { text-align: left; }
        tr.failed, tr.verdict-regressed, tr.verdict-missing { background: #fde2e2; }
        tr.verdict-improved { background: #e2f6e2; } p.warning { color: #a15c00; } tr.documented { background: #fff4d6; }
        </style></head>
        <body>
        \(body)</body></html>

        """
    }
}
