// SQLCipher's C API (the sqlite3_* functions of libsqlcipher 3.4.x), resolved at run time from
// `libsqlcipher.so.0`.
//
// Why RTLD_LOCAL | RTLD_DEEPBIND: GRDB links the system SQLite into this process, and
// libsqlcipher exports the same `sqlite3_*` names. RTLD_LOCAL keeps SQLCipher's names out of the
// global scope (GRDB keeps the system SQLite); RTLD_DEEPBIND makes SQLCipher's *own* calls to its
// exported functions (hundreds of them: `objdump -R libsqlcipher.so.0 | grep sqlite3_`; it is not
// linked with -Bsymbolic) resolve inside SQLCipher first. Without it those calls bind to the
// already-loaded system SQLite, which would then run on SQLCipher's structures.
// `SQLCipherIsolationTests` proves both directions in one process.

import Foundation

// @unchecked Sendable: C function pointers into a library that is never unloaded.
struct SQLCipherLibrary: @unchecked Sendable {
    typealias Connection = OpaquePointer
    typealias Statement = OpaquePointer

    static let fileName = "libsqlcipher.so.0"
    static let install = "apt-get install -y libsqlcipher0"
    /// glibc's RTLD_DEEPBIND (dlfcn.h); Glibc's Swift overlay does not export it.
    static let deepBind: Int32 = 0x00008

    // Result codes and flags (sqlite3.h).
    static let ok: Int32 = 0
    static let row: Int32 = 100
    static let done: Int32 = 101
    static let notADatabase: Int32 = 26               // SQLITE_NOTADB
    static let openReadWrite: Int32 = 0x02
    static let openCreate: Int32 = 0x04
    static let openNoMutex: Int32 = 0x8000            // each connection is used by one thread at a time
    static let null: Int32 = 5                        // SQLITE_NULL column type
    /// SQLITE_TRANSIENT: SQLite copies bound text before the call returns.
    static let transient = -1

    let libversion: @convention(c) () -> UnsafePointer<CChar>?
    let open: @convention(c) (UnsafePointer<CChar>, UnsafeMutablePointer<Connection?>, Int32, UnsafePointer<CChar>?) -> Int32
    let close: @convention(c) (Connection?) -> Int32
    let errmsg: @convention(c) (Connection?) -> UnsafePointer<CChar>?
    let busyTimeout: @convention(c) (Connection?, Int32) -> Int32
    let exec: @convention(c) (Connection?, UnsafePointer<CChar>, OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32
    let prepare: @convention(c) (Connection?, UnsafePointer<CChar>, Int32, UnsafeMutablePointer<Statement?>, OpaquePointer?) -> Int32
    let step: @convention(c) (Statement?) -> Int32
    let reset: @convention(c) (Statement?) -> Int32
    let finalize: @convention(c) (Statement?) -> Int32
    let bindDouble: @convention(c) (Statement?, Int32, Double) -> Int32
    let bindInt64: @convention(c) (Statement?, Int32, Int64) -> Int32
    /// The destructor argument is passed as a pointer-sized integer (SQLITE_TRANSIENT is -1).
    let bindText: @convention(c) (Statement?, Int32, UnsafePointer<CChar>?, Int32, Int) -> Int32
    let columnType: @convention(c) (Statement?, Int32) -> Int32
    let columnInt64: @convention(c) (Statement?, Int32) -> Int64
    let columnDouble: @convention(c) (Statement?, Int32) -> Double
    let columnText: @convention(c) (Statement?, Int32) -> UnsafePointer<UInt8>?
    let changes: @convention(c) (Connection?) -> Int32

    init(_ library: DynamicLibrary) throws(LibraryUnavailable) {
        libversion = try library.function("sqlite3_libversion")
        open = try library.function("sqlite3_open_v2")
        close = try library.function("sqlite3_close_v2")
        errmsg = try library.function("sqlite3_errmsg")
        busyTimeout = try library.function("sqlite3_busy_timeout")
        exec = try library.function("sqlite3_exec")
        prepare = try library.function("sqlite3_prepare_v2")
        step = try library.function("sqlite3_step")
        reset = try library.function("sqlite3_reset")
        finalize = try library.function("sqlite3_finalize")
        bindDouble = try library.function("sqlite3_bind_double")
        bindInt64 = try library.function("sqlite3_bind_int64")
        bindText = try library.function("sqlite3_bind_text")
        columnType = try library.function("sqlite3_column_type")
        columnInt64 = try library.function("sqlite3_column_int64")
        columnDouble = try library.function("sqlite3_column_double")
        columnText = try library.function("sqlite3_column_text")
        changes = try library.function("sqlite3_changes")
        // A library of the same name without SQLCipher's codec is not SQLCipher.
        let _: @convention(c) (Connection?, UnsafeRawPointer?, Int32) -> Int32 = try library.function("sqlite3_key")
    }

    /// Loads `fileName` (tests pass a name that does not exist to see the unavailable path).
    static func load(_ fileName: String = SQLCipherLibrary.fileName) -> Result<SQLCipherLibrary, LibraryUnavailable> {
        // The sanitizers' dlopen stops the process on RTLD_DEEPBIND (their interceptors could not
        // stay in front of a library bound to itself), so a build with -sanitize=address or
        // thread (scripts/fuzz, the sanitizer test runs) reports SQLCipher as unavailable instead.
        if underSanitizer {
            return .failure(LibraryUnavailable(library: fileName, install: install,
                                               detail: "not loaded under a sanitizer runtime, which refuses RTLD_DEEPBIND"))
        }
        // Deep binding also hides SQLCipher's file calls from an LD_PRELOAD interposer: under the
        // stress's I/O tracer they are routed through it explicitly.
        return DynamicLibrary.open(fileName, install: install, flags: RTLD_LOCAL | deepBind).flatMap { library in
            library.routeThroughTracer().flatMap { Result { () throws(LibraryUnavailable) in try SQLCipherLibrary(library) } }
        }
    }

    /// Whether a sanitizer runtime is linked into this process (its public entry points are).
    static let underSanitizer: Bool = {
        let process = dlopen(nil, RTLD_NOW)
        return ["__asan_init", "__tsan_init", "__msan_init"].contains { (name: String) -> Bool in dlsym(process, name) != nil }
    }()

    /// The process's SQLCipher, loaded on first use.
    static let shared: Result<SQLCipherLibrary, LibraryUnavailable> = load()

    /// The SQLite version SQLCipher is built on, e.g. "3.15.2".
    var sqliteVersion: String { libversion().map { String(cString: $0) } ?? "?" }
}
