// The LMDB engine's records and the operations one transaction performs on them.
//
// Key layout (LMDBEngine.swift has the schema): big-endian positions and seqs, so that LMDB's
// byte-wise key order is list order and seq order; values little-endian, read in place from the
// map (`loadUnaligned`), valid only inside the transaction that returned them.

import Foundation

/// Keys and values of the LMDB engine's databases.
enum LMDBRecords {
    static func readingKey(_ symbol: String, _ position: UInt64) -> [UInt8] {
        var key = Array(symbol.utf8)
        key.append(0)
        withUnsafeBytes(of: position.bigEndian) { key.append(contentsOf: $0) }
        return key
    }

    /// The first key of `symbol`'s list (position 0 and up share this prefix).
    static func readingPrefix(_ symbol: String) -> [UInt8] {
        var key = Array(symbol.utf8)
        key.append(0)
        return key
    }

    static func standaloneKey(_ seq: Int64) -> [UInt8] {
        withUnsafeBytes(of: UInt64(bitPattern: seq).bigEndian) { Array($0) }
    }

    static func encode(_ reading: SensorReading) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        withUnsafeBytes(of: reading.value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: reading.seq.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: reading.timestamp.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    static func value(of record: MDBVal) -> Double {
        Double(bitPattern: UInt64(littleEndian: record.data!.loadUnaligned(as: UInt64.self)))
    }

    static func seq(of record: MDBVal) -> Int64 {
        Int64(littleEndian: record.data!.loadUnaligned(fromByteOffset: 8, as: Int64.self))
    }

    /// A sensor's list bounds: positions head..<next.
    static func encodeSensor(head: UInt64, next: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: head.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: next.littleEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    static func decodeSensor(_ record: MDBVal) -> (head: UInt64, next: UInt64)? {
        guard record.size == 16, let data = record.data else { return nil }
        return (UInt64(littleEndian: data.loadUnaligned(as: UInt64.self)),
                UInt64(littleEndian: data.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }
}

/// Operations inside one transaction, shared by the writer and the reader.
struct LMDBTransaction {
    let environment: LMDBEnvironment
    let txn: LMDBLibrary.Txn
    var lib: LMDBLibrary { environment.lib }

    /// `body` sees the record stored under `key` (valid only inside `body`), nil when absent.
    func get<T>(_ dbi: UInt32, _ key: [UInt8], _ body: (MDBVal?) throws -> T) throws -> T {
        var key = key
        return try key.withUnsafeMutableBytes { keyBytes in
            var keyVal = MDBVal(size: keyBytes.count, data: keyBytes.baseAddress)
            var data = MDBVal()
            let code = lib.get(txn, dbi, &keyVal, &data)
            if code == LMDBLibrary.notFound { return try body(nil) }
            try environment.check("mdb_get", code)
            return try body(data)
        }
    }

    /// Stores `value` under `key`; false when `noOverwrite` and the key exists.
    @discardableResult
    func put(_ dbi: UInt32, _ key: [UInt8], _ value: [UInt8], noOverwrite: Bool = false) throws -> Bool {
        var key = key
        var value = value
        return try key.withUnsafeMutableBytes { keyBytes in
            try value.withUnsafeMutableBytes { valueBytes in
                var keyVal = MDBVal(size: keyBytes.count, data: keyBytes.baseAddress)
                var data = MDBVal(size: valueBytes.count, data: valueBytes.baseAddress)
                let code = lib.put(txn, dbi, &keyVal, &data, noOverwrite ? LMDBLibrary.noOverwrite : 0)
                if noOverwrite && code == LMDBLibrary.keyExists { return false }
                try environment.check("mdb_put", code)
                return true
            }
        }
    }

    func delete(_ dbi: UInt32, _ key: [UInt8]) throws {
        var key = key
        try key.withUnsafeMutableBytes { keyBytes in
            var keyVal = MDBVal(size: keyBytes.count, data: keyBytes.baseAddress)
            try environment.check("mdb_del", lib.del(txn, dbi, &keyVal, nil))
        }
    }

    func entries(_ dbi: UInt32) throws -> Int {
        var stat = MDBStat()
        try environment.check("mdb_stat", lib.stat(txn, dbi, &stat))
        return stat.entries
    }

    /// Walks `dbi` in key order from the first key >= `start` (from the first key when nil);
    /// `body` returns false to stop, or asks to delete the record it saw (write transactions).
    func scan(_ dbi: UInt32, from start: [UInt8]?, _ body: (MDBVal, MDBVal) throws -> ScanStep) throws {
        var opened: LMDBLibrary.Cursor?
        try environment.check("mdb_cursor_open", lib.cursorOpen(txn, dbi, &opened))
        guard let cursor = opened else { return }
        defer { lib.cursorClose(cursor) }
        var startKey = start ?? []
        try startKey.withUnsafeMutableBytes { startBytes in
            var key = MDBVal(size: startBytes.count, data: startBytes.baseAddress)
            var data = MDBVal()
            var code = lib.cursorGet(cursor, &key, &data, start == nil ? LMDBLibrary.first : LMDBLibrary.setRange)
            while code == LMDBLibrary.success {
                switch try body(key, data) {
                case .stop: return
                case .next: break
                case .deleteAndNext:
                    // After mdb_cursor_del, MDB_NEXT moves to the record that followed the deleted one.
                    try environment.check("mdb_cursor_del", lib.cursorDelete(cursor, 0))
                }
                code = lib.cursorGet(cursor, &key, &data, LMDBLibrary.next)
            }
            if code != LMDBLibrary.notFound { try environment.check("mdb_cursor_get", code) }
        }
    }

    enum ScanStep { case next, stop, deleteAndNext }

    /// Whether `key` starts with `prefix`.
    static func has(_ key: MDBVal, prefix: [UInt8]) -> Bool {
        guard key.size >= prefix.count, let data = key.data else { return false }
        return prefix.withUnsafeBytes { memcmp(data, $0.baseAddress!, prefix.count) == 0 }
    }
}
