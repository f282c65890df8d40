// LMDB's C API (liblmdb 0.9.x, `lmdb.h`), resolved at run time from `liblmdb.so.0`.
//
// The constants below are copied from lmdb.h 0.9.24 (Debian `liblmdb-dev`), whose values have not
// changed since 0.9.0: the library's ABI is what makes them valid, not this build.

import Foundation

/// `MDB_val`: a size and a pointer, as in lmdb.h (`size_t mv_size; void *mv_data;`).
/// (Swift structs are not C types: the functions take raw pointers to these.)
struct MDBVal {
    var size: Int = 0
    var data: UnsafeMutableRawPointer?
}

/// `MDB_stat` (lmdb.h): page size, depth and page/entry counts of one database.
struct MDBStat {
    var pageSize: UInt32 = 0
    var depth: UInt32 = 0
    var branchPages: Int = 0
    var leafPages: Int = 0
    var overflowPages: Int = 0
    var entries: Int = 0
}

/// `MDB_envinfo` (lmdb.h): the map and the last transaction.
struct MDBEnvInfo {
    var mapAddress: UnsafeMutableRawPointer?
    var mapSize: Int = 0
    var lastPage: Int = 0
    var lastTransaction: Int = 0
    var maxReaders: UInt32 = 0
    var readers: UInt32 = 0
}

/// The functions and constants of liblmdb the LMDB engine uses.
// @unchecked Sendable: C function pointers into a library that is never unloaded.
struct LMDBLibrary: @unchecked Sendable {
    typealias Env = OpaquePointer
    typealias Txn = OpaquePointer
    typealias Cursor = OpaquePointer

    // Environment flags (mdb_env_open).
    static let noSubdirectory: UInt32 = 0x4000      // MDB_NOSUBDIR: the path is the data file
    static let noSync: UInt32 = 0x10000             // MDB_NOSYNC: no flush at commit
    static let readOnly: UInt32 = 0x20000           // MDB_RDONLY (also a txn flag)
    static let noMetaSync: UInt32 = 0x40000         // MDB_NOMETASYNC
    static let noThreadLocal: UInt32 = 0x200000     // MDB_NOTLS: read txns belong to their MDB_txn
    // Database flags (mdb_dbi_open).
    static let create: UInt32 = 0x40000             // MDB_CREATE
    // Write flags (mdb_put).
    static let noOverwrite: UInt32 = 0x10           // MDB_NOOVERWRITE
    // mdb_env_copy2.
    static let copyCompact: UInt32 = 0x01           // MDB_CP_COMPACT: omit free pages, renumber
    // Cursor operations (MDB_cursor_op).
    static let first: Int32 = 0                     // MDB_FIRST
    static let next: Int32 = 8                      // MDB_NEXT
    static let setRange: Int32 = 17                 // MDB_SET_RANGE: first key >= the given one
    // Return codes.
    static let success: Int32 = 0
    static let keyExists: Int32 = -30799            // MDB_KEYEXIST
    static let notFound: Int32 = -30798             // MDB_NOTFOUND
    static let mapFull: Int32 = -30792              // MDB_MAP_FULL

    static let fileName = "liblmdb.so.0"
    static let install = "apt-get install -y liblmdb0"

    let version: @convention(c) (UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?) -> UnsafePointer<CChar>?
    let strerror: @convention(c) (Int32) -> UnsafePointer<CChar>?
    let envCreate: @convention(c) (UnsafeMutablePointer<Env?>) -> Int32
    let envOpen: @convention(c) (Env, UnsafePointer<CChar>, UInt32, UInt32) -> Int32
    let envClose: @convention(c) (Env) -> Void
    let envSetMapSize: @convention(c) (Env, Int) -> Int32
    let envSetMaxDatabases: @convention(c) (Env, UInt32) -> Int32
    let envGetFlags: @convention(c) (Env, UnsafeMutablePointer<UInt32>) -> Int32
    let envInfo: @convention(c) (Env, UnsafeMutableRawPointer) -> Int32
    let envCopy2: @convention(c) (Env, UnsafePointer<CChar>, UInt32) -> Int32
    let txnBegin: @convention(c) (Env, Txn?, UInt32, UnsafeMutablePointer<Txn?>) -> Int32
    let txnCommit: @convention(c) (Txn) -> Int32
    let txnAbort: @convention(c) (Txn) -> Void
    let dbiOpen: @convention(c) (Txn, UnsafePointer<CChar>?, UInt32, UnsafeMutablePointer<UInt32>) -> Int32
    let stat: @convention(c) (Txn, UInt32, UnsafeMutableRawPointer) -> Int32
    let get: @convention(c) (Txn, UInt32, UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Int32
    let put: @convention(c) (Txn, UInt32, UnsafeMutableRawPointer, UnsafeMutableRawPointer, UInt32) -> Int32
    let del: @convention(c) (Txn, UInt32, UnsafeMutableRawPointer, UnsafeMutableRawPointer?) -> Int32
    let cursorOpen: @convention(c) (Txn, UInt32, UnsafeMutablePointer<Cursor?>) -> Int32
    let cursorClose: @convention(c) (Cursor) -> Void
    let cursorGet: @convention(c) (Cursor, UnsafeMutableRawPointer, UnsafeMutableRawPointer, Int32) -> Int32
    let cursorDelete: @convention(c) (Cursor, UInt32) -> Int32

    /// Resolves every function from `library`.
    init(_ library: DynamicLibrary) throws(LibraryUnavailable) {
        version = try library.function("mdb_version")
        strerror = try library.function("mdb_strerror")
        envCreate = try library.function("mdb_env_create")
        envOpen = try library.function("mdb_env_open")
        envClose = try library.function("mdb_env_close")
        envSetMapSize = try library.function("mdb_env_set_mapsize")
        envSetMaxDatabases = try library.function("mdb_env_set_maxdbs")
        envGetFlags = try library.function("mdb_env_get_flags")
        envInfo = try library.function("mdb_env_info")
        envCopy2 = try library.function("mdb_env_copy2")
        txnBegin = try library.function("mdb_txn_begin")
        txnCommit = try library.function("mdb_txn_commit")
        txnAbort = try library.function("mdb_txn_abort")
        dbiOpen = try library.function("mdb_dbi_open")
        stat = try library.function("mdb_stat")
        get = try library.function("mdb_get")
        put = try library.function("mdb_put")
        del = try library.function("mdb_del")
        cursorOpen = try library.function("mdb_cursor_open")
        cursorClose = try library.function("mdb_cursor_close")
        cursorGet = try library.function("mdb_cursor_get")
        cursorDelete = try library.function("mdb_cursor_del")
    }

    /// Loads `fileName` (tests pass a name that does not exist to see the unavailable path).
    static func load(_ fileName: String = LMDBLibrary.fileName) -> Result<LMDBLibrary, LibraryUnavailable> {
        DynamicLibrary.open(fileName, install: install, flags: RTLD_LOCAL).flatMap { library in
            Result { () throws(LibraryUnavailable) in try LMDBLibrary(library) }
        }
    }

    /// The process's liblmdb, loaded on first use.
    static let shared: Result<LMDBLibrary, LibraryUnavailable> = load()

    /// "mdb_put: MDB_MAP_FULL: Environment mapsize limit reached" and the like.
    func message(_ call: String, _ code: Int32) -> String {
        "\(call): \(strerror(code).map { String(cString: $0) } ?? "error \(code)")"
    }

    /// "LMDB 0.9.24: (July 24, 2019)".
    var versionString: String { version(nil, nil, nil).map { String(cString: $0) } ?? "LMDB" }
}
