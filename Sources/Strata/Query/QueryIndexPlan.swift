// The query planner of the object layer: which objects a filtered `Results` evaluates its
// predicate on.
//
// Rule: among the top-level AND conjuncts `prop == constant` / `prop IN {constants}` found by
// `indexableEqualities()` (no `[c]`/`[d]`, no quantifier, plain property), use
//   1. a primary key of type Int, ObjectId or UUID: the unique primary-key tree;
//   2. else a property with a secondary index listed in the catalog (IndexMaintenance.swift),
//      String primary keys included; a Bool index last (it rarely narrows much);
// preferring fewer constants. The candidates are the union of the objects found for each
// constant, ascending by object key — the order a scan visits them — so results are identical
// to a scan's once the whole predicate is evaluated on each candidate. Everything else scans.
// When the predicate is nothing but that comparison and the property's equality is binary (Int,
// Bool, ObjectId, UUID, their optionals and enums), the candidates are the result: no object is
// read (`count` of an indexed Int `==` touches index pages only). Likewise when it is nothing but
// comparisons of one indexed integer property with integer constants (a range, `a <= seq AND
// seq < b`, `BETWEEN`): the index entries in the exact range are the result.
//
// Invariants:
// - Candidates are a superset of the matches (IndexKeys.swift); the caller evaluates the whole
//   predicate on every candidate, so the planner never decides a match. Every candidate is an
//   existing object (checked in the object tree, or against the table's unbroken run of keys:
//   Core/ObjectKeySpans.swift).
// - A constant whose kind differs from the property's (an Int property against a Double, a
//   String against an ObjectId…) disqualifies that conjunct: cross-kind equality has numeric
//   rules the index encoding does not reproduce.
import StrataStorage

/// How a filtered `Results` found the objects it evaluated its predicate on (tests read it).
enum QueryPlanKind: Equatable {
    /// Every object of the table.
    case scan
    /// The primary-key tree, for `property` with `values` constants.
    case primaryKey(property: String, values: Int)
    /// The secondary index of `property`, with `values` constants.
    case index(property: String, values: Int)
    /// The secondary index of integer `property`, scanned over a range of values.
    case indexRange(property: String)
}

extension SecondaryIndexes {
    /// The candidate object keys of `predicate` on table `t`, ascending, from the best usable
    /// index; nil when no conjunct can use one (the caller scans).
    /// `exact`: the candidates are the whole predicate's result, with nothing to evaluate: the
    /// predicate is one `prop == constant` / `prop IN constants` whose lookup decides it (Int,
    /// Bool, ObjectId, UUID: binary equality is the query's equality), or an exact integer range
    /// (`rangeCandidates`).
    func indexCandidates(table t: Int, predicate: QueryPredicate) throws -> (keys: [UInt64], plan: QueryPlanKind, exact: Bool)? {
        if core.indexing.forceScan { return nil }
        let equalities = predicate.indexableEqualities()
        if equalities.isEmpty { return try rangeCandidates(table: t, predicate: predicate) }
        let properties = core.snap.schemas[t].allProperties
        var best: (rank: Int, values: Int, equality: QueryIndexableEquality, column: Int, index: Int?)?
        for equality in equalities {
            guard let c = properties.firstIndex(where: { $0.name == equality.property }) else { continue }
            let p = properties[c]
            guard p.collection == .none else { continue }
            let rank: Int
            var index: Int?
            if p.isPrimary && p.type != .string {
                rank = 0
            } else if let i = core.snap.metas[t].indexes.firstIndex(where: { $0.column == c }), IndexKeys.isSecondary(p) {
                rank = p.type == .bool ? 2 : 1
                index = i
            } else {
                continue
            }
            if let b = best, (b.rank, b.values) <= (rank, equality.values.count) { continue }
            best = (rank, equality.values.count, equality, c, index)
        }
        guard let choice = best else { return try rangeCandidates(table: t, predicate: predicate) }
        let property = properties[choice.column]
        let pages = try core.pages()
        var keys: [UInt64] = []
        if let i = choice.index {
            let tree = core.snap.metas[t].indexes[i].tree
            var prefix: [UInt8] = []
            for value in choice.equality.values {
                prefix.removeAll(keepingCapacity: true)
                guard IndexKeys.appendValue(value, type: property.type, to: &prefix) else { return nil }
                try Self.collectKeys(withPrefix: prefix, in: tree, pages, into: &keys)
            }
        } else {
            var encoded: [[UInt8]] = []
            encoded.reserveCapacity(choice.equality.values.count)
            for value in choice.equality.values {
                guard let k = IndexKeys.primaryKeyTreeKey(value, type: property.type, encoding: core.primaryKeyEncoding) else { return nil }
                encoded.append(k)
            }
            let tree = core.snap.metas[t].primaryKeys
            for k in encoded {
                let found: UInt64?? = try k.withUnsafeBytes { kb in
                    try tree.withValue(forKey: kb, in: pages) { v in
                        v.count >= 8 ? UInt64(littleEndian: v.loadUnaligned(as: UInt64.self)) : nil
                    }
                }
                if let objectKey = found ?? nil { keys.append(objectKey) }
            }
        }
        if choice.equality.values.count > 1 {
            keys.sort()
            keys = Self.uniqueSorted(keys)
        }
        try keepExisting(&keys, table: t, pages)
        let plan: QueryPlanKind = choice.index == nil
            ? .primaryKey(property: property.name, values: choice.values)
            : .index(property: property.name, values: choice.values)
        // Strings (NFC, truncation) and dates (-0/+0, NaN) share keys between unequal values.
        let binaryEquality = property.type == .int || property.type == .bool || property.type == .objectId || property.type == .uuid
        var single = false
        if case .comparison = predicate { single = true }
        return (keys, plan, binaryEquality && single)
    }

    /// The candidates of the first range (QueryRangeAnalysis.swift) over an indexed integer
    /// property: the objects whose index entries lie within its inclusive bounds, ascending by
    /// object key. Exact when the predicate is nothing but that property's integer comparisons
    /// (`exactIntegerRange`), whose bounds are then the scan's; otherwise the caller evaluates
    /// the predicate on each candidate.
    private func rangeCandidates(table t: Int, predicate: QueryPredicate) throws -> (keys: [UInt64], plan: QueryPlanKind, exact: Bool)? {
        let properties = core.snap.schemas[t].allProperties
        for range in predicate.indexableRanges() {
            guard let c = properties.firstIndex(where: { $0.name == range.property }) else { continue }
            let p = properties[c]
            guard p.collection == .none, p.type == .int, IndexKeys.isSecondary(p),
                  let i = core.snap.metas[t].indexes.firstIndex(where: { $0.column == c }) else { continue }
            let exactRange = predicate.exactIntegerRange(of: p.name)
            let range = exactRange ?? range
            var keys: [UInt64] = []
            if !range.isEmpty {
                let pages = try core.pages()
                try Self.collectKeys(inRange: range, in: core.snap.metas[t].indexes[i].tree, pages, into: &keys)
                keys.sort()
                try keepExisting(&keys, table: t, pages)
            }
            return (keys, .indexRange(property: p.name), exactRange != nil)
        }
        return nil
    }

    /// Drops the keys that name no object. Only a damaged index can name one; skipping it keeps
    /// such damage from producing a phantom result (a deleted object reads as default values),
    /// and keeps a count equal to the objects the results hand out.
    private func keepExisting(_ keys: inout [UInt64], table t: Int, _ pages: some PageReading) throws {
        if keys.isEmpty { return }
        if let span = try core.indexing.keySpans.unbrokenKeys(table: t, core: core, pages) {
            keys.removeAll { !span.contains($0) }
            return
        }
        let objects = core.snap.metas[t].objects
        // Ascending keys mostly share leaves: a finger reads each leaf once (LeafFinger.swift).
        var finger = LeafFinger()
        try keys.removeAll { try !objects.contains($0, in: pages, finger: &finger) }
    }

    /// Appends the object keys of the integer index entries whose value lies in `range`.
    private static func collectKeys(inRange range: QueryIndexableRange, in tree: BytesTree, _ pages: some PageReading,
                                    into keys: inout [UInt64]) throws {
        // Entries of values (tag 1) from the lower bound on; nils (tag 0) sort before them.
        var start: [UInt8] = [IndexKeys.valueTag]
        IndexKeys.appendInt(range.lower ?? .min, to: &start)
        var end: [UInt8] = [IndexKeys.valueTag]
        IndexKeys.appendInt(range.upper ?? .max, to: &end)
        let last = end.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 1, as: UInt64.self)) }
        try start.withUnsafeBytes { s in
            try tree.forEach(from: s, in: pages) { k, _ in
                // An integer entry is [tag][8 value bytes][8 key bytes]; past the upper bound, stop.
                guard k.count == 17, k[0] == IndexKeys.valueTag else { return false }
                if UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 1, as: UInt64.self)) > last { return false }
                if let objectKey = IndexKeys.objectKey(ofIndexKey: k) { keys.append(objectKey) }
                return true
            }
        }
    }

    /// Appends the object keys of the index entries that start with `prefix` (ascending).
    private static func collectKeys(withPrefix prefix: [UInt8], in tree: BytesTree, _ pages: some PageReading,
                                    into keys: inout [UInt64]) throws {
        try prefix.withUnsafeBytes { p in
            try tree.forEach(from: p, in: pages) { k, _ in
                guard k.count == p.count + 8, startsWith(k, p) else { return false }
                if let objectKey = IndexKeys.objectKey(ofIndexKey: k) { keys.append(objectKey) }
                return true
            }
        }
    }

    @inline(__always) private static func startsWith(_ k: UnsafeRawBufferPointer, _ p: UnsafeRawBufferPointer) -> Bool {
        guard k.count >= p.count else { return false }
        for i in 0..<p.count where k[i] != p[i] { return false }
        return true
    }

    private static func uniqueSorted(_ keys: [UInt64]) -> [UInt64] {
        var out: [UInt64] = []
        out.reserveCapacity(keys.count)
        for k in keys where out.last != k { out.append(k) }
        return out
    }
}
