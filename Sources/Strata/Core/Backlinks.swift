// Backlinks: for every stored link, an entry in one BytesTree per file so that deleting an object
// and `LinkingObjects` find the links to an object without scanning tables.
//
// Key (28 bytes, big-endian so memcmp order groups entries by target):
//   target table u32 | target key u64 | source table u32 | source column u32 | source key u64
// Value: u32 little-endian count (a list may hold the same link several times).
//
// Invariants:
// - In files without row footers, an entry exists with count n exactly when the source object's
//   column holds n links to the target (n ≥ 1). In files with footers (InlineBacklinks.swift),
//   the target's footer may hold some or all of those links: the footer's count plus the
//   entry's is n, and an entry exists only with a count ≥ 1.
import Foundation
import StrataStorage

struct Backlink {
    let table: Int
    let column: Int
    let key: UInt64
    let count: UInt32
}

/// The backlinks of the core's snapshot: the backlink tree and the row footers (see the file
/// header and InlineBacklinks.swift). A view of the core: the trees live in `snap`.
struct BacklinkStore {
    /// Strong, not `unowned(unsafe)`: each use of an unowned reference is retained and released
    /// again (measured: bulk inserts took 12% more CPU), while a strong one read from the view
    /// is borrowed; a view is made by its core for one call and never kept.
    let core: RealmCore
}

extension BacklinkStore {
    @inline(__always)
    private func withBacklinkKey<R>(_ target: Int, _ targetKey: UInt64, _ source: Int, _ column: Int, _ sourceKey: UInt64,
                                    length: Int = 28, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(byteCount: 28, alignment: 8) { buf in
            buf.storeBytes(of: UInt32(truncatingIfNeeded: target).bigEndian, toByteOffset: 0, as: UInt32.self)
            buf.storeBytes(of: targetKey.bigEndian, toByteOffset: 4, as: UInt64.self)
            buf.storeBytes(of: UInt32(truncatingIfNeeded: source).bigEndian, toByteOffset: 12, as: UInt32.self)
            buf.storeBytes(of: UInt32(truncatingIfNeeded: column).bigEndian, toByteOffset: 16, as: UInt32.self)
            buf.storeBytes(of: sourceKey.bigEndian, toByteOffset: 20, as: UInt64.self)
            return try body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buf)[0..<length]))
        }
    }

    /// `fresh`: the target was created by the operation adding this link, so no entry exists yet.
    /// The link goes into the target's row footer when it can (InlineBacklinks.swift).
    func addBacklink(target: Int, targetKey: UInt64, source: Int, column: Int, sourceKey: UInt64, by n: UInt32 = 1, fresh: Bool = false) throws {
        guard let w = core.writeTxn else { throw Realm.Error(.notInWriteTransaction, "links change only inside a write transaction") }
        if try addInlineBacklink(target: target, targetKey: targetKey, source: source, column: column, sourceKey: sourceKey, by: n, w) {
            return
        }
        try addTreeBacklink(target: target, targetKey: targetKey, source: source, column: column, sourceKey: sourceKey, by: n, fresh: fresh, w)
    }

    /// `addBacklink` in the backlink tree only.
    func addTreeBacklink(target: Int, targetKey: UInt64, source: Int, column: Int, sourceKey: UInt64, by n: UInt32,
                         fresh: Bool, _ w: WriteTransaction) throws {
        try withBacklinkKey(target, targetKey, source, column, sourceKey) { k in
            let old = fresh ? 0 : try core.snap.backlinks.withValue(forKey: k, in: w) { $0.count >= 4 ? UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) : 0 } ?? 0
            try withUnsafeBytes(of: (old &+ n).littleEndian) { _ = try core.snap.backlinks.put(k, $0, in: w) }
        }
    }

    func removeBacklink(target: Int, targetKey: UInt64, source: Int, column: Int, sourceKey: UInt64) throws {
        guard let w = core.writeTxn else { throw Realm.Error(.notInWriteTransaction, "links change only inside a write transaction") }
        if try removeInlineBacklink(target: target, targetKey: targetKey, source: source, column: column, sourceKey: sourceKey, w) {
            return
        }
        try withBacklinkKey(target, targetKey, source, column, sourceKey) { k in
            // One descent in the common case (the last link): read the count and remove the
            // entry in the same edit; only a count above one is rewritten by a second one.
            var old: UInt32 = 0
            let removed = try core.snap.backlinks.remove(k, in: w) { value in
                old = value.count >= 4 ? UInt32(littleEndian: value.loadUnaligned(as: UInt32.self)) : 0
                return old <= 1
            }
            if !removed && old > 1 {
                try withUnsafeBytes(of: (old - 1).littleEndian) { _ = try core.snap.backlinks.put(k, $0, in: w) }
            }
        }
    }

    /// Removes every link from (source, column, sourceKey) to (target, targetKey). `targetDying`:
    /// the target's row is about to be removed, and its footer with it (not rewritten first).
    func removeBacklinkEntry(target: Int, targetKey: UInt64, source: Int, column: Int, sourceKey: UInt64, targetDying: Bool = false) throws {
        guard let w = core.writeTxn else { throw Realm.Error(.notInWriteTransaction, "links change only inside a write transaction") }
        if !targetDying {
            _ = try removeInlineBacklink(target: target, targetKey: targetKey, source: source, column: column, sourceKey: sourceKey, all: true, w)
        }
        try withBacklinkKey(target, targetKey, source, column, sourceKey) { k in _ = try core.snap.backlinks.remove(k, in: w) }
    }

    /// Every link to (target, targetKey); with `source`/`column`, only those from that property.
    /// The footer's entry (InlineBacklinks.swift) is merged in at its place in the tree's order,
    /// its count added to the tree's entry for the same source when both exist.
    func backlinks(target: Int, targetKey: UInt64, source: Int? = nil, column: Int? = nil) throws -> [Backlink] {
        let p = try core.pages()
        var inline: Backlink? = nil
        if let e = try inlineBacklink(table: target, key: targetKey, in: p),
           source.map({ Int(e.table) == $0 }) ?? true, column.map({ Int(e.column) == $0 }) ?? true {
            inline = Backlink(table: Int(e.table), column: Int(e.column), key: e.key, count: e.count)
        }
        let prefixLength = source == nil ? 12 : 20
        var out: [Backlink] = []
        let tree = core.snap.backlinks
        guard !tree.isEmpty else { return inline.map { [$0] } ?? [] }
        try withBacklinkKey(target, targetKey, source ?? 0, column ?? 0, 0, length: prefixLength) { prefix in
            try tree.forEach(from: prefix, in: p) { k, v in
                guard k.count == 28, memcmp(k.baseAddress!, prefix.baseAddress!, prefixLength) == 0 else { return false }
                let st = Int(UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
                let sc = Int(UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 16, as: UInt32.self)))
                let sk = UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 20, as: UInt64.self))
                var n = v.count >= 4 ? UInt32(littleEndian: v.loadUnaligned(as: UInt32.self)) : 1
                if let i = inline {
                    if (i.table, i.column, i.key) < (st, sc, sk) {
                        out.append(i)
                        inline = nil
                    } else if (i.table, i.column, i.key) == (st, sc, sk) {
                        n &+= i.count
                        inline = nil
                    }
                }
                out.append(Backlink(table: st, column: sc, key: sk, count: n))
                return true
            }
        }
        if let i = inline { out.append(i) }
        return out
    }
}
