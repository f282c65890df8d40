import Foundation
import Testing
import StrataBench

/// Real file systems (tmpfs, or an ext4 loop image) filled by a real ballast under a real writer.
@Suite("stress full-disk", .serialized)
struct StressFullDiskTests {
    @Test(.enabled(if: ScratchMount.shouldTest, ScratchMount.reason), arguments: [EngineKind.strata, .sqlite])
    func fullDiskIsReportedClearlyLosesNothingAndTheWriterResumes(engine: EngineKind) throws {
        let directory = try ScenarioHarness.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stressCase = StressCase(engine: engine, durability: .full, encryption: .off, strategy: .dedicated)
        // The writer reaches ENOSPC only once it needs more file than it had when the ballast
        // landed; the scenario waits for that in commits, not seconds, so a slow (debug, loaded)
        // writer is given as many as a fast one.
        let results = try FullDiskScenario().run(stressCase, budget: StressBudget(rounds: 1, duration: 6), seed: 1,
                                                 context: try ScenarioHarness.context(directory))
        #expect(results.count == 2)
        let full = try #require(results.first)
        // The writer really hit the full disk and said so.
        let error = try #require(full.log.errors.first, "the writer reported no engine error: \(full.notes) \(full.writerFailure ?? "")")
        #expect(FullDiskScenario.saysFull(error.message), "\(error.message)")
        #expect(full.writerFailure == nil, "\(full.writerFailure ?? "")")
        #expect(full.log.acknowledgedCount >= FullDiskScenario.acksBeforeFill)
        // After the ballast was deleted a second writer resumed on the same store.
        let resumed = try #require(results.last)
        let afterResume = resumed.log.transactions.filter { $0.id.hasPrefix("r2.") && $0.acknowledged }
        #expect(afterResume.count == FullDiskScenario.resumeCommits, "\(resumed.writerFailure ?? "")")
        #expect(resumed.writerFailure == nil, "\(resumed.writerFailure ?? "")")
        for result in results {
            let judged = try ScenarioHarness.judge(result, stressCase, .fullDisk)
            #expect(judged.verdict == .pass, "state \(result.state): \(judged.findings)")
            #expect(judged.counts.present >= judged.counts.acknowledged, "state \(result.state)")
        }
        // Unmounted afterwards: nothing of ours is left in the mount table.
        let mounts = try String(contentsOfFile: "/proc/mounts", encoding: .utf8)
        #expect(!mounts.contains(directory))
    }

    @Test func errorLinesParseAndStayOneLine() throws {
        let text = "ready\n" + AckLog.beginLine("w0-1", [AckPart(sensor: "w0-o3", first: 1, last: 1)])
            + AckLog.errorLine("w0-1", "SQLite error 13: database or disk is full\nsecond line") + AckLog.errorLine("-", "")
        let log = try AckLog.parse(text)
        #expect(log.errors == [AckError(id: "w0-1", message: "SQLite error 13: database or disk is full second line"),
                               AckError(id: "-", message: "(no message)")])
        #expect(AckLog.errorLine("w0-1", String(repeating: "x", count: 10_000)).utf8.count < AckLog.maxLineBytes)
        #expect(throws: BenchError.self) { try AckLog.parse("error w0-9 disk full\n") }
        #expect(throws: BenchError.self) { try AckLog.parse("error -\n") }
        #expect(!FullDiskScenario.saysFull("wrong key"))
    }

    struct CannotMount: StressScenarioDriver {
        let scenario = StressScenario.fullDisk
        func run(_ stressCase: StressCase, budget: StressBudget, seed: UInt64, context: StressContext) throws -> [StressRoundResult] {
            throw BenchError(.unsupported, "full-disk needs a size-limited file system of its own and none could be mounted (uid 1000)")
        }
    }

    @Test func aCaseTheMachineCannotStageIsSkippedWithItsReasonAndTheOthersRun() throws {
        let directory = try ScenarioHarness.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = StressOptions()
        options.scenarios = ["full-disk", "kill"]
        options.engines = ["sqlite"]
        options.durability = .full
        options.strategies = ["dedicated"]
        options.rounds = 1
        options.seed = 2
        var runner = try StressKillTests.runner(options, in: directory)
        runner.drivers[.fullDisk] = CannotMount()
        let notes = Locked([String]())
        runner.note = { line in notes.update { $0.append(line) } }
        let rows = try runner.run()
        #expect(rows.map(\.scenario) == [.kill])
        #expect(notes.value.contains { $0.hasPrefix("skipped: full-disk sqlite/full/off/dedicated: ") && $0.contains("uid 1000") }, "\(notes.value)")
    }
}

/// Lines several threads add to.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `stored` is guarded by `lock`.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
    var value: Value { lock.withLock { stored } }
}
