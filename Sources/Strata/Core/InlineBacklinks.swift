// Inline backlinks: one link to an object is recorded in the object's own row (its footer)
// instead of in the backlink tree (Backlinks.swift).
//
// Why: most objects are linked once, by the list or property that created them (the sensors
// pattern: a reading is created by its sensor's `readings.append`, and leaves it before it is
// deleted). Keeping that backlink in the tree costs, per transaction that appends one reading
// and drops the oldest, an insert at one end of the backlink tree and a removal at the other:
// two leaves and the branches above them, 5 of the 14 pages such a transaction wrote with a
// window of 30,000 readings. In the row, the backlink is written with the row (the new reading)
// and leaves with it (the deleted one): no extra page. Realm keeps backlinks in the target's row
// for the same reason.
//
// Row footer: the last byte of
// every row is L, the length of the entry before it (0: no entry). An entry is four unsigned
// LEB128 varints: source table, source column, source key, count (≥ 1); 1 + 1 + 1–10 + 1 bytes
// for the usual small numbers (a sensors reading's footer is 5 bytes, against 39 bytes of a
// backlink-tree cell). The row proper (RowLayout: bitmap, fixed slots, variable tail) ends where
// the entry starts; `_RowBuilder` keeps the footer at the end when it appends variable bytes.
//
// Invariants:
// - The links from (source table, column, source key) to an object number the count of the
//   footer's entry, when it names that source, plus the count of the tree's entry, when there is
//   one: `backlinks(target:)` reports their sum as one `Backlink`, in the tree's order.
// - An added link goes into the footer when its entry names the same source or the footer is
//   empty; otherwise into the tree. A removed link comes out of the footer first when its entry
//   names the source (the footer empties when its count reaches zero), else out of the tree.
// - Deleting an object removes its footer with its row; links from an object being deleted are
//   removed from their targets' footers or the tree like any other removal.
// - A migration moves every footer entry into the tree before it starts and adds none while it
//   runs (it renumbers source columns in the tree and rebuilds rows from copies taken at its
//   start: a footer written meanwhile could be lost or keep an old column number).
// - A malformed footer (last byte not 0 or 1, or too short a row) is a `.corruptFile` error
//   when backlinks are read or changed; it never traps.
import StrataStorage

/// One footer entry: `count` links from column `column` of object `key` in table `table`.
struct InlineBacklink: Equatable {
    var table: UInt32
    var column: UInt32
    var key: UInt64
    var count: UInt32

    func names(table t: Int, column c: Int, key k: UInt64) -> Bool {
        Int(table) == t && Int(column) == c && key == k
    }
}

enum RowFooter {
    /// The footer of a row without an entry.
    static let emptyLength = 1
    /// Longest entry: varints of 5 + 5 + 10 + 5 bytes.
    static let maxEntrySize = 25

    /// The footer's length at the end of `row` (entry and length byte), nil when it is malformed.
    @inline(__always)
    static func length(_ row: UnsafeRawBufferPointer) -> Int? {
        guard let last = row.last else { return nil }
        let n = Int(last)
        guard n <= maxEntrySize, n < row.count else { return nil }
        return n + 1
    }

    /// The entry of `row`'s footer (nil: none); throws for a malformed footer.
    static func entry(_ row: UnsafeRawBufferPointer) throws(Realm.Error) -> InlineBacklink? {
        guard let total = length(row) else {
            throw Realm.Error(.corruptFile, "a row's backlink footer is malformed (\(row.count) bytes, last byte \(row.last.map { "\($0)" } ?? "none"))")
        }
        guard total > 1 else { return nil }
        var at = row.count - total
        let end = row.count - 1
        func varint(_ limit: Int) throws(Realm.Error) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            for _ in 0..<limit {
                guard at < end else { break }
                let b = row[at]
                at += 1
                value |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { return value }
                shift += 7
            }
            throw Realm.Error(.corruptFile, "a row's backlink footer holds a truncated or overlong number")
        }
        let table = try varint(5), column = try varint(5), key = try varint(10), count = try varint(5)
        guard at == end, table <= UInt32.max, column <= UInt32.max, count <= UInt32.max, count > 0 else {
            throw Realm.Error(.corruptFile, "a row's backlink footer is malformed (entry of \(total - 1) bytes, count \(count))")
        }
        return InlineBacklink(table: UInt32(table), column: UInt32(column), key: key, count: UInt32(count))
    }

    /// Bytes of the footer for `entry` (nil: none).
    @inline(__always)
    static func encodedLength(_ entry: InlineBacklink?) -> Int {
        guard let e = entry else { return emptyLength }
        return varintLength(UInt64(e.table)) + varintLength(UInt64(e.column)) + varintLength(e.key)
            + varintLength(UInt64(e.count)) + 1
    }

    @inline(__always)
    private static func varintLength(_ v: UInt64) -> Int {
        v == 0 ? 1 : (64 - v.leadingZeroBitCount + 6) / 7
    }

    /// Writes the footer for `entry` (nil: none) at `p`, which has `encodedLength(entry)` bytes.
    /// Returns the bytes written.
    @discardableResult
    static func store(_ entry: InlineBacklink?, at p: UnsafeMutableRawPointer) -> Int {
        guard let e = entry else {
            p.storeBytes(of: 0, as: UInt8.self)
            return emptyLength
        }
        var at = 0
        func put(_ value: UInt64) {
            var v = value
            while v >= 0x80 {
                p.storeBytes(of: UInt8(truncatingIfNeeded: v) | 0x80, toByteOffset: at, as: UInt8.self)
                v >>= 7
                at += 1
            }
            p.storeBytes(of: UInt8(v), toByteOffset: at, as: UInt8.self)
            at += 1
        }
        put(UInt64(e.table))
        put(UInt64(e.column))
        put(e.key)
        put(UInt64(e.count))
        p.storeBytes(of: UInt8(at), toByteOffset: at, as: UInt8.self)
        return at + 1
    }

    /// `row` with its footer replaced by one for `entry`.
    static func replacing(_ row: UnsafeRawBufferPointer, with entry: InlineBacklink?) throws(Realm.Error) -> [UInt8] {
        guard let old = length(row) else {
            throw Realm.Error(.corruptFile, "a row's backlink footer is malformed (\(row.count) bytes)")
        }
        let body = row.count - old
        let new = encodedLength(entry)
        return [UInt8](unsafeUninitializedCapacity: body + new) { buffer, initialized in
            guard let base = buffer.baseAddress else { initialized = 0; return }
            if body > 0, let src = row.baseAddress { UnsafeMutableRawPointer(base).copyMemory(from: src, byteCount: body) }
            store(entry, at: UnsafeMutableRawPointer(base) + body)
            initialized = body + new
        }
    }
}

extension BacklinkStore {
    /// Whether links added now may go into footers (no migration running).
    @inline(__always) var inlineBacklinksEnabled: Bool { !core.inlineBacklinksSuspended }

    /// The footer entry of object `key` of table `t` (nil: none, or no such object).
    func inlineBacklink(table t: Int, key: UInt64, in p: some PageReading) throws -> InlineBacklink? {
        guard t >= 0, t < core.snap.metas.count else { return nil }
        return try core.snap.metas[t].objects.withValue(forKey: key, in: p) { row throws(Realm.Error) in try RowFooter.entry(row) } ?? nil
    }

    /// Adds `n` links from (source, column, sourceKey) to the footer of (target, targetKey) when
    /// its entry names that source or is empty. False (nothing changed): the tree takes them.
    func addInlineBacklink(target: Int, targetKey: UInt64, source: Int, column: Int, sourceKey: UInt64,
                           by n: UInt32, _ w: WriteTransaction) throws -> Bool {
        guard inlineBacklinksEnabled, target >= 0, target < core.snap.metas.count else { return false }
        let rewritten: [UInt8]? = try core.snap.metas[target].objects.withValue(forKey: targetKey, in: w) { row throws(Realm.Error) -> [UInt8]? in
            if var e = try RowFooter.entry(row) {
                guard e.names(table: source, column: column, key: sourceKey) else { return nil }
                e.count &+= n
                return try RowFooter.replacing(row, with: e)
            }
            let e = InlineBacklink(table: UInt32(truncatingIfNeeded: source), column: UInt32(truncatingIfNeeded: column),
                                   key: sourceKey, count: n)
            return try RowFooter.replacing(row, with: e)
        } ?? nil
        guard let rewritten else { return false }
        try rewritten.withUnsafeBytes { _ = try core.snap.metas[target].objects.put(targetKey, $0, in: w) }
        return true
    }

    /// Removes one link from (source, column, sourceKey) from the footer of (target, targetKey)
    /// when its entry names that source. False (nothing changed): the link is in the tree.
    func removeInlineBacklink(target: Int, targetKey: UInt64, source: Int, column: Int, sourceKey: UInt64,
                              all: Bool = false, _ w: WriteTransaction) throws -> Bool {
        guard target >= 0, target < core.snap.metas.count else { return false }
        let rewritten: [UInt8]? = try core.snap.metas[target].objects.withValue(forKey: targetKey, in: w) { row throws(Realm.Error) -> [UInt8]? in
            guard var e = try RowFooter.entry(row), e.names(table: source, column: column, key: sourceKey) else { return nil }
            e.count = all ? 0 : e.count - 1
            return try RowFooter.replacing(row, with: e.count == 0 ? nil : e)
        } ?? nil
        guard let rewritten else { return false }
        try rewritten.withUnsafeBytes { _ = try core.snap.metas[target].objects.put(targetKey, $0, in: w) }
        return true
    }

    /// Removes one link from (source, column, sourceKey) from the footers of the objects
    /// `unique` (ascending) of table `target`, `repeats[i]` times for `unique[i]`, with one
    /// ordered read of their rows and one sorted put of those that change. Returns, for each
    /// key, the repeats left for the tree (0 when the footer took them all).
    func removeInlineBacklinks(target: Int, unique: [UInt64], repeats: [UInt32], source: Int, column: Int,
                               sourceKey: UInt64, _ w: WriteTransaction) throws -> [UInt32] {
        guard target >= 0, target < core.snap.metas.count, !unique.isEmpty else { return repeats }
        var left = repeats
        var batch = FooterRewrites()
        try forEachRow(table: target, keys: unique, w) { i, row in
            guard var e = try RowFooter.entry(row), e.names(table: source, column: column, key: sourceKey) else { return }
            let taken = min(e.count, left[i])
            left[i] -= taken
            e.count -= taken
            batch.append(key: unique[i], row: row, entry: e.count == 0 ? nil : e)
        }
        guard !batch.keys.isEmpty else { return left }
        try batch.put(into: &core.snap.metas[target].objects, w)
        return left
    }

    /// Calls `body(i, row)` for each key `keys[i]` (ascending) of table `t` that has a row. Dense
    /// keys (a list's oldest elements) are read in one ordered scan; sparse ones one by one.
    func forEachRow(table t: Int, keys: [UInt64], _ p: some PageReading,
                    _ body: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        guard let first = keys.first, let last = keys.last else { return }
        let tree = core.snap.metas[t].objects
        if last &- first < UInt64(keys.count) &* 4 {
            var i = 0
            try tree.forEach(from: first, in: p) { k, row in
                while i < keys.count, keys[i] < k { i += 1 }
                guard i < keys.count else { return false }
                if keys[i] == k {
                    try body(i, row)
                    i += 1
                }
                return i < keys.count
            }
        } else {
            for (i, k) in keys.enumerated() {
                try tree.withValue(forKey: k, in: p) { row in try body(i, row) }
            }
        }
    }

    /// Moves every footer entry into the backlink tree (adding to an entry there) and empties
    /// the footers: a migration renumbers columns in the tree only (see the invariants above).
    func spillInlineBacklinks(_ w: WriteTransaction) throws {
        for t in core.snap.metas.indices {
            var batch = FooterRewrites()
            var entries: [InlineBacklink] = []
            try core.snap.metas[t].objects.forEach(from: 0, in: w) { k, row in
                if let e = try RowFooter.entry(row) {
                    batch.append(key: k, row: row, entry: nil)
                    entries.append(e)
                }
                return true
            }
            guard !batch.keys.isEmpty else { continue }
            try batch.put(into: &core.snap.metas[t].objects, w)
            for (k, e) in zip(batch.keys, entries) {
                try addTreeBacklink(target: t, targetKey: k, source: Int(e.table), column: Int(e.column), sourceKey: e.key,
                                    by: e.count, fresh: false, w)
            }
        }
    }
}

/// Rows with a new footer, ascending by key, in one buffer: one sorted put rewrites them.
struct FooterRewrites {
    private(set) var keys: [UInt64] = []
    private var bytes: [UInt8] = []
    private var ends: [Int] = []

    /// Adds `row` (whose footer is well formed) with its footer replaced by one for `entry`.
    mutating func append(key: UInt64, row: UnsafeRawBufferPointer, entry: InlineBacklink?) {
        let body = row.count - (RowFooter.length(row) ?? 0)
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: row[0..<body]))
        let at = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: RowFooter.encodedLength(entry)))
        bytes.withUnsafeMutableBytes { _ = RowFooter.store(entry, at: $0.baseAddress! + at) }
        keys.append(key)
        ends.append(bytes.count)
    }

    func put(into tree: inout KeyedTree, _ w: WriteTransaction) throws {
        try bytes.withUnsafeBytes { all in
            var start = 0
            var values: [UnsafeRawBufferPointer] = []
            values.reserveCapacity(ends.count)
            for end in ends {
                values.append(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                start = end
            }
            _ = try tree.putSorted(keys: keys, values: values, in: w)
        }
    }
}
