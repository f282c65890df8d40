// LMDB's read store, the raw-storage reference: records in B+trees, read with cursor scans and
// key lookups; every aggregate and filter is a scan in Swift, as an application on LMDB does it.
//
// Databases (in the engine's environment layout, plus a fourth):
//   standalone: id (8 bytes big-endian) → value, seq, timestamp (24 bytes little-endian)
//   reading:    symbol, 0, position (big-endian) → id (8 bytes little-endian)  -- a sensor's list
//   sensor:     symbol → list bounds (head, next)
//   seq:        seq (big-endian, sign bit flipped), id (big-endian) → empty   -- the seq index
// Big-endian keys make LMDB's byte order numeric order, so a range is one cursor walk.

import Foundation

extension LMDBEngine: ReadableEngine {
    public static func openReadStore(_ configuration: EngineConfiguration) throws -> any ReadStore {
        switch LMDBLibrary.shared {
        case .success(let lib): return try LMDBReadStore(configuration, lib: lib)
        case .failure(let unavailable): throw unavailable.benchError
        }
    }
}

final class LMDBReadStore: CompactableReadStore {
    let effectiveSettings: String
    private let environment: LMDBEnvironment
    private let inMemory: Bool

    init(_ configuration: EngineConfiguration, lib: LMDBLibrary) throws {
        if configuration.encryptionKey != nil { throw BenchError(.unsupported, "LMDB has no encryption") }
        var flags = LMDBLibrary.noSubdirectory | LMDBLibrary.noThreadLocal
        let path: String
        inMemory = configuration.durability == .memory
        if inMemory {
            flags |= LMDBLibrary.noSync
            path = "/dev/shm/strata-bench-lmdb-reads-\(UUID().uuidString)"
        } else {
            if configuration.durability == .unsafe { flags |= LMDBLibrary.noSync }
            path = (configuration.directory as NSString).appendingPathComponent("reads.lmdb")
        }
        environment = try LMDBEnvironment(lib: lib, path: path, flags: flags, mapSize: LMDBEngine.initialMapSize,
                                          extraDatabase: "seq")
        effectiveSettings = "store=\(inMemory ? "tmpfs" : "file");sync=\(flags & LMDBLibrary.noSync != 0 ? "MDB_NOSYNC" : "commit")"
    }

    static func idKey(_ id: Int64) -> [UInt8] { LMDBRecords.standaloneKey(id) }

    /// Ids are positive: id 0 sorts before every id of a seq, so (seq, 0) starts its entries.
    static func seqKey(_ seq: Int64, id: Int64) -> [UInt8] {
        // Flipping the sign bit orders negative seqs before positive ones, byte by byte.
        withUnsafeBytes(of: (UInt64(bitPattern: seq) ^ (1 << 63)).bigEndian) { Array($0) } + idKey(id)
    }

    static func seq(ofIndexKey key: MDBVal) -> Int64 {
        Int64(bitPattern: UInt64(bigEndian: key.data!.loadUnaligned(as: UInt64.self)) ^ (1 << 63))
    }

    static func id(ofKey key: MDBVal) -> Int64 {
        Int64(bitPattern: UInt64(bigEndian: key.data!.loadUnaligned(as: UInt64.self)))
    }

    func insert(_ samples: [ReadSample]) throws {
        let environment = environment
        try environment.write { txn in
            let tx = LMDBTransaction(environment: environment, txn: txn)
            var bounds: [Int: (head: UInt64, next: UInt64)] = [:]
            for sample in samples {
                let symbol = ReadDataset.sensors[sample.sensor]
                var list = try bounds[sample.sensor]
                    ?? tx.get(environment.sensors, Array(symbol.utf8)) { $0.flatMap(LMDBRecords.decodeSensor) }
                    ?? (0, 0)
                try tx.put(environment.standalone, Self.idKey(sample.id),
                           LMDBRecords.encode(SensorReading(value: sample.value, seq: sample.seq, timestamp: sample.timestamp)))
                try tx.put(environment.extra, Self.seqKey(sample.seq, id: sample.id), [])
                try tx.put(environment.readings, LMDBRecords.readingKey(symbol, list.next),
                           withUnsafeBytes(of: sample.id.littleEndian) { Array($0) })
                list.next += 1
                bounds[sample.sensor] = list
            }
            for (sensor, list) in bounds {
                try tx.put(environment.sensors, Array(ReadDataset.sensors[sensor].utf8),
                           LMDBRecords.encodeSensor(head: list.head, next: list.next))
            }
        }
    }

    func makeQueries() throws -> any ReadQueries { LMDBReadQueries(environment) }

    /// `mdb_env_copy2(MDB_CP_COMPACT)` renamed over the file (`LMDBEnvironment.compact`).
    func compact() throws {
        guard !inMemory else { return }
        try environment.compact()
    }

    func fileBytes() -> Int64? {
        guard !inMemory else { return nil }
        return FileSizes.total(prefix: environment.path)
    }

    func close() throws {
        environment.close()
        if inMemory {
            for suffix in ["", "-lock"] { try? FileManager.default.removeItem(atPath: environment.path + suffix) }
        }
    }
}

final class LMDBReadQueries: ReadQueries {
    private let environment: LMDBEnvironment

    init(_ environment: LMDBEnvironment) {
        self.environment = environment
    }

    private func read<T>(_ body: (LMDBTransaction) throws -> T) throws -> T {
        try environment.read { txn in try body(LMDBTransaction(environment: environment, txn: txn)) }
    }

    /// Every sample's record (key: id), in id order.
    private func scanSamples(_ body: (MDBVal, MDBVal) -> Void) throws {
        try read { tx in
            try tx.scan(environment.standalone, from: nil) { key, record in
                body(key, record)
                return .next
            }
        }
    }

    func iterateValues() throws -> Double {
        var sum = 0.0
        try scanSamples { _, record in sum += LMDBRecords.value(of: record) }
        return sum
    }

    func iterateAll() throws -> ReadTotals {
        var totals = ReadTotals()
        try scanSamples { key, record in
            _ = LMDBReadStore.id(ofKey: key)
            totals.add(value: LMDBRecords.value(of: record), seq: LMDBRecords.seq(of: record),
                       timestamp: LMDBRecords.timestamp(of: record))
        }
        return totals
    }

    func sum() throws -> Double { try iterateValues() }

    func average() throws -> Double? {
        var sum = 0.0
        var count = 0
        try scanSamples { _, record in
            sum += LMDBRecords.value(of: record)
            count += 1
        }
        return count > 0 ? sum / Double(count) : nil
    }

    func min() throws -> Double? {
        var result: Double?
        try scanSamples { _, record in
            let value = LMDBRecords.value(of: record)
            if result.map({ value < $0 }) ?? true { result = value }
        }
        return result
    }

    func max() throws -> Double? {
        var result: Double?
        try scanSamples { _, record in
            let value = LMDBRecords.value(of: record)
            if result.map({ value > $0 }) ?? true { result = value }
        }
        return result
    }

    func count(valueAbove threshold: Double) throws -> Int {
        var count = 0
        try scanSamples { _, record in if LMDBRecords.value(of: record) > threshold { count += 1 } }
        return count
    }

    func topIds(limit: Int) throws -> [Int64] {
        // The best `limit` so far, highest value first (ties: lower id first, as the scan meets them).
        var best: [(value: Double, id: Int64)] = []
        guard limit > 0 else { return [] }
        try scanSamples { key, record in
            let value = LMDBRecords.value(of: record)
            if best.count == limit, let last = best.last, value <= last.value { return }
            let entry = (value: value, id: LMDBReadStore.id(ofKey: key))
            let position = best.firstIndex { $0.value < value } ?? best.count
            best.insert(entry, at: position)
            if best.count > limit { best.removeLast() }
        }
        return best.map(\.id)
    }

    func value(id: Int64) throws -> Double? {
        try read { tx in try tx.get(environment.standalone, LMDBReadStore.idKey(id)) { $0.map(LMDBRecords.value) } }
    }

    func count(seq: Int64) throws -> Int { try count(seqIn: seq...seq) }

    func count(seqIn range: ClosedRange<Int64>) throws -> Int {
        try read { tx in
            var count = 0
            try tx.scan(environment.extra, from: LMDBReadStore.seqKey(range.lowerBound, id: 0)) { key, _ in
                guard LMDBReadStore.seq(ofIndexKey: key) <= range.upperBound else { return .stop }
                count += 1
                return .next
            }
            return count
        }
    }

    func listTotals(sensor: String) throws -> ReadTotals {
        try read { tx in
            var totals = ReadTotals()
            let prefix = LMDBRecords.readingPrefix(sensor)
            try tx.scan(environment.readings, from: prefix) { key, record in
                guard LMDBTransaction.has(key, prefix: prefix) else { return .stop }
                let id = Int64(littleEndian: record.data!.loadUnaligned(as: Int64.self))
                try tx.get(environment.standalone, LMDBReadStore.idKey(id)) { sample in
                    guard let sample else { return }
                    totals.add(value: LMDBRecords.value(of: sample), seq: LMDBRecords.seq(of: sample),
                               timestamp: LMDBRecords.timestamp(of: sample))
                }
                return .next
            }
            return totals
        }
    }

    func close() {}
}

extension LMDBRecords {
    static func timestamp(of record: MDBVal) -> Double {
        Double(bitPattern: UInt64(littleEndian: record.data!.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
    }
}
