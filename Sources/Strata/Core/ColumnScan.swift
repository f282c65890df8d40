// Which bytes of each row a scan over a whole class reads. Aggregates and row-program filters
// name them, so packed leaves are read plane by plane (StrataStorage KeyedTreeProjection.swift)
// instead of assembling every row in full.
//
// Invariants:
// - Only the named bytes of a projected row are the row's own; a reader of any other byte must
//   ask for whole rows (nil).
// - `wholeRows` (a task-local, tests only) makes every scan assemble whole rows, and the
//   aggregates take their generic path (ConcreteAggregates.swift): the general path, to compare
//   both on the same data.
import StrataStorage

enum ColumnScan {
    /// Tests: when true, scans assemble whole rows.
    @TaskLocal static var wholeRows = false

    /// The bytes to fill for readers of `ranges`; nil (whole rows) when `ranges` is nil.
    static func bytes(_ ranges: [Range<Int>]?) -> ValueBytes? {
        if wholeRows { return nil }
        return ranges.map { ValueBytes($0) }
    }
}
