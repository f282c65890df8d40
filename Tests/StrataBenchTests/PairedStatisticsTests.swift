import Foundation
import Testing
import StrataBench

/// SplitMix64: a seeded generator, so the distribution tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A standard normal draw (Box–Muller).
    mutating func normal() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

@Suite("paired statistics")
struct PairedStatisticsTests {
    @Test func signedRankDistributionMatchesTheTable() {
        // Published critical values: n = 10, two-sided 5% rejects W ≤ 8; P(W ≤ 8) = 0.0244.
        let cumulative = PairedStatistics.signedRankCumulative(n: 10)
        #expect(cumulative.count == 56)
        #expect(abs(cumulative[8] - 25.0 / 1024) < 1e-12)
        #expect(cumulative[9] > 0.025)
        #expect(abs(cumulative[55] - 1) < 1e-12)
        // Symmetry: P(W ≤ w) = P(W ≥ M − w).
        #expect(abs(cumulative[20] - (1 - cumulative[34])) < 1e-12)
    }

    @Test func tooFewPairsGiveNoInterval() {
        #expect(PairedStatistics.minimumPairs(confidence: 0.95) == 6)
        #expect(PairedStatistics.minimumPairs(confidence: 0.99) == 8)
        #expect(PairedStatistics.hodgesLehmann([0.1, 0.2, 0.1, 0.3, 0.2], confidence: 0.95) == nil)
        #expect(PairedStatistics.hodgesLehmann([0.1, 0.2, 0.1, 0.3, 0.2, 0.1], confidence: 0.95) != nil)
        #expect(PairedStatistics.hodgesLehmann(Array(repeating: 0.1, count: 7), confidence: 0.99) == nil)
        #expect(PairedStatistics.hodgesLehmann([], confidence: 0.95) == nil)
        #expect(PairedStatistics.hodgesLehmann([0.1, .nan, 0.1, 0.1, 0.1, 0.1, 0.1], confidence: 0.95) == nil)
    }

    @Test func tiesAndZerosAreHandled() throws {
        let zeros = try #require(PairedStatistics.hodgesLehmann(Array(repeating: 0, count: 8), confidence: 0.95))
        #expect(zeros.estimate == 0 && zeros.lower == 0 && zeros.upper == 0)
        let tied = try #require(PairedStatistics.hodgesLehmann([0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05], confidence: 0.95))
        #expect(tied.estimate == 0.05 && tied.lower == 0.05 && tied.upper == 0.05)
        let mixed = try #require(PairedStatistics.hodgesLehmann([0, 0, 0.1, 0.1, 0.1, -0.1, 0, 0.1, 0.1, 0], confidence: 0.95))
        #expect(mixed.lower <= mixed.estimate && mixed.estimate <= mixed.upper)
        #expect(mixed.lower >= -0.1 && mixed.upper <= 0.1)
    }

    @Test func knownSampleGivesTheTextbookInterval() throws {
        // n = 10, k = 9: the interval is the 9th smallest and 9th largest of the 55 Walsh averages.
        let data: [Double] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
        let interval = try #require(PairedStatistics.hodgesLehmann(data, confidence: 0.95))
        var walsh: [Double] = []
        for i in 0..<10 { for j in i..<10 { walsh.append((data[i] + data[j]) / 2) } }
        walsh.sort()
        #expect(interval.estimate == 5.5)
        #expect(interval.lower == walsh[8] && interval.upper == walsh[46])
        #expect(abs(interval.achievedConfidence - (1 - 2 * 25.0 / 1024)) < 1e-12)
    }

    @Test func coverageOnKnownDistributions() {
        // Normal and heavy-tailed (Laplace) noise around a known shift: the 95% interval must
        // contain the shift in at least ~95% of samples, and the estimate must be unbiased.
        var generator = SeededGenerator(state: 42)
        for heavyTailed in [false, true] {
            var covered = 0
            var estimates = 0.0
            let trials = 2_000, shift = 0.05
            for _ in 0..<trials {
                let sample = (0..<10).map { _ -> Double in
                    if heavyTailed {
                        let u = Double.random(in: -0.5..<0.5, using: &generator)
                        return shift - 0.02 * (u < 0 ? -1 : 1) * log(1 - 2 * abs(u))
                    }
                    return shift + 0.02 * generator.normal()
                }
                guard let interval = PairedStatistics.hodgesLehmann(sample, confidence: 0.95) else { continue }
                if interval.lower <= shift && shift <= interval.upper { covered += 1 }
                estimates += interval.estimate
            }
            let coverage = Double(covered) / Double(trials)
            #expect(coverage >= 0.93, "coverage \(coverage) (heavy tailed: \(heavyTailed))")
            #expect(abs(estimates / Double(trials) - shift) < 0.002)
        }
    }
}
