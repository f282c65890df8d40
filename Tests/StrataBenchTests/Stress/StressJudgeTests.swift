import Testing
import StrataBench

/// The verdict on hand-made acknowledgement logs and store contents.
@Suite("stress verdict")
struct StressJudgeTests {
    static let everything = StressGuarantee.everything
    static let lossy = StressGuarantee(keepsAcknowledged: false, staysIntact: true, atomic: true)

    /// Three single-reading transactions on w0-o3, the first `acked` of them acknowledged.
    static func log(acked: Int, count: Int = 3) -> AckLog {
        AckLog(ready: true, transactions: (1...count).map {
            AckTransaction(id: "w0-\($0)", parts: [AckPart(sensor: "w0-o3", first: Int64($0), last: Int64($0))], acknowledged: $0 <= acked)
        })
    }

    static func store(_ sensors: [String: [[Int64]]]) -> CheckOutcome {
        .checked(CheckReport(engine: "sqlite", opened: true, sensors: sensors, recoveryMs: 1.5))
    }

    @Test func everythingAcknowledgedIsPresent() {
        let judged = StressJudge.judge(Self.log(acked: 3), Self.store(["w0-o3": [[1, 3]]]), guarantee: Self.everything)
        #expect(judged.verdict == .pass)
        #expect(judged.counts.acknowledged == 3)
        #expect(judged.counts.present == 3)
        #expect(judged.counts.lost == 0)
        #expect(judged.recoveryMs == 1.5)
    }

    @Test func unacknowledgedMayBeAbsentOrPresent() {
        #expect(StressJudge.judge(Self.log(acked: 2), Self.store(["w0-o3": [[1, 2]]]), guarantee: Self.everything).verdict == .pass)
        #expect(StressJudge.judge(Self.log(acked: 2), Self.store(["w0-o3": [[1, 3]]]), guarantee: Self.everything).verdict == .pass)
    }

    @Test func acknowledgedAndAbsentIsLost() {
        let judged = StressJudge.judge(Self.log(acked: 3), Self.store(["w0-o3": [[1, 1]]]), guarantee: Self.everything)
        #expect(judged.counts.lost == 2)
        #expect(judged.verdict == .fail)
        #expect(judged.findings.contains { $0.contains("w0-2") && $0.contains("w0-3") })
    }

    @Test func lossTheEngineDocumentsIsShownNotFailed() {
        let judged = StressJudge.judge(Self.log(acked: 3), Self.store(["w0-o3": [[1, 1]]]), guarantee: Self.lossy)
        #expect(judged.counts.lost == 2)
        #expect(judged.verdict == .documentedLoss)
    }

    @Test func transactionPartlyPresentIsHalfApplied() {
        let parts = [AckPart(sensor: "w0-o3", first: 1, last: 2), AckPart(sensor: "w0-no2", first: 1, last: 2)]
        let log = AckLog(ready: true, transactions: [AckTransaction(id: "w0-1", parts: parts, acknowledged: false)])
        // Not acknowledged, yet one sensor has it and the other not: never allowed.
        let split = StressJudge.judge(log, Self.store(["w0-o3": [[1, 2]]]), guarantee: Self.everything)
        #expect(split.counts.halfApplied == 1)
        #expect(split.verdict == .fail)
        // One reading of a two-reading part.
        let torn = StressJudge.judge(log, Self.store(["w0-o3": [[1, 1]], "w0-no2": [[1, 1]]]), guarantee: Self.lossy)
        #expect(torn.counts.halfApplied == 1)
        #expect(torn.verdict == .fail)
    }

    @Test func gapInASensorsSequencesIsHalfApplied() {
        let judged = StressJudge.judge(Self.log(acked: 3, count: 5), Self.store(["w0-o3": [[1, 2], [4, 5]]]), guarantee: Self.lossy)
        #expect(judged.counts.halfApplied >= 1)
        #expect(judged.verdict == .fail)
    }

    @Test func readingsNobodyWroteAreHalfApplied() {
        let judged = StressJudge.judge(Self.log(acked: 3), Self.store(["w0-o3": [[1, 4]]]), guarantee: Self.everything)
        #expect(judged.counts.halfApplied == 1)
        #expect(judged.verdict == .fail)
    }

    @Test func trimmedOldestReadingsAreNotLost() {
        let count = SensorModel.keep + 5
        let judged = StressJudge.judge(Self.log(acked: count, count: count), Self.store(["w0-o3": [[6, Int64(count)]]]),
                                       guarantee: Self.everything)
        #expect(judged.verdict == .pass)
        #expect(judged.counts.lost == 0)
        #expect(judged.counts.present == count)
    }

    @Test func typedErrorAfterAnAckIsAFailureLikeALoss() {
        let refused = CheckOutcome.checked(CheckReport(engine: "strata", opened: false,
                                                       error: CheckReport.Failure(code: "engine", message: "corrupt file")))
        let judged = StressJudge.judge(Self.log(acked: 2), refused, guarantee: Self.everything)
        #expect(judged.counts.typedErrors == 1)
        #expect(judged.counts.lost == 2)
        #expect(judged.verdict == .fail)
    }

    @Test func refusalWithNothingAcknowledgedIsNotALoss() {
        let refused = CheckOutcome.checked(CheckReport(engine: "strata", opened: false,
                                                       error: CheckReport.Failure(code: "engine", message: "not a Strata file")))
        let judged = StressJudge.judge(AckLog(), refused, guarantee: Self.everything)
        #expect(judged.counts.typedErrors == 1)
        #expect(judged.counts.lost == 0)
        #expect(judged.verdict == .pass)
        // The setup acknowledged (`ready`): a refusal then is a failure even with no commit acked.
        #expect(StressJudge.judge(AckLog(ready: true), refused, guarantee: Self.everything).verdict == .fail)
    }

    @Test func integrityProblemsAreCorrupt() {
        let damaged = CheckOutcome.checked(CheckReport(engine: "sqlite", opened: true, sensors: ["w0-o3": [[1, 3]]],
                                                       problems: ["row 3 missing from index"]))
        let judged = StressJudge.judge(Self.log(acked: 3), damaged, guarantee: Self.everything)
        #expect(judged.counts.corrupt == 1)
        #expect(judged.verdict == .fail)
    }

    @Test func checkerCrashOrHangFails() {
        let crashed = StressJudge.judge(Self.log(acked: 1), .crashed(signal: 11), guarantee: Self.lossy)
        #expect(crashed.counts.crashes == 1)
        #expect(crashed.verdict == .fail)
        let hung = StressJudge.judge(Self.log(acked: 1), .hung(seconds: 60), guarantee: Self.lossy)
        #expect(hung.counts.hangs == 1)
        #expect(hung.verdict == .fail)
    }

    /// An engine that documents it may corrupt its store (no flushes) may kill its reader on one:
    /// counted and documented. A hang stays a failure, and so does a crash where the promise says
    /// the store stays intact or atomic.
    @Test func aCheckerCrashIsDocumentedOnlyWhereTheEngineMayCorruptItsStore() {
        let crashed = StressJudge.judge(Self.log(acked: 2), .crashed(signal: 7), guarantee: StressGuarantee(keepsAcknowledged: false, staysIntact: false, atomic: false))
        #expect(crashed.counts.crashes == 1)
        #expect(crashed.verdict == .documentedLoss)
        #expect(crashed.findings.first?.hasSuffix("(documented)") == true)
        let hung = StressJudge.judge(Self.log(acked: 2), .hung(seconds: 60), guarantee: StressGuarantee(keepsAcknowledged: false, staysIntact: false, atomic: false))
        #expect(hung.verdict == .fail)
        let refuses = StressGuarantee(keepsAcknowledged: false, staysIntact: false, atomic: true)
        #expect(StressJudge.judge(Self.log(acked: 2), .crashed(signal: 7), guarantee: refuses).verdict == .fail)
    }

    @Test func everyEnginePromisesAgainstProcessDeathAtEveryStressedDurability() throws {
        // The reference engine keeps nothing past its process and promises nothing (never stressed).
        #expect(Engines.adapter(.reference)?.promises.isEmpty == true)
        #expect(DurabilityPromise.of(.reference, .full) == nil)
        for engine in EngineKind.allCases where Engines.adapter(engine)?.role != .reference {
            for durability in [Durability.full, .unsafe] {
                let promise = try #require(DurabilityPromise.of(engine, durability))
                #expect(promise.processDeath == .everything)
                #expect(!promise.source.isEmpty)
            }
            #expect(DurabilityPromise.of(engine, .memory) == nil)
            #expect(DurabilityPromise.of(engine, .full)?.powerLoss == .everything)
            #expect(DurabilityPromise.of(engine, .unsafe)?.powerLoss.keepsAcknowledged == false)
        }
    }

    @Test func rangesAreRunsInListOrder() {
        #expect(CheckReport.ranges([1, 2, 3, 7, 8, 5]) == [[1, 3], [7, 8], [5, 5]])
        #expect(CheckReport.ranges([]) == [])
    }
}
