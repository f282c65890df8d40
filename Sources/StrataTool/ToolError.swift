// The one error the `strata` tool reports: a sentence naming the cause, and the exit status.
import Strata

/// A failure of a `strata` verb: printed as `strata: <message>`, exit status `exitCode`.
public struct ToolError: Error, CustomStringConvertible, Sendable {
    public var message: String
    /// 1: the file or an input is bad (damage, not a Strata file, locked, wrong key, I/O);
    /// 64: the command line is.
    public var exitCode: Int32

    public init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    /// A `Realm.Error` met on `path`, with its code (what a script can match) and message.
    init(_ error: Realm.Error, path: String) {
        self.init("\(path): \(error.code.rawValue): \(error.message)")
    }

    public var description: String { message }
}
