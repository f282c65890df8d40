// Stopping the process when an API that cannot throw meets a failure it must not hide (misuse,
// or damage met by a read: RealmCore.swift's header says why).
//
// The message is the process's last words, as Realm's uncaught exception is: it starts with
// "Strata:", gives the error code and names the cause (for damage, the page and the file).
// `preconditionFailure` prints its message only in debug builds, so optimised builds write it to
// the standard error first; the trap itself is the same in both.
#if canImport(Glibc)
import Glibc
#endif

enum Stop {
    static func now(_ message: String) -> Never {
        #if !DEBUG
        let line = Array((message + "\n").utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        #endif
        preconditionFailure(message)
    }
}

extension Stop {
    /// Stops with `error` as a misuse message: "Strata: <code>: <message>".
    static func now(_ error: Realm.Error) -> Never {
        now("Strata: \(error.code.rawValue): \(error.message)")
    }
}
