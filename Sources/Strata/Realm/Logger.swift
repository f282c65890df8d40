// Logger: where Strata reports what it does, as RealmSwift's `Logger`. Messages about the file
// start with "DB: " (opening and closing at `.detail`, versions read at `.trace`, commits at
// `.debug`).
//
// Invariants:
// - The shared logger's level is mirrored in an atomic word, so a message below it costs one
//   atomic load and builds no string (commit paths log).
// - The log function is called synchronously, on the thread that logs, never under a lock of
//   the logger (it may log or change levels itself).
import Synchronization

/// How much a ``Logger`` passes on: each level includes the ones before it.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    /// Nothing.
    case off
    /// Failures that end the process.
    case fatal
    /// Failures reported to the caller.
    case error
    /// Conditions worth attention that did not fail anything.
    case warn
    /// Rare events of note.
    case info
    /// Opening and closing files.
    case detail
    /// Each commit.
    case debug
    /// The versions read.
    case trace
    /// Everything.
    case all

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Receives Strata's log messages at or below its level.
///
/// ```swift
/// Logger.shared = Logger(level: .detail) { level, message in
///     print(level, message)
/// }
/// ```
public final class Logger: Sendable {
    private let currentLevel: Atomic<Int>
    private let function: @Sendable (LogLevel, String) -> Void

    /// A logger that passes the messages at or below `level` to `logFunction`.
    ///
    /// - Parameters:
    ///   - level: the most detailed level passed on.
    ///   - logFunction: called with each message's level and text.
    public init(level: LogLevel, logFunction: @escaping @Sendable (LogLevel, String) -> Void) {
        currentLevel = Atomic(level.rawValue)
        function = logFunction
    }

    /// The most detailed level passed on.
    public var level: LogLevel {
        get { LogLevel(rawValue: currentLevel.load(ordering: .relaxed)) ?? .off }
        set {
            currentLevel.store(newValue.rawValue, ordering: .relaxed)
            if Logger.state.withLock({ $0 === self }) { Logger.sharedLevel.store(newValue.rawValue, ordering: .relaxed) }
        }
    }

    /// Passes `message` on when `level` is at or below this logger's level.
    ///
    /// - Parameters:
    ///   - level: the message's level.
    ///   - message: the text.
    public func log(level: LogLevel, message: String) {
        guard level != .off, level.rawValue <= currentLevel.load(ordering: .relaxed) else { return }
        function(level, message)
    }

    // MARK: The shared logger

    private static let state = Mutex(Logger(level: .info) { level, message in
        print("Strata \(level): \(message)")
    })
    private static let sharedLevel = Atomic(LogLevel.info.rawValue)

    /// The logger Strata reports to (by default: level `.info`, printed to standard output).
    public static var shared: Logger {
        get { state.withLock { $0 } }
        set {
            state.withLock { $0 = newValue }
            sharedLevel.store(newValue.level.rawValue, ordering: .relaxed)
        }
    }

    /// Logs through the shared logger; `message` is built only when `level` is passed on.
    static func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level.rawValue <= sharedLevel.load(ordering: .relaxed) else { return }
        shared.log(level: level, message: message())
    }
}
