// Order statistics shared by the comparisons, the history's summaries and change detection, and the
// HTML report: one definition of a median, so every verdict and chart agrees on it.

public enum Statistics {
    public static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Median absolute deviation from the median (unscaled).
    public static func mad(_ values: [Double]) -> Double {
        let center = median(values)
        return median(values.map { abs($0 - center) })
    }
}
