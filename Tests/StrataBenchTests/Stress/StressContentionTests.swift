import Foundation
import Testing
import StrataBench

/// Real writer processes on one store; a real stall (a writer made to sleep with --pause-after).
@Suite("stress contention", .serialized)
struct StressContentionTests {
    @Test(arguments: [EngineKind.strata, .sqlite])
    func twoProcessesOfTwoThreadsKeepEverythingAcknowledged(engine: EngineKind) throws {
        let directory = try ScenarioHarness.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stressCase = StressCase(engine: engine, durability: .full, encryption: .off, strategy: .threads, writers: 2)
        let results = try ContentionScenario(processes: 2).run(stressCase, budget: StressBudget(rounds: 1, duration: 60, maxAcks: 40, stall: 20),
                                                               seed: 1, context: try ScenarioHarness.context(directory))
        let result = try #require(results.first)
        #expect(result.hang == nil, "\(result.hang ?? "")")
        #expect(result.writerFailure == nil, "\(result.writerFailure ?? "")")
        // 2 processes × 2 threads × 40 commits, ids unique per process.
        #expect(result.log.acknowledgedCount == 160)
        #expect(Set(result.log.transactions.map(\.id)).count == result.log.transactions.count)
        #expect(result.log.transactions.contains { $0.id.hasPrefix("p2.") })
        let judged = try ScenarioHarness.judge(result, stressCase, .contention)
        #expect(judged.verdict == .pass, "\(judged.findings)")
        #expect(judged.counts.present == 160)
    }

    @Test func aStalledWriterIsReportedAsAHangWithEveryChildsState() throws {
        let directory = try ScenarioHarness.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = StressOptions()
        options.scenarios = ["contention"]
        options.engines = ["sqlite"]
        options.durability = .full
        options.strategies = ["threads"]
        options.writers = 2
        options.rounds = 1
        options.seed = 3
        var runner = try StressKillTests.runner(options, in: directory)
        runner.plan.budget = StressBudget(rounds: 1, duration: 60, maxAcks: 20, stall: 2)
        runner.drivers = [.contention: ContentionScenario(processes: 2, pauseAfter: 3)]
        let started = Date()
        let row = try #require(try runner.run().first)
        #expect(Date().timeIntervalSince(started) < 40, "the watchdog did not stop the stalled round")
        #expect(row.counts.hangs == 1)
        #expect(row.verdict == .fail)
        let finding = try #require(row.findings.first { $0.contains("no writer acknowledged") }, "\(row.findings)")
        #expect(finding.contains("process 1 pid"), "\(finding)")
        #expect(finding.contains("State "), "\(finding)")
        #expect(finding.contains("wchan "), "\(finding)")
        // What was acknowledged before the stall is still all there.
        #expect(row.counts.lost == 0)
        #expect(row.counts.acknowledged > 0)
    }
}
