// The LMDB engine: the sensors model in LMDB's copy-on-write B+trees, the design Strata shares.
//
// Databases (one environment, file `bench.lmdb` + `bench.lmdb-lock`):
//   sensor     symbol (UTF-8)                         → head, next (UInt64 LE): list positions
//   reading    symbol, 0x00, position (UInt64 BE)     → value, seq, timestamp (24 bytes LE)
//   standalone seq (UInt64 BE)                         → value, seq, timestamp
// A sensor's list is its readings at positions head..<next, in key order (big-endian positions
// sort numerically); the window is trimmed by deleting the oldest keys and moving head.
//
// Durability, the same promise as the other engines:
//   full   → LMDB's default: every commit flushes (fdatasync of the data, then the meta page)
//   unsafe → MDB_NOSYNC: no flush at commit; a crash may lose recent commits, never corrupts
//   memory → LMDB has no in-memory mode: the store is a file on tmpfs (/dev/shm) with MDB_NOSYNC,
//            so nothing reaches a disk; removed at close, and its bytes are not reported as a file
// Encryption: LMDB has none; `Engines.supports` says so and the runner skips those cases with a note.

import Foundation

extension EngineKind {
    public static let lmdb = EngineKind(registering: "lmdb")
}

/// LMDB through liblmdb loaded at run time. Thread-safe: every handle runs its transactions
/// through the shared `LMDBEnvironment`.
public final class LMDBEngine: RegisteredEngine {
    public static let kind = EngineKind.lmdb
    public static let summary = "LMDB (liblmdb, loaded at run time): the raw-storage reference"
    public static let role = EngineRole.peer
    public static let colour = "#2ca02c"
    public static var unavailability: String? { LMDBLibrary.shared.failure?.description }
    public static let encryptionUnavailability: String? = "LMDB has no encryption"
    public static let reportNote = "lmdb = LMDB (liblmdb; full = flush per commit, unsafe = MDB_NOSYNC, memory = a file on tmpfs)"
    public static let promises: [Durability: DurabilityPromise] = [
        .full: DurabilityPromise(processDeath: .everything, powerLoss: .everything,
                                 source: "lmdb.tech/doc, mdb_env_open (default: every commit flushed; crash-proof)",
                                 abandonsCommitOnFailedFlush: "lmdb.tech/doc, mdb_txn_commit (the transaction is freed whatever the result) and LMDB's copy-on-write design (pages in use are never overwritten)"),
        .unsafe: DurabilityPromise(processDeath: .everything, powerLoss: DurabilityPromise.unflushed,
                                   source: "lmdb.tech/doc, mdb_env_open MDB_NOSYNC (a system crash may undo the last transactions or corrupt the database; an application crash does not)"),
    ]
    public let effectiveSettings: String
    /// The map the environment starts with; it doubles whenever a write meets MDB_MAP_FULL.
    static let initialMapSize = 64 << 20

    let environment: LMDBEnvironment
    private let inMemory: Bool

    /// Whether liblmdb can be loaded here (the reason when not).
    public static var availability: Result<Void, LibraryUnavailable> { LMDBLibrary.shared.map { _ in () } }

    public convenience init(_ configuration: EngineConfiguration) throws {
        try self.init(configuration, library: LMDBLibrary.shared, initialMapSize: Self.initialMapSize)
    }

    init(_ configuration: EngineConfiguration, library: Result<LMDBLibrary, LibraryUnavailable>, initialMapSize: Int) throws {
        let lib: LMDBLibrary
        switch library {
        case .success(let loaded): lib = loaded
        case .failure(let unavailable): throw unavailable.benchError
        }
        if configuration.encryptionKey != nil {
            throw BenchError(.unsupported, "LMDB has no encryption")
        }
        var flags = LMDBLibrary.noSubdirectory | LMDBLibrary.noThreadLocal
        let path: String
        switch configuration.durability {
        case .full:
            path = (configuration.directory as NSString).appendingPathComponent("bench.lmdb")
        case .unsafe:
            flags |= LMDBLibrary.noSync
            path = (configuration.directory as NSString).appendingPathComponent("bench.lmdb")
        case .memory:
            guard FileManager.default.fileExists(atPath: "/dev/shm") else {
                throw BenchError(.unsupported, "LMDB has no in-memory mode and /dev/shm (tmpfs) is missing")
            }
            flags |= LMDBLibrary.noSync
            path = "/dev/shm/strata-bench-lmdb-\(UUID().uuidString)"
        }
        inMemory = configuration.durability == .memory
        environment = try LMDBEnvironment(lib: lib, path: path, flags: flags, mapSize: initialMapSize)
        let effective = try environment.effectiveFlags()
        let sync = effective & LMDBLibrary.noSync != 0 ? "MDB_NOSYNC" : "commit"
        effectiveSettings = "store=\(inMemory ? "tmpfs" : "file");sync=\(sync);\(lib.versionString.split(separator: ":").first ?? "LMDB")"
    }

    public func makeWriter(placement: WriterPlacement) throws -> any SensorWriter {
        LMDBWriter(environment)
    }

    public func makeReader(placement: WriterPlacement) throws -> any SensorReader {
        LMDBReader(environment)
    }

    public func fileBytes() -> Int64? {
        guard !inMemory else { return nil }
        var total: Int64 = 0
        for suffix in ["", "-lock"] {
            var info = stat()
            if stat(environment.path + suffix, &info) == 0 { total += Int64(info.st_size) }
        }
        return total
    }

    /// Bytes and write calls from the process's /proc/self/io (as for SQLite); LMDB counts no
    /// pages or flushes of its own.
    public func work() -> EngineWork {
        guard !inMemory, let io = ProcessIO.current() else { return EngineWork() }
        return EngineWork(bytesWritten: io.bytesWritten, writeCalls: io.writeCalls)
    }

    public func compact() throws {
        guard !inMemory else { return }
        try environment.compact()
    }

    public func close() throws {
        environment.close()
        if inMemory {
            for suffix in ["", "-lock"] { try? FileManager.default.removeItem(atPath: environment.path + suffix) }
        }
    }
}

/// Writes in one LMDB write transaction per call.
final class LMDBWriter: SensorWriter {
    private let environment: LMDBEnvironment

    init(_ environment: LMDBEnvironment) {
        self.environment = environment
    }

    func createSensors(_ symbols: [String]) throws {
        try environment.write { txn in
            let tx = LMDBTransaction(environment: environment, txn: txn)
            for symbol in symbols {
                try tx.put(environment.sensors, Array(symbol.utf8), LMDBRecords.encodeSensor(head: 0, next: 0), noOverwrite: true)
            }
        }
    }

    func addReadings(sensor: String, readings: [SensorReading]) throws -> Int {
        try environment.write { txn in try append(LMDBTransaction(environment: environment, txn: txn), sensor, readings) }
    }

    func addReadings(batch: [(sensor: String, readings: [SensorReading])]) throws -> Int {
        try environment.write { txn in
            let tx = LMDBTransaction(environment: environment, txn: txn)
            var deleted = 0
            for group in batch where !group.readings.isEmpty {
                deleted += try append(tx, group.sensor, group.readings)
            }
            return deleted
        }
    }

    func insertStandalone(_ readings: [SensorReading]) throws {
        try environment.write { txn in
            let tx = LMDBTransaction(environment: environment, txn: txn)
            for reading in readings {
                try tx.put(environment.standalone, LMDBRecords.standaloneKey(reading.seq), LMDBRecords.encode(reading))
            }
        }
    }

    func deleteStandalone(seqBelow bound: Int64) throws -> Int {
        try environment.write { txn in
            var deleted = 0
            try LMDBTransaction(environment: environment, txn: txn).scan(environment.standalone, from: nil) { _, record in
                guard LMDBRecords.seq(of: record) < bound else { return .stop }
                deleted += 1
                return .deleteAndNext
            }
            return deleted
        }
    }

    func close() {}

    /// The book's `addReadings`: fetch the sensor by key, append at the list's end, delete the
    /// oldest keys beyond `SensorModel.keep`.
    private func append(_ tx: LMDBTransaction, _ sensor: String, _ readings: [SensorReading]) throws -> Int {
        let sensorKey = Array(sensor.utf8)
        guard let bounds = try tx.get(environment.sensors, sensorKey, { $0.flatMap(LMDBRecords.decodeSensor) }) else {
            throw BenchError(.engine, "no sensor '\(sensor)' in the LMDB store")
        }
        var (head, next) = bounds
        for reading in readings {
            try tx.put(environment.readings, LMDBRecords.readingKey(sensor, next), LMDBRecords.encode(reading))
            next += 1
        }
        var deleted = 0
        let live = Int(next - head)
        if live > SensorModel.keep {
            deleted = live - SensorModel.keep
            for position in head..<(head + UInt64(deleted)) {
                try tx.delete(environment.readings, LMDBRecords.readingKey(sensor, position))
            }
            head += UInt64(deleted)
        }
        try tx.put(environment.sensors, sensorKey, LMDBRecords.encodeSensor(head: head, next: next))
        return deleted
    }
}

/// Reads in a fresh read transaction per call; `pin()` keeps one open until `unpin()`, so the
/// writer cannot reuse the pages of that version (LMDB's pinned-version growth).
final class LMDBReader: SensorReader {
    private let environment: LMDBEnvironment
    private var pinned: LMDBLibrary.Txn?

    init(_ environment: LMDBEnvironment) {
        self.environment = environment
    }

    func stats() throws -> StoreStats {
        try environment.read { txn in
            let tx = LMDBTransaction(environment: environment, txn: txn)
            let readings = try tx.entries(environment.readings) + tx.entries(environment.standalone)
            var symbols: [String] = []
            try tx.scan(environment.sensors, from: nil) { key, _ in
                symbols.append(String(decoding: UnsafeRawBufferPointer(start: key.data, count: key.size), as: UTF8.self))
                return .next
            }
            var averages: [String: Double?] = [:]
            for symbol in symbols {
                // The list holds at most `SensorModel.keep` readings: its average is the latest 10,000's.
                var sum = 0.0
                var count = 0
                try scanList(tx, symbol) { record in
                    sum += LMDBRecords.value(of: record)
                    count += 1
                }
                averages[symbol] = count == 0 ? .some(nil) : sum / Double(count)
            }
            return StoreStats(readings: readings, sensors: symbols.count, averages: averages)
        }
    }

    func sequences(sensor: String) throws -> [Int64] {
        try environment.read { txn in
            var sequences: [Int64] = []
            try scanList(LMDBTransaction(environment: environment, txn: txn), sensor) { sequences.append(LMDBRecords.seq(of: $0)) }
            return sequences
        }
    }

    func readingCount(sensor: String) throws -> Int? {
        try environment.read { txn in
            try LMDBTransaction(environment: environment, txn: txn).get(environment.sensors, Array(sensor.utf8)) { record in
                record.flatMap(LMDBRecords.decodeSensor).map { Int($0.next - $0.head) }
            }
        }
    }

    func pin() throws {
        guard pinned == nil else { return }
        pinned = try environment.beginPinnedRead()
    }

    func unpin() {
        if let pinned { environment.endRead(pinned) }
        pinned = nil
    }

    func close() {
        unpin()
    }

    /// Each reading record of `symbol`'s list, in list order.
    private func scanList(_ tx: LMDBTransaction, _ symbol: String, _ body: (MDBVal) -> Void) throws {
        let prefix = LMDBRecords.readingPrefix(symbol)
        try tx.scan(environment.readings, from: prefix) { key, record in
            guard LMDBTransaction.has(key, prefix: prefix) else { return .stop }
            // Read in place: a record of another size (a damaged store the stress checker opens)
            // must be an error, not a read past its end.
            guard record.size == 24, record.data != nil else {
                throw BenchError(.engine, "LMDB reading of '\(symbol)' has a \(record.size)-byte record (24 expected)", path: environment.path)
            }
            body(record)
            return .next
        }
    }
}

// MARK: - Stress checks

extension LMDBEngine {
    /// LMDB has no integrity check of its own: this reads every key and value of the three
    /// databases through a cursor in one read transaction (every page on the way is touched),
    /// and checks each record's shape and that each sensor's window head..<next is exactly the
    /// positions its readings have.
    public func integrityProblems() throws -> [String] {
        try environment.read { txn in
            let tx = LMDBTransaction(environment: environment, txn: txn)
            var problems: [String] = []
            var windows: [String: (head: UInt64, next: UInt64)] = [:]
            try tx.scan(environment.sensors, from: nil) { key, record in
                let symbol = LMDBEngine.text(key)
                if let window = LMDBRecords.decodeSensor(record), window.head <= window.next {
                    windows[symbol] = window
                } else {
                    problems.append("sensor '\(symbol)': a \(record.size)-byte record is not a list window")
                }
                return .next
            }
            var positions: [String: [UInt64]] = [:]
            var checksum: UInt64 = 0
            try tx.scan(environment.readings, from: nil) { key, record in
                checksum &+= LMDBEngine.sum(key) &+ LMDBEngine.sum(record)
                guard key.size > 9, let bytes = key.data, bytes.load(fromByteOffset: key.size - 9, as: UInt8.self) == 0 else {
                    problems.append("reading key of \(key.size) bytes has no 'symbol, 0, position' shape")
                    return .next
                }
                let symbol = String(decoding: UnsafeRawBufferPointer(start: bytes, count: key.size - 9), as: UTF8.self)
                let position = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: key.size - 8, as: UInt64.self))
                if record.size != 24 { problems.append("reading \(symbol)#\(position): a \(record.size)-byte record (24 expected)") }
                positions[symbol, default: []].append(position)
                return .next
            }
            try tx.scan(environment.standalone, from: nil) { key, record in
                checksum &+= LMDBEngine.sum(key) &+ LMDBEngine.sum(record)
                if key.size != 8 || record.size != 24 { problems.append("standalone record: \(key.size)-byte key, \(record.size)-byte value") }
                return .next
            }
            for (symbol, window) in windows where (positions[symbol] ?? []) != Array(window.head..<window.next) {
                let found = positions[symbol] ?? []
                problems.append("sensor '\(symbol)': window \(window.head)..<\(window.next) but \(found.count) readings at positions \(found.first.map(String.init) ?? "-")...\(found.last.map(String.init) ?? "-")")
            }
            for symbol in positions.keys where windows[symbol] == nil {
                problems.append("readings of '\(symbol)', which has no sensor record")
            }
            _ = checksum  // the sum only makes sure every byte was read
            return problems
        }
    }

    private static func text(_ value: MDBVal) -> String {
        String(decoding: UnsafeRawBufferPointer(start: value.data, count: value.size), as: UTF8.self)
    }

    private static func sum(_ value: MDBVal) -> UInt64 {
        UnsafeRawBufferPointer(start: value.data, count: value.size).reduce(0) { $0 &+ UInt64($1) }
    }
}

extension LMDBReader {
    func sensors() throws -> [String] {
        try environment.read { txn in
            var symbols: [String] = []
            try LMDBTransaction(environment: environment, txn: txn).scan(environment.sensors, from: nil) { key, _ in
                symbols.append(String(decoding: UnsafeRawBufferPointer(start: key.data, count: key.size), as: UTF8.self))
                return .next
            }
            return symbols
        }
    }
}
