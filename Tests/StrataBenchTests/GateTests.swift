import Foundation
import Testing
import StrataBench

@Suite("performance gate: suite, rounds, joins and verdicts")
struct GateTests {
    @Test func theSuiteHoldsEveryGatedCaseOnce() {
        let suite = RunPlan.gateSuite
        #expect(suite.count == 39)
        // One read case: a slower scan or lookup fails the gate like a slower commit.
        let reads = suite.filter { $0.workload == .reads }
        #expect(reads.count == 1 && reads.first?.engine == .strata && reads.first?.alternates == true)
        #expect(reads.first?.flags == ["--workload", "reads", "--engine", "strata", "--readings", "20000"])
        #expect(Set(suite.map(\.flags)).count == suite.count)
        // Durable cases are judged on wall-clock throughput, side by side; every other alternates.
        #expect(suite.filter { !$0.alternates }.count == 14)
        #expect(suite.filter { !$0.alternates }.allSatisfy { $0.durability == .full && $0.readings == 200 })
    }

    @Test func strataCasesAreSizedByTheirCPUCostPerReading() {
        func readings(_ strategy: StrategyKind, _ engine: EngineKind = .strata) -> Int? {
            RunPlan.gateSuite.first { $0.engine == engine && $0.strategy == strategy && $0.durability == .unsafe }?.readings
        }
        #expect(readings(.mainSync) == 30_000)
        #expect(readings(.batched) == 50_000)
        #expect(readings(.threads) == 16_000)
        #expect([StrategyKind.dedicated, .mainAsync, .gcd, .async].map { readings($0) } == [12_000, 12_000, 12_000, 12_000])
        #expect(StrategyKind.allCases.allSatisfy { readings($0, .sqlite) == 1_500 })
        #expect(RunPlan.gateSuite.first { $0.workload == .bulkInsert && $0.engine == .strata }?.readings == 300_000)
        #expect(RunPlan.gateSuite.first { $0.workload == .pinnedGrowth && $0.engine == .sqlite }?.readings == 4_000)
    }

    /// Every case is one smoke-suite case of `run`, at the gate's size in a timing round and at the
    /// smoke suite's own size in the counted round.
    @Test func everyCaseIsOneSmokeCase() throws {
        for gateCase in RunPlan.gateSuite {
            var options = RunOptions()
            options.suite = .smoke
            options.repetitions = 1
            options.workloads = [gateCase.workload]
            options.engines = [gateCase.engine.rawValue]
            options.strategies = gateCase.strategy.map { [$0.rawValue] } ?? []
            options.durability = gateCase.durability
            let counted = try RunPlan.make(options)
            options.readings = gateCase.readings
            let timed = try RunPlan.make(options)
            // The encryption workload runs with encryption on and off: two rows of one process.
            let expected = gateCase.workload == .encryption ? 2 : 1
            #expect(timed.count == expected && counted.count == expected, "\(gateCase.flags)")
            #expect(timed.allSatisfy { $0.readings == gateCase.readings })
            #expect(counted.allSatisfy { $0.readings != gateCase.readings })
            #expect(!gateCase.countedFlags.contains("--readings"))
            #expect(gateCase.flags == gateCase.countedFlags + ["--readings", String(gateCase.readings)])
        }
    }

    @Test func whichBuildStartsAlternatesByCaseAndRound() {
        #expect(GateRounds.order(round: 1, caseIndex: 0) == [.base, .current])
        #expect(GateRounds.order(round: 1, caseIndex: 1) == [.current, .base])
        #expect(GateRounds.order(round: 2, caseIndex: 0) == [.current, .base])
        #expect(GateRounds.order(round: 0, caseIndex: 0) == [.current, .base])  // the counted round
        for round in 1...8 {
            let firsts = (0..<38).map { GateRounds.order(round: round, caseIndex: $0)[0] }
            #expect(firsts.filter { $0 == .base }.count == 19)
            #expect((0..<38).allSatisfy { GateRounds.order(round: round, caseIndex: $0)[0] != GateRounds.order(round: round + 1, caseIndex: $0)[0] })
        }
    }

    @Test func roundFilesKeepTheirNames() {
        #expect(GateRounds.roundFile(.base, tag: "3", alternated: true) == "rounds/base-3.csv")
        #expect(GateRounds.roundFile(.current, tag: "counted", alternated: false) == "rounds/current-counted-side.csv")
        #expect(GateRounds.caseFile(.current, tag: "2", caseIndex: 7) == "rounds/current-2-c7.csv")
    }

    @Test func joiningKeepsOneHeaderAndTheRowsInOrder() throws {
        let a = try CSVReader.parse("case,repetition,git_rev\nx,1,r\ny,1,r\n")
        let b = try CSVReader.parse("case,repetition,git_rev\nz,1,r\n")
        let joined = try GateRounds.join([("a.csv", a), ("b.csv", b)])
        #expect(joined.header == ["case", "repetition", "git_rev"])
        #expect(joined.rows.map { $0[0] } == ["x", "y", "z"])
    }

    @Test func joiningRefusesFilesWhoseColumnsDiffer() throws {
        let a = try CSVReader.parse("case,repetition\nx,1\n")
        let b = try CSVReader.parse("case,repetition,extra\nz,1,e\n")
        #expect(throws: BenchError.self) { try GateRounds.join([("a.csv", a), ("b.csv", b)]) }
        #expect(throws: BenchError.self) { try GateRounds.join([]) }
    }

    @Test func theCurrentRunNumbersItsRowsByRound() throws {
        let alternated = try CSVReader.parse("case,repetition,git_rev\nx,1,old\n")
        let side = try CSVReader.parse("case,repetition,git_rev\nd,1,old\n")
        let run = try GateRounds.currentRun(rounds: [[("1.csv", alternated), ("1-side.csv", side)], [("2.csv", alternated)]],
                                            gitRev: "abc123")
        #expect(run.rows == [["x", "1", "abc123"], ["d", "1", "abc123"], ["x", "2", "abc123"]])
        let kept = try GateRounds.currentRun(rounds: [[("1.csv", alternated)]], gitRev: nil)
        #expect(kept.rows == [["x", "1", "old"]])
        let noRepetition = try CSVReader.parse("case\nx\n")
        #expect(throws: BenchError.self) { try GateRounds.currentRun(rounds: [[("1.csv", noRepetition)]], gitRev: nil) }
    }

    @Test func theCountedRoundIsJudgedAgainstTheBaseOnlyWhenTheBaseCountsWork() {
        #expect(GateRounds.baseCountsWork(["case", "pages_written_per_txn"]))
        #expect(!GateRounds.baseCountsWork(["case", "readings_per_s"]))
    }

    @Test func statusesCombineToTheMostSevere() {
        #expect(GateRounds.severest(0, 0) == 0)
        #expect(GateRounds.severest(0, 1) == 1)
        #expect(GateRounds.severest(1, 2) == 2)
        #expect(GateRounds.severest(2, 0) == 2)
        #expect(GateRounds.severest(3, 0) == 1)
        #expect(GateRounds.caseFinished(0) && GateRounds.caseFinished(3))
        #expect(!GateRounds.caseFinished(1) && !GateRounds.caseFinished(64))
    }
}
