// The stress summary: one row per scenario × engine × durability × encryption × strategy, as a CSV
// (`CSVWriter`) and as the table printed on stdout.
//
// Invariants: column names are stable (scripts read them); numbers are plain; a figure that does
// not apply (no recovery measured) is an empty cell, never a made-up zero.

import Foundation

public enum StressReport {
    public static let columns = [
        "timestamp", "host", "git_rev", "build", "scenario", "engine", "durability", "encryption", "strategy", "writers",
        "batch_size", "seed", "rounds", "states", "acknowledged", "present", "lost", "half_applied", "corrupt",
        "typed_errors", "crashes", "hangs", "writer_failures", "trends", "recovery_p50_ms", "recovery_p99_ms", "verdict", "promise",
        "reproducers", "note", "fs_model",
    ]

    public static func csv(_ rows: [StressRow], machine: MachineInfo, timestamp: String) -> String {
        CSVWriter.render(columns: columns, records: rows.map { row in
            let stressCase = row.stressCase
            let counts = row.counts
            return [
                "timestamp": timestamp, "host": machine.host, "git_rev": machine.gitRevision, "build": machine.build,
                "scenario": row.scenario.rawValue, "engine": stressCase.engine.rawValue,
                "durability": stressCase.durability.rawValue, "encryption": stressCase.encryption.rawValue,
                "strategy": stressCase.strategy.rawValue, "writers": String(stressCase.writers),
                "batch_size": String(stressCase.batchSize), "seed": String(row.seed), "rounds": String(row.rounds),
                "states": String(row.states), "acknowledged": String(counts.acknowledged), "present": String(counts.present),
                "lost": String(counts.lost), "half_applied": String(counts.halfApplied), "corrupt": String(counts.corrupt),
                "typed_errors": String(counts.typedErrors), "crashes": String(counts.crashes), "hangs": String(counts.hangs),
                "writer_failures": String(counts.writerFailures), "trends": String(counts.trends),
                "recovery_p50_ms": CSVNumber.format(row.recoveryP50, digits: 1),
                "recovery_p99_ms": CSVNumber.format(row.recoveryP99, digits: 1),
                "verdict": row.verdict.rawValue, "promise": row.promise,
                "reproducers": row.reproducers.map(\.directory).joined(separator: ";"),
                "note": row.findings.prefix(5).joined(separator: " | "),
                "fs_model": row.fileSystem?.rawValue ?? "",
            ]
        })
    }

    /// Soak's timeline: one row per sample per case.
    public static let timelineColumns = ["scenario", "engine", "durability", "encryption", "strategy", "round", "seconds",
                                         "rss_bytes", "rss_anon_bytes", "store_bytes", "descriptors", "mapped_bytes", "acks", "total_acks",
                                         "mean_commit_ms"]

    /// The timeline CSV of the rows that have samples, nil when none has.
    public static func timelineCSV(_ rows: [StressRow]) -> String? {
        let records: [[String: String]] = rows.flatMap { row in
            row.timeline.map { sample in
                ["scenario": row.scenario.rawValue, "engine": row.stressCase.engine.rawValue,
                 "durability": row.stressCase.durability.rawValue, "encryption": row.stressCase.encryption.rawValue,
                 "strategy": row.stressCase.strategy.rawValue, "round": String(sample.round),
                 "seconds": CSVNumber.format(sample.seconds, digits: 2), "rss_bytes": String(sample.rssBytes), "rss_anon_bytes": String(sample.anonymousBytes),
                 "store_bytes": String(sample.storeBytes), "descriptors": String(sample.descriptors),
                 "mapped_bytes": String(sample.mappedBytes), "acks": String(sample.acks), "total_acks": String(sample.totalAcks),
                 "mean_commit_ms": CSVNumber.format(sample.meanCommitMs, digits: 3)]
            }
        }
        return records.isEmpty ? nil : CSVWriter.render(columns: timelineColumns, records: records)
    }

    /// `<summary without .csv>.soak.csv`, beside the summary.
    public static func timelinePath(summary: String) -> String {
        (summary.hasSuffix(".csv") ? String(summary.dropLast(4)) : summary) + ".soak.csv"
    }

    public static func table(_ rows: [StressRow]) -> String {
        let header = ["scenario", "engine", "dur", "enc", "strategy", "rounds", "states", "acked", "lost", "half",
                      "corrupt", "typed", "crash", "hang", "rec p50 ms", "rec p99 ms", "verdict"]
        let body = rows.map { row -> [String] in
            let counts = row.counts
            func ms(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "-" }
            return [row.scenario.rawValue, row.stressCase.engine.rawValue, row.stressCase.durability.rawValue,
                    row.stressCase.encryption.rawValue, row.stressCase.strategy.rawValue, String(row.rounds), String(row.states),
                    String(counts.acknowledged), String(counts.lost), String(counts.halfApplied), String(counts.corrupt),
                    String(counts.typedErrors), String(counts.crashes), String(counts.hangs), ms(row.recoveryP50),
                    ms(row.recoveryP99), row.verdict.rawValue]
        }
        return TextTable.render(header: header, rows: body, rightAligned: Set(5..<16))
    }
}
