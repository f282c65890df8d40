// Shared libraries opened at run time (`dlopen`), so that `swift build` and `swift test` need only
// the Swift toolchain: an engine whose library is not installed is reported as unavailable, with
// the command that installs it, instead of failing to link or crashing.
//
// Invariant: a `DynamicLibrary` is never closed. Its function pointers are stored in process-wide
// tables (`LMDBLibrary.shared`, `SQLCipherLibrary.shared`); `dlclose` would leave them dangling.

import Foundation

/// Why an optional engine's library cannot be used: not installed, or missing a function.
public struct LibraryUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file name passed to `dlopen`, e.g. `liblmdb.so.0`.
    public var library: String
    /// The command that installs it on Debian/Ubuntu, e.g. `apt-get install -y liblmdb0`.
    public var install: String
    /// What `dlopen`/`dlsym` said.
    public var detail: String

    public var description: String { "unavailable: \(install) (\(library): \(detail))" }

    /// As a harness error, for callers that open an engine anyway.
    public var benchError: BenchError { BenchError(.unavailable, description) }
}

/// An open shared library and its symbols.
struct DynamicLibrary: @unchecked Sendable {
    // @unchecked: the handle is an opaque token that dlsym may use from any thread.
    let name: String
    let install: String
    private let handle: UnsafeMutableRawPointer

    /// Opens `name` with `flags` (RTLD_NOW is added: every symbol is bound at open, so a missing
    /// one fails here rather than at the first call).
    static func open(_ name: String, install: String, flags: Int32) -> Result<DynamicLibrary, LibraryUnavailable> {
        guard let handle = dlopen(name, flags | RTLD_NOW) else {
            let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
            return .failure(LibraryUnavailable(library: name, install: install, detail: reason))
        }
        return .success(DynamicLibrary(name: name, install: install, handle: handle))
    }

    /// The function `symbol` of this library as the C function type `T` (an `@convention(c)`
    /// type whose signature must match the library's header; inferred from the destination).
    func function<T>(_ symbol: String) throws(LibraryUnavailable) -> T {
        guard let address = dlsym(handle, symbol) else {
            throw LibraryUnavailable(library: name, install: install, detail: "no symbol \(symbol)")
        }
        return unsafeBitCast(address, to: T.self)
    }

    /// Under strata-bench's I/O tracer (libStrataIOTrace.so preloaded by the power-loss and
    /// io-error stress), routes this library's file calls through the tracer, which a library
    /// opened with RTLD_DEEPBIND would otherwise bypass. Without the tracer it does nothing.
    /// Fails when the tracer is there but could not rewrite the library's references: its trace
    /// would miss every write, and a crash state built from it would be wrong.
    func routeThroughTracer() -> Result<Void, LibraryUnavailable> {
        typealias Bind = @convention(c) (UnsafeMutableRawPointer?) -> Int32
        // RTLD_DEFAULT (a null handle): the process's global scope, where LD_PRELOAD puts it.
        guard let address = dlsym(nil, "strata_iotrace_bind_library") else { return .success(()) }
        let bind = unsafeBitCast(address, to: Bind.self)
        guard bind(handle) >= 0 else {
            return .failure(LibraryUnavailable(library: name, install: install,
                                               detail: "its file calls could not be routed through the preloaded I/O tracer"))
        }
        return .success(())
    }
}
