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
