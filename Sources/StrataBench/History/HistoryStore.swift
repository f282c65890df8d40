// The run history: every run's rows in one SQLite database (through GRDB), so that a metric can be
// followed across revisions.
//
// Invariants:
// - A file is opened only if it is absent, empty, or a SQLite database that strata-bench wrote
//   (its `application_id` is `HistorySchema.applicationID`) with a schema this build knows and
//   that passes `quick_check`. Anything else is `BenchError(.invalidHistory)` and the file is
//   left as it was, byte for byte and with nothing created beside it: `HistoryFile.check` reads
//   it before anything is written.
// - A store opened `readOnly` never creates, upgrades or writes the file.
// - Several processes may append at once (parallel CI jobs on one runner): the database is in
//   WAL mode, every connection waits for the writer lock (`busyTimeout`) instead of failing, and
//   an append is one IMMEDIATE transaction that checks the digest and inserts, so a run is
//   stored exactly once and none is lost.

import Foundation
import GRDB

public final class HistoryStore: Sendable {
    /// The default location, relative to the working directory (ignored by git).
    public static let defaultPath = "results/history.sqlite"

    /// How long a connection waits for another process's write before giving up.
    public static let busyTimeout: TimeInterval = 60

    public let path: String
    /// A pool (read-write) or a read-only queue (`Access.readOnly`).
    let pool: any DatabaseWriter

    /// What a command does with the history.
    public enum Access: Sendable {
        /// Append runs: a missing file is created, an older schema upgraded.
        case readWrite
        /// Only read (list, show, changes, export, a report's trends): a missing file is an error,
        /// and nothing is created or changed, not even beside the file.
        case readOnly
    }

    /// Opens the history at `path`; `readWrite` creates it if absent. The file is checked
    /// (`HistoryFile.check`, which writes nothing) before anything is written to it.
    public init(path: String, access: Access = .readWrite) throws {
        self.path = path
        let state = try HistoryFile.check(path)
        if access == .readOnly {
            switch state {
            case .history:
                break
            case .absent:
                throw BenchError(.io, "no history there (runs append to \(HistoryStore.defaultPath) unless --no-history, `history import` adds runs); nothing created", path: path)
            case .empty, .beingCreated:
                throw BenchError(.invalidHistory, "holds no runs yet (an empty file, or a history being created); left untouched", path: path)
            case .olderSchema:
                throw BenchError(.invalidHistory, "written by an older strata-bench: a `run` or `history import` upgrades it; left untouched", path: path)
            }
            do {
                pool = try HistoryFile.openReadOnly(path)
            } catch let error as BenchError {
                throw error
            } catch {
                throw BenchError(.invalidHistory, "cannot open the history database: \(HistoryStore.describe(error))", path: path)
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: OutputFiles.parentDirectory(path), withIntermediateDirectories: true)
        } catch {
            throw BenchError(.io, "cannot create the history's directory: \(OutputFiles.reason(error))", path: path)
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(HistoryStore.busyTimeout)
        configuration.foreignKeysEnabled = true
        let pool = try HistoryStore.openPool(path: path, configuration: configuration)
        self.pool = pool
        // Another process may have applied the same migration between our check and our write
        // (the migrator reads what is applied outside its transaction): our attempt then fails
        // on a table that exists. With several migrations that process may still be between
        // two of them, so the schema is not complete yet: try again, and the migrator sees what
        // it applied and goes on from there (or finds the schema complete).
        for attempt in 1... {
            do {
                try HistorySchema.migrator.migrate(pool)
                break
            } catch {
                let complete = (try? pool.read { try HistorySchema.migrator.hasCompletedMigrations($0) }) ?? false
                if complete { break }
                if attempt >= 5 {
                    throw BenchError(.invalidHistory, "cannot set up the history schema: \(HistoryStore.describe(error))", path: path)
                }
                usleep(20_000)
            }
        }
    }

    /// Opens the pool, retrying while another process holds the lock that switching a new file
    /// to WAL needs: SQLite reports that conflict as SQLITE_BUSY at once, without the busy
    /// handler, so two processes creating one history at the same moment would otherwise fail.
    private static func openPool(path: String, configuration: Configuration) throws -> DatabasePool {
        let deadline = Date().addingTimeInterval(busyTimeout)
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && Date() < deadline {
                usleep(20_000)
            } catch {
                throw BenchError(.invalidHistory, "cannot open the history database: \(HistoryStore.describe(error))", path: path)
            }
        }
    }

    // MARK: - Writing

    /// What `append` did.
    public enum AppendOutcome: Sendable, Equatable {
        /// Stored as run `id` with `rows` rows.
        case added(id: Int64, rows: Int)
        /// A run with the same digest is already there (run `id`): nothing was added.
        case alreadyPresent(id: Int64)
    }

    /// Stores a run unless a run with the same digest is there already.
    @discardableResult
    public func append(_ record: RunRecord, recordedAt: Date = Date()) throws -> AppendOutcome {
        do {
            return try pool.write { db -> AppendOutcome in
                if let existing = try Int64.fetchOne(db, sql: "SELECT id FROM runs WHERE digest = ?", arguments: [record.digest]) {
                    return .alreadyPresent(id: existing)
                }
                try db.execute(sql: """
                    INSERT INTO runs (digest, run_time, recorded_at, revision, host, cpu_model, cores, memory_bytes,
                                      kernel, build, suite, source, cases, row_count, header)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [record.digest, record.time, RunReport.timestamp(recordedAt), record.revision,
                                     record.host, record.cpuModel, record.cores, record.memoryBytes, record.kernel,
                                     record.build, record.suite, record.source, record.caseCount,
                                     record.table.rows.count, CSVWriter.line(record.table.header)])
                let runID = db.lastInsertedRowID
                var metricIDs: [String: Int64] = [:]
                func metricID(_ name: String) throws -> Int64 {
                    if let known = metricIDs[name] { return known }
                    try db.execute(sql: "INSERT OR IGNORE INTO metrics (name) VALUES (?)", arguments: [name])
                    guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM metrics WHERE name = ?", arguments: [name]) else {
                        throw BenchError(.io, "the metric '\(name)' was not stored", path: path)
                    }
                    metricIDs[name] = id
                    return id
                }
                for (index, row) in record.records.enumerated() {
                    let settings = row.settings
                    try db.execute(sql: """
                        INSERT INTO results (run_id, row_index, case_key, workload, engine, strategy, encryption,
                                             durability, repetition, cells)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [runID, index, settings.key, settings.workload.rawValue, settings.engine.rawValue,
                                         settings.strategy.rawValue, settings.encryption.rawValue, settings.durability.rawValue,
                                         row.repetition, CSVWriter.line(record.table.rows[index])])
                    let resultID = db.lastInsertedRowID
                    for (metric, value) in record.measurements(row: index) {
                        try db.execute(sql: "INSERT INTO measurements (result_id, metric_id, value) VALUES (?, ?, ?)",
                                       arguments: [resultID, try metricID(metric), value])
                    }
                }
                return .added(id: runID, rows: record.table.rows.count)
            }
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError(.io, "cannot append to the history: \(HistoryStore.describe(error))", path: path)
        }
    }

    // MARK: - Reading

    /// One stored run, as `history list` shows it.
    public struct RunSummary: Sendable, Equatable {
        public var id: Int64
        public var time: String
        public var revision: String
        public var host: String
        public var suite: String
        public var cases: Int
        public var rows: Int
        public var source: String
    }

    /// Every run, oldest first (by the run's own time, then by id).
    public func runs() throws -> [RunSummary] {
        try reading {
            // `decode`, not the subscripts: a value of another type (a damaged or foreign file that
            // passes quick_check: SQLite's columns take any type) is an error here, where the
            // subscripts stop the process.
            try Row.fetchAll($0, sql: "SELECT id, run_time, revision, host, suite, cases, row_count, source FROM runs ORDER BY run_time, id")
                .map { RunSummary(id: try $0.decode(atIndex: 0), time: try $0.decode(atIndex: 1), revision: try $0.decode(atIndex: 2),
                                  host: try $0.decode(atIndex: 3), suite: try $0.decode(atIndex: 4), cases: try $0.decode(atIndex: 5),
                                  rows: try $0.decode(atIndex: 6), source: try $0.decode(atIndex: 7)) }
        }
    }

    /// One stored value of a metric, with the case and run it belongs to.
    public struct Observation: Sendable, Equatable {
        public var caseKey: String
        public var runID: Int64
        public var runTime: String
        public var revision: String
        public var host: String
        public var value: Double
    }

    /// Which rows a query reads; nil matches anything.
    public struct Filter: Sendable {
        public var workload: String?
        public var engine: String?
        public var strategy: String?
        public var durability: String?
        public var encryption: String?
        public var host: String?
        public init(workload: String? = nil, engine: String? = nil, strategy: String? = nil, durability: String? = nil,
                    encryption: String? = nil, host: String? = nil) {
            self.workload = workload
            self.engine = engine
            self.strategy = strategy
            self.durability = durability
            self.encryption = encryption
            self.host = host
        }
    }

    /// Every stored value of `metric` in rows matching `filter`, oldest run first.
    public func observations(metric: String, filter: Filter) throws -> [Observation] {
        var conditions = ["k.name = ?"]
        var arguments: [(any DatabaseValueConvertible)?] = [metric]
        for (column, value) in [("r.workload", filter.workload), ("r.engine", filter.engine), ("r.strategy", filter.strategy),
                                ("r.durability", filter.durability), ("r.encryption", filter.encryption), ("u.host", filter.host)] {
            if let value {
                conditions.append("\(column) = ?")
                arguments.append(value)
            }
        }
        let sql = """
            SELECT r.case_key, u.id, u.run_time, u.revision, u.host, m.value
            FROM metrics k JOIN measurements m ON m.metric_id = k.id JOIN results r ON r.id = m.result_id
                JOIN runs u ON u.id = r.run_id
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY u.run_time, u.id, r.row_index
            """
        return try reading { db in
            try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map {
                Observation(caseKey: try $0.decode(atIndex: 0), runID: try $0.decode(atIndex: 1), runTime: try $0.decode(atIndex: 2),
                            revision: try $0.decode(atIndex: 3), host: try $0.decode(atIndex: 4), value: try $0.decode(atIndex: 5))
            }
        }
    }

    /// The metrics stored, sorted.
    public func metrics() throws -> [String] {
        try reading {
            try String.fetchAll($0, sql: "SELECT name FROM metrics ORDER BY name")
        }
    }

    func reading<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.read(body)
        } catch {
            throw BenchError(.invalidHistory, "cannot read the history: \(HistoryStore.describe(error))", path: path)
        }
    }

    static func describe(_ error: Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? "\(error.resultCode)"
        }
        return "\(error)"
    }
}
