// SQLCipher's read store: `ReadSQL`'s statements through the SQLCipher connection (prepared once
// per connection), each query a statement in autocommit mode (its own read transaction). In
// memory there is one database, so queries share the writer's connection under its lock.

import Foundation

extension SQLCipherEngine: ReadableEngine {
    public static func openReadStore(_ configuration: EngineConfiguration) throws -> any ReadStore {
        switch SQLCipherLibrary.shared {
        case .success(let lib): return try SQLCipherReadStore(configuration, lib: lib)
        case .failure(let unavailable): throw unavailable.benchError
        }
    }
}

/// `@unchecked Sendable`: `writer` is used only under `lock`.
final class SQLCipherReadStore: CompactableReadStore, @unchecked Sendable {
    let effectiveSettings: String
    private let lib: SQLCipherLibrary
    private let writer: SQLCipherConnection
    private let lock = NSLock()
    private let path: String?
    private let key: [UInt8]?

    init(_ configuration: EngineConfiguration, lib: SQLCipherLibrary) throws {
        self.lib = lib
        key = configuration.encryptionKey
        path = configuration.durability == .memory
            ? nil : (configuration.directory as NSString).appendingPathComponent("reads.sqlite")
        writer = try SQLCipherConnection(lib: lib, path: path ?? ":memory:", key: key, busyTimeoutMs: SQLCipherEngine.busyTimeoutMs)
        do {
            var settings = ["memory"]
            if path != nil {
                let journal = try writer.text("PRAGMA journal_mode = WAL") ?? "?"
                try writer.execute("PRAGMA synchronous = \(configuration.durability == .full ? "FULL" : "OFF")")
                let level = try writer.integer("PRAGMA synchronous") ?? -1
                settings = ["journal_mode=\(journal)", "synchronous=\([0: "OFF", 1: "NORMAL", 2: "FULL"][level] ?? String(level))"]
            }
            settings.append("encryption=\(key == nil ? "off" : "on")")
            effectiveSettings = settings.joined(separator: ";")
            try writer.execute(ReadSQL.schema)
        } catch {
            writer.close()
            throw writer.translated(error)
        }
    }

    func withWriter<T>(_ body: (SQLCipherConnection) throws -> T) throws -> T {
        try lock.withLock {
            do {
                return try body(writer)
            } catch {
                throw writer.translated(error)
            }
        }
    }

    func insert(_ samples: [ReadSample]) throws {
        try withWriter { db in
            try db.execute("BEGIN IMMEDIATE")
            do {
                var created = Set<Int>()
                for sample in samples {
                    let symbol = ReadDataset.sensors[sample.sensor]
                    if created.insert(sample.sensor).inserted { try db.run(ReadSQL.createSensor, [.text(symbol)]) }
                    try db.run(ReadSQL.insert, [.int(sample.id), .text(symbol), .double(sample.value), .int(sample.seq),
                                                .double(sample.timestamp)])
                }
                try db.execute("COMMIT")
            } catch {
                try? db.execute("ROLLBACK")
                throw error
            }
        }
    }

    func makeQueries() throws -> any ReadQueries {
        guard let path else { return SQLCipherReadQueries(store: self, connection: nil) }
        return SQLCipherReadQueries(store: self, connection: try SQLCipherConnection(
            lib: lib, path: path, key: key, busyTimeoutMs: SQLCipherEngine.busyTimeoutMs))
    }

    func fileBytes() -> Int64? {
        guard let path else { return nil }
        return FileSizes.total(prefix: path)
    }

    func compact() throws {
        try withWriter { db in try db.execute("VACUUM") }
    }

    func close() throws {
        lock.withLock { writer.close() }
    }
}

final class SQLCipherReadQueries: ReadQueries {
    private let store: SQLCipherReadStore
    private var connection: SQLCipherConnection?

    init(store: SQLCipherReadStore, connection: SQLCipherConnection?) {
        self.store = store
        self.connection = connection
    }

    private func read<T>(_ body: (SQLCipherConnection) throws -> T) throws -> T {
        guard let connection else { return try store.withWriter(body) }
        do {
            return try body(connection)
        } catch {
            throw connection.translated(error)
        }
    }

    func iterateValues() throws -> Double {
        try read { db in
            var sum = 0.0
            try db.rows(ReadSQL.values, []) { sum += db.lib.columnDouble($0, 0) }
            return sum
        }
    }

    func iterateAll() throws -> ReadTotals {
        try read { db in
            var totals = ReadTotals()
            try db.rows(ReadSQL.all, []) { row in
                _ = db.lib.columnInt64(row, 0)
                totals.add(value: db.lib.columnDouble(row, 1), seq: db.lib.columnInt64(row, 2),
                           timestamp: db.lib.columnDouble(row, 3))
            }
            return totals
        }
    }

    func sum() throws -> Double { try read { try $0.double(ReadSQL.sum) } ?? 0 }
    func average() throws -> Double? { try read { try $0.double(ReadSQL.average) } }
    func min() throws -> Double? { try read { try $0.double(ReadSQL.min) } }
    func max() throws -> Double? { try read { try $0.double(ReadSQL.max) } }

    func count(valueAbove threshold: Double) throws -> Int {
        Int(try read { try $0.integer(ReadSQL.countAbove, [.double(threshold)]) } ?? 0)
    }

    func topIds(limit: Int) throws -> [Int64] {
        try read { db in
            var ids: [Int64] = []
            try db.rows(ReadSQL.top, [.int(Int64(limit))]) { ids.append(db.lib.columnInt64($0, 0)) }
            return ids
        }
    }

    func value(id: Int64) throws -> Double? { try read { try $0.double(ReadSQL.byId, [.int(id)]) } }

    func count(seq: Int64) throws -> Int {
        Int(try read { try $0.integer(ReadSQL.countSeq, [.int(seq)]) } ?? 0)
    }

    func count(seqIn range: ClosedRange<Int64>) throws -> Int {
        Int(try read { try $0.integer(ReadSQL.countSeqRange, [.int(range.lowerBound), .int(range.upperBound)]) } ?? 0)
    }

    func listTotals(sensor: String) throws -> ReadTotals {
        try read { db in
            var totals = ReadTotals()
            try db.rows(ReadSQL.list, [.text(sensor)]) { row in
                totals.add(value: db.lib.columnDouble(row, 0), seq: db.lib.columnInt64(row, 1),
                           timestamp: db.lib.columnDouble(row, 2))
            }
            return totals
        }
    }

    func close() {
        connection?.close()
        connection = nil
    }
}
