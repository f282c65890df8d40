// Running strata-iotrace-probe under libStrataIOTrace.so from the tests: both are found next to
// the test binary (the build products directory), and a missing one fails with the command that
// builds it rather than with a confusing empty trace.

import Foundation
import Testing
import StrataBench

struct IOTraceRunFailure: Error, CustomStringConvertible {
    let description: String
}

enum IOTraceProducts {
    /// The build products directory's file `name`, searched upward from the test binary.
    static func locate(_ name: String) throws -> String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        throw IOTraceRunFailure(description: "\(name) not found near \(exe): build it with `swift build` "
            + "(the interposer is the StrataIOTrace product, the probe the strata-iotrace-probe target)")
    }

    static func interposer() throws -> String { try locate("libStrataIOTrace.so") }
    static func probe() throws -> String { try locate("strata-iotrace-probe") }
}

/// One traced run of the probe in a fresh root.
struct TracedRun {
    let root: String
    let tracePath: String
    /// The probe's report lines ("<n> <op> ok" / "<n> <op> errno=<e>").
    let report: [String]
    /// What the probe wrote to its stdout (its acknowledgement descriptor).
    let acknowledged: String
    let status: Int32

    /// Runs `script` (strata-iotrace-probe operations) with the interposer and `environment` added.
    static func run(_ script: [String], environment: [String: String] = [:],
                    prepare: (String) throws -> Void = { _ in }) throws -> TracedRun {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("iotrace-\(UUID().uuidString)")
        let root = base.appendingPathComponent("root").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try prepare(root)
        let tracePath = base.appendingPathComponent("trace").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try IOTraceProducts.probe())
        process.arguments = ["--dir", root] + script
        var env = ProcessInfo.processInfo.environment
        env["LD_PRELOAD"] = try IOTraceProducts.interposer()
        env["IOTRACE_LOG"] = tracePath
        env["IOTRACE_ROOT"] = root
        env["IOTRACE_ACK_FD"] = "1"
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // The probe's output is a few lines: both pipes' buffers hold it until it exits.
        process.waitUntilExit()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return TracedRun(root: root, tracePath: tracePath, report: stderr.split(separator: "\n").map(String.init),
                         acknowledged: stdout, status: process.terminationStatus)
    }

    func trace() throws -> IOTrace { try IOTrace(contentsOf: tracePath) }

    /// The file as the run left it on disk (nil when absent).
    func disk(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: URL(fileURLWithPath: root).appendingPathComponent(path).path).map { [UInt8]($0) }
    }

    func remove() { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: root).deletingLastPathComponent().path) }
}

extension IOTrace {
    /// The records of one kind, for compact expectations.
    func records(_ kind: IOTraceRecord.Kind) -> [IOTraceRecord] { records.filter { $0.kind == kind } }
}
