// The run history: every run's rows in one SQLite database (through GRDB), so that a metric can be
// followed across revisions.
//
// Invariants:
// - A file is opened only if it is absent, empty, or a SQLite database that strata-bench wrote
//   (its `application_id` is `HistorySchema.applicationID`) with a schema this build knows and
//   that passes `quick_check`. Anything else is `BenchError(.invalidHistory)` and the file is
//   left as it was: it is checked read-only before anything is written.
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
    let pool: DatabasePool

    /// Opens (creating if absent) the history at `path`.
    public init(path: String) throws {
        self.path = path
        try HistoryStore.checkExisting(path)
        do {
            try FileManager.default.createDirectory(atPath: OutputFiles.parentDirectory(path), withIntermediateDirectories: true)
        } catch {
            throw BenchError(.io, "cannot create the history's directory: \(OutputFiles.reason(error))", path: path)
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(HistoryStore.busyTimeout)
        configuration.foreignKeysEnabled = true
        pool = try HistoryStore.openPool(path: path, configuration: configuration)
        do {
            try HistorySchema.migrator.migrate(pool)
        } catch {
            // Another process may have applied the same migration between our check and our
            // write (the migrator reads what is applied outside its transaction): then the
            // schema is complete and nothing is wrong.
            let complete = (try? pool.read { try HistorySchema.migrator.hasCompletedMigrations($0) }) ?? false
            if !complete {
                throw BenchError(.invalidHistory, "cannot set up the history schema: \(HistoryStore.describe(error))", path: path)
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
                for index in record.table.rows.indices {
                    let row = record.table.record(index)
                    try db.execute(sql: """
                        INSERT INTO results (run_id, row_index, case_key, workload, engine, strategy, encryption,
                                             durability, repetition, cells)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [runID, index, CaseKey.make(row: row), row["workload"], row["engine"],
                                         row["strategy"], row["encryption"], row["durability"],
                                         DecimalText.integer(row["repetition"] ?? ""), CSVWriter.line(record.table.rows[index])])
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
            try Row.fetchAll($0, sql: "SELECT id, run_time, revision, host, suite, cases, row_count, source FROM runs ORDER BY run_time, id")
                .map { RunSummary(id: $0["id"], time: $0["run_time"], revision: $0["revision"], host: $0["host"],
                                  suite: $0["suite"], cases: $0["cases"], rows: $0["row_count"], source: $0["source"]) }
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
                Observation(caseKey: $0[0], runID: $0[1], runTime: $0[2], revision: $0[3], host: $0[4], value: $0[5])
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

    // MARK: - Checking a file before writing to it

    static let sqliteMagic = Array("SQLite format 3\u{0}".utf8)

    /// Throws unless `path` is absent, empty, or a sound history of a schema this build knows.
    static func checkExisting(_ path: String) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if let kind = OutputFiles.nonRegularKind(path) {
            throw BenchError(.invalidHistory, "\(kind), not a history database", path: path)
        }
        guard status.st_size > 0 else { return }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw BenchError(.io, "cannot read the history database", path: path)
        }
        let head = (try? handle.read(upToCount: sqliteMagic.count)) ?? Data()
        try? handle.close()
        guard Array(head) == sqliteMagic else {
            throw BenchError(.invalidHistory, "not a SQLite database, so not a strata-bench history (left untouched)", path: path)
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            try queue.read { db in
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                guard check == ["ok"] else {
                    throw BenchError(.invalidHistory, "damaged: \(check.prefix(3).joined(separator: "; ")) (left untouched)", path: path)
                }
                let application = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                if application == 0 && tables.isEmpty { return }
                // Another process is creating this history right now: its migrator commits the
                // empty table of applied migrations before the first migration (which sets the
                // application id). Nothing else can have written exactly that; the migrator here
                // waits for the other one and finds the schema complete.
                if application == 0 && tables == ["grdb_migrations"],
                   try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") == 0 {
                    return
                }
                guard application == HistorySchema.applicationID else {
                    throw BenchError(.invalidHistory, "a SQLite database that strata-bench did not write (tables: \(tables.prefix(5).joined(separator: ", "))); left untouched", path: path)
                }
                if try HistorySchema.migrator.hasBeenSuperseded(db) {
                    throw BenchError(.invalidHistory, "written by a newer strata-bench (schema \(try HistorySchema.migrator.appliedIdentifiers(db).sorted().joined(separator: ", "))); left untouched", path: path)
                }
            }
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError(.invalidHistory, "damaged or unreadable: \(describe(error)) (left untouched)", path: path)
        }
    }

    static func describe(_ error: Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? "\(error.resultCode)"
        }
        return "\(error)"
    }
}
