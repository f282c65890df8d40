// A writer child run under libStrataIOTrace.so: the power-loss and io-error scenarios' one way of
// making a trace. The writer starts from an empty store directory (a file the writer never
// touched is absent from every crash state, so nothing may be there before it), commits a bounded
// number of transactions and ends on its own; its trace records every file operation under the
// store and, through IOTRACE_ACK_FD, each line of its ack pipe in order with them.

import Foundation

/// Where the interposer is: beside the `strata-bench` executable, as SwiftPM builds it.
public enum IOTraceInterposer {
    public static let fileName = "libStrataIOTrace.so"

    /// The interposer beside `executable`, or `unavailable` naming the build that makes it.
    public static func path(besides executable: String) throws -> String {
        let candidate = ((executable as NSString).deletingLastPathComponent as NSString).appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: candidate) else {
            throw BenchError(.unavailable, "the power-loss and io-error scenarios trace the writer with \(fileName), which is not beside "
                + "\(executable): build it with `swift build --product StrataIOTrace` (same configuration as strata-bench)",
                path: candidate)
        }
        return candidate
    }
}

/// One finished traced writer run.
public struct TracedWriterRun: Sendable {
    /// The store directory the writer wrote (IOTRACE_ROOT).
    public var store: String
    public var tracePath: String
    /// Everything the writer sent on its ack pipe.
    public var text: String
    public var exit: ChildExit
    /// The writer's stderr, trimmed.
    public var errorOutput: String

    /// Starts the writer with the interposer on an empty `directory/store`, lets it make
    /// `commits` per writer thread (killed after `timeout` seconds) and collects what it left.
    /// `environment` adds to the interposer's variables (IOTRACE_FAIL_AT, …).
    public static func run(_ stressCase: StressCase, directory: String, commits: Int, timeout: Double,
                           context: StressContext, environment: [String: String] = [:]) throws -> TracedWriterRun {
        let store = (directory as NSString).appendingPathComponent("store")
        let tracePath = (directory as NSString).appendingPathComponent("trace.iot")
        try StressFiles.makeDirectory(store)
        var variables = context.environment
        variables["LD_PRELOAD"] = try IOTraceInterposer.path(besides: context.executable)
        variables["IOTRACE_LOG"] = tracePath
        variables["IOTRACE_ROOT"] = store
        variables["IOTRACE_ACK_FD"] = String(WriterChild.ackDescriptor)
        for (key, value) in environment { variables[key] = value }
        let writer = try WriterChild(executable: context.executable, stressCase: stressCase, directory: store,
                                     stderrPath: (directory as NSString).appendingPathComponent("writer.stderr"),
                                     environment: variables, commits: commits)
        let exit = writer.finish(timeout: timeout)
        let text = writer.text
        try? text.write(toFile: (directory as NSString).appendingPathComponent("acks.log"), atomically: false, encoding: .utf8)
        return TracedWriterRun(store: store, tracePath: tracePath, text: text, exit: exit, errorOutput: writer.errorOutput)
    }

    /// The trace; `invalidTrace` when the writer left none (the interposer did not load).
    public func trace() throws -> IOTrace {
        guard FileManager.default.fileExists(atPath: tracePath) else {
            throw BenchError(.invalidTrace, "the traced writer left no trace (did \(IOTraceInterposer.fileName) load? writer: \(exit), "
                + "stderr: \(QuotedInput.clip(errorOutput)))", path: tracePath)
        }
        return try IOTrace(contentsOf: tracePath)
    }
}

extension CrashState {
    /// The ack lines sent before the crash point, as the writer's protocol: only these were
    /// acknowledged at the moment of the crash. A line cut by the crash point cannot happen (each
    /// is one write(2), one record), so a parse error is the writer's.
    public func ackLog(source: String) throws -> AckLog {
        try AckLog.parse(String(decoding: acknowledgements.joined(), as: UTF8.self), source: source)
    }
}
