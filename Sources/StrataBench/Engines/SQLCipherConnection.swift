// One SQLCipher connection through the C API loaded at run time: open (with the key), statements
// prepared once per connection, values bound and read back.
//
// Invariants: a connection is used by one thread at a time (opened SQLITE_OPEN_NOMUTEX; the engine
// serialises its writer connection with a lock, and each reader connection stays at its
// placement). A key that does not decrypt the file is found at open (the first read of page 1
// fails with SQLITE_NOTADB) and reported as `BenchError.Code.wrongKey`, never later as a damaged
// read.

import Foundation

/// A value bound to a statement parameter.
enum SQLCipherValue {
    case int(Int64)
    case double(Double)
    case text(String)
}

final class SQLCipherConnection {
    let lib: SQLCipherLibrary
    let path: String
    private var handle: SQLCipherLibrary.Connection?
    private var statements: [String: SQLCipherLibrary.Statement] = [:]

    /// Opens (creating) `path` and applies `key`: SQLCipher's raw-key form, `x'<key><salt>'`,
    /// 32 bytes of AES-256 key and 16 bytes of salt taken from the harness's 64-byte key, so no
    /// passphrase derivation (PBKDF2) runs at open.
    init(lib: SQLCipherLibrary, path: String, key: [UInt8]?, busyTimeoutMs: Int32) throws {
        self.lib = lib
        self.path = path
        var opened: SQLCipherLibrary.Connection?
        let flags = SQLCipherLibrary.openReadWrite | SQLCipherLibrary.openCreate | SQLCipherLibrary.openNoMutex
        let code = lib.open(path, &opened, flags, nil)
        guard code == SQLCipherLibrary.ok, let opened else {
            let message = opened.flatMap { lib.errmsg($0) }.map { String(cString: $0) } ?? "code \(code)"
            _ = lib.close(opened)
            throw BenchError(.engine, "SQLCipher open failed: \(message)", path: path)
        }
        handle = opened
        _ = lib.busyTimeout(opened, busyTimeoutMs)
        do {
            if let key {
                guard key.count >= 48 else { throw BenchError(.invalidOption, "SQLCipher needs a key of at least 48 bytes") }
                let hex = key.prefix(48).map { String(format: "%02x", $0) }.joined()
                try execute("PRAGMA key = \"x'\(hex)'\"")
            }
            _ = try integer("SELECT count(*) FROM sqlite_master")
        } catch let error as SQLCipherFailure where error.code == SQLCipherLibrary.notADatabase {
            close()
            throw BenchError(.wrongKey, key == nil
                ? "SQLCipher cannot read the store without a key (it is encrypted or not a database)"
                : "SQLCipher cannot decrypt the store with this key (wrong key, or not an encrypted database)", path: path)
        } catch {
            close()
            throw translated(error)
        }
    }

    /// Runs `sql` (one or more statements, no parameters, rows ignored).
    func execute(_ sql: String) throws {
        let code = lib.exec(handle, sql, nil, nil, nil)
        if code != SQLCipherLibrary.ok { throw failure(code, sql) }
    }

    /// Runs a statement that returns no rows; returns the rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLCipherValue] = []) throws -> Int {
        try rows(sql, values) { _ in }
        return Int(lib.changes(handle))
    }

    /// The first column of the first row as an integer (nil: no row or NULL).
    func integer(_ sql: String, _ values: [SQLCipherValue] = []) throws -> Int64? {
        var result: Int64?
        try rows(sql, values) { statement in
            if result == nil, lib.columnType(statement, 0) != SQLCipherLibrary.null { result = lib.columnInt64(statement, 0) }
        }
        return result
    }

    /// The first column of the first row as a double (nil: no row or NULL).
    func double(_ sql: String, _ values: [SQLCipherValue] = []) throws -> Double? {
        var result: Double?
        var first = true
        try rows(sql, values) { statement in
            if first, lib.columnType(statement, 0) != SQLCipherLibrary.null { result = lib.columnDouble(statement, 0) }
            first = false
        }
        return result
    }

    /// The first column of the first row as text (nil: no row or NULL).
    func text(_ sql: String, _ values: [SQLCipherValue] = []) throws -> String? {
        var result: String?
        try rows(sql, values) { statement in
            if result == nil, let text = lib.columnText(statement, 0) { result = String(cString: text) }
        }
        return result
    }

    /// Steps the statement for `sql` (prepared once per connection) with `values` bound, calling
    /// `row` for each result row; the statement is reset afterwards.
    func rows(_ sql: String, _ values: [SQLCipherValue], _ row: (SQLCipherLibrary.Statement) throws -> Void) throws {
        let statement = try prepared(sql)
        defer { _ = lib.reset(statement) }
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            let code: Int32
            switch value {
            case .int(let number): code = lib.bindInt64(statement, position, number)
            case .double(let number): code = lib.bindDouble(statement, position, number)
            case .text(let string): code = lib.bindText(statement, position, string, -1, SQLCipherLibrary.transient)
            }
            if code != SQLCipherLibrary.ok { throw failure(code, sql) }
        }
        while true {
            let code = lib.step(statement)
            if code == SQLCipherLibrary.done { return }
            if code != SQLCipherLibrary.row { throw failure(code, sql) }
            try row(statement)
        }
    }

    private func prepared(_ sql: String) throws -> SQLCipherLibrary.Statement {
        if let statement = statements[sql] { return statement }
        var made: SQLCipherLibrary.Statement?
        let code = lib.prepare(handle, sql, -1, &made, nil)
        guard code == SQLCipherLibrary.ok, let made else { throw failure(code, sql) }
        statements[sql] = made
        return made
    }

    func close() {
        for statement in statements.values { _ = lib.finalize(statement) }
        statements.removeAll()
        if let handle { _ = lib.close(handle) }
        handle = nil
    }

    deinit { close() }

    // MARK: - Errors

    /// A failed call: SQLite's code and message.
    struct SQLCipherFailure: Error {
        var code: Int32
        var message: String
    }

    private func failure(_ code: Int32, _ sql: String) -> SQLCipherFailure {
        let message = lib.errmsg(handle).map { String(cString: $0) } ?? "error"
        return SQLCipherFailure(code: code, message: "\(message) (code \(code)) in \(sql.prefix(60))")
    }

    /// SQLite failures as harness errors.
    func translated(_ error: Error) -> Error {
        if let failure = error as? SQLCipherFailure { return BenchError(.engine, "SQLCipher: \(failure.message)", path: path) }
        return error
    }
}
