// The parent's side of a writer child: starts `strata-bench stress-writer` on a store directory
// with its ack pipe, collects the pipe's lines on a thread of its own (so that the child never
// blocks on a full pipe), and lets a scenario wait for a number of acknowledgements, kill the
// child, and take the log.

import Foundation

public final class WriterChild: @unchecked Sendable {
    // @unchecked: `bytes`, `acks` and `ended` are guarded by `condition`.
    /// The descriptor the child writes its lines to.
    public static let ackDescriptor: Int32 = 3
    public let process: ChildProcess
    /// The child's stderr (an engine error's message), for the report.
    public let stderrPath: String
    private let condition = NSCondition()
    private var bytes: [UInt8] = []
    private var acks = 0
    private var ended = false
    private let readerDone = DispatchSemaphore(value: 0)

    /// The arguments of `stress-writer` for `stressCase` on `directory`; `commits` 0 = until killed.
    public static func arguments(_ stressCase: StressCase, directory: String, commits: Int = 0) -> [String] {
        ["stress-writer", "--engine", stressCase.engine.rawValue, "--durability", stressCase.durability.rawValue,
         "--encryption", stressCase.encryption.rawValue, "--strategy", stressCase.strategy.rawValue,
         "--writers", String(stressCase.writers), "--batch-size", String(stressCase.batchSize),
         "--commits", String(commits), "--dir", directory, "--ack-fd", String(ackDescriptor)]
    }

    /// Starts the writer. `environment` is added to the child's (LD_PRELOAD, …).
    /// `extraArguments` go after the standard ones (`--tx-prefix`, `--resume`, …).
    public init(executable: String, stressCase: StressCase, directory: String, stderrPath: String,
                environment: [String: String] = [:], commits: Int = 0, extraArguments: [String] = []) throws {
        var readEnd: Int32 = -1
        process = try ChildProcess(executable: executable,
                                   arguments: Self.arguments(stressCase, directory: directory, commits: commits) + extraArguments,
                                   environment: environment, pipeTo: Self.ackDescriptor, stderr: stderrPath, readEnd: &readEnd)
        self.stderrPath = stderrPath
        let descriptor = readEnd
        Thread.detachNewThread { [self] in
            collect(descriptor)
            readerDone.signal()
        }
    }

    /// Reads the pipe to its end (every write end closed: the child is gone).
    private func collect(_ descriptor: Int32) {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            condition.lock()
            if count <= 0 {
                ended = true
                condition.broadcast()
                condition.unlock()
                break
            }
            for byte in chunk[0..<count] {
                bytes.append(byte)
                // An ack line starts "ack " after a newline.
                if byte == 0x0A, bytes.count >= 5 {
                    var start = bytes.count - 2
                    while start > 0 && bytes[start - 1] != 0x0A { start -= 1 }
                    if bytes.count - start > 4, bytes[start] == 0x61, bytes[start + 1] == 0x63, bytes[start + 2] == 0x6B, bytes[start + 3] == 0x20 {
                        acks += 1
                    }
                }
            }
            condition.broadcast()
            condition.unlock()
        }
        close(descriptor)
    }

    /// Waits until `count` acknowledgements arrived, the pipe closed (the child ended or closed
    /// it), or `timeout` seconds passed. Returns the acknowledgements seen so far.
    @discardableResult
    public func waitForAcks(_ count: Int, timeout: Double) -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while acks < count && !ended {
            if !condition.wait(until: deadline) { break }
        }
        return acks
    }

    /// Acknowledgements received so far.
    public var acknowledgements: Int {
        condition.lock()
        defer { condition.unlock() }
        return acks
    }

    /// Whether the pipe reached its end (the child ended or closed it).
    public var pipeEnded: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended
    }

    /// The last complete line received so far, without its newline ("" when none).
    public var lastLine: String {
        condition.lock()
        defer { condition.unlock() }
        guard let end = bytes.lastIndex(of: 0x0A) else { return "" }
        let start = bytes[..<end].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// SIGKILLs the child (if it still runs), reaps it and reads the rest of the pipe.
    /// Returns how the child ended: `.signaled(SIGKILL)` when the kill landed.
    public func kill() -> ChildExit {
        let exit = process.kill()
        drained()
        return exit
    }

    /// Waits for the child to end on its own (up to `timeout`; killed past it).
    public func finish(timeout: Double) -> ChildExit {
        let exit = process.wait(timeout: timeout)
        if exit == .running { return kill() }
        drained()
        return exit
    }

    /// Waits until the pipe's last line was collected (the semaphore is given back, so this
    /// may be called again).
    private func drained() {
        readerDone.wait()
        readerDone.signal()
    }

    /// Everything the child sent (call after `kill` or `finish`).
    public var text: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The child's stderr, trimmed (empty when none).
    public var errorOutput: String {
        ((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
