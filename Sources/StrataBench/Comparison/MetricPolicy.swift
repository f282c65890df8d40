// How each summary column is judged by `compare`.
//
// Why these rules (issue #4): on this 2-core machine identical code differs by 6–10% in
// throughput between runs and by up to 40% between passes, so a gate on timings must only trip
// on changes no noise produces, and judge medians over repetitions, never single rows.
// - Timings use a slowdown threshold T (default 60%, `Comparison.defaultThreshold`: identical
//   runs differed by up to 2.1x on single cases while the machine ran four parallel builds):
//   throughput regresses below (1 − T) × the
//   baseline; a latency regresses above baseline / (1 − T) — the same "T% slower" in both
//   directions (T = 50%: half the throughput, or twice the latency). Tail latencies (p99) and
//   compaction times are noisier and use that factor squared. Tiny latencies are compared with
//   an absolute floor: a change below it is unchanged whatever the ratio.
// - Byte sizes: count-bound single-writer workloads (bulk-insert, compaction, encryption,
//   pinned-growth) write the same data every time: ±10%. In `sensors` the once-a-second stats
//   reader holds a version while it reads, so when space is reused depends on timing (Strata's
//   batched file measured 5 MB and 6 MB in identical runs): the timing factor squared, which still
//   catches gross growth. In `read-while-write` a reader reads back to back and SQLite's WAL
//   size depends on when it lets a checkpoint restart (45 MB vs 68 MB): shown, not gated.
//   Time-bound cases write as much as the machine manages: the timing factor.
// - Counts of count-bound cases (readings, live objects, transactions except batched, whose
//   batches depend on timing) are exact. For the same reason batched `transactions_per_s` is
//   shown, not gated (it swung 2.7x between identical runs); `readings_per_s` judges batched.
// - `lost` > 0 or `verified` false in the current run always fail.
// - Timings of `durability = full` cases are shown, not gated (unless asked): a durable commit
//   waits for the disk's flush, and this machine's fsync latency is bimodal — about 0.2 ms or
//   about 4 ms — so identical code measured 20-30x apart between two smoke runs.
// - Commit latencies of `gcd` (dozens of concurrent writers on 2 cores) are shown, not gated:
//   they measure waiting for the writer lock and a CPU (SQLite's p50: 31 µs vs 340 µs in
//   identical runs); the case's throughput is gated.
// - End-to-end latencies are gated in open-loop runs only: closed loop, they are the in-flight
//   window divided by the throughput (Little's law), already judged through the throughput.
// - A timing whose baseline repetitions themselves spread wider than the gate's band (max/min
//   above the factor) is shown, not gated: `async` on 2 cores ranged 9.9k-38.5k readings/s over
//   the 12 repetitions of the smoke baseline, so no threshold separates change from noise there.
// - Everything else (CPU, RSS, allocator, max latency, backlog) is shown, never gated.

/// The judgement rule of one metric.
public enum MetricRule: Sendable, Equatable {
    /// Higher is better; judged with the timing threshold.
    case throughput
    /// Lower is better; judged with the timing threshold (raised to `power`), changes below
    /// `floor` (same unit as the metric) are unchanged.
    case latency(power: Double, floor: Double)
    /// Lower is better; ±`tolerance` (fraction) when count-bound, the timing rule otherwise.
    case bytes(tolerance: Double)
    /// Must be equal when the case is count-bound (and `unlessBatched`: not for batched).
    case exact(unlessBatched: Bool)
}

public struct MetricPolicy: Sendable {
    public var column: String
    public var rule: MetricRule

    /// Whether the metric is a timing (throughput or latency), as opposed to a size or count.
    public var isTiming: Bool {
        switch rule {
        case .throughput, .latency: return true
        case .bytes, .exact: return false
        }
    }

    /// Tail latencies (p99) change by less than this are unchanged: with more threads than the
    /// 2 cores, a commit preempted for a scheduler slice or two makes the p99 (read-while-write's
    /// SQLite commit p99 measured 109 µs and 3,146 µs in identical runs). Gross tail regressions
    /// (milliseconds to tens of milliseconds) stay caught.
    public static let tailFloorMicros = 5_000.0

    /// The gated metrics, in report order.
    public static let gated: [MetricPolicy] = [
        MetricPolicy(column: "readings_per_s", rule: .throughput),
        MetricPolicy(column: "transactions_per_s", rule: .throughput),
        MetricPolicy(column: "commit_p50_us", rule: .latency(power: 1, floor: 50)),
        MetricPolicy(column: "commit_p99_us", rule: .latency(power: 2, floor: tailFloorMicros)),
        MetricPolicy(column: "e2e_p50_us", rule: .latency(power: 1, floor: 50)),
        MetricPolicy(column: "e2e_p99_us", rule: .latency(power: 2, floor: tailFloorMicros)),
        MetricPolicy(column: "reader_p50_us", rule: .latency(power: 1, floor: 50)),
        // Compacting the smoke files takes ~5 ms, but its flushes made it 31 ms (median of 3) in
        // an identical run: changes under 100 ms are noise; larger files (full suite) are judged.
        MetricPolicy(column: "compact_ms", rule: .latency(power: 2, floor: 100)),
        MetricPolicy(column: "file_bytes_end", rule: .bytes(tolerance: 0.10)),
        MetricPolicy(column: "file_bytes_peak", rule: .bytes(tolerance: 0.10)),
        MetricPolicy(column: "file_bytes_compacted", rule: .bytes(tolerance: 0.10)),
        MetricPolicy(column: "readings", rule: .exact(unlessBatched: false)),
        MetricPolicy(column: "transactions", rule: .exact(unlessBatched: true)),
        MetricPolicy(column: "live_objects", rule: .exact(unlessBatched: false)),
    ]

    /// Shown with their ratio, never gated.
    public static let informational = ["commit_max_us", "backlog_max", "cpu_user_s", "cpu_sys_s", "peak_rss_bytes",
                                       "encryption_overhead", "pinned_slowdown", "unpinned_twin_bytes", "pinned_extra_bytes",
                                       "jemalloc_allocated_bytes"] + FloorColumns.all
}
