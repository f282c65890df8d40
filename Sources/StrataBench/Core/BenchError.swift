// Typed errors of the harness.
//
// Invariant: every error names its cause (a code and a message); errors about input files carry
// the file, line and column so that a CI log points at the offending byte.

/// An error raised by strata-bench: a stable code plus a human message naming the cause.
public struct BenchError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What kind of failure this is. Stable: tests and scripts match on it.
    public enum Code: String, Sendable {
        /// A command-line value is not valid (unknown workload, negative duration, ...).
        case invalidOption
        /// A CSV file cannot be read or does not have the expected shape.
        case invalidCSV
        /// A file could not be read or written.
        case io
        /// The engine failed (open, write, read, compact).
        case engine
        /// The case cannot run with this engine (e.g. SQLite has no encryption here).
        case unsupported
        /// A workload's end-of-run check failed (readings lost, counts do not match).
        case verification
        /// The run was asked to stop (`StopRequest`); the current case is abandoned.
        case interrupted
        /// Refused because it would replace something without being told to (`--force`).
        case refused
        /// A history database is not one strata-bench wrote, is damaged, or is of a newer schema.
        case invalidHistory
        /// An I/O trace (the power-loss stress's record of a writer's file operations) is not one
        /// the interposer wrote, is of a newer format, or has a damaged record.
        case invalidTrace
        /// An optional engine's shared library is not installed (the message names the
        /// `apt-get install` line that adds it).
        case unavailable
        /// An encrypted store cannot be opened with the key given.
        case wrongKey
        /// A child process of `stress` (writer or checker) said something outside its protocol.
        case childProtocol
    }

    public let code: Code
    public let message: String
    /// The file concerned, when there is one.
    public let path: String?
    /// 1-based line and column inside `path`, for parse errors.
    public let line: Int?
    public let column: Int?

    public init(_ code: Code, _ message: String, path: String? = nil, line: Int? = nil, column: Int? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.line = line
        self.column = column
    }

    public var description: String {
        var location = ""
        if let path {
            location = path
            if let line {
                location += ":\(line)"
                if let column { location += ":\(column)" }
            }
            location += ": "
        }
        return "\(location)\(message) [\(code.rawValue)]"
    }
}
