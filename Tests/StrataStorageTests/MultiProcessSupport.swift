// Running strata-storage-probe from tests: locate it next to the test bundle, spawn it with
// pipes, read its stdout line by line, kill it.

import Foundation
import Testing
import StrataStorage

enum ProbeLocator {
    /// The probe executable in the build products directory (where the test bundle lives).
    static func path() throws -> String {
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("strata-storage-probe").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        throw StorageError(.notFound, "strata-storage-probe not found near \(exe); run swift build --build-tests")
    }
}

/// A running probe child.
final class Probe: @unchecked Sendable {
    // @unchecked: `lines` and `ended` are guarded by `condition`.
    let process = Process()
    private let stdinPipe = Pipe()
    private let stdoutPipe = Pipe()
    private let condition = NSCondition()
    private var lines: [String] = []
    private var partial = Data()
    private var ended = false

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: try ProbeLocator.path())
        process.arguments = arguments
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        // A reader thread with blocking reads, not `readabilityHandler`: on Linux, read sources
        // set up and torn down on several threads at once corrupt libdispatch's epoll
        // bookkeeping, and its manager thread then crashes the test process
        // (swift-corelibs-libdispatch issue 949).
        let handle = stdoutPipe.fileHandleForReading
        let reader = Thread { [weak self] in
            while true {
                let data = handle.availableData
                self?.received(data)
                if data.isEmpty { return }
            }
        }
        try process.run()
        reader.start()
    }

    private func received(_ data: Data) {
        condition.lock()
        if data.isEmpty {
            ended = true
        } else {
            partial.append(data)
            while let newline = partial.firstIndex(of: 0x0A) {
                let line = String(decoding: partial[partial.startIndex..<newline], as: UTF8.self)
                lines.append(line)
                partial = Data(partial[(newline + 1)...])
            }
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Waits up to `timeout` seconds for a line satisfying `predicate`.
    func waitForLine(timeout: Double = 20, where predicate: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let line = lines.first(where: predicate) { return line }
            if ended || !condition.wait(until: deadline) { return lines.first(where: predicate) }
        }
    }

    /// All lines read so far.
    func output() -> [String] {
        condition.lock()
        defer { condition.unlock() }
        return lines
    }

    func sendLine() {
        stdinPipe.fileHandleForWriting.write(Data("go\n".utf8))
    }

    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for exit and for stdout to be drained; returns the exit status.
    ///
    /// The reader thread reads until end of file (the child's end of the pipe closes when it
    /// dies) and marks `ended` itself, after every line it read is in `lines`, so `output()`
    /// never misses the child's last line (seen once in CrashPinnedTests when the reading was
    /// cut short: the last "acked" of a killed child missing).
    func waitForExit() -> Int32 {
        process.waitUntilExit()
        condition.lock()
        let deadline = Date().addingTimeInterval(10)
        while !ended && condition.wait(until: deadline) {}
        condition.unlock()
        return process.terminationStatus
    }
}
