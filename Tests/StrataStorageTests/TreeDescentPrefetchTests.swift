// A descent asks for a child's lines before reading it, guessing from the branch's count of the
// child's entries (NodeLayout.swift, `TreeNode.read(_:_:_:probing:of:)`). The counts are only a
// hint there: a branch whose counts are damaged must still give every lookup its answer, and
// must never make the guess's arithmetic trap.

import Testing
@testable import StrataStorage

@Suite struct TreeDescentPrefetchTests {
    /// Overwrites every child count of every branch reachable from `root` (a tree of `flavor`)
    /// with `count`.
    static func damageCounts<F: TreeFlavor>(_ root: PageRef, _ pages: TreeTestPages, _ flavor: F.Type, to count: UInt64) throws {
        let node = try TreeNode.read(root, pages, flavor)
        guard !node.isLeaf else { return }
        for i in 0..<node.count {
            let at = try node.cellOffset(i, need: TreeLayout.branchKeyOffset) + TreeLayout.branchCountOffset
            UnsafeMutableRawPointer(mutating: node.base).storeBytes(of: count.littleEndian, toByteOffset: at, as: UInt64.self)
            try damageCounts(try node.child(i), pages, flavor, to: count)
        }
    }

    /// Keys spaced 2 apart, and 2^48 apart: there a key just below a separator lies a fraction
    /// of the child's range that rounds to 1, the edge of the guess's arithmetic.
    @Test(arguments: [UInt64.max, UInt64(Int.max), 3, 0], [1, 48])
    func damagedChildCountsChangeNoLookup(count: UInt64, spacing shift: Int) throws {
        let pages = TreeTestPages()
        let values = (0..<6_000).map { UInt64($0 + 1) << UInt64(shift) }
        let keys = values.map { [UInt8(1)] + withUnsafeBytes(of: $0.bigEndian, Array.init) }
        var bytes = BytesTree()
        var keyed = KeyedTree()
        for (i, key) in keys.enumerated() {
            _ = try key.withUnsafeBytes { k in try [UInt8(7)].withUnsafeBytes { try bytes.put(k, $0, in: pages) } }
            try [UInt8(9)].withUnsafeBytes { _ = try keyed.put(UInt64(i * 2), $0, in: pages) }
        }
        pages.commit()
        try Self.damageCounts(bytes.root, pages, BytesFlavor.self, to: count)
        try Self.damageCounts(keyed.root, pages, KeyedFlavor.self, to: count)
        var finger = LeafFinger()
        for i in stride(from: 0, to: keys.count, by: 7) {
            let present = try keys[i].withUnsafeBytes { try bytes.contains($0, in: pages) }
            #expect(present, "key \(i)")
            var first: [UInt8]?
            try keys[i].withUnsafeBytes { start in
                try bytes.forEach(from: start, in: pages) { k, _ in
                    first = Array(k)
                    return false
                }
            }
            #expect(first == keys[i], "scan from key \(i)")
            #expect(try keyed.contains(UInt64(i * 2), in: pages, finger: &finger), "object key \(i * 2)")
            #expect(try !keyed.contains(UInt64(i * 2 + 1), in: pages, finger: &finger), "absent object key \(i * 2 + 1)")
        }
        // Just below each key: absent, and a scan from there starts at the key.
        for (i, value) in values.enumerated() {
            let below = [UInt8(1)] + withUnsafeBytes(of: (value - 1).bigEndian, Array.init)
            #expect(try !below.withUnsafeBytes { try bytes.contains($0, in: pages) }, "below key \(i)")
            var first: [UInt8]?
            try below.withUnsafeBytes { start in
                try bytes.forEach(from: start, in: pages) { k, _ in
                    first = Array(k)
                    return false
                }
            }
            #expect(first == keys[i], "scan from below key \(i)")
        }
    }
}
