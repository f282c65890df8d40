// `kill`: for each round, a fresh store, a writer child committing until killed, a SIGKILL at a
// random moment, then the checker on the directory as the dead writer left it.
//
// The moment: after a random number of acknowledgements (1...budget.maxAcks) plus a random
// delay of up to 2 ms, so the signal lands anywhere in a transaction (before its call, inside
// the engine's commit, between the call's return and its ack line). Both come from the seeded
// generator: a seed gives the same choices again (the exact instruction the signal lands on
// still depends on timing). A round whose writer makes no progress for `budget.duration`
// seconds is killed there.

import Foundation

public struct KillScenario: StressScenarioDriver {
    public let scenario = StressScenario.kill

    public init() {}

    public func run(_ stressCase: StressCase, budget: StressBudget, seed: UInt64, context: StressContext) throws -> [StressRoundResult] {
        var random = SplitMix64(seed: seed)
        var results: [StressRoundResult] = []
        for round in 1...max(1, budget.rounds) {
            if context.stop?.isRequested == true { break }
            let target = Int.random(in: 1...max(1, budget.maxAcks), using: &random)
            let delayMicroseconds = UInt32.random(in: 0...2_000, using: &random)
            let roundDirectory = (context.directory as NSString).appendingPathComponent("round-\(round)")
            let store = (roundDirectory as NSString).appendingPathComponent("store")
            try StressFiles.makeDirectory(store)
            let writer = try WriterChild(executable: context.executable, stressCase: stressCase, directory: store,
                                         stderrPath: (roundDirectory as NSString).appendingPathComponent("writer.stderr"),
                                         environment: context.environment)
            writer.waitForAcks(target, timeout: budget.duration)
            if delayMicroseconds > 0 { usleep(delayMicroseconds) }
            let exit = writer.kill()
            let text = writer.text
            try? text.write(toFile: (roundDirectory as NSString).appendingPathComponent("acks.log"), atomically: false, encoding: .utf8)
            let log = try AckLog.parse(text, source: "ack pipe of \(stressCase.label) round \(round)")
            // Killed as planned, or it had stopped on its own: then say why.
            let writerFailure: String? = exit == .signaled(SIGKILL) ? nil
                : "writer ended with \(exit) before the kill: \(QuotedInput.clip(writer.errorOutput))"
            let snapshot = (roundDirectory as NSString).appendingPathComponent("store-as-killed")
            try StressFiles.copyDirectory(store, to: snapshot)
            let outcome = try CheckerChild.check(stressCase, directory: store, scratch: roundDirectory, executable: context.executable,
                                                 environment: context.environment, timeout: context.checkTimeout)
            results.append(StressRoundResult(round: round, log: log, outcome: outcome, writerFailure: writerFailure, snapshot: snapshot))
        }
        return results
    }
}

/// Directories of the stress runs.
public enum StressFiles {
    public static func makeDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw BenchError(.io, "cannot create the directory: \(error.localizedDescription)", path: path)
        }
    }

    /// Copies `source` (its regular files and folders) to `destination`, which must not exist.
    public static func copyDirectory(_ source: String, to destination: String) throws {
        do {
            try FileManager.default.copyItem(atPath: source, toPath: destination)
        } catch {
            throw BenchError(.io, "cannot copy the store to \(destination): \(error.localizedDescription)", path: source)
        }
    }
}
