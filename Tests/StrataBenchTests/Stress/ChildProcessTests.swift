import Foundation
import Testing
import StrataBench

/// The child plumbing the scenarios share: a checker that hangs is killed and counted as a hang,
/// one that dies of a signal as a crash, one that prints no report as broken; extra environment
/// and the ack pipe reach the child.
@Suite("stress child processes")
struct ChildProcessTests {
    static func script(_ body: String) throws -> (path: String, directory: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-child-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/fake-strata-bench"
        try ExecutableScript.write(path, body: body)
        return (path, directory)
    }

    static let sqlite = StressCase(engine: .sqlite, durability: .full, encryption: .off, strategy: .dedicated)

    @Test func hangingCheckerIsKilledAndCountedAsAHang() throws {
        let fake = try Self.script("sleep 30")
        defer { try? FileManager.default.removeItem(atPath: fake.directory) }
        let started = Date()
        let outcome = try CheckerChild.check(Self.sqlite, directory: fake.directory, scratch: fake.directory, executable: fake.path, timeout: 0.5)
        guard case .hung = outcome else { Issue.record("expected a hang, got \(outcome)"); return }
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test func checkerDyingOfASignalIsACrash() throws {
        let fake = try Self.script("kill -SEGV $$")
        defer { try? FileManager.default.removeItem(atPath: fake.directory) }
        let outcome = try CheckerChild.check(Self.sqlite, directory: fake.directory, scratch: fake.directory, executable: fake.path, timeout: 30)
        #expect(outcome == .crashed(signal: SIGSEGV))
    }

    @Test func checkerWithoutAReportIsBroken() throws {
        let fake = try Self.script("echo 'no json here'; exit 0")
        defer { try? FileManager.default.removeItem(atPath: fake.directory) }
        let outcome = try CheckerChild.check(Self.sqlite, directory: fake.directory, scratch: fake.directory, executable: fake.path, timeout: 30)
        guard case .broken(let why) = outcome else { Issue.record("expected broken, got \(outcome)"); return }
        #expect(why.contains("not its JSON report"))
    }

    @Test func writerChildGetsItsEnvironmentAndAckPipe() throws {
        // The fake writer answers on descriptor 3 with what the power-loss scenario's LD_PRELOAD
        // would rely on: the variable it was given.
        let fake = try Self.script("echo ready >&3; echo \"begin w0-1 w0-o3:1-1\" >&3; echo \"ack w0-1\" >&3; echo \"$STRESS_PROBE\" >&2")
        defer { try? FileManager.default.removeItem(atPath: fake.directory) }
        let writer = try WriterChild(executable: fake.path, stressCase: Self.sqlite, directory: fake.directory,
                                     stderrPath: fake.directory + "/writer.stderr", environment: ["STRESS_PROBE": "preloaded"])
        #expect(writer.waitForAcks(1, timeout: 30) == 1)
        #expect(writer.finish(timeout: 30) == .exited(0))
        let log = try AckLog.parse(writer.text)
        #expect(log.ready && log.acknowledgedCount == 1)
        #expect(writer.errorOutput == "preloaded")
    }

    @Test func killLandsAsSIGKILL() throws {
        let fake = try Self.script("exec sleep 30")
        defer { try? FileManager.default.removeItem(atPath: fake.directory) }
        let writer = try WriterChild(executable: fake.path, stressCase: Self.sqlite, directory: fake.directory,
                                     stderrPath: fake.directory + "/writer.stderr")
        #expect(writer.waitForAcks(1, timeout: 0.2) == 0)
        #expect(writer.kill() == .signaled(SIGKILL))
        #expect(writer.text == "")
    }
}
