// SQLite's read store, through GRDB: `ReadSQL`'s statements, prepared once per connection
// (`cachedStatement`) and stepped through cursors, each query in a read transaction of its own.
// Durability as for the sensors model (`SQLiteEngine`): WAL with synchronous FULL or OFF, or a
// `:memory:` queue.

import Foundation
import GRDB

extension SQLiteEngine: ReadableEngine {
    public static func openReadStore(_ configuration: EngineConfiguration) throws -> any ReadStore {
        try SQLiteReadStore(configuration)
    }
}

final class SQLiteReadStore: CompactableReadStore {
    let effectiveSettings: String
    private let writer: any DatabaseWriter
    private let path: String?

    init(_ configuration: EngineConfiguration) throws {
        if configuration.encryptionKey != nil {
            throw BenchError(.unsupported, "SQLite has no encryption in this build (no SQLCipher)")
        }
        do {
            if configuration.durability == .memory {
                writer = try DatabaseQueue()
                path = nil
                effectiveSettings = "memory"
            } else {
                let path = (configuration.directory as NSString).appendingPathComponent("reads.sqlite")
                let pool = try DatabasePool(path: path)
                let wanted = configuration.durability == .full ? "FULL" : "OFF"
                let synchronous = try pool.writeWithoutTransaction { db -> Int in
                    try db.execute(sql: "PRAGMA synchronous = \(wanted)")
                    return try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
                }
                writer = pool
                self.path = path
                effectiveSettings = "journal_mode=wal;synchronous=\([0: "OFF", 1: "NORMAL", 2: "FULL"][synchronous] ?? String(synchronous))"
            }
            try writer.write { db in try db.execute(sql: ReadSQL.schema) }
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError(.engine, "SQLite open failed: \(error)", path: configuration.directory)
        }
    }

    func insert(_ samples: [ReadSample]) throws {
        do {
            try writer.write { db in
                let sensor = try db.cachedStatement(sql: ReadSQL.createSensor)
                let insert = try db.cachedStatement(sql: ReadSQL.insert)
                var created = Set<Int>()
                for sample in samples {
                    let symbol = ReadDataset.sensors[sample.sensor]
                    if created.insert(sample.sensor).inserted { try sensor.execute(arguments: [symbol]) }
                    try insert.execute(arguments: [sample.id, symbol, sample.value, sample.seq, sample.timestamp])
                }
            }
        } catch {
            throw BenchError(.engine, "SQLite insert failed: \(error)", path: path)
        }
    }

    func makeQueries() throws -> any ReadQueries { SQLiteReadQueries(reader: writer) }

    func fileBytes() -> Int64? {
        guard let path else { return nil }
        return FileSizes.total(prefix: path)
    }

    func compact() throws {
        do {
            try writer.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
        } catch {
            throw BenchError(.engine, "SQLite compaction failed: \(error)", path: path)
        }
    }

    func close() throws {
        do {
            if let pool = writer as? DatabasePool { try pool.close() }
            if let queue = writer as? DatabaseQueue { try queue.close() }
        } catch {
            throw BenchError(.engine, "SQLite close failed: \(error)", path: path)
        }
    }
}

final class SQLiteReadQueries: ReadQueries {
    private let reader: any DatabaseReader

    init(reader: any DatabaseReader) {
        self.reader = reader
    }

    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try reader.read(body)
        } catch {
            throw BenchError(.engine, "SQLite query failed: \(error)")
        }
    }

    private func one<T: DatabaseValueConvertible & StatementColumnConvertible>(_ sql: String, _ arguments: StatementArguments = [], as: T.Type) throws -> T? {
        try read { db in try T.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) }
    }

    func iterateValues() throws -> Double {
        try read { db in
            var sum = 0.0
            let values = try Double.fetchCursor(db.cachedStatement(sql: ReadSQL.values))
            while let value = try values.next() { sum += value }
            return sum
        }
    }

    func iterateAll() throws -> ReadTotals {
        try read { db in
            var totals = ReadTotals()
            let rows = try Row.fetchCursor(db.cachedStatement(sql: ReadSQL.all))
            while let row = try rows.next() {
                let _: Int64 = row[0]
                totals.add(value: row[1], seq: row[2], timestamp: row[3])
            }
            return totals
        }
    }

    func sum() throws -> Double { try one(ReadSQL.sum, as: Double.self) ?? 0 }
    func average() throws -> Double? { try one(ReadSQL.average, as: Double.self) }
    func min() throws -> Double? { try one(ReadSQL.min, as: Double.self) }
    func max() throws -> Double? { try one(ReadSQL.max, as: Double.self) }

    func count(valueAbove threshold: Double) throws -> Int {
        try one(ReadSQL.countAbove, [threshold], as: Int.self) ?? 0
    }

    func topIds(limit: Int) throws -> [Int64] {
        try read { db in try Int64.fetchAll(db.cachedStatement(sql: ReadSQL.top), arguments: [limit]) }
    }

    func value(id: Int64) throws -> Double? { try one(ReadSQL.byId, [id], as: Double.self) }

    func count(seq: Int64) throws -> Int { try one(ReadSQL.countSeq, [seq], as: Int.self) ?? 0 }

    func count(seqIn range: ClosedRange<Int64>) throws -> Int {
        try one(ReadSQL.countSeqRange, [range.lowerBound, range.upperBound], as: Int.self) ?? 0
    }

    func listTotals(sensor: String) throws -> ReadTotals {
        try read { db in
            var totals = ReadTotals()
            let rows = try Row.fetchCursor(db.cachedStatement(sql: ReadSQL.list), arguments: [sensor])
            while let row = try rows.next() { totals.add(value: row[0], seq: row[1], timestamp: row[2]) }
            return totals
        }
    }

    func close() {}
}
