// The timings the paired gate judges per case, each read or derived from a summary row.
//
// - `readings_per_s` (wall-clock throughput, higher is better): what a user waits for; the only
//   timing that sees a durable case's extra fsync or a scheduler change. On a loaded host its
//   paired intervals stay wide (another build takes the CPU in the middle of one side's group),
//   so it catches large slowdowns only.
// - `cpu_us_per_reading` (user + system CPU time of the process over the case, divided by its
//   readings; lower is better): what extra work per transaction costs. Another process taking the
//   CPU delays this one without charging it CPU time, so this ratio stays tight under load and
//   sees a few percent. Derived from `cpu_user_s`/`cpu_sys_s`, which every build since the first
//   summary CSV writes, so a base revision needs no new column.
//
// - `cpu_us_per_op` (CPU time of the timing thread per operation of the reads workload; lower is
//   better): a read operation commits nothing, so its row has no readings and neither metric
//   above has a value there. Thread CPU time, like the process's above, does not count the time
//   the build was stopped or preempted.
//
// - Durable (`full`) cases are CPU-shown, not CPU-judged: their CPU time is mostly the kernel's
//   flush path and thread wake-ups, which swing with the disk and the load (an identical-build
//   run flagged Strata `dedicated full` at 1.067, [1.032, 1.117]); their work is judged by the
//   flush and write counters exactly, their waiting by the wall-clock rule.
//
// Invariant: `ratio` is always current / base of the metric's own value; `regresses` decides in
// the metric's direction (a throughput ratio below 1 / (1 + T), a cost ratio above 1 + T).

import Foundation

public struct PairedMetric: Sendable {
    public var name: String
    public var higherIsBetter: Bool
    let read: @Sendable (SummaryRecord) -> Double?
    /// Why a case's rows are shown but not judged by this metric, or nil when they are judged.
    let notJudged: @Sendable (SummaryRecord) -> String?

    public func value(_ record: SummaryRecord) -> Double? {
        guard let value = read(record), value.isFinite, value > 0 else { return nil }
        return value
    }

    /// The interval lies wholly on the slow side of the threshold.
    func regresses(_ ratio: PairedRatio, thresholdPercent: Double) -> Bool {
        let factor = 1 + thresholdPercent / 100
        return higherIsBetter ? ratio.upper < 1 / factor : ratio.lower > factor
    }

    /// The interval lies wholly on the fast side of the threshold.
    func improves(_ ratio: PairedRatio, thresholdPercent: Double) -> Bool {
        let factor = 1 + thresholdPercent / 100
        return higherIsBetter ? ratio.lower > factor : ratio.upper < 1 / factor
    }

    /// The bound of the regression rule as the report states it.
    func ruleText(thresholdPercent: Double, confidence: String) -> String {
        let factor = 1 + thresholdPercent / 100
        return higherIsBetter
            ? "paired \(confidence): regresses when the interval lies below x\(CSVNumber.format(1 / factor, digits: 3))"
            : "paired \(confidence): regresses when the interval lies above x\(CSVNumber.format(factor, digits: 3))"
    }

    /// Why `record`'s case is shown but not judged by this metric, or nil when it is judged.
    public func reasonNotJudged(_ record: SummaryRecord) -> String? { notJudged(record) }

    public static let throughput = PairedMetric(name: "readings_per_s", higherIsBetter: true,
                                                read: { DecimalText.double($0["readings_per_s"] ?? "") }, notJudged: { _ in nil })

    public static let cpuPerReading = PairedMetric(name: "cpu_us_per_reading", higherIsBetter: false, read: { record in
        guard let user = DecimalText.double(record["cpu_user_s"] ?? ""), let system = DecimalText.double(record["cpu_sys_s"] ?? ""),
              let readings = DecimalText.double(record["readings"] ?? ""), readings > 0 else { return nil }
        return (user + system) * 1_000_000 / readings
    }, notJudged: { record in
        record.settings.durability == .full
            ? "shown, not judged: a durable case's CPU time is mostly the kernel's flush path (its flushes are counted)"
            : nil
    })

    public static let cpuPerOp = PairedMetric(name: "cpu_us_per_op", higherIsBetter: false,
                                              read: { DecimalText.double($0["cpu_us_per_op"] ?? "") }, notJudged: { _ in nil })
}
