// The SQLite engine, through GRDB: the peer a Swift user would otherwise pick.
//
// Schema and statements: `SensorSQL` (shared with the SQLCipher engine).
//
// Durability, the same promise as Strata's (`Durability`):
//   full   → DatabasePool (WAL), PRAGMA synchronous=FULL on the writer
//   unsafe → DatabasePool (WAL), PRAGMA synchronous=OFF on the writer
//   memory → DatabaseQueue on `:memory:`
// GRDB's DatabasePool sets synchronous=NORMAL on its writer AFTER `prepareDatabase` runs, so the
// level is set on the writer after opening and read back into `effectiveSettings` (the CSV row
// shows what SQLite actually used, not what was asked).
//
// Busy handling: the writer waits up to `writerBusyTimeout` for SQLite's write lock instead of
// failing at once (GRDB's default for writers). In WAL mode a *reader* may take that lock for a
// moment: when it finds the wal-index header changing under it, SQLite's `walIndexReadHdr` takes
// WAL_WRITE_LOCK to read it again. With a reader querying back to back (read-while-write), a
// writer's `BEGIN IMMEDIATE` then met SQLITE_BUSY once in a CI run and the case lost a reading.
// A real application configures a busy timeout; the wait is counted in the commit's latency.
//
// Encryption: this build's SQLite has none; `Engines.supports` says so and the runner skips
// those cases with a note instead of faking them.

import Foundation
import CStrataBenchCounters
import GRDB
// SQLite's C API (sqlite3_db_status), through the system-library module GRDB links.
import GRDBSQLite

extension EngineKind {
    public static let sqlite = EngineKind(registering: "sqlite")
}

/// SQLite through GRDB. Thread-safe: GRDB serialises writes on its writer queue and gives each
/// read its own connection and transaction.
public final class SQLiteEngine: RegisteredEngine {
    public static let kind = EngineKind.sqlite
    public static let summary = "SQLite through GRDB (WAL), the store a Swift developer would otherwise pick"
    public static let role = EngineRole.builtIn
    public static let colour = "#ff7f0e"
    public static let unavailability: String? = nil
    public static let encryptionUnavailability: String? = "this build's SQLite has no encryption (SQLCipher is the engine sqlcipher)"
    public static let reportNote = "sqlite = SQLite through GRDB (WAL; full = synchronous=FULL, unsafe = synchronous=OFF, memory = :memory:)"
    public static let promises: [Durability: DurabilityPromise] = [
        .full: DurabilityPromise(processDeath: .everything, powerLoss: .everything,
                                 source: "sqlite.org/pragma.html#pragma_synchronous (WAL, synchronous=FULL: durable)",
                                 ignoresFailedDirectoryFlush: SQLiteEngine.directoryFlushErrors,
                                 abandonsCommitOnFailedFlush: SQLiteEngine.failedWALSync),
        .unsafe: DurabilityPromise(processDeath: .everything, powerLoss: DurabilityPromise.unflushed,
                                   source: "sqlite.org/pragma.html#pragma_synchronous (OFF: safe if the application crashes; OS crash or power loss may corrupt)"),
    ]

    /// Why another connection's commit acknowledged after one whose WAL sync failed is safe.
    static let failedWALSync = "SQLite's src/wal.c, sqlite3WalFrames (the wal-index, what readers and the next writer see, "
        + "is appended only when the commit's sync succeeded: a commit whose sync failed is never published, and the next "
        + "writer's frames overwrite it)"

    /// SQLite's own words on the flush of a new file's directory, which `stress --scenario
    /// io-error` meets: a failure there is not reported, the commits go on.
    static let directoryFlushErrors = "SQLite's src/os_unix.c, unixSync: \"Many systems (examples: AIX) are unable to fsync a directory, so ignore errors on the fsync\""
    /// How long a write waits for SQLite's write lock before it fails with SQLITE_BUSY.
    static let writerBusyTimeout: TimeInterval = 10
    public let effectiveSettings: String

    private let writer: any DatabaseWriter
    /// Non-nil for file stores (WAL); pinned readers need it for snapshots.
    private let pool: DatabasePool?
    private let databasePath: String?

    public init(_ configuration: EngineConfiguration) throws {
        if configuration.encryptionKey != nil {
            throw BenchError(.unsupported, "SQLite has no encryption in this build (no SQLCipher)")
        }
        do {
            switch configuration.durability {
            case .memory:
                let queue = try DatabaseQueue()
                writer = queue
                pool = nil
                databasePath = nil
                effectiveSettings = "memory"
            case .full, .unsafe:
                // Flushes are counted by a VFS wrapping the default one (CStrataBenchCounters),
                // which must be the default before the pool opens its connections.
                let vfs = strata_bench_sqlite_count_syncs()
                if vfs != SQLITE_OK {
                    throw BenchError(.engine, "cannot register the flush-counting SQLite VFS (code \(vfs))")
                }
                let path = (configuration.directory as NSString).appendingPathComponent("bench.sqlite")
                var grdb = GRDB.Configuration()
                grdb.busyMode = .timeout(Self.writerBusyTimeout)
                let pool = try DatabasePool(path: path, configuration: grdb)
                let wanted = configuration.durability == .full ? "FULL" : "OFF"
                let (journal, synchronous) = try pool.writeWithoutTransaction { db -> (String, Int) in
                    try db.execute(sql: "PRAGMA synchronous = \(wanted)")
                    let journal = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?"
                    let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
                    return (journal, synchronous)
                }
                let names = [0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"]
                let syncName = names[synchronous] ?? String(synchronous)
                // DatabasePool switches to WAL on open; a failed switch (an I/O error on the
                // rollback journal, which stress io-error injects) leaves SQLite in rollback mode
                // without an error, where a commit's durability rests on an unflushed unlink.
                if journal.lowercased() != "wal" {
                    throw BenchError(.engine, "SQLite is in journal_mode=\(journal) after opening a DatabasePool (expected wal)", path: path)
                }
                if syncName != wanted {
                    throw BenchError(.engine, "SQLite kept synchronous=\(syncName) after asking for \(wanted)", path: path)
                }
                writer = pool
                self.pool = pool
                databasePath = path
                effectiveSettings = "journal_mode=\(journal);synchronous=\(syncName)"
            }
            try writer.write { db in
                try db.execute(sql: SensorSQL.schema)
            }
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError(.engine, "SQLite open failed: \(error)", path: configuration.directory)
        }
    }

    public func makeWriter(placement: WriterPlacement) throws -> any SensorWriter {
        SQLiteWriter(writer: writer)
    }

    public func makeReader(placement: WriterPlacement) throws -> any SensorReader {
        SQLiteReader(reader: writer, pool: pool)
    }

    public func fileBytes() -> Int64? {
        guard let databasePath else { return nil }
        var total: Int64 = 0
        for suffix in ["", "-wal"] {
            var info = stat()
            if stat(databasePath + suffix, &info) == 0 { total += Int64(info.st_size) }
        }
        return total
    }

    /// Pages from the writer connection's `SQLITE_DBSTATUS_CACHE_WRITE` (pages written into the
    /// WAL; one connection writes, whatever the strategy); bytes and write calls from the
    /// process's /proc/self/io; flushes = xSync calls through the counting VFS (every SQLite file
    /// of the process: WAL and database, checkpoints included). File stores only.
    public func work() -> EngineWork {
        var work = EngineWork()
        work.pagesWritten = try? writer.writeWithoutTransaction { db -> Int in
            var current: Int32 = 0
            var highWater: Int32 = 0
            guard sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_CACHE_WRITE, &current, &highWater, 0) == SQLITE_OK else {
                throw BenchError(.engine, "sqlite3_db_status(CACHE_WRITE) failed")
            }
            return Int(current)
        }
        if databasePath != nil, let io = ProcessIO.current() {
            work.bytesWritten = io.bytesWritten
            work.writeCalls = io.writeCalls
        }
        if databasePath != nil { work.flushes = Int(strata_bench_sqlite_syncs()) }
        return work
    }

    public func compact() throws {
        do {
            try writer.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM")
                if pool != nil { try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            }
        } catch {
            throw BenchError(.engine, "SQLite compaction failed: \(error)", path: databasePath)
        }
    }

    public func close() throws {
        do {
            try pool?.close()
            if let queue = writer as? DatabaseQueue { try queue.close() }
        } catch {
            throw BenchError(.engine, "SQLite close failed: \(error)", path: databasePath)
        }
    }
}

/// Writes through GRDB's writer. GRDB makes it safe anywhere; the harness still keeps it at its
/// placement so that SQLite and Strata runs exercise the same code paths.
final class SQLiteWriter: SensorWriter {
    private let writer: any DatabaseWriter

    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    func createSensors(_ symbols: [String]) throws {
        try run("create sensors") { db in
            for symbol in symbols {
                try db.execute(sql: SensorSQL.createSensor, arguments: [symbol])
            }
        }
    }

    func addReadings(sensor: String, readings: [SensorReading]) throws -> Int {
        try run("add readings") { db in try Self.append(db, sensor: sensor, readings: readings) }
    }

    func addReadings(batch: [(sensor: String, readings: [SensorReading])]) throws -> Int {
        try run("add readings (batch)") { db in
            var deleted = 0
            for group in batch where !group.readings.isEmpty {
                deleted += try Self.append(db, sensor: group.sensor, readings: group.readings)
            }
            return deleted
        }
    }

    func insertStandalone(_ readings: [SensorReading]) throws {
        try run("insert standalone readings") { db in
            let insert = try db.cachedStatement(sql: SensorSQL.insertStandalone)
            for reading in readings {
                try insert.execute(arguments: [reading.value, reading.seq, reading.timestamp])
            }
        }
    }

    func deleteStandalone(seqBelow bound: Int64) throws -> Int {
        try run("delete standalone readings") { db in
            try db.execute(sql: SensorSQL.deleteStandalone, arguments: [bound])
            return db.changesCount
        }
    }

    func close() {}

    /// The book's `addReadings`: fetch the sensor by key, append, trim to `SensorModel.keep`.
    private static func append(_ db: Database, sensor: String, readings: [SensorReading]) throws -> Int {
        let fetch = try db.cachedStatement(sql: SensorSQL.sensorLive)
        guard let live = try Int.fetchOne(fetch, arguments: [sensor]) else {
            throw BenchError(.engine, "no sensor '\(sensor)' in the SQLite store")
        }
        let insert = try db.cachedStatement(sql: SensorSQL.insertReading)
        for reading in readings {
            try insert.execute(arguments: [sensor, reading.value, reading.seq, reading.timestamp])
        }
        var count = live + readings.count
        var deleted = 0
        if count > SensorModel.keep {
            let trim = try db.cachedStatement(sql: SensorSQL.trimOldest)
            try trim.execute(arguments: [sensor, count - SensorModel.keep])
            deleted = db.changesCount
            count -= deleted
        }
        let update = try db.cachedStatement(sql: SensorSQL.updateLive)
        try update.execute(arguments: [count, sensor])
        return deleted
    }

    private func run<T>(_ what: String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try writer.write(body)
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError(.engine, "SQLite \(what) failed: \(error)")
        }
    }
}

/// Reads with a fresh transaction per call; `pin()` holds a `DatabaseSnapshot`, i.e. an open
/// read transaction that keeps the WAL from being reset (SQLite's pinned-version growth).
final class SQLiteReader: SensorReader {
    private let reader: any DatabaseReader
    private let pool: DatabasePool?
    private var snapshot: DatabaseSnapshot?

    init(reader: any DatabaseReader, pool: DatabasePool?) {
        self.reader = reader
        self.pool = pool
    }

    func stats() throws -> StoreStats {
        try run("stats") { db in
            let readings = try Int.fetchOne(db, sql: SensorSQL.countReadings) ?? 0
            let sensors = try Int.fetchOne(db, sql: SensorSQL.countSensors) ?? 0
            var averages: [String: Double?] = [:]
            let average = try db.cachedStatement(sql: SensorSQL.averageOfLatest)
            for symbol in try String.fetchAll(db, sql: SensorSQL.symbols) {
                averages[symbol] = try Double.fetchOne(average, arguments: [symbol, SensorModel.keep])
            }
            return StoreStats(readings: readings, sensors: sensors, averages: averages)
        }
    }

    func sequences(sensor: String) throws -> [Int64] {
        try run("sequences") { db in
            try Int64.fetchAll(db, sql: SensorSQL.sequences, arguments: [sensor])
        }
    }

    func readingCount(sensor: String) throws -> Int? {
        try run("lookup") { db in
            try Int.fetchOne(db.cachedStatement(sql: SensorSQL.sensorLive), arguments: [sensor])
        }
    }

    func pin() throws {
        guard let pool, snapshot == nil else { return }
        do {
            let snapshot = try pool.makeSnapshot()
            // Reading through it starts the read transaction that pins the WAL.
            _ = try snapshot.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sensor") }
            self.snapshot = snapshot
        } catch {
            throw BenchError(.engine, "SQLite pin failed: \(error)")
        }
    }

    func unpin() {
        snapshot = nil
    }

    func close() {
        snapshot = nil
    }

    private func run<T>(_ what: String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try reader.read(body)
        } catch {
            throw BenchError(.engine, "SQLite \(what) failed: \(error)")
        }
    }
}

// MARK: - Stress checks

extension SQLiteEngine {
    /// `PRAGMA integrity_check`: every row it returns but its single "ok".
    public func integrityProblems() throws -> [String] {
        do {
            let rows = try writer.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            return rows == ["ok"] ? [] : rows
        } catch {
            throw BenchError(.engine, "SQLite integrity_check failed: \(error)", path: databasePath)
        }
    }
}

extension SQLiteReader {
    func sensors() throws -> [String] {
        try run("sensors") { db in try String.fetchAll(db, sql: SensorSQL.symbols) }
    }
}
