// One LMDB environment (a data file and its lock file) and the transactions the LMDB engine runs
// in it.
//
// Invariants:
// - Every transaction runs inside `gate` (shared). Growing the map (`mdb_env_set_mapsize` after
//   MDB_MAP_FULL) and compaction (close, rename, reopen) run exclusively: LMDB requires that no
//   transaction of the process uses the map while it is replaced, and a reader on another thread
//   dereferencing the old mapping would read unmapped memory. A read transaction held open between
//   calls (a pinned reader) holds no page pointer, so it may stay open across a remap.
// - A write transaction is begun and committed or aborted inside one call, on one thread (LMDB
//   binds write transactions to their thread). Read transactions use MDB_NOTLS, so a thread may
//   hold a pinned one and open another, as the harness's readers do.
// - A write that meets MDB_MAP_FULL is aborted, the map doubled, and the whole transaction run
//   again: the run continues with a bigger map instead of failing.

import Foundation

/// An LMDB call that failed: the function and its return code.
struct LMDBCallError: Error {
    var call: String
    var code: Int32
}

final class LMDBEnvironment: @unchecked Sendable {
    // @unchecked: `env`, the database handles and `mapSize` change only under `gate` held
    // exclusively; every other use holds it shared.
    let lib: LMDBLibrary
    /// The data file (MDB_NOSUBDIR); LMDB adds `<path>-lock`.
    let path: String
    let flags: UInt32
    private(set) var env: LMDBLibrary.Env?
    private(set) var sensors: UInt32 = 0
    private(set) var readings: UInt32 = 0
    private(set) var standalone: UInt32 = 0
    /// The fourth database (`extraDatabase`), 0 when the environment has none.
    private(set) var extra: UInt32 = 0
    /// The name of a fourth database to open (the read store's seq index), nil for none.
    let extraDatabase: String?
    private(set) var mapSize: Int
    private let gate = NSCondition()
    private var active = 0
    private var exclusive = false

    init(lib: LMDBLibrary, path: String, flags: UInt32, mapSize: Int, extraDatabase: String? = nil) throws {
        self.lib = lib
        self.extraDatabase = extraDatabase
        self.path = path
        self.flags = flags
        self.mapSize = mapSize
        try translating { try open() }
    }

    /// Creates the environment and its three databases (sensor, reading, standalone), and the
    /// extra one when named.
    private func open() throws {
        var created: LMDBLibrary.Env?
        try check("mdb_env_create", lib.envCreate(&created))
        guard let env = created else { throw BenchError(.engine, "mdb_env_create returned no environment", path: path) }
        do {
            try check("mdb_env_set_maxdbs", lib.envSetMaxDatabases(env, extraDatabase == nil ? 3 : 4))
            try check("mdb_env_set_mapsize", lib.envSetMapSize(env, mapSize))
            try check("mdb_env_open", lib.envOpen(env, path, flags, 0o644))
            var txn: LMDBLibrary.Txn?
            try check("mdb_txn_begin", lib.txnBegin(env, nil, 0, &txn))
            guard let txn else { throw BenchError(.engine, "mdb_txn_begin returned no transaction", path: path) }
            do {
                try check("mdb_dbi_open(sensor)", lib.dbiOpen(txn, "sensor", LMDBLibrary.create, &sensors))
                try check("mdb_dbi_open(reading)", lib.dbiOpen(txn, "reading", LMDBLibrary.create, &readings))
                try check("mdb_dbi_open(standalone)", lib.dbiOpen(txn, "standalone", LMDBLibrary.create, &standalone))
                if let extraDatabase {
                    try check("mdb_dbi_open(\(extraDatabase))", lib.dbiOpen(txn, extraDatabase, LMDBLibrary.create, &extra))
                }
            } catch {
                lib.txnAbort(txn)
                throw error
            }
            try check("mdb_txn_commit", lib.txnCommit(txn))
        } catch {
            lib.envClose(env)
            throw error
        }
        self.env = env
    }

    func close() {
        exclusively {
            if let env { lib.envClose(env) }
            env = nil
        }
    }

    /// The flags LMDB reports for the open environment (what it actually uses).
    func effectiveFlags() throws -> UInt32 {
        try shared {
            var value: UInt32 = 0
            try check("mdb_env_get_flags", lib.envGetFlags(try live(), &value))
            return value
        }
    }

    // MARK: - Transactions

    /// Runs `body` in a write transaction and commits it; after MDB_MAP_FULL, doubles the map and
    /// runs it again.
    func write<T>(_ body: (LMDBLibrary.Txn) throws -> T) throws -> T {
        while true {
            let sizeTried = mapSize
            let outcome: Result<T, Error> = shared {
                do {
                    let env = try live()
                    var begun: LMDBLibrary.Txn?
                    try check("mdb_txn_begin", lib.txnBegin(env, nil, 0, &begun))
                    guard let txn = begun else { throw BenchError(.engine, "mdb_txn_begin returned no transaction") }
                    let value: T
                    do {
                        value = try body(txn)
                    } catch {
                        lib.txnAbort(txn)
                        throw error
                    }
                    // mdb_txn_commit frees the transaction whether or not it succeeds.
                    try check("mdb_txn_commit", lib.txnCommit(txn))
                    return .success(value)
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case .success(let value):
                return value
            case .failure(let error as LMDBCallError) where error.code == LMDBLibrary.mapFull:
                try grow(from: sizeTried)
            case .failure(let error as LMDBCallError):
                throw BenchError(.engine, lib.message(error.call, error.code), path: path)
            case .failure(let error):
                throw error
            }
        }
    }

    /// Runs `body` in a read transaction, aborted afterwards.
    func read<T>(_ body: (LMDBLibrary.Txn) throws -> T) throws -> T {
        try translating {
            try shared {
                let txn = try beginRead()
                defer { lib.txnAbort(txn) }
                return try body(txn)
            }
        }
    }

    /// A read transaction left open (a pinned version) until `endRead`.
    func beginPinnedRead() throws -> LMDBLibrary.Txn {
        try translating { try shared { try beginRead() } }
    }

    func endRead(_ txn: LMDBLibrary.Txn) {
        shared { lib.txnAbort(txn) }
    }

    private func beginRead() throws -> LMDBLibrary.Txn {
        var begun: LMDBLibrary.Txn?
        try check("mdb_txn_begin(read)", lib.txnBegin(try live(), nil, LMDBLibrary.readOnly, &begun))
        guard let txn = begun else { throw BenchError(.engine, "mdb_txn_begin returned no transaction") }
        return txn
    }

    /// Doubles the map unless another writer already grew it past `sizeTried`.
    private func grow(from sizeTried: Int) throws {
        try exclusively {
            guard mapSize == sizeTried else { return }
            let bigger = mapSize * 2
            try translating { try check("mdb_env_set_mapsize", lib.envSetMapSize(try live(), bigger)) }
            mapSize = bigger
        }
    }

    /// `mdb_env_copy2(MDB_CP_COMPACT)` to a sibling file, renamed over the data file, and the
    /// environment reopened on it. No transaction may be open (the workloads compact last).
    func compact() throws {
        try exclusively {
            let copy = path + ".compacting"
            try? FileManager.default.removeItem(atPath: copy)
            try translating { try check("mdb_env_copy2", lib.envCopy2(try live(), copy, LMDBLibrary.copyCompact)) }
            if let env { lib.envClose(env) }
            env = nil
            guard rename(copy, path) == 0 else {
                throw BenchError(.io, "cannot replace the store with its compacted copy (errno \(errno))", path: path)
            }
            try translating { try open() }
        }
    }

    // MARK: - The gate

    private func shared<T>(_ body: () throws -> T) rethrows -> T {
        gate.lock()
        while exclusive { gate.wait() }
        active += 1
        gate.unlock()
        defer {
            gate.lock()
            active -= 1
            if active == 0 { gate.broadcast() }
            gate.unlock()
        }
        return try body()
    }

    private func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        gate.lock()
        while exclusive { gate.wait() }
        exclusive = true
        while active > 0 { gate.wait() }
        gate.unlock()
        defer {
            gate.lock()
            exclusive = false
            gate.broadcast()
            gate.unlock()
        }
        return try body()
    }

    // MARK: - Errors

    private func live() throws -> LMDBLibrary.Env {
        guard let env else { throw BenchError(.engine, "the LMDB store is closed", path: path) }
        return env
    }

    func check(_ call: String, _ code: Int32) throws {
        if code != LMDBLibrary.success { throw LMDBCallError(call: call, code: code) }
    }

    /// LMDB failures as harness errors naming the call and LMDB's message.
    private func translating<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as LMDBCallError {
            throw BenchError(.engine, lib.message(error.call, error.code), path: path)
        }
    }
}
