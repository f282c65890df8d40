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
        "typed_errors", "crashes", "hangs", "writer_failures", "recovery_p50_ms", "recovery_p99_ms", "verdict", "promise",
        "reproducers", "note",
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
                "writer_failures": String(counts.writerFailures),
                "recovery_p50_ms": CSVNumber.format(row.recoveryP50, digits: 1),
                "recovery_p99_ms": CSVNumber.format(row.recoveryP99, digits: 1),
                "verdict": row.verdict.rawValue, "promise": row.promise,
                "reproducers": row.reproducers.map(\.directory).joined(separator: ";"),
                "note": row.findings.prefix(5).joined(separator: " | "),
            ]
        })
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
