import Foundation
import GRDB
import Testing
import StrataBench

private func scratch() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-stress-\(UUID())").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Real writer processes, real SIGKILLs, real checker processes (the built `strata-bench`).
@Suite("stress kill", .serialized)
struct StressKillTests {
    static func runner(_ options: StressOptions, in directory: String) throws -> StressRunner {
        let executable = try #require(CLI.executable, "strata-bench is not built beside the tests: run `swift build --build-tests`")
        return StressRunner(plan: try StressPlan.make(options), executable: executable,
                            keepDirectory: directory + "/keep", workDirectory: directory + "/work")
    }

    @Test func killRoundsKeepEveryAcknowledgedCommitOnStrataAndSQLite() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = StressOptions()
        options.scenarios = ["kill"]
        options.engines = ["strata", "sqlite"]
        options.rounds = 2
        options.seed = 45
        let rows = try Self.runner(options, in: directory).run()
        // 2 engines × full, unsafe × dedicated, batched, threads.
        #expect(rows.count == 12)
        for row in rows {
            let label = row.stressCase.label
            #expect(row.verdict == .pass, "\(label): \(row.findings)")
            #expect(row.states == 2 && row.rounds == 2, "\(label)")
            #expect(row.counts.acknowledged > 0, "\(label): nothing was acknowledged before the kills")
            #expect(row.counts.present >= row.counts.acknowledged, "\(label)")
            #expect(row.counts.lost + row.counts.halfApplied + row.counts.corrupt + row.counts.typedErrors == 0, "\(label)")
            #expect(row.counts.crashes + row.counts.hangs + row.counts.writerFailures == 0, "\(label): \(row.findings)")
            #expect(row.recoveryMs.count == 2, "\(label)")
        }
        #expect(Set(rows.map(\.stressCase.strategy)) == [.dedicated, .batched, .threads])
        #expect(!FileManager.default.fileExists(atPath: directory + "/keep"), "a passing run keeps no store")
    }

    @Test(.enabled(if: PeerLibrary.shouldTest(.lmdb) && PeerLibrary.shouldTest(.sqlcipher), PeerLibrary.reason(.lmdb)))
    func killRoundsPassOnLMDBAndEncryptedSQLCipher() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = StressOptions()
        options.scenarios = ["kill"]
        options.engines = ["lmdb", "sqlcipher"]
        options.encryption = .both
        options.strategies = ["threads"]
        options.rounds = 2
        options.seed = 7
        let rows = try Self.runner(options, in: directory).run()
        // LMDB has no encryption: lmdb off, sqlcipher off and on, each at full and unsafe.
        #expect(rows.count == 6)
        #expect(rows.contains { $0.stressCase.engine == .sqlcipher && $0.stressCase.encryption == .on })
        for row in rows {
            #expect(row.verdict == .pass, "\(row.stressCase.label): \(row.findings)")
            #expect(row.counts.acknowledged > 0, "\(row.stressCase.label)")
        }
    }

    /// A scenario that lets a writer finish, then deletes the newest readings of one sensor
    /// behind the engine's back: the acknowledgements of those commits are lost.
    struct DeletingNewestReadings: StressScenarioDriver {
        let scenario = StressScenario.kill

        func run(_ stressCase: StressCase, budget: StressBudget, seed: UInt64, context: StressContext) throws -> [StressRoundResult] {
            let store = context.directory + "/store"
            try StressFiles.makeDirectory(store)
            let writer = try WriterChild(executable: context.executable, stressCase: stressCase, directory: store,
                                         stderrPath: context.directory + "/writer.stderr", commits: 12)
            let exit = writer.finish(timeout: 120)
            guard exit == .exited(0) else { throw BenchError(.engine, "writer ended with \(exit): \(writer.errorOutput)") }
            let log = try AckLog.parse(writer.text)
            let database = try DatabaseQueue(path: store + "/bench.sqlite")
            try database.write { try $0.execute(sql: "DELETE FROM reading WHERE sensor = 'w0-o3' AND seq > 2") }
            try database.close()
            let snapshot = context.directory + "/snapshot"
            try StressFiles.copyDirectory(store, to: snapshot)
            let outcome = try CheckerChild.check(stressCase, directory: store, scratch: context.directory,
                                                 executable: context.executable, timeout: context.checkTimeout)
            return [StressRoundResult(round: 1, log: log, outcome: outcome, snapshot: snapshot)]
        }
    }

    @Test func deletedAcknowledgedReadingsAreReportedLostAndFailWithAKeptReproducer() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = StressOptions()
        options.scenarios = ["kill"]
        options.engines = ["sqlite"]
        options.durability = .full
        options.strategies = ["dedicated"]
        options.rounds = 1
        options.seed = 1
        var runner = try Self.runner(options, in: directory)
        runner.drivers = [.kill: DeletingNewestReadings()]
        let rows = try runner.run()
        let row = try #require(rows.first)
        // 12 commits round robin over 3 sensors: w0-o3 got seqs 1...4; 3 and 4 were deleted.
        #expect(row.counts.acknowledged == 12)
        #expect(row.counts.lost == 2)
        #expect(row.counts.present == 10)
        #expect(row.verdict == .fail)
        #expect(row.findings.contains { $0.contains("acknowledged transaction(s) absent") })
        let kept = try #require(row.reproducers.first)
        #expect(kept.replay.hasPrefix("strata-bench stress-check --engine sqlite --durability full --encryption off --dir "))
        #expect(FileManager.default.fileExists(atPath: kept.directory + "/store/bench.sqlite"))
        #expect(try AckLog.parse(String(contentsOfFile: kept.directory + "/acks.log", encoding: .utf8)).acknowledgedCount == 12)
        // The replay line's check on the kept copy shows the same store.
        let replay = try CLI.run(["stress-check", "--engine", "sqlite", "--durability", "full", "--dir", kept.directory + "/store"])
        #expect(replay.status == 0, "\(replay.stderr)")
        let report = try CheckReport.parse(replay.stdout)
        #expect(report.sensors["w0-o3"] == [[1, 2]])
        #expect(report.sensors["w0-no2"] == [[1, 4]])
    }
}

@Suite("stress command line")
struct StressCLITests {
    @Test(arguments: [
        (["stress", "--scenario", "crash"], "--scenario crash: unknown scenario"),
        (["stress", "--rounds", "0"], "--rounds 0"),
        (["stress", "--strategy", "gcd"], "--strategy gcd"),
        (["stress", "--workload", "compaction"], "--workload compaction"),
        (["stress", "--engine", "oracle"], "--engine oracle"),
        (["stress", "--seed", "-1"], "--seed -1"),
        (["stress-check", "--engine", "strata", "--durability", "full", "--dir", "/nonexistent/store"], "no such directory"),
    ])
    func badFlagsAreUsageErrors(arguments: [String], message: String) throws {
        let outcome = try CLI.run(arguments)
        #expect(outcome.status == 64, "\(outcome.stderr)")
        #expect(outcome.stderr.contains(message), "\(outcome.stderr)")
    }

    @Test func listNamesTheScenarios() throws {
        let outcome = try CLI.run(["list"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("stress scenarios:"))
        for scenario in StressScenario.allCases { #expect(outcome.stdout.contains("  \(scenario.rawValue) ")) }
    }

    @Test func defaultPassSkipsWhatIsNotImplementedOrNotStressed() throws {
        let plan = try StressPlan.make(StressOptions())
        // Every scenario is implemented: the default pass runs them all, and skips only what is
        // not stressed (memory durability, below).
        #expect(Set(plan.items.map(\.scenario)) == Set(StressScenario.allCases))
        #expect(plan.budget.rounds == StressOptions.defaultRounds)
        var memory = StressOptions()
        memory.durability = .memory
        let memoryPlan = try StressPlan.make(memory)
        #expect(memoryPlan.items.isEmpty)
        #expect(memoryPlan.skipped.contains { $0.contains("durability memory") })
    }
}
