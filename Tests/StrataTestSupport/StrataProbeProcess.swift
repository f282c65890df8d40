// Finding and running the child process `strata-probe` (Tests/StrataProbe), which the
// cross-process notification and damage tests start.
import Foundation
import Strata

public enum StrataProbe {
    /// The `strata-probe` executable in the build products directory (next to the tests).
    public static func path() throws -> String {
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("strata-probe").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        throw Realm.Error(.invalidState, "strata-probe not found near \(exe); run swift build --build-tests")
    }

    /// Runs the probe to completion (at most `timeout` seconds); returns its status and output.
    public static func run(_ arguments: [String], timeout: Double = 60) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try path())
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            throw Realm.Error(.invalidState, "strata-probe did not exit within \(timeout) s")
        }
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
