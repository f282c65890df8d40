// Where the last property read of each class found its row: one `LeafFinger` per table, so that
// reading objects in key order (iterating results, walking a list) reads each row's leaf
// directly instead of descending from the root for every property (StrataStorage
// Trees/LeafFinger.swift).
//
// A read works on its table's finger in place (`withFinger`): copying a finger out before
// every property read and back after it was a tenth of an iteration step.
//
// Invariants:
// - Used only outside a write transaction and only by a live (confined) core: a write changes
//   pages in place, and a frozen core is read from several threads.
// - Valid for one version: the fingers are dropped when the version read differs from the one
//   they were taken in, and by `RealmCore.snapshotMoved()` at every move.
// - One finger is lent at a time. A read that starts while another's body runs (a row decoded
//   by reading another row) gets a fresh finger of its own and keeps nothing, so the lent
//   finger's storage neither moves nor changes under the outer lookup (which wrote its finger
//   before its body started), and fingers kept for one version never answer for another.
//   Dropping the fingers while one is lent only forgets the version, so the next read starts
//   afresh.
import StrataStorage

struct RowFingers {
    private var version: UInt64 = .max
    private var fingers: [LeafFinger] = []
    private var lent = false

    /// `body` on the finger of table `t` for `version` (a fresh one after a move), in place.
    @inline(__always)
    mutating func withFinger<R>(table t: Int, version: UInt64, _ body: (inout LeafFinger) throws -> R) rethrows -> R {
        if lent {
            var spare = LeafFinger()
            return try body(&spare)
        }
        if version != self.version {
            fingers.removeAll(keepingCapacity: true)
            self.version = version
        }
        if t >= fingers.count { fingers.append(contentsOf: repeatElement(LeafFinger(), count: t + 1 - fingers.count)) }
        lent = true
        defer { lent = false }
        return try fingers.withUnsafeMutableBufferPointer { try body(&$0[t]) }
    }

    mutating func removeAll() {
        version = .max
        if !lent { fingers.removeAll(keepingCapacity: true) }
    }
}
