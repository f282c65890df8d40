// Secondary indexes: creating, maintaining and verifying the index trees of a table.
//
// Which properties are indexed: `IndexKeys.isSecondary` (declared `indexed: true`, and String
// primary keys). Each has one BytesTree in its table's `TableMeta.indexes` (stored in the
// catalog's "tables" value, see Catalog.swift), keyed as IndexKeys.swift describes.
//
// Invariants:
// - An index listed in `TableMeta.indexes` is complete: one entry per object of the table, for
//   the object's current value (uncommitted changes of the open write included). Queries use an
//   index only when it is listed; they scan otherwise.
// - Every path that changes an indexed column changes its index in the same write: add (new and
//   `update:` of an existing object), property setters (`updateColumn`), delete (embedded
//   cascades go through the same delete), deleteAll. Paths that only touch links or collection
//   roots (unlink, collection flushes) never touch an indexable column.
// - A table created by this code lists its (empty) indexes from the start. The first mutation
//   of a table in a write (`maintainedIndexes`) reconciles the listed indexes
//   with the schema: missing ones are built from a scan (files written before indexes existed,
//   copies made by `writeCopy` inside a write), unlisted columns' trees are freed.
// - During a migration maintenance is suspended (rows are rewritten wholesale, columns renamed,
//   primary keys changed); `rebuildAllIndexes` recreates every index before the commit.
import StrataStorage

/// The per-core state of index maintenance and query planning. Confined like the core; a frozen
/// core only reads `forceScan` and never counts.
struct IndexRuntime {
    /// True while a migration rewrites rows: hooks do nothing, the migration rebuilds at the end.
    var suspended = false
    /// Tests: queries ignore indexes and scan (to compare both ways).
    var forceScan = false
    /// Tests: number of objects a query predicate was evaluated on, since the core was opened.
    var rowsExamined = 0
    /// Tests: how the last filtered `Results` of this core found its candidates.
    var lastPlan: QueryPlanKind = .scan
    /// Reused key buffer for maintenance (writes only).
    var scratch: [UInt8] = []
    /// Tables whose object keys are one unbroken run, for the existence check of indexed queries.
    var keySpans = ObjectKeySpans()
}

/// The secondary indexes of the core's tables: maintenance, planning and verification. Its
/// state is the core's `indexing` (an `IndexRuntime`) and the index trees of `snap.metas`.
struct SecondaryIndexes {
    /// Strong, not `unowned(unsafe)`: each use of an unowned reference is retained and released
    /// again (measured: bulk inserts took 12% more CPU), while a strong one read from the view
    /// is borrowed; a view is made by its core for one call and never kept.
    let core: RealmCore
}

extension SecondaryIndexes {
    // MARK: - Reconciling with the schema

    /// Makes table `t`'s index list match its schema (once per write), returning whether the
    /// table has any index to maintain. Cheap after the first call in a write.
    @inline(__always)
    func maintainedIndexes(table t: Int, _ w: WriteTransaction) throws -> Bool {
        if core.indexing.suspended { return false }
        if !core.snap.metas[t].indexesChecked { try reconcileIndexes(table: t, w) }
        return !core.snap.metas[t].indexes.isEmpty
    }

    /// The columns of table `t` that must have a secondary index, ascending. A new table
    /// (TableBinding.swift) lists them, empty, from its creation.
    func requiredIndexColumns(table t: Int) -> [Int] {
        let properties = core.snap.schemas[t].allProperties
        return properties.indices.filter { IndexKeys.isSecondary(properties[$0]) }
    }

    private func reconcileIndexes(table t: Int, _ w: WriteTransaction) throws {
        let required = requiredIndexColumns(table: t)
        let current = core.snap.metas[t].indexes
        if current.map(\.column) != required {
            var next: [IndexTree] = []
            for c in required {
                if let existing = current.first(where: { $0.column == c }) {
                    next.append(existing)
                } else {
                    next.append(IndexTree(column: c, tree: try buildIndex(table: t, column: c, w)))
                }
            }
            for old in current where !required.contains(old.column) {
                var tree = old.tree
                try tree.destroy(in: w)
            }
            core.snap.metas[t].indexes = next
            core.snap.metasDirty = true
        }
        core.snap.metas[t].indexesChecked = true
    }

    /// A new index tree of column `c` of table `t`, from a scan of its rows.
    private func buildIndex(table t: Int, column c: Int, _ w: WriteTransaction) throws -> BytesTree {
        let column = core.layout(ofTable: t).columns[c]
        var tree = BytesTree()
        var key: [UInt8] = []
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        // Collect first: the tree being built lives in the same transaction as the rows read.
        var keys: [[UInt8]] = []
        try core.snap.metas[t].objects.forEach(from: 0, in: w) { objectKey, row in
            key.removeAll(keepingCapacity: true)
            IndexKeys.appendValue(row: _RowView(bytes: row, core: core), column: column, to: &key)
            IndexKeys.appendObjectKey(objectKey, to: &key)
            keys.append(key)
            return true
        }
        keys.sort { $0.lexicographicallyPrecedes($1) }
        for k in keys {
            try k.withUnsafeBytes { _ = try tree.put($0, empty, in: w) }
        }
        return tree
    }

    /// Frees every index tree of every table and builds the schema's indexes again from the rows
    /// (the end of a migration).
    func rebuildAllIndexes(_ w: WriteTransaction) throws {
        for t in 0..<core.snap.metas.count {
            for old in core.snap.metas[t].indexes {
                var tree = old.tree
                try tree.destroy(in: w)
            }
            if !core.snap.metas[t].indexes.isEmpty { core.snap.metasDirty = true }
            core.snap.metas[t].indexes = []
            core.snap.metas[t].indexesChecked = false
            let wasSuspended = core.indexing.suspended
            core.indexing.suspended = false
            defer { core.indexing.suspended = wasSuspended }
            _ = try maintainedIndexes(table: t, w)
        }
    }

    // MARK: - Hooks

    /// Adds the index entries of a new row.
    func indexInsert(table t: Int, key: UInt64, row: UnsafeRawBufferPointer, _ w: WriteTransaction) throws {
        let layout = core.layout(ofTable: t)
        let view = _RowView(bytes: row, core: core)
        for i in core.snap.metas[t].indexes.indices {
            try putEntry(t, i, view, layout.columns[core.snap.metas[t].indexes[i].column], key, w, insert: true)
        }
    }

    /// Removes the index entries of a row about to be deleted.
    func indexRemove(table t: Int, key: UInt64, row: UnsafeRawBufferPointer, _ w: WriteTransaction) throws {
        let layout = core.layout(ofTable: t)
        let view = _RowView(bytes: row, core: core)
        for i in core.snap.metas[t].indexes.indices {
            try putEntry(t, i, view, layout.columns[core.snap.metas[t].indexes[i].column], key, w, insert: false)
        }
    }

    /// Moves the entries of the columns whose value differs between `old` and `new` (of the
    /// same object); with `onlyColumn`, only that column's index is looked at.
    func indexReplace(table t: Int, key: UInt64, old: UnsafeRawBufferPointer, new: UnsafeRawBufferPointer,
                      onlyColumn: Int? = nil, _ w: WriteTransaction) throws {
        let layout = core.layout(ofTable: t)
        let oldView = _RowView(bytes: old, core: core), newView = _RowView(bytes: new, core: core)
        for i in core.snap.metas[t].indexes.indices {
            let c = core.snap.metas[t].indexes[i].column
            if let only = onlyColumn, only != c { continue }
            let column = layout.columns[c]
            var before: [UInt8] = [], after: [UInt8] = []
            IndexKeys.appendValue(row: oldView, column: column, to: &before)
            IndexKeys.appendValue(row: newView, column: column, to: &after)
            if before == after { continue }
            try putEntry(t, i, oldView, column, key, w, insert: false)
            try putEntry(t, i, newView, column, key, w, insert: true)
        }
    }

    /// Whether table `t` has an index on column `c` (after `maintainedIndexes`).
    @inline(__always) func hasIndex(table t: Int, column c: Int) -> Bool {
        core.snap.metas[t].indexes.contains { $0.column == c }
    }

    private func putEntry(_ t: Int, _ i: Int, _ row: _RowView, _ column: _Column, _ key: UInt64,
                          _ w: WriteTransaction, insert: Bool) throws {
        var k = core.indexing.scratch
        core.indexing.scratch = []
        defer { core.indexing.scratch = k }
        k.removeAll(keepingCapacity: true)
        IndexKeys.appendValue(row: row, column: column, to: &k)
        IndexKeys.appendObjectKey(key, to: &k)
        try k.withUnsafeBytes { kb in
            if insert {
                _ = try core.snap.metas[t].indexes[i].tree.put(kb, UnsafeRawBufferPointer(start: nil, count: 0), in: w)
            } else {
                _ = try core.snap.metas[t].indexes[i].tree.remove(kb, in: w)
            }
        }
        core.snap.metasDirty = true
    }

    /// Empties every index tree of table `t` (all its objects are being deleted).
    func indexClear(table t: Int, _ w: WriteTransaction) throws {
        for i in core.snap.metas[t].indexes.indices {
            try core.snap.metas[t].indexes[i].tree.destroy(in: w)
        }
    }

    // MARK: - Verification (tests)

    /// Compares every listed secondary index, and every primary-key tree, with what a scan of the
    /// rows builds; returns one sentence per difference (empty when all agree). With
    /// `requireAll`, a schema index missing from the catalog is a difference too.
    func verifyIndexes(requireAll: Bool = true) throws -> [String] {
        let p = try core.pages()
        var problems: [String] = []
        for t in 0..<core.snap.metas.count {
            let schema = core.snap.schemas[t]
            let layout = core.layout(ofTable: t)
            let listed = core.snap.metas[t].indexes.map(\.column)
            let required = requiredIndexColumns(table: t)
            if listed != required && (requireAll || !Set(listed).isSubset(of: Set(required))) {
                problems.append("\(schema.className): indexes on columns \(listed), schema wants \(required)")
            }
            for index in core.snap.metas[t].indexes where index.column < layout.columns.count {
                let column = layout.columns[index.column]
                var expected: [[UInt8]] = []
                try core.snap.metas[t].objects.forEach(from: 0, in: p) { objectKey, row in
                    var k: [UInt8] = []
                    IndexKeys.appendValue(row: _RowView(bytes: row, core: core), column: column, to: &k)
                    IndexKeys.appendObjectKey(objectKey, to: &k)
                    expected.append(k)
                    return true
                }
                expected.sort { $0.lexicographicallyPrecedes($1) }
                var actual: [[UInt8]] = []
                var nonEmptyValues = 0
                try index.tree.forEach(from: nil, in: p) { k, v in
                    actual.append([UInt8](k))
                    if !v.isEmpty { nonEmptyValues += 1 }
                    return true
                }
                let name = "\(schema.className).\(schema.allProperties[index.column].name)"
                if actual != expected {
                    let missing = Set(expected).subtracting(actual).count, extra = Set(actual).subtracting(expected).count
                    problems.append("\(name): index has \(actual.count) entries, the rows give \(expected.count) (\(missing) missing, \(extra) extra)")
                }
                if nonEmptyValues > 0 { problems.append("\(name): \(nonEmptyValues) index entries have a value") }
                if try index.tree.count(in: p) != actual.count { problems.append("\(name): the tree's count disagrees with its entries") }
            }
            if let pkc = schema.allProperties.firstIndex(where: \.isPrimary) {
                var expected: [[UInt8]: UInt64] = [:]
                var rows = 0
                try core.snap.metas[t].objects.forEach(from: 0, in: p) { objectKey, row in
                    expected[core.primaryKeyIndexKey(row: _RowView(bytes: row, core: core), column: layout.columns[pkc])] = objectKey
                    rows += 1
                    return true
                }
                var actual: [[UInt8]: UInt64] = [:]
                try core.snap.metas[t].primaryKeys.forEach(from: nil, in: p) { k, v in
                    actual[[UInt8](k)] = v.count >= 8 ? UInt64(littleEndian: v.loadUnaligned(as: UInt64.self)) : .max
                    return true
                }
                if actual != expected || rows != expected.count {
                    problems.append("\(schema.className): primary-key tree has \(actual.count) entries for \(rows) objects (\(expected.count) distinct keys)")
                }
            }
        }
        return problems
    }
}
