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

extension KeyedTree {
    /// Visits every row in key order, with only `needed` filled when given (`ColumnScan.bytes`),
    /// else whole rows. Callers pass their visitor as a closure literal: a visitor kept in a
    /// local constant is an escaping closure, and every variable it captures is then checked for
    /// exclusive access at run time on each use (a third of a filtered count's samples).
    func forEachRow(reading needed: ValueBytes?, in pages: some PageReading,
                    _ body: (UInt64, UnsafeRawBufferPointer) throws -> Bool) throws {
        if let needed {
            try forEach(from: 0, reading: needed, in: pages, body)
        } else {
            try forEach(from: 0, in: pages, body)
        }
    }
}
