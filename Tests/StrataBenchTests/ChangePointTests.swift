import Foundation
import Testing
import StrataBench

/// A seeded generator (SplitMix64) and Gaussian noise (Box–Muller): the series are the same on
/// every run, so a failure is reproducible.
struct SeededNoise {
    var state: UInt64
    mutating func uniform() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return (Double(z >> 11) + 0.5) / Double(1 << 53)
    }
    mutating func gaussian(_ sigma: Double) -> Double {
        sigma * (-2 * log(uniform())).squareRoot() * cos(2 * .pi * uniform())
    }
    /// `count` points around `level` with relative noise `relative`.
    mutating func points(_ count: Int, level: Double, relative: Double) -> [Double] {
        (0..<count).map { _ in level * (1 + gaussian(relative)) }
    }
}

@Suite("history changes")
struct ChangePointTests {
    @Test func aTenPercentStepAfterNoisyPointsIsFoundAtItsRevision() {
        var exact = 0
        for seed in 1...20 {
            var noise = SeededNoise(state: UInt64(seed))
            // 2% noise, then throughput 10% lower from point 12 on.
            let series = noise.points(12, level: 1000, relative: 0.02) + noise.points(8, level: 900, relative: 0.02)
            let found = ChangePoints.find(series)
            #expect(!found.isEmpty, "seed \(seed): \(series)")
            if found == [12] { exact += 1 }
        }
        #expect(exact >= 18, "found exactly at 12 in \(exact) of 20 series")
    }

    @Test func pureNoiseGivesNoChange() {
        var falseChanges = 0
        for seed in 1...40 {
            var noise = SeededNoise(state: UInt64(1000 + seed))
            // The noise level is the series' own: 2% and 20% noise are both noise.
            let series = noise.points(30, level: 500, relative: seed % 2 == 0 ? 0.02 : 0.2)
            if !ChangePoints.find(series).isEmpty { falseChanges += 1 }
        }
        #expect(falseChanges == 0)
    }

    @Test func twoStepsAreBothFound() {
        var both = 0
        for seed in 1...20 {
            var noise = SeededNoise(state: UInt64(2000 + seed))
            let series = noise.points(10, level: 100, relative: 0.02) + noise.points(10, level: 112, relative: 0.02)
                + noise.points(10, level: 100, relative: 0.02)
            if ChangePoints.find(series) == [10, 20] { both += 1 }
        }
        #expect(both >= 18, "both steps found exactly in \(both) of 20 series")
    }

    @Test func theSameStepInNoiseAsLargeIsNotAChange() {
        // A 10% step where the points themselves swing by ±30%: not beyond the noise.
        var noise = SeededNoise(state: 7)
        let series = noise.points(12, level: 1000, relative: 0.3) + noise.points(8, level: 900, relative: 0.3)
        #expect(ChangePoints.find(series).isEmpty)
    }

    @Test func changesNameTheRevisionsAndTheLevels() {
        let values: [Double] = [100, 101, 99, 100, 102, 98, 90, 91, 89, 90]
        let series = MetricSeries(caseKey: "k", metric: "readings_per_s", points: values.enumerated().map { index, value in
            MetricSeries.Point(revision: "r\(index)", firstRun: "t\(index)", runs: 1, values: [value - 1, value, value + 1])
        })
        let changes = ChangePoints.changes(in: series)
        #expect(changes == [ChangePoints.Change(caseKey: "k", metric: "readings_per_s", revision: "r6", previousRevision: "r5",
                                                before: 100, after: 90)])
        #expect(abs((changes.first?.changePercent ?? 0) + 10) < 1e-9)
        // Too short to judge, constant, or not finite: nothing.
        #expect(ChangePoints.find([1, 2]).isEmpty)
        #expect(ChangePoints.find(Array(repeating: 5, count: 10)).isEmpty)
        // Equal large values: rounding in the sums of squares is not a change.
        for value in [48_467.7, 16_216.05, 7.275, 1.234e12] {
            #expect(ChangePoints.find(Array(repeating: value, count: 40)).isEmpty, "\(value)")
        }
        #expect(ChangePoints.find([1, 1, .nan, 5, 5]).isEmpty)
    }
}
