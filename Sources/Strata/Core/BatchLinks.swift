// Batched object-layer edits on the trees' batch operations: adding many new objects of a
// plain class in one sorted put, and adding or dropping the backlinks of many list elements in
// one sorted pass of the backlink tree (Backlinks.swift has the key format).
//
// Why: the sensors pattern appends 1,000 new readings to a list and drops its 1,000 oldest per
// transaction; per element that was one descent of the rows tree, of the list and of the
// backlink tree each. New objects get ascending keys and their backlink keys (same target
// table, source table, column and owner) ascend with them, so each tree takes one descent
// per leaf instead.
//
// Invariants:
// - The result equals the per-element path's: the same rows (a plain row is the zeroed
//   buffer with the scalars copied in), the same keys from `nextKey`, the same bindings, the
//   same backlink counts (an entry's count drops by the number of times its key leaves; the
//   entry goes when that reaches zero).
// - Anything the fast path does not cover (a managed or repeated object, a class with a
//   primary key, indexes, strings, links or collections) is left to the per-element path:
//   `addPlainObjects` returns nil before changing anything.
import StrataStorage

extension BacklinkStore {
    /// Adds `objects` (unmanaged, distinct, all of one plain class: ClassInfo.plainRow, no
    /// maintained index) with one sorted put of their rows; returns their keys (ascending), or
    /// nil, having changed nothing, when they do not qualify.
    /// `linkedFrom`: the link (source table, column, source key) creating the objects; in files
    /// with row footers its backlink goes into each new row (`inlined` true; InlineBacklinks.swift).
    func addPlainObjects(_ objects: [Object], viaLink: Bool,
                         linkedFrom: (table: Int, column: Int, key: UInt64)? = nil) throws -> (keys: [UInt64], inlined: Bool)? {
        guard let first = objects.first else { return ([], false) }
        let type = Swift.type(of: first)
        for o in objects {
            guard o._binding == nil, Swift.type(of: o) == type else { return nil }
        }
        let w = try core.requireWriteThrowing("add objects")
        let (info, t) = try core.classAndTable(forAdding: type, viaLink: viaLink)
        guard let plain = info.plainRow, try !core.indexes.maintainedIndexes(table: t, w) else { return nil }
        let size = info.plainRowSize
        let n = objects.count
        let start = core.snap.metas[t].nextKey
        let keys = (0..<n).map { start &+ UInt64($0) }
        // Bound first, as the single add does (the row is copied from the objects' memory
        // either way). An object met twice is bound already at its second occurrence: undo
        // and leave the batch to the per-element path (no hashing of every object).
        for (i, o) in objects.enumerated() {
            guard o._binding == nil else {
                for j in 0..<i { objects[j]._binding = nil }
                return nil
            }
            o._binding = ObjectBinding(core: core, info: info, table: t, key: keys[i])
        }
        var inline: InlineBacklink? = nil
        if let l = linkedFrom, inlineBacklinksEnabled {
            inline = InlineBacklink(table: UInt32(truncatingIfNeeded: l.table), column: UInt32(truncatingIfNeeded: l.column), key: l.key, count: 1)
        }
        do {
            try putPlainRows(objects, keys: keys, plain: plain, size: size, inline: inline, table: t, w)
        } catch {
            for o in objects { o._binding = nil }
            throw error
        }
        core.snap.metas[t].nextKey = start &+ UInt64(n)
        core.snap.metasDirty = true
        core.changeCounter &+= UInt64(n)
        return (keys, inline != nil)
    }

    /// The plain rows of `objects` (copied from their memory into one zeroed buffer, each with
    /// its footer: empty, or `inline`) put under `keys` in one sorted batch.
    private func putPlainRows(_ objects: [Object], keys: [UInt64], plain: [PlainRowCopy], size plainSize: Int,
                              inline: InlineBacklink?, table t: Int, _ w: WriteTransaction) throws {
        let n = objects.count
        let footer = RowFooter.encodedLength(inline)
        let size = plainSize + footer
        var rows = [UInt8](repeating: 0, count: max(size * n, 1))
        rows.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            for (i, o) in objects.enumerated() {
                let source = UnsafeRawPointer(Unmanaged.passUnretained(o).toOpaque())
                let row = base + i * size
                withExtendedLifetime(o) {
                    for c in plain { c.kind.copy(from: source + c.valueOffset, to: row + c.slotOffset) }
                }
                RowFooter.store(inline, at: row + plainSize)
            }
        }
        try rows.withUnsafeBytes { all in
            guard let base = all.baseAddress else { return }
            let values = (0..<n).map { UnsafeRawBufferPointer(start: base + $0 * size, count: size) }
            // Plain rows hold no page references (no collections), so the rows tree may pack
            // them: ~13 instead of ~39 bytes per small row. A schema change rebuilds the tree
            // unpacked (MigrationRun.convert), so a class that gains a collection never keeps
            // packed leaves, which relocation could not rewrite. Not rows created with an inline
            // backlink (objects appended to a list): the footer shrinks when they leave the list,
            // and a value of another length cannot stay in a packed leaf's columns (each such
            // change would rewrite the whole leaf: measured, the sensors pattern halved).
            _ = try core.snap.metas[t].objects.putSorted(keys: keys, values: values, packing: inline == nil, in: w)
        }
    }

    /// The 28-byte backlink keys of (target, k) ← (source, column, sourceKey) for each k of
    /// `targetKeys`, contiguous, and `body` called with a buffer per key.
    private func withBacklinkKeys<R>(target: Int, _ targetKeys: [UInt64], source: Int, column: Int, sourceKey: UInt64,
                                     _ body: ([UnsafeRawBufferPointer]) throws -> R) throws -> R {
        var bytes = [UInt8](repeating: 0, count: max(targetKeys.count * 28, 1))
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            for (i, k) in targetKeys.enumerated() {
                let entry = base + i * 28
                entry.storeBytes(of: UInt32(truncatingIfNeeded: target).bigEndian, toByteOffset: 0, as: UInt32.self)
                entry.storeBytes(of: k.bigEndian, toByteOffset: 4, as: UInt64.self)
                entry.storeBytes(of: UInt32(truncatingIfNeeded: source).bigEndian, toByteOffset: 12, as: UInt32.self)
                entry.storeBytes(of: UInt32(truncatingIfNeeded: column).bigEndian, toByteOffset: 16, as: UInt32.self)
                entry.storeBytes(of: sourceKey.bigEndian, toByteOffset: 20, as: UInt64.self)
            }
        }
        return try bytes.withUnsafeBytes { all in
            guard let base = all.baseAddress else { return try body([]) }
            return try body((0..<targetKeys.count).map { UnsafeRawBufferPointer(start: base + $0 * 28, count: 28) })
        }
    }

    /// Backlinks with count 1 for links to objects just created (`targetKeys` strictly
    /// ascending, none with an entry yet): one sorted put.
    func addFreshBacklinks(target: Int, targetKeys: [UInt64], source: Int, column: Int, sourceKey: UInt64) throws {
        guard let w = core.writeTxn else { throw Realm.Error(.notInWriteTransaction, "links change only inside a write transaction") }
        guard !targetKeys.isEmpty else { return }
        try withUnsafeBytes(of: UInt32(1).littleEndian) { one in
            try withBacklinkKeys(target: target, targetKeys, source: source, column: column, sourceKey: sourceKey) { keys in
                _ = try core.snap.backlinks.putSorted(keys: keys, values: [UnsafeRawBufferPointer](repeating: one, count: keys.count), in: w)
            }
        }
    }

    /// `removeBacklink` for every key of `targetKeys` (any order, repeats allowed), in one
    /// sorted pass: each entry's count drops by its key's repeats, and the entry goes when that
    /// leaves nothing.
    func removeBacklinks(target: Int, targetKeys: [UInt64], source: Int, column: Int, sourceKey: UInt64) throws {
        guard let w = core.writeTxn else { throw Realm.Error(.notInWriteTransaction, "links change only inside a write transaction") }
        guard targetKeys.count > 1 else {
            // One link (the per-transaction trim of a single-reading write): no batch arrays.
            if let k = targetKeys.first {
                try removeBacklink(target: target, targetKey: k, source: source, column: column, sourceKey: sourceKey)
            }
            return
        }
        var ascending = true
        for i in targetKeys.indices.dropFirst() where targetKeys[i - 1] >= targetKeys[i] {
            ascending = false
            break
        }
        var unique: [UInt64] = []
        var repeats: [UInt32] = []
        if ascending {
            unique = targetKeys
            repeats = [UInt32](repeating: 1, count: targetKeys.count)
        } else {
            for k in targetKeys.sorted() {
                if let last = unique.last, last == k {
                    repeats[repeats.count - 1] &+= 1
                } else {
                    unique.append(k)
                    repeats.append(1)
                }
            }
        }
        // Footers first (InlineBacklinks.swift): what they do not hold comes out of the tree.
        repeats = try removeInlineBacklinks(target: target, unique: unique, repeats: repeats, source: source,
                                            column: column, sourceKey: sourceKey, w)
        var kept = 0
        for i in unique.indices where repeats[i] > 0 {
            unique[kept] = unique[i]
            repeats[kept] = repeats[i]
            kept += 1
        }
        unique.removeLast(unique.count - kept)
        repeats.removeLast(repeats.count - kept)
        if unique.isEmpty { return }
        try withBacklinkKeys(target: target, unique, source: source, column: column, sourceKey: sourceKey) { keys in
            var rewrites: [(index: Int, count: UInt32)] = []
            _ = try core.snap.backlinks.removeSorted(keys, in: w) { i, value in
                let old = value.count >= 4 ? UInt32(littleEndian: value.loadUnaligned(as: UInt32.self)) : 0
                if old <= repeats[i] { return true }
                rewrites.append((i, old - repeats[i]))
                return false
            }
            for (i, count) in rewrites {
                try withUnsafeBytes(of: count.littleEndian) { _ = try core.snap.backlinks.put(keys[i], $0, in: w) }
            }
        }
    }
}
