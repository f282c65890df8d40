// Switches that force the pre-optimisation query paths, for benchmarks that compare both in one
// run (tests use the task-locals directly). Scoped to the calling task: other tasks and threads
// are unaffected.

/// Benchmark hooks, outside the API (`@_spi(Benchmarks) import Strata`): `withObjectPath`
/// evaluates predicates on materialised objects instead of row bytes; `withoutParseCache` parses
/// every `filter` string afresh.
@_spi(Benchmarks) public enum QueryTuning {
    public static func withObjectPath<R>(_ body: () throws -> R) rethrows -> R {
        try QueryRowProgram.$objectPathOnly.withValue(true, operation: body)
    }

    public static func withoutParseCache<R>(_ body: () throws -> R) rethrows -> R {
        try QueryParseCache.$bypass.withValue(true, operation: body)
    }
}
