import Foundation
import Testing

/// The sensitivity proofs (scripts/perf-gate-injections, scripts/stress-injections) patch a
/// copy of the sources at fixed anchor texts. A refactor that moves or rewrites an anchor would
/// only show at the next proof, as "no longer applies"; `--check` applies every injection to a
/// scratch copy of this tree, so the move fails here instead.
@Suite("injection scripts")
struct InjectionScriptsTests {
    static let pythonAvailable: Bool = PlotEnvironment.python(["-c", "pass"]).status == 0

    /// Runs `scripts/<name> --check` from the repository root.
    static func check(_ name: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["bash", "scripts/\(name)", "--check"]
        process.currentDirectoryURL = PlotEnvironment.root
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(.enabled(if: pythonAvailable, "the scripts patch with python3"))
    func everyGateInjectionStillApplies() throws {
        let (status, output) = try Self.check("perf-gate-injections")
        #expect(status == 0, "\(output)")
        for injection in ["cpu10", "cpu5", "page", "fsync", "alloc"] {
            #expect(output.contains("\(injection): applies"), "\(output)")
        }
    }

    @Test(.enabled(if: pythonAvailable, "the scripts patch with python3"))
    func everyStressInjectionStillApplies() throws {
        let (status, output) = try Self.check("stress-injections")
        #expect(status == 0, "\(output)")
        for injection in ["skip-flush", "no-dir-sync", "ignore-flush-error", "before-47"] {
            #expect(output.contains("\(injection): applies"), "\(output)")
        }
    }
}
