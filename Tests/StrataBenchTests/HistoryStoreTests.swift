import Foundation
import GRDB
import Testing
import StrataBench

/// Synthetic run reports: valid summary CSVs with chosen values.
enum SyntheticRun {
    /// One row per value (repetition 1, 2, …) of a sensors/sqlite/dedicated case.
    static func csv(revision: String, time: String, readingsPerSecond: [Double], host: String = "vm/0000abcd",
                    strategy: String = "dedicated") -> String {
        let records = readingsPerSecond.enumerated().map { index, value -> [String: String] in
            ["timestamp": time, "host": host, "git_rev": revision, "build": "debug", "workload": "sensors",
             "engine": "sqlite", "strategy": strategy, "writers": "1", "batch_size": "1", "encryption": "off",
             "durability": "unsafe", "repetition": String(index + 1), "duration_s": "1", "readings": "1000",
             "readings_per_s": CSVNumber.format(value), "commit_p50_us": "12.5", "lost": "0", "verified": "true",
             "bound": "count", "target_readings": "1000", "max_delay_ms": "100", "cores": "2",
             "memory_bytes": "25769803776", "kernel": "6.1.0", "interrupted": "false"]
        }
        return CSVWriter.render(columns: SummaryColumns.all, records: records)
    }

    static func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
}

func historyScratch() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-history-\(UUID())").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@Suite("history store")
struct HistoryStoreTests {
    @Test func showEqualsTheCSVsValuesPerRevisionOldestFirst() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try HistoryStore(path: dir + "/h.sqlite")
        // Stored newest first: `show` must still list the older revision first.
        let newer = try RunRecord(table: CSVReader.parse(SyntheticRun.csv(revision: "bbb", time: "2026-11-02T10:00:00Z",
                                                                           readingsPerSecond: [210, 190, 200])),
                                  path: "b.csv", suite: "smoke", source: "b.csv")
        let older = try RunRecord(table: CSVReader.parse(SyntheticRun.csv(revision: "aaa", time: "2026-11-01T10:00:00Z",
                                                                           readingsPerSecond: [100, 130, 120, 110])),
                                  path: "a.csv", suite: "smoke", source: "a.csv")
        #expect(try store.append(newer) == .added(id: 1, rows: 3))
        #expect(try store.append(older) == .added(id: 2, rows: 4))
        let series = MetricSeries.make(try store.observations(metric: "readings_per_s",
                                                              filter: .init(workload: "sensors", engine: "sqlite", strategy: "dedicated")),
                                       metric: "readings_per_s")
        #expect(series.count == 1)
        let points = try #require(series.first).points
        #expect(points.map(\.revision) == ["aaa", "bbb"])
        #expect(points[0].values == [100, 130, 120, 110])
        #expect(points[0].median == 115)
        #expect(points[0].minimum == 100 && points[0].maximum == 130)
        #expect(points[1].median == 200)
        #expect(points[1].spreadPercent == 10)
        let runs = try store.runs()
        #expect(runs.map(\.revision) == ["aaa", "bbb"])
        #expect(runs[0].host == "vm/0000abcd" && runs[0].cases == 1 && runs[0].rows == 4 && runs[0].suite == "smoke")
        // Another strategy is not mixed in.
        let other = try store.observations(metric: "readings_per_s", filter: .init(workload: "sensors", engine: "sqlite", strategy: "batched"))
        #expect(other.isEmpty)
    }

    @Test func importingARunTwiceAddsNothing() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let csv = dir + "/run.csv"
        try SyntheticRun.write(SyntheticRun.csv(revision: "aaa", time: "2026-11-01T10:00:00Z", readingsPerSecond: [1, 2]), to: csv)
        let store = try HistoryStore(path: dir + "/h.sqlite")
        #expect(try store.append(RunRecord.read(path: csv)) == .added(id: 1, rows: 2))
        #expect(try store.append(RunRecord.read(path: csv)) == .alreadyPresent(id: 1))
        // Same rows with CRLF line ends: the same run.
        let crlf = dir + "/crlf.csv"
        try SyntheticRun.write(String(decoding: try Data(contentsOf: URL(fileURLWithPath: csv)), as: UTF8.self)
                                .replacingOccurrences(of: "\n", with: "\r\n"), to: crlf)
        #expect(try store.append(RunRecord.read(path: crlf)) == .alreadyPresent(id: 1))
        // Reopened: still one run, one set of rows.
        let reopened = try HistoryStore(path: dir + "/h.sqlite")
        #expect(try reopened.runs().count == 1)
        #expect(try reopened.observations(metric: "readings_per_s", filter: .init()).count == 2)
    }

    @Test func aCSVThatIsNotARunReportIsATypedError() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SyntheticRun.write("name,value\nx,1\n", to: dir + "/other.csv")
        #expect { try RunRecord.read(path: dir + "/other.csv") } throws: { ($0 as? BenchError)?.code == .invalidCSV }
        try SyntheticRun.write(SyntheticRun.csv(revision: "a", time: "t", readingsPerSecond: [1])
                                .replacingOccurrences(of: ",unsafe,", with: ",sometimes,"), to: dir + "/bad.csv")
        #expect { try RunRecord.read(path: dir + "/bad.csv") } throws: { ($0 as? BenchError)?.code == .invalidCSV }
    }

    /// A file given as history that is not ours: refused with a typed error, and byte for byte
    /// the same afterwards.
    /// A history another process is creating at this moment (its migrator has committed only the
    /// empty table of applied migrations) is opened and completed, not refused: two CI jobs
    /// starting on a new history at once both succeed.
    @Test func aHistoryBeingCreatedElsewhereIsOpened() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/h.sqlite"
        try checkpointAndClose(path) { try $0.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)") }
        let store = try HistoryStore(path: path)
        try store.append(RunRecord(table: CSVReader.parse(SyntheticRun.csv(revision: "a", time: "t", readingsPerSecond: [5])),
                                   path: "x", suite: "s", source: "x"))
        #expect(try store.runs().count == 1)
    }

    @Test(arguments: ["text", "foreign-sqlite", "foreign-grdb", "damaged", "newer-schema", "directory"])
    func aFileThatIsNotAHistoryIsRefusedAndUntouched(kind: String) throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/h.sqlite"
        switch kind {
        case "text":
            try SyntheticRun.write("timestamp,host\nnot,a database\n", to: path)
        case "foreign-sqlite":
            let queue = try DatabaseQueue(path: path)
            try queue.write { try $0.execute(sql: "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')") }
            try queue.close()
        case "foreign-grdb":
            // Another GRDB application's database: its migrations are applied, its id is not ours.
            try checkpointAndClose(path) {
                try $0.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY); INSERT INTO grdb_migrations VALUES ('v1')")
            }
        case "damaged":
            do {
                let store = try HistoryStore(path: path)
                try store.append(RunRecord(table: CSVReader.parse(SyntheticRun.csv(revision: "a", time: "t", readingsPerSecond: Array(repeating: 5, count: 200))),
                                           path: "x", suite: "s", source: "x"))
            }
            try checkpointAndClose(path)
            // Scribble over the second half of the file (the pages, not the header).
            var data = try Data(contentsOf: URL(fileURLWithPath: path))
            for index in stride(from: data.count / 2, to: data.count, by: 1) { data[index] = 0xA5 }
            try data.write(to: URL(fileURLWithPath: path))
        case "newer-schema":
            _ = try HistoryStore(path: path)
            try checkpointAndClose(path) { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('v9-from-the-future')") }
        default:
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let before = isDirectory.boolValue ? nil : try Data(contentsOf: URL(fileURLWithPath: path))
        #expect { try HistoryStore(path: path) } throws: { error in
            guard let error = error as? BenchError else { return false }
            return error.code == .invalidHistory && error.path == path
        }
        if let before {
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
        // Nothing beside it either: a read-only SQLite connection to a file in WAL mode would
        // have created both.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["h.sqlite"])
    }
}

/// Opens a history file the store has let go of with a connection of the test's own, runs `change`
/// in one transaction, and folds the WAL into the main file, so what follows sees one file.
private func checkpointAndClose(_ path: String, _ change: (Database) throws -> Void = { _ in }) throws {
    let queue = try DatabaseQueue(path: path)
    try queue.write(change)
    _ = try queue.writeWithoutTransaction { try $0.checkpoint(.truncate) }
    try queue.close()
}
