// When the edit path tries to merge an underfull node with a sibling: only after an edit that
// removed or replaced (the only edits that can shrink a node). Insertions never restructure
// siblings, so ascending appends into the nearly empty page left by an append-mode split do
// not read its full neighbour on every insert.

import Testing
@testable import StrataStorage

@Suite struct TreeMergePolicyTests {
    /// 16-byte values: a keyed leaf cell is 8 (key) + 4 (header) + 16 bytes, plus a 2-byte slot.
    static let cellAndSlot = 8 + TreeLayout.valueHeaderSize + 16 + TreeLayout.slotSize
    static let perLeaf = TreeLayout.usableSize / cellAndSlot
    /// Cell count of a leaf below the underfull threshold.
    static let underfullCells = (TreeLayout.underfullBytes - 1) / cellAndSlot

    static func put(_ tree: inout KeyedTree, _ key: UInt64, _ pages: TreeTestPages) throws {
        try [UInt8](repeating: UInt8(key % 251), count: 16).withUnsafeBytes { _ = try tree.put(key, $0, in: pages) }
    }

    /// Leaves A, L, R, X of `perLeaf` keys each (append-mode splits keep them full); then L is
    /// shrunk below the threshold while its neighbours are full (its merge attempts fail) and
    /// R is shrunk to just above it, so that L and R would now fit in one page.
    static func shrunkNeighbours(_ pages: TreeTestPages) throws -> (tree: KeyedTree, lStart: UInt64) {
        var tree = KeyedTree()
        let n = UInt64(perLeaf)
        for key in 0..<(4 * n) { try put(&tree, key, pages) }
        #expect(pages.livePageCount == 5)   // four full leaves under one branch
        let keepInL = UInt64(underfullCells - 1), keepInR = UInt64(underfullCells + 4)
        for key in (n + keepInL)..<(2 * n) { #expect(try tree.remove(key, in: pages)) }
        for key in (2 * n + keepInR)..<(3 * n) { #expect(try tree.remove(key, in: pages)) }
        #expect(Int(keepInL + keepInR) * cellAndSlot + cellAndSlot <= TreeLayout.usableSize)
        #expect(pages.livePageCount == 5)   // no merge was possible so far
        #expect(try TreeShapeCheck.keyed(tree, pages) == [])
        return (tree, n)
    }

    @Test func insertingIntoAnUnderfullLeafDoesNotMergeIt() throws {
        let pages = TreeTestPages()
        var (tree, lStart) = try Self.shrunkNeighbours(pages)
        // L gains one key and is still underfull; R could absorb it, but an insertion leaves it.
        try Self.put(&tree, lStart + UInt64(Self.underfullCells - 1), pages)
        #expect(pages.livePageCount == 5)
        #expect(try tree.count(in: pages) == 2 * Self.perLeaf + 2 * Self.underfullCells + 4)
        #expect(try TreeShapeCheck.keyed(tree, pages) == [])
    }

    @Test func removingFromAnUnderfullLeafMergesIt() throws {
        let pages = TreeTestPages()
        var (tree, lStart) = try Self.shrunkNeighbours(pages)
        // A removal from L does try its neighbours: L and R merge into one page (left A is full).
        #expect(try tree.remove(lStart, in: pages))
        #expect(pages.livePageCount == 4)
        #expect(try tree.count(in: pages) == 2 * Self.perLeaf + 2 * Self.underfullCells + 2)
        #expect(try tree.withValue(forKey: lStart + 1, in: pages) { Array($0) } == [UInt8](repeating: UInt8((lStart + 1) % 251), count: 16))
        #expect(try TreeShapeCheck.keyed(tree, pages) == [])
    }
}
