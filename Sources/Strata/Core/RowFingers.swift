// Where the last property read of each class found its row: one `LeafFinger` per table, so that
// reading objects in key order (iterating results, walking a list) reads each row's leaf
// directly instead of descending from the root for every property (StrataStorage
// Trees/LeafFinger.swift).
//
// Invariants:
// - Used only outside a write transaction and only by a live (confined) core: a write changes
//   pages in place, and a frozen core is read from several threads.
// - Valid for one version: the fingers are dropped when the version read differs from the one
//   they were taken in, and by `RealmCore.snapshotMoved()` at every move.
import StrataStorage

struct RowFingers {
    private var version: UInt64 = .max
    private var fingers: [LeafFinger] = []

    /// The finger of table `t` for `version` (a fresh one after a move).
    @inline(__always)
    mutating func finger(table t: Int, version: UInt64) -> LeafFinger {
        if version != self.version {
            fingers.removeAll(keepingCapacity: true)
            self.version = version
        }
        return t < fingers.count ? fingers[t] : LeafFinger()
    }

    /// Keeps `finger` for table `t`.
    @inline(__always)
    mutating func keep(_ finger: LeafFinger, table t: Int) {
        if t >= fingers.count { fingers.append(contentsOf: repeatElement(LeafFinger(), count: t + 1 - fingers.count)) }
        fingers[t] = finger
    }

    mutating func removeAll() {
        fingers.removeAll(keepingCapacity: true)
        version = .max
    }
}
