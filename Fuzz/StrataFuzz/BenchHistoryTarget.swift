// Fuzzes strata-bench's history reader (History/HistoryFile.swift, HistoryStore's reading verbs,
// HistoryExport): the input is a history database's bytes (the seed: a history of two runs),
// opened read-only as `history list/show/export` open it, and read entirely.
//
// Invariant: every step throws `BenchError` or reads; no crash, trap or hang. (A damaged history
// is the user's file: reading it must never stop the program.)
import Foundation
import StrataBench

public enum BenchHistoryTarget: FuzzTarget {
    public static let name = "bench-history"
    public static let invariant = "opening and reading the bytes as a history throws BenchError or reads, never traps"

    public static func run(_ input: [UInt8]) throws(FuzzFailure) {
        let folder = try FuzzScratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/history.sqlite"
        guard FileManager.default.createFile(atPath: path, contents: Data(input)) else { throw FuzzFailure("cannot write \(path)") }
        do {
            let store = try HistoryStore(path: path, access: .readOnly)
            _ = try store.runs()
            for metric in try store.metrics() { _ = try store.observations(metric: metric, filter: .init()) }
            _ = try HistoryExport.points(store)
        } catch is BenchError {
        } catch {
            throw FuzzFailure("untyped error \(type(of: error)): \(error)")
        }
    }

    public static func seeds() throws(FuzzFailure) -> [String: [UInt8]] {
        let folder = try FuzzScratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/history.sqlite"
        do {
            do {
                let store = try HistoryStore(path: path)
                for (revision, time, rate) in [("aaa", "2026-11-01T10:00:00Z", "1000"), ("bbb", "2026-11-02T10:00:00Z", "1250.5")] {
                    let table = try CSVReader.parse(summary(revision: revision, time: time, rate: rate))
                    _ = try store.append(RunRecord(table: table, path: "seed.csv", suite: "seed", source: "seed"))
                }
            }
            // The store is closed: its WAL is checkpointed into the file.
            return ["history.sqlite": Array(try Data(contentsOf: URL(fileURLWithPath: path)))]
        } catch {
            throw FuzzFailure("cannot write the seed history: \(error)")
        }
    }

    /// A run's summary CSV with the required columns (SummaryColumns.all), two repetitions.
    static func summary(revision: String, time: String, rate: String) -> String {
        let records = (1...2).map { repetition -> [String: String] in
            ["timestamp": time, "host": "vm/0000abcd", "git_rev": revision, "build": "release", "workload": "sensors",
             "engine": "strata", "strategy": "dedicated", "writers": "1", "batch_size": "1", "encryption": "off",
             "durability": "full", "repetition": String(repetition), "duration_s": "1", "readings": "1000",
             "readings_per_s": rate, "commit_p50_us": "12.5", "lost": "0", "verified": "true", "bound": "count",
             "target_readings": "1000", "max_delay_ms": "100", "cores": "2", "memory_bytes": "25769803776",
             "kernel": "6.1.0", "interrupted": "false"]
        }
        return CSVWriter.render(columns: SummaryColumns.all, records: records)
    }
}
