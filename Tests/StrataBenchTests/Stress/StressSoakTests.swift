import Foundation
import Testing
import StrataBench

@Suite("stress soak", .serialized)
struct StressSoakTests {
    static let mebibyte: Int64 = 1_048_576

    /// A minute of samples, one a second, with the given series.
    static func samples(rss: (Double) -> Int64 = { _ in 40 * mebibyte }, descriptors: (Double) -> Int = { _ in 25 },
                        store: (Double) -> Int64 = { _ in 4 * mebibyte }) -> [SoakSample] {
        (1...60).map { second in
            let t = Double(second)
            return SoakSample(seconds: t, rssBytes: rss(t) + 10 * mebibyte, anonymousBytes: rss(t), storeBytes: store(t),
                              descriptors: descriptors(t), mappedBytes: 500 * mebibyte, acks: 100, totalAcks: second * 100,
                              meanCommitMs: 10)
        }
    }

    @Test func slopeOfALineIsItsSlope() {
        #expect(SoakTrend.slope([(0, 1), (1, 3), (2, 5)]) == 2)
        #expect(SoakTrend.slope([(1, 1)]) == nil)
        #expect(SoakTrend.slope([(1, 1), (1, 2)]) == nil)
    }

    @Test func flatSeriesPass() {
        let judged = SoakTrend.judge(Self.samples(rss: { 40 * Self.mebibyte + Int64(($0.truncatingRemainder(dividingBy: 3)) * 4_096) }),
                                     duration: 60, steadyAcks: 0)
        #expect(judged.trends.isEmpty, "\(judged.trends)")
        #expect(judged.notes.isEmpty, "\(judged.notes)")
    }

    @Test func growingMemoryOrDescriptorsFail() {
        // 10 MiB/min of anonymous memory while the store stays the same size.
        let leaking = SoakTrend.judge(Self.samples(rss: { 40 * Self.mebibyte + Int64($0 * 10 / 60 * Double(Self.mebibyte)) }),
                                      duration: 60, steadyAcks: 0)
        #expect(leaking.trends.count == 1)
        #expect(leaking.trends.first?.contains("anonymous RSS grows") == true, "\(leaking.trends)")
        // Memory following a growing store is not a leak.
        let caching = SoakTrend.judge(Self.samples(rss: { 40 * Self.mebibyte + Int64($0 * 10 / 60 * Double(Self.mebibyte)) },
                                                   store: { 4 * Self.mebibyte + Int64($0 * 10 / 60 * Double(Self.mebibyte)) }),
                                      duration: 60, steadyAcks: 1_000_000)
        #expect(caching.trends.isEmpty, "\(caching.trends)")
        #expect(caching.notes.count == 1, "the store's own growth is not judged before it is steady")
        let descriptors = SoakTrend.judge(Self.samples(descriptors: { 25 + Int($0 / 10) }), duration: 60, steadyAcks: 0)
        #expect(descriptors.trends.contains { $0.contains("open descriptors grow") }, "\(descriptors.trends)")
        #expect(SoakTrend.judge(Array(Self.samples().prefix(2)), duration: 60, steadyAcks: 0).notes.count == 1)
    }

    @Test func aShortRealSoakPassesAndSamplesEverySecond() throws {
        let directory = try ScenarioHarness.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stressCase = StressCase(engine: .sqlite, durability: .full, encryption: .off, strategy: .dedicated)
        let results = try SoakScenario().run(stressCase, budget: StressBudget(rounds: 1, duration: 4), seed: 1,
                                             context: try ScenarioHarness.context(directory))
        let result = try #require(results.first)
        #expect(result.timeline.count == 4)
        #expect(result.timeline.allSatisfy { $0.rssBytes > 0 && $0.descriptors > 0 && $0.mappedBytes > 0 && $0.storeBytes > 0 })
        #expect(result.trends.isEmpty, "\(result.trends)")
        let judged = try ScenarioHarness.judge(result, stressCase, .soak)
        #expect(judged.verdict == .pass, "\(judged.findings)")
        #expect(judged.counts.acknowledged > 0)
        let row = StressRow(scenario: .soak, stressCase: stressCase, seed: 1, rounds: 1, states: 1, counts: judged.counts,
                            recoveryMs: [], verdict: .pass, promise: "", reproducers: [], findings: [], timeline: result.timeline)
        let csv = try #require(StressReport.timelineCSV([row]))
        #expect(csv.split(separator: "\n").count == 5)
        #expect(csv.hasPrefix(StressReport.timelineColumns.joined(separator: ",")))
        #expect(StressReport.timelinePath(summary: "results/runs/ci/stress.csv") == "results/runs/ci/stress.soak.csv")
    }
}
