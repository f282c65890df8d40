// The operations the reads and scale workloads time, one summary row each (the CSV's `op` column).
//
// Invariant: raw values are the spellings of the CSV's `op` column and of case keys; renaming
// one breaks committed baselines.

/// One timed read operation.
public enum ReadOp: String, CaseIterable, Sendable, Codable {
    /// Storing the `--objects` samples (in transactions of `--batch-size`); one op per object.
    case fill
    /// Every sample visited, its `value` read.
    case iterateOne = "iterate-one"
    /// Every sample visited, every property read.
    case iterateAll = "iterate-all"
    case sum, avg, min, max
    /// `count` of `value > t` keeping 0.1%, 10% and 90% of the samples.
    case filter0_1 = "filter-0.1pct"
    case filter10 = "filter-10pct"
    case filter90 = "filter-90pct"
    /// The 100 samples of highest value, sorted.
    case top100 = "top-100"
    /// A sample by primary key.
    case primaryKey = "pk-lookup"
    /// `count` of `seq == k` through the index on seq.
    case seqEqual = "seq-equal"
    /// `count` of `seq` in a range of 100 through the index.
    case seqRange = "seq-range"
    /// A sensor's samples read through its list.
    case listTraversal = "list-traversal"
    /// Scale workload: a new process opening the filled store (spawn to exit, one op).
    case firstOpen = "first-open"
    /// Scale workload: one-sample commits on the filled store, durable and not.
    case commitFull = "commit-full"
    case commitUnsafe = "commit-unsafe"
    /// Scale workload: compacting the filled store (engines that compact).
    case compact

    /// The queries the reads workload times after its fill, in row order.
    public static let queries: [ReadOp] = [.iterateOne, .iterateAll, .sum, .avg, .min, .max, .filter0_1, .filter10, .filter90,
                                           .top100, .primaryKey, .seqEqual, .seqRange, .listTraversal]
    /// The reads workload's rows: the fill, then the queries.
    public static let reads: [ReadOp] = [.fill] + queries
    /// The rows the scale workload adds after the reads workload's.
    public static let scale: [ReadOp] = [.firstOpen, .commitFull, .commitUnsafe, .compact]

    /// The share of the samples a filter keeps (filters only).
    var selectivity: Double? {
        switch self {
        case .filter0_1: return 0.001
        case .filter10: return 0.1
        case .filter90: return 0.9
        default: return nil
        }
    }
}
