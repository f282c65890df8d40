// The statistics of the paired gate: a location estimate and a confidence interval for paired
// differences, without assuming a distribution (the host's noise here is neither normal nor
// symmetric across passes, but within a round base and current meet the same noise).
//
// Hodges–Lehmann: the estimate is the median of the Walsh averages (d_i + d_j)/2, i ≤ j, of the
// n paired differences; the confidence interval is the k-th smallest and k-th largest Walsh
// average, where k comes from the exact null distribution of Wilcoxon's signed-rank statistic
// (the interval holds exactly the shifts the two-sided signed-rank test would not reject).
//
// Invariants:
// - With n pairs the most extreme one-sided tail probability is 2^-n: below the n at which it
//   reaches (1 − confidence) / 2 no interval exists, and the result is `nil` ("not enough
//   data"), never a verdict. At 95% that is n < 6, at 99% n < 8.
// - Ties and zero differences need no special case: the Walsh averages include them, and the
//   interval from the exact distribution stays conservative for discrete data (its coverage is
//   at least the confidence asked for when differences are continuous; ties only widen it).
// - Pure functions of their input: the tests check them on known distributions.

import Foundation

public enum PairedStatistics {
    public struct Interval: Sendable, Equatable {
        /// Hodges–Lehmann estimate of the shift (median of the Walsh averages).
        public var estimate: Double
        public var lower: Double
        public var upper: Double
        /// The confidence the interval actually has (the exact distribution is discrete, so it is
        /// the smallest achievable one at or above the one asked for).
        public var achievedConfidence: Double
        public var pairs: Int
    }

    /// Smallest number of pairs for which a two-sided interval at `confidence` exists.
    public static func minimumPairs(confidence: Double) -> Int {
        var n = 1
        while pow(0.5, Double(n)) > (1 - confidence) / 2 { n += 1 }
        return n
    }

    /// Hodges–Lehmann estimate and Wilcoxon signed-rank interval of the shift of `differences`
    /// at two-sided `confidence` (e.g. 0.95); nil when there are too few differences for it.
    public static func hodgesLehmann(_ differences: [Double], confidence: Double) -> Interval? {
        let n = differences.count
        guard n >= 1, confidence > 0, confidence < 1, differences.allSatisfy(\.isFinite) else { return nil }
        var walsh: [Double] = []
        walsh.reserveCapacity(n * (n + 1) / 2)
        for i in 0..<n {
            for j in i..<n { walsh.append((differences[i] + differences[j]) / 2) }
        }
        walsh.sort()
        let m = walsh.count
        let estimate = m % 2 == 1 ? walsh[m / 2] : (walsh[m / 2 - 1] + walsh[m / 2]) / 2
        // k = the largest count such that P(W+ ≤ k − 1) ≤ α/2; the interval is [A(k), A(m − k + 1)].
        let cumulative = signedRankCumulative(n: n)
        let alphaHalf = (1 - confidence) / 2
        var k = 0
        while k < m, cumulative[k] <= alphaHalf { k += 1 }
        guard k >= 1 else { return nil }
        let tail = cumulative[k - 1]
        return Interval(estimate: estimate, lower: walsh[k - 1], upper: walsh[m - k], achievedConfidence: 1 - 2 * tail,
                        pairs: n)
    }

    /// P(W+ ≤ w) for w = 0...n(n+1)/2 under the null hypothesis (each rank's sign a fair coin),
    /// by counting subsets of {1…n} per sum.
    public static func signedRankCumulative(n: Int) -> [Double] {
        let maximum = n * (n + 1) / 2
        var counts = [Double](repeating: 0, count: maximum + 1)
        counts[0] = 1
        if n > 0 {
            for rank in 1...n {
                for sum in stride(from: maximum, through: rank, by: -1) { counts[sum] += counts[sum - rank] }
            }
        }
        let total = pow(2.0, Double(n))
        var running = 0.0
        return counts.map { count in
            running += count
            return running / total
        }
    }
}
