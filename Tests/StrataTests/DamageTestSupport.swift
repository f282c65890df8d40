// What the damage, copy and corpus tests share beside the corpus model (Tests/StrataCorpus, the
// one the child `strata-probe` writes with): copies of the corpus file, a child `strata-probe`
// run with its exit, signal, stdout and stderr, and writing bytes into a file behind Strata's back.
import Foundation
import Synchronization
import Testing
import Strata
import StrataTestSupport
import StrataCorpus
#if canImport(Glibc)
import Glibc
#endif

enum CorpusFile {
    static func directory(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("strata-\(name)-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The corpus file built once per test process (per kind), copied for each test that damages it.
    private static let templates = Mutex([Bool: (path: String, digests: [String])]())

    /// A fresh copy of the corpus file at `path` (built by the first call); returns its digests.
    static func copy(to path: String, encrypted: Bool) throws -> [String] {
        let template = try templates.withLock { cache in
            if let t = cache[encrypted] { return t }
            let built = directory("corpus-template") + "/template.realm"
            let t = (built, try build(at: built, encrypted: encrypted))
            cache[encrypted] = t
            return t
        }
        try FileManager.default.copyItem(atPath: template.path, toPath: path)
        return template.digests
    }

    /// Writes the corpus file at `path` in a child; returns the digest after each of its commits
    /// (the last is the newest version).
    static func build(at path: String, encrypted: Bool) throws -> [String] {
        let run = try ProbeRun.run(["build", path, encrypted ? "encrypted" : "plain"], timeout: 240)
        guard run.exitStatus == 0 else { throw Realm.Error(.invalidState, "building the corpus failed: \(run)") }
        let digests = run.lines.filter { $0.hasPrefix("version ") }.map { String($0.split(separator: " ")[2]) }
        guard digests.count == 4 else { throw Realm.Error(.invalidState, "unexpected build output: \(run)") }
        return digests
    }
}

/// One finished child `strata-probe`.
struct ProbeRun: CustomStringConvertible {
    /// The exit status, nil when a signal ended the child.
    var exitStatus: Int32?
    /// The signal that ended the child, nil when it exited.
    var signal: Int32?
    var timedOut = false
    var stdout: String
    var stderr: String

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    var description: String {
        "exit \(exitStatus.map(String.init) ?? "-") signal \(signal.map(String.init) ?? "-")\(timedOut ? " (timed out)" : ""), stdout: \(stdout.prefix(400)), stderr: \(stderr.prefix(400))"
    }

    /// Runs the probe to completion; kills it after `timeout` seconds (then `timedOut`).
    static func run(_ arguments: [String], timeout: Double = 60) throws -> ProbeRun {
        let child = try ProbeChild(arguments)
        return child.finish(timeout: timeout)
    }
}

/// Reads a child's pipe on a thread of its own, with blocking reads.
///
/// Not `readabilityHandler`: on Linux, read sources set up and torn down on several threads at
/// once corrupt libdispatch's epoll bookkeeping, and its manager thread then crashes the whole
/// test process (swift-corelibs-libdispatch issue 949; seen here in CI as a SIGSEGV in
/// `_dispatch_event_loop_drain` while tests ran children in parallel).
enum PipeReader {
    /// Calls `chunk` with each piece read from `handle`, then once with empty data at its end.
    static func readToEnd(_ handle: FileHandle, _ chunk: @escaping @Sendable (Data) -> Void) {
        let thread = Thread {
            while true {
                let data = handle.availableData
                chunk(data)
                if data.isEmpty { return }
            }
        }
        thread.start()
    }
}

/// A running child `strata-probe` whose stdin the test writes and whose stdout it reads by line.
/// The Swift runtime's backtracer is off in the child: a trap then ends it at once, with its
/// message, instead of spending seconds symbolicating.
final class ProbeChild: @unchecked Sendable {
    // @unchecked: the buffers are Mutex-guarded; `process` and the pipes are used by the test's
    // thread only, and by Foundation's own handlers.
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private let outBuffer = Mutex(Data())
    private let errBuffer = Mutex(Data())
    private let lineArrived = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    private let outClosed = DispatchSemaphore(value: 0)
    private let errClosed = DispatchSemaphore(value: 0)
    private var consumed = 0

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: try StrataProbe.path())
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        PipeReader.readToEnd(output.fileHandleForReading) { [weak self] d in
            if d.isEmpty {
                self?.outClosed.signal()
                self?.lineArrived.signal()
                return
            }
            self?.outBuffer.withLock { $0.append(d) }
            self?.lineArrived.signal()
        }
        PipeReader.readToEnd(errors.fileHandleForReading) { [weak self] d in
            if d.isEmpty {
                self?.errClosed.signal()
                return
            }
            self?.errBuffer.withLock { $0.append(d) }
        }
        process.terminationHandler = { [exited] _ in exited.signal() }
        try process.run()
    }

    /// The next stdout line, nil if the child ended or `timeout` passed first.
    func nextLine(timeout: Double) -> String? {
        let deadline = DispatchTime.now() + timeout
        while true {
            let line: String? = outBuffer.withLock { data in
                let rest = data.dropFirst(consumed)
                guard let nl = rest.firstIndex(of: 0x0A) else { return nil }
                consumed = nl + 1
                return String(decoding: rest[rest.startIndex..<nl], as: UTF8.self)
            }
            if let line { return line }
            if !process.isRunning && outBuffer.withLock({ $0.count }) <= consumed { return nil }
            if lineArrived.wait(timeout: deadline) == .timedOut { return nil }
        }
    }

    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    func kill(_ signal: Int32 = SIGKILL) {
        Glibc.kill(process.processIdentifier, signal)
    }

    /// Waits for the end (killing the child after `timeout` seconds) and collects its output.
    func finish(timeout: Double) -> ProbeRun {
        try? input.fileHandleForWriting.close()
        var timedOut = false
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill()
            exited.wait()
        }
        _ = outClosed.wait(timeout: .now() + 10)
        _ = errClosed.wait(timeout: .now() + 10)
        let signalled = process.terminationReason == .uncaughtSignal
        return ProbeRun(exitStatus: signalled ? nil : process.terminationStatus,
                        signal: signalled ? process.terminationStatus : nil,
                        timedOut: timedOut,
                        stdout: String(decoding: outBuffer.withLock { $0 }, as: UTF8.self),
                        stderr: String(decoding: errBuffer.withLock { $0 }, as: UTF8.self))
    }
}

enum FileBytes {
    static let pageSize = 4096

    /// Writes `bytes` at `offset` of the file at `path` with pwrite, behind Strata's back.
    static func write(_ bytes: [UInt8], at offset: Int, of path: String) throws {
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else { throw Realm.Error(.fileAccess, "cannot open \(path)") }
        defer { close(fd) }
        let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        guard n == bytes.count else { throw Realm.Error(.fileAccess, "pwrite of \(path) failed") }
    }

    /// Overwrites the checksummed part of `page` (past its 32-byte header) with a pattern.
    static func damage(page: UInt32, of path: String) throws {
        try write([UInt8](repeating: 0xA5, count: 64), at: Int(page) * pageSize + 100, of: path)
    }
}
