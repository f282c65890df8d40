import Foundation
import Testing
import StrataBench

/// A scratch directory and a context for calling a scenario driver directly (its round results,
/// not only the runner's row, are what these tests look at).
enum ScenarioHarness {
    static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-scenario-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func context(_ directory: String) throws -> StressContext {
        let executable = try #require(CLI.executable, "strata-bench is not built beside the tests: run `swift build --build-tests`")
        return StressContext(executable: executable, directory: directory, checkTimeout: 60)
    }

    static func judge(_ result: StressRoundResult, _ stressCase: StressCase, _ scenario: StressScenario) throws -> StateJudgement {
        let promise = try #require(DurabilityPromise.of(stressCase.engine, stressCase.durability))
        return StressJudge.judge(result.log, result.outcome, guarantee: promise.guarantee(scenario.threat), writerFailure: result.writerFailure)
    }
}

/// Whether the full-disk tests run: they need to mount a file system (root). Where that is
/// impossible they are reported as skipped with the reason; under CI (`CI=true`) they run anyway
/// and fail at the mount with it, so a CI machine that lost the right is never passed silently.
enum ScratchMount {
    static let unavailability: String? = ScratchFileSystem.unavailability()

    static var shouldTest: Bool { unavailability == nil || PeerLibrary.inCI }

    static var reason: Comment { Comment(rawValue: "cannot mount a scratch file system: \(unavailability ?? "available") — not tested on this machine") }
}

extension StressOptions {
    /// What most scenario tests start from: `scenario` on `engines` at `full`, one strategy, one
    /// round, seeded (the other budgets at their defaults until a test sets them).
    static func scenario(_ scenario: String, engines: [String], strategy: String = "dedicated", seed: UInt64 = 45) -> StressOptions {
        var options = StressOptions()
        options.scenarios = [scenario]
        options.engines = engines
        options.durability = .full
        options.strategies = [strategy]
        options.rounds = 1
        options.seed = seed
        return options
    }
}

extension ScenarioHarness {
    /// The runner's rows for `options`, run in a scratch directory removed afterwards.
    static func rows(_ options: StressOptions) throws -> [StressRow] {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try StressKillTests.runner(options, in: directory).run()
    }

    /// Every row passes, saw acknowledgements and lost none of them, and checked `states` crash
    /// states when given.
    static func expectEveryAckKept(_ rows: [StressRow], states: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        for row in rows {
            let label = row.stressCase.label
            #expect(row.verdict == .pass, "\(label): \(row.findings)", sourceLocation: sourceLocation)
            if let states { #expect(row.states == states, "\(label): \(row.states) states checked", sourceLocation: sourceLocation) }
            #expect(row.counts.acknowledged > 0, "\(label)", sourceLocation: sourceLocation)
            #expect(row.counts.lost + row.counts.halfApplied + row.counts.corrupt + row.counts.crashes + row.counts.hangs == 0,
                    "\(label): \(row.findings)", sourceLocation: sourceLocation)
        }
    }
}
