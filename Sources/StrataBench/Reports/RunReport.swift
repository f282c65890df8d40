// Renders a run's results: the summary CSV, the timeline CSV and the terminal table.
//
// Invariant: the summary CSV's header is `SummaryColumns.all`; the timeline CSV has one row per
// sample with the case's identifying columns first, then elapsed_ms, file_bytes, live_objects,
// total_writes.

import Foundation

public enum RunReport {
    public static let timelineColumns = ["workload", "engine", "strategy", "writers", "batch_size", "encryption",
                                         "durability", "repetition", "elapsed_ms", "file_bytes", "live_objects",
                                         "total_writes"]

    /// The run timestamp written in every row: UTC, ISO 8601, seconds.
    public static func timestamp(_ date: Date = Date()) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// A file-name-safe form of `timestamp`, e.g. 20261121T214600Z.
    public static func fileStamp(_ date: Date = Date()) -> String {
        timestamp(date).replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
    }

    /// `interrupted`: the run was stopped before its last case; every row says so (`interrupted`
    /// = true), so that `baseline` and `compare` refuse the file as a baseline (cases are missing).
    public static func summaryCSV(_ results: [CaseResult], machine: MachineInfo, timestamp: String,
                                  interrupted: Bool = false) -> String {
        CSVWriter.render(columns: SummaryColumns.all, records: results.map { result in
            var row = result.row(machine: machine, timestamp: timestamp)
            row["interrupted"] = interrupted ? "true" : "false"
            return row
        })
    }

    public static func timelineCSV(_ results: [CaseResult]) -> String {
        var rows: [[String]] = []
        for result in results {
            let spec = result.spec
            let prefix = [spec.workload.rawValue, spec.engine.rawValue, spec.strategy.rawValue, String(spec.writers),
                          String(spec.batchSize), spec.encryption.rawValue, spec.durability.rawValue, String(spec.repetition)]
            for point in result.timeline {
                rows.append(prefix + [CSVNumber.format(point.elapsedMs, digits: 1), CSVNumber.format(point.fileBytes),
                                      String(point.liveObjects), String(point.totalWrites)])
            }
        }
        return CSVWriter.render(header: timelineColumns, rows: rows)
    }

    /// The human table printed on stdout after a run: the write cases, then the reads
    /// workload's operations in a table of their own (their figures are per operation).
    public static func table(_ results: [CaseResult]) -> String {
        let writes = results.filter { $0.read == nil }
        let reads = results.filter { $0.read != nil }
        var text = writes.isEmpty && !reads.isEmpty ? "" : writeTable(writes)
        if !reads.isEmpty { text += (text.isEmpty ? "" : "\n") + ReadReport.table(reads) }
        return text
    }

    static func writeTable(_ results: [CaseResult]) -> String {
        let header = ["workload", "engine", "strategy", "enc", "dur", "rep", "readings", "readings/s", "tx/s",
                      "commit p50 us", "commit p99 us", "e2e p50 us", "backlog", "file MB end", "file MB peak",
                      "lost", "ok"]
        let rows = results.map { result -> [String] in
            let spec = result.spec
            func mb(_ bytes: Int64?) -> String { bytes.map { String(format: "%.2f", Double($0) / 1_048_576) } ?? "-" }
            func num(_ value: Double?, _ digits: Int = 0) -> String { value.map { String(format: "%.\(digits)f", $0) } ?? "-" }
            return [spec.workload.rawValue, spec.engine.rawValue, spec.strategy.rawValue, spec.encryption.rawValue,
                    spec.durability.rawValue, String(spec.repetition), String(result.readings),
                    num(result.readingsPerSecond), num(result.transactionsPerSecond), num(result.commit?.p50, 1),
                    num(result.commit?.p99, 1), num(result.endToEnd?.p50, 1), result.backlogMax.map(String.init) ?? "-",
                    mb(result.fileBytesEnd), mb(result.fileBytesPeak), String(result.lost), result.verified ? "yes" : "NO"]
        }
        // The floor's columns only when a durable case measured it: other runs keep their width.
        guard results.contains(where: { $0.floor != nil }) else {
            return TextTable.render(header: header, rows: rows, rightAligned: Set(6..<17))
        }
        func num(_ value: Double?, _ digits: Int) -> String { value.map { String(format: "%.\(digits)f", $0) } ?? "-" }
        let withFloor = zip(rows, results).map { row, result in
            row + [num(result.floor?.inPlaceP50, 1), num(result.commitP50OverFloor, 2)]
        }
        return TextTable.render(header: header + ["floor us", "p50/floor"], rows: withFloor, rightAligned: Set(6..<19))
    }

    /// The line printed under the table: what its numbers mean (durability, the peer engine,
    /// closed-loop end-to-end latency), so that a first reader does not take a flush-bound
    /// 250 readings/s or a 1 s end-to-end latency for a defect.
    public static func footnote(_ results: [CaseResult]) -> String {
        guard !results.isEmpty else { return "" }
        var parts: [String] = []
        let durabilities = Set(results.map(\.spec.durability))
        for durability in Durability.allCases where durabilities.contains(durability) {
            switch durability {
            case .full: parts.append("dur full = every commit waits for its flush to disk, so one writer commits at the disk's flush rate")
            case .unsafe: parts.append("dur unsafe = no flush per commit (the OS writes back later)")
            case .memory: parts.append("dur memory = in-memory stores")
            }
        }
        let engines = Set(results.map(\.spec.engine))
        for adapter in Engines.registered where engines.contains(adapter.kind) {
            parts.append(adapter.reportNote)
        }
        if engines.count == 1, let only = engines.first, let peer = Engines.defaultKinds.first(where: { $0 != only }) {
            parts.append("\(only) alone: no other engine under the same durability promise (add --engine \(peer) to compare)")
        }
        if results.contains(where: { $0.spec.rate == nil && ($0.spec.workload == .sensors || $0.spec.workload == .readWhileWrite) }) {
            parts.append("closed loop: e2e p50 is readings in flight (up to \(SensorsWorkload.closedLoopWindow)) / throughput, not a wait of the writer")
        }
        return "note: " + parts.joined(separator: "; ") + ".\n"
    }
}

/// Fixed-width text tables and markdown tables.
public enum TextTable {
    public static func render(header: [String], rows: [[String]], rightAligned: Set<Int> = []) -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return rightAligned.contains(index) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingCharacters(in: CharacterSet(charactersIn: " "))
        }
        var text = line(header) + "\n"
        text += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
        for row in rows { text += line(row) + "\n" }
        return text
    }

    public static func markdown(header: [String], rows: [[String]]) -> String {
        func escape(_ cell: String) -> String { cell.replacingOccurrences(of: "|", with: "\\|") }
        var text = "| " + header.map(escape).joined(separator: " | ") + " |\n"
        text += "|" + header.map { _ in "---" }.joined(separator: "|") + "|\n"
        for row in rows { text += "| " + row.map(escape).joined(separator: " | ") + " |\n" }
        return text
    }
}
