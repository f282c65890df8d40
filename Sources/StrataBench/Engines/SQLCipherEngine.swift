// The SQLCipher engine: the SQLite engine's schema and statements (`SensorSQL`) through
// SQLCipher's C API, loaded at run time (`SQLCipherLibrary`: its symbols stay its own, apart from
// the system SQLite that GRDB links into the same process).
//
// Durability, as for the SQLite engine:
//   full   → WAL, PRAGMA synchronous=FULL      unsafe → WAL, PRAGMA synchronous=OFF
//   memory → `:memory:` (one connection, shared by the writer and the readers under the lock)
// Both are read back into `effectiveSettings`, with `PRAGMA cipher_version` (answered only by
// SQLCipher) and whether a key is set.
//
// Encryption: with a key, SQLCipher's page codec (AES-256-CBC + HMAC-SHA1 per page in 3.4) on
// every page of the database and the WAL; without one, the same library with no codec, so the
// `encryption` workload's on/off ratio is the codec's cost alone.
//
// Connections: one writer connection for the store, serialised by `writeLock` (every writer
// handle shares it, as GRDB's writer queue does); one connection per reader handle, opened at its
// placement, so a reader's transaction (`pin()`) is its own.

import Foundation

extension EngineKind {
    public static let sqlcipher = EngineKind(registering: "sqlcipher")
}

public final class SQLCipherEngine: RegisteredEngine, @unchecked Sendable {
    public static let kind = EngineKind.sqlcipher
    public static let summary = "SQLCipher, encrypted SQLite (libsqlcipher, loaded at run time)"
    public static let role = EngineRole.peer
    public static let colour = "#d62728"
    public static var unavailability: String? { SQLCipherLibrary.shared.failure?.description }
    public static let encryptionUnavailability: String? = nil
    public static let reportNote = "sqlcipher = SQLCipher (libsqlcipher, WAL) with the SQLite engine's statements; enc on = raw AES-256 key"
    public static let promises: [Durability: DurabilityPromise] = SQLiteEngine.promises.mapValues {
        DurabilityPromise(processDeath: $0.processDeath, powerLoss: $0.powerLoss,
                          source: "as SQLite (SQLCipher is SQLite's pager with a page codec): " + $0.source,
                          ignoresFailedDirectoryFlush: $0.ignoresFailedDirectoryFlush,
                          abandonsCommitOnFailedFlush: $0.abandonsCommitOnFailedFlush)
    }
    // @unchecked: `writer` is used only under `writeLock`.
    public let effectiveSettings: String
    /// How long a statement waits for SQLite's locks before SQLITE_BUSY (as the SQLite engine).
    static let busyTimeoutMs: Int32 = 10_000

    private let lib: SQLCipherLibrary
    var library: SQLCipherLibrary { lib }
    private let writer: SQLCipherConnection
    private let writeLock = NSLock()
    private let path: String?
    private let key: [UInt8]?

    /// Whether libsqlcipher can be loaded here (the reason when not).
    public static var availability: Result<Void, LibraryUnavailable> { SQLCipherLibrary.shared.map { _ in () } }

    public convenience init(_ configuration: EngineConfiguration) throws {
        try self.init(configuration, library: SQLCipherLibrary.shared)
    }

    init(_ configuration: EngineConfiguration, library: Result<SQLCipherLibrary, LibraryUnavailable>) throws {
        switch library {
        case .success(let loaded): lib = loaded
        case .failure(let unavailable): throw unavailable.benchError
        }
        key = configuration.encryptionKey
        let file = configuration.durability == .memory
            ? nil : (configuration.directory as NSString).appendingPathComponent("bench.sqlite")
        path = file
        writer = try SQLCipherConnection(lib: lib, path: file ?? ":memory:", key: key, busyTimeoutMs: Self.busyTimeoutMs)
        do {
            var settings: [String] = []
            if file != nil {
                let journal = try writer.text("PRAGMA journal_mode = WAL") ?? "?"
                let wanted = configuration.durability == .full ? "FULL" : "OFF"
                try writer.execute("PRAGMA synchronous = \(wanted)")
                let names: [Int64: String] = [0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"]
                let level = try writer.integer("PRAGMA synchronous") ?? -1
                let syncName = names[level] ?? String(level)
                if syncName != wanted {
                    throw BenchError(.engine, "SQLCipher kept synchronous=\(syncName) after asking for \(wanted)", path: file)
                }
                if journal != "wal" {
                    throw BenchError(.engine, "SQLCipher kept journal_mode=\(journal) after asking for WAL", path: file)
                }
                settings = ["journal_mode=\(journal)", "synchronous=\(syncName)"]
            } else {
                settings = ["memory"]
            }
            let cipher = try writer.text("PRAGMA cipher_version") ?? ""
            guard !cipher.isEmpty else {
                throw BenchError(.engine, "PRAGMA cipher_version is empty: \(SQLCipherLibrary.fileName) is not SQLCipher")
            }
            settings += ["encryption=\(key == nil ? "off" : "on")", "cipher_version=\(cipher)"]
            effectiveSettings = settings.joined(separator: ";")
            try writer.execute(SensorSQL.schema)
        } catch {
            writer.close()
            throw writer.translated(error)
        }
    }

    /// `PRAGMA cipher_version`, answered by the loaded SQLCipher (empty from a plain SQLite).
    public func cipherVersion() throws -> String? {
        try withWriter { try $0.text("PRAGMA cipher_version") }
    }

    /// `sqlite_version()` as SQLCipher's own SQLite reports it.
    public func sqliteVersion() throws -> String? {
        try withWriter { try $0.text("SELECT sqlite_version()") }
    }

    public func makeWriter(placement: WriterPlacement) throws -> any SensorWriter {
        SQLCipherWriter(engine: self)
    }

    public func makeReader(placement: WriterPlacement) throws -> any SensorReader {
        // In memory there is one database: the readers use the writer's connection.
        guard let path else { return SQLCipherReader(engine: self, connection: nil) }
        return SQLCipherReader(engine: self, connection: try SQLCipherConnection(lib: lib, path: path, key: key,
                                                                                 busyTimeoutMs: Self.busyTimeoutMs))
    }

    public func fileBytes() -> Int64? {
        guard let path else { return nil }
        var total: Int64 = 0
        for suffix in ["", "-wal"] {
            var info = stat()
            if stat(path + suffix, &info) == 0 { total += Int64(info.st_size) }
        }
        return total
    }

    /// Bytes and write calls from the process's /proc/self/io; SQLCipher's flushes are not
    /// counted (the flush-counting VFS wraps the system SQLite only).
    public func work() -> EngineWork {
        guard path != nil, let io = ProcessIO.current() else { return EngineWork() }
        return EngineWork(bytesWritten: io.bytesWritten, writeCalls: io.writeCalls)
    }

    public func compact() throws {
        try withWriter { connection in
            try connection.execute("VACUUM")
            if path != nil { try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        }
    }

    public func close() throws {
        writeLock.withLock { writer.close() }
    }

    /// Runs `body` with the writer connection, alone.
    func withWriter<T>(_ body: (SQLCipherConnection) throws -> T) throws -> T {
        try writeLock.withLock {
            do {
                return try body(writer)
            } catch {
                throw writer.translated(error)
            }
        }
    }

    /// Runs `body` in one write transaction (BEGIN IMMEDIATE … COMMIT), rolled back if it throws.
    func transaction<T>(_ body: (SQLCipherConnection) throws -> T) throws -> T {
        try withWriter { connection in
            try connection.execute("BEGIN IMMEDIATE")
            do {
                let value = try body(connection)
                try connection.execute("COMMIT")
                return value
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }
}

/// Writes through the engine's writer connection, one transaction per call.
final class SQLCipherWriter: SensorWriter {
    private let engine: SQLCipherEngine

    init(engine: SQLCipherEngine) {
        self.engine = engine
    }

    func createSensors(_ symbols: [String]) throws {
        try engine.transaction { db in
            for symbol in symbols { try db.run(SensorSQL.createSensor, [.text(symbol)]) }
        }
    }

    func addReadings(sensor: String, readings: [SensorReading]) throws -> Int {
        try engine.transaction { db in try Self.append(db, sensor: sensor, readings: readings) }
    }

    func addReadings(batch: [(sensor: String, readings: [SensorReading])]) throws -> Int {
        try engine.transaction { db in
            var deleted = 0
            for group in batch where !group.readings.isEmpty {
                deleted += try Self.append(db, sensor: group.sensor, readings: group.readings)
            }
            return deleted
        }
    }

    func insertStandalone(_ readings: [SensorReading]) throws {
        try engine.transaction { db in
            for reading in readings {
                try db.run(SensorSQL.insertStandalone, [.double(reading.value), .int(reading.seq), .double(reading.timestamp)])
            }
        }
    }

    func deleteStandalone(seqBelow bound: Int64) throws -> Int {
        try engine.transaction { db in try db.run(SensorSQL.deleteStandalone, [.int(bound)]) }
    }

    func close() {}

    /// The book's `addReadings`, in the SQLite engine's statements.
    private static func append(_ db: SQLCipherConnection, sensor: String, readings: [SensorReading]) throws -> Int {
        guard let live = try db.integer(SensorSQL.sensorLive, [.text(sensor)]) else {
            throw BenchError(.engine, "no sensor '\(sensor)' in the SQLCipher store")
        }
        for reading in readings {
            try db.run(SensorSQL.insertReading, [.text(sensor), .double(reading.value), .int(reading.seq), .double(reading.timestamp)])
        }
        var count = Int(live) + readings.count
        var deleted = 0
        if count > SensorModel.keep {
            deleted = try db.run(SensorSQL.trimOldest, [.text(sensor), .int(Int64(count - SensorModel.keep))])
            count -= deleted
        }
        try db.run(SensorSQL.updateLive, [.int(Int64(count)), .text(sensor)])
        return deleted
    }
}

/// Reads on its own connection (the writer's in memory); `pin()` opens a read transaction that
/// stays open until `unpin()`, which keeps the WAL from being reset (pinned-version growth).
final class SQLCipherReader: SensorReader {
    private let engine: SQLCipherEngine
    private var connection: SQLCipherConnection?
    private var pinned = false

    init(engine: SQLCipherEngine, connection: SQLCipherConnection?) {
        self.engine = engine
        self.connection = connection
    }

    func stats() throws -> StoreStats {
        try read { db in
            let readings = Int(try db.integer(SensorSQL.countReadings) ?? 0)
            let sensors = Int(try db.integer(SensorSQL.countSensors) ?? 0)
            var symbols: [String] = []
            try db.rows(SensorSQL.symbols, []) { statement in
                if let text = engine.library.columnText(statement, 0) { symbols.append(String(cString: text)) }
            }
            var averages: [String: Double?] = [:]
            for symbol in symbols {
                averages[symbol] = try db.double(SensorSQL.averageOfLatest, [.text(symbol), .int(Int64(SensorModel.keep))])
            }
            return StoreStats(readings: readings, sensors: sensors, averages: averages)
        }
    }

    func sequences(sensor: String) throws -> [Int64] {
        try read { db in
            var sequences: [Int64] = []
            try db.rows(SensorSQL.sequences, [.text(sensor)]) { sequences.append(engine.library.columnInt64($0, 0)) }
            return sequences
        }
    }

    func readingCount(sensor: String) throws -> Int? {
        try read { db in try db.integer(SensorSQL.sensorLive, [.text(sensor)]).map(Int.init) }
    }

    func pin() throws {
        guard let connection, !pinned else { return }
        do {
            try connection.execute("BEGIN")
            // The first read starts the transaction's snapshot.
            _ = try connection.integer(SensorSQL.countSensors)
            pinned = true
        } catch {
            try? connection.execute("ROLLBACK")
            throw connection.translated(error)
        }
    }

    func unpin() {
        guard pinned, let connection else { return }
        try? connection.execute("ROLLBACK")
        pinned = false
    }

    func close() {
        unpin()
        connection?.close()
        connection = nil
    }

    /// One read transaction on this reader's connection (inside the pinned one when pinned).
    private func read<T>(_ body: (SQLCipherConnection) throws -> T) throws -> T {
        guard let connection else { return try engine.withWriter(body) }
        do {
            if pinned { return try body(connection) }
            try connection.execute("BEGIN")
            defer { try? connection.execute("COMMIT") }
            return try body(connection)
        } catch {
            throw connection.translated(error)
        }
    }
}

// MARK: - Stress checks

extension SQLCipherEngine {
    /// `PRAGMA integrity_check` on the writer connection (with the key, so every page is
    /// decrypted and its HMAC checked): every row it returns but its single "ok".
    public func integrityProblems() throws -> [String] {
        try withWriter { connection in
            var rows: [String] = []
            try connection.rows("PRAGMA integrity_check", []) { statement in
                rows.append(library.columnText(statement, 0).map { String(cString: $0) } ?? "")
            }
            return rows == ["ok"] ? [] : rows
        }
    }
}

extension SQLCipherReader {
    func sensors() throws -> [String] {
        try read { db in
            var symbols: [String] = []
            try db.rows(SensorSQL.symbols, []) { statement in
                if let text = engine.library.columnText(statement, 0) { symbols.append(String(cString: text)) }
            }
            return symbols
        }
    }
}
