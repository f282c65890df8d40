// When a stop request (the CLI's SIGINT/SIGTERM) arrives decides whether a run is cut short:
// before or during a case, it is; after the last case settled, the run is complete.
import Foundation
import Testing
import StrataBench

@Suite("run completion under a stop request")
struct RunCompletionTests {
    private func cases(_ count: Int) -> [CaseSpec] {
        (0..<count).map { _ in
            CaseSpec(workload: .bulkInsert, engine: .sqlite, strategy: .dedicated, batchSize: 50,
                     durability: .memory, readings: 100)
        }
    }

    /// Runs `count` cases, requesting a stop when case `stopAfter` (1-based) finishes.
    private func run(_ count: Int, stopAfter: Int) async throws -> BenchRunner.Outcome {
        let stop = StopRequest()
        let runner = BenchRunner(cases: cases(count), progress: { event in
            if case .caseFinished(let index, _, _, _) = event, index == stopAfter { stop.request("SIGINT") }
        }, stop: stop)
        return try await runner.execute()
    }

    @Test func aStopAfterTheLastCaseLeavesACompleteRun() async throws {
        let outcome = try await run(2, stopAfter: 2)
        #expect(!outcome.cutShort)
        #expect(outcome.results.count == 2)
    }

    @Test func aStopBetweenCasesCutsTheRunShort() async throws {
        let outcome = try await run(3, stopAfter: 1)
        #expect(outcome.cutShort)
        #expect(outcome.results.count == 1)
    }

    @Test func aRunWithoutAStopIsComplete() async throws {
        let outcome = try await BenchRunner(cases: cases(2)).execute()
        #expect(!outcome.cutShort)
        #expect(outcome.results.count == 2)
    }

    @Test func aSkippedLastCaseStillCountsAsSettled() async throws {
        let stop = StopRequest()
        var specs = cases(1)
        specs.append(CaseSpec(workload: .encryption, engine: .sqlite, strategy: .dedicated, batchSize: 100,
                              encryption: .on, durability: .unsafe, readings: 200))
        let runner = BenchRunner(cases: specs, progress: { event in
            if case .skipped = event { stop.request("SIGTERM") }
        }, stop: stop)
        let outcome = try await runner.execute()
        #expect(!outcome.cutShort)
        #expect(outcome.results.count == 1)
    }
}
