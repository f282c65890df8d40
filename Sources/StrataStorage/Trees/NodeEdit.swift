// In-place edits of a node page owned by the write transaction: insert and remove cells,
// defragment, split. Used for leaves and branches alike (a cell is opaque bytes here).
//
// Invariants:
// - Only pages returned by `PageWriting.writableNodePage` or `allocatePage` are edited here.
//   The gap between the slot array and `cellStart` holds unspecified bytes (a copy-on-write
//   copy need not copy it): nothing here reads it before writing it.
// - After every edit the header invariants of NodeLayout.swift hold (slots, cellStart,
//   usedBytes); `total` is maintained by the callers, who know what a cell counts.
// - A split leaves both halves non-empty and within the page.

struct MutableTreeNode {
    let ref: PageRef
    let base: UnsafeMutableRawPointer

    @inline(__always) var count: Int {
        get { UnsafeRawPointer(base).treeU16(TreeLayout.countOffset) }
        nonmutating set { base.setTreeU16(TreeLayout.countOffset, newValue) }
    }
    @inline(__always) var cellStart: Int {
        get { UnsafeRawPointer(base).treeU16(TreeLayout.cellStartOffset) }
        nonmutating set { base.setTreeU16(TreeLayout.cellStartOffset, newValue) }
    }
    @inline(__always) var usedBytes: Int {
        get { UnsafeRawPointer(base).treeU16(TreeLayout.usedBytesOffset) }
        nonmutating set { base.setTreeU16(TreeLayout.usedBytesOffset, newValue) }
    }
    @inline(__always) var total: UInt64 {
        get { UnsafeRawPointer(base).treeU64(TreeLayout.totalOffset) }
        nonmutating set { base.setTreeU64(TreeLayout.totalOffset, newValue) }
    }
    @inline(__always) var kind: UInt8 { base.load(as: UInt8.self) }

    @inline(__always) func slot(_ i: Int) -> Int {
        UnsafeRawPointer(base).treeU16(TreeLayout.headerSize + i * TreeLayout.slotSize)
    }

    /// Bytes of slots + cells in use (what merging needs to move).
    @inline(__always) var filledBytes: Int { usedBytes + count * TreeLayout.slotSize }

    /// Whether a cell of `size` bytes fits (possibly after defragmenting).
    @inline(__always) func fits(_ size: Int) -> Bool {
        filledBytes + size + TreeLayout.slotSize <= TreeLayout.usableSize
    }

    /// Formats a fresh, empty node.
    static func initialize(_ ref: PageRef, _ base: UnsafeMutableRawPointer, kind: UInt8) -> MutableTreeNode {
        base.initializeMemory(as: UInt8.self, repeating: 0, count: TreeLayout.headerSize)
        base.storeBytes(of: kind, as: UInt8.self)
        let node = MutableTreeNode(ref: ref, base: base)
        node.cellStart = TreeLayout.payloadSize
        return node
    }

    /// Inserts `cell` at slot `index`. The caller has checked `fits(cell.count)`.
    func insertCell<F: TreeFlavor>(_ cell: UnsafeRawBufferPointer, at index: Int, isLeaf: Bool, _ flavor: F.Type) throws {
        let n = count
        let size = cell.count
        if cellStart - (TreeLayout.headerSize + (n + 1) * TreeLayout.slotSize) < size {
            try defragment(isLeaf: isLeaf, flavor)
        }
        let start = cellStart - size
        // The header's used-byte count decided that the cell fits; a corrupt page whose cells
        // are larger than it claims must not make us write over the slots.
        guard start >= TreeLayout.headerSize + (n + 1) * TreeLayout.slotSize else {
            throw TreeError.corrupt(ref, "cells larger than the header's used bytes")
        }
        if size > 0, let source = cell.baseAddress { (base + start).copyMemory(from: source, byteCount: size) }
        let slots = base + TreeLayout.headerSize
        if index < n {
            (slots + (index + 1) * TreeLayout.slotSize).copyMemory(
                from: slots + index * TreeLayout.slotSize, byteCount: (n - index) * TreeLayout.slotSize)
        }
        slots.setTreeU16(index * TreeLayout.slotSize, start)
        cellStart = start
        count = n + 1
        usedBytes = usedBytes + size
    }

    /// Appends `cell` after the last slot when there is contiguous room (fresh nodes, splits).
    @inline(__always)
    func appendCellContiguous(_ cell: UnsafeRawPointer, size: Int) {
        let n = count
        let start = cellStart - size
        (base + start).copyMemory(from: cell, byteCount: size)
        base.setTreeU16(TreeLayout.headerSize + n * TreeLayout.slotSize, start)
        cellStart = start
        count = n + 1
        usedBytes = usedBytes + size
    }

    /// Writes `cell` over the cell of slot `index` (`oldSize` bytes) when it is not larger: no
    /// slot moves and nothing is defragmented; the old cell's tail becomes dead bytes (as a
    /// removed cell's bytes do). False, with nothing changed, when `cell` is larger.
    ///
    /// Why: replacing a value with one of the same size or smaller (a row whose backlink
    /// footer empties, a counter) was a removal plus an insertion, and in a full leaf every such
    /// insertion defragmented the whole page: a batch rewriting a leaf's rows cost O(leaf) each.
    func overwriteCell(at index: Int, oldSize: Int, with cell: UnsafeRawBufferPointer) -> Bool {
        guard cell.count <= oldSize else { return false }
        let offset = slot(index)
        if cell.count > 0, let source = cell.baseAddress { (base + offset).copyMemory(from: source, byteCount: cell.count) }
        usedBytes = usedBytes - (oldSize - cell.count)
        return true
    }

    /// Removes slot `index` whose cell has `size` bytes.
    func removeCell(at index: Int, size: Int) {
        let n = count
        let offset = slot(index)
        let slots = base + TreeLayout.headerSize
        if index + 1 < n {
            (slots + index * TreeLayout.slotSize).copyMemory(
                from: slots + (index + 1) * TreeLayout.slotSize, byteCount: (n - index - 1) * TreeLayout.slotSize)
        }
        count = n - 1
        usedBytes = usedBytes - size
        if offset == cellStart { cellStart = offset + size }
        if n == 1 { cellStart = TreeLayout.payloadSize }
    }

    /// Rewrites the cells contiguously at the end of the page, dropping dead bytes.
    func defragment<F: TreeFlavor>(isLeaf: Bool, _ flavor: F.Type) throws {
        try withUnsafeTemporaryAllocation(byteCount: TreeLayout.payloadSize, alignment: 8) { scratch in
            guard let copy = scratch.baseAddress else { return }
            copy.copyMemory(from: base, byteCount: TreeLayout.payloadSize)
            let old = UnsafeRawPointer(copy)
            let n = count
            var start = TreeLayout.payloadSize
            for i in 0..<n {
                let offset = old.treeU16(TreeLayout.headerSize + i * TreeLayout.slotSize)
                let size = try TreeNode.cellSize(old, at: offset, isLeaf: isLeaf, ref: ref, F.self)
                start -= size
                guard start >= TreeLayout.headerSize + n * TreeLayout.slotSize else {
                    throw TreeError.corrupt(ref, "cells overlap or exceed the page")
                }
                (base + start).copyMemory(from: old + offset, byteCount: size)
                base.setTreeU16(TreeLayout.headerSize + i * TreeLayout.slotSize, start)
            }
            cellStart = start
            usedBytes = TreeLayout.payloadSize - start
        }
    }

    /// Sum of the child counts of a branch.
    func branchTotal() -> UInt64 {
        var sum: UInt64 = 0
        for i in 0..<count { sum &+= UnsafeRawPointer(base).treeU64(slot(i) + TreeLayout.branchCountOffset) }
        return sum
    }
}

/// The right sibling produced by a split, and the new totals of both halves.
struct TreeSplit {
    var right: PageRef
    var leftTotal: UInt64
    var rightTotal: UInt64
    /// Where the left part now lives when it moved out of the split node's page (an append
    /// split with `PageWriting.placesFullNodesApart`); nil when it stayed there. The split node
    /// is reported to its parent through `TreeEditResult.edited`, which takes this into account
    /// (the node's own page is then `right`).
    /// `splitInsert` with `appendMode` is the only producer; the sorted and positional batch
    /// leaves split without it.
    var movedLeft: PageRef? = nil
}

extension MutableTreeNode {
    /// Inserts `cell` at `index` into this full node by splitting it in two: this page keeps
    /// the left part, a new page takes the right part. In append mode (`index == count` at the
    /// right edge of the tree) the left page stays full and the right one starts with the new
    /// cell alone, so ascending inserts fill pages instead of leaving them half empty.
    ///
    /// An append split on a file that writes each commit as one extent
    /// (`pages.placesFullNodesApart`) moves the full left part to `allocateDetachedPage` and
    /// keeps this page for the new right node: the right edge is where the next appends go,
    /// so it stays in the extents, while the full node, which appends never touch again, goes
    /// to scattered free space. Left in the extent, it would split the run that the extent's
    /// other pages free by the next commit, and a stream of appends would leave the free space
    /// in single pages: measured on the sensors workload under `.full`, commits wrote 11 pages
    /// in 10 separate runs (the free-space records no longer fitting in the meta: 2 free-list
    /// pages more), where one run flushes in one request.
    func splitInsert<F: TreeFlavor>(_ cell: UnsafeRawBufferPointer, at index: Int, isLeaf: Bool, appendMode: Bool,
                                    pages: any PageWriting, _ flavor: F.Type) throws -> TreeSplit {
        let n = count
        if appendMode && index == n && pages.placesFullNodesApart {
            return try splitAppendApart(cell, isLeaf: isLeaf, pages: pages, F.self)
        }
        return try withUnsafeTemporaryAllocation(byteCount: TreeLayout.payloadSize, alignment: 8) { scratch -> TreeSplit in
            guard let copy = scratch.baseAddress, let cellBase = cell.baseAddress else {
                throw StorageError(.invalidState, "split without a cell")
            }
            copy.copyMemory(from: base, byteCount: TreeLayout.payloadSize)
            let old = UnsafeRawPointer(copy)
            // Logical sequence: old cells with `cell` inserted at `index` (n + 1 cells).
            func logicalCell(_ j: Int) throws -> (UnsafeRawPointer, Int) {
                if j == index { return (cellBase, cell.count) }
                let k = j < index ? j : j - 1
                let offset = old.treeU16(TreeLayout.headerSize + k * TreeLayout.slotSize)
                return (old + offset, try TreeNode.cellSize(old, at: offset, isLeaf: isLeaf, ref: ref, F.self))
            }
            var leftCount: Int
            if appendMode && index == n {
                leftCount = n
            } else {
                var totalBytes = 0
                for j in 0...n { totalBytes += try logicalCell(j).1 + TreeLayout.slotSize }
                var accumulated = 0
                leftCount = 0
                while leftCount < n {
                    let size = try logicalCell(leftCount).1 + TreeLayout.slotSize
                    if leftCount > 0 && accumulated + size > totalBytes / 2 { break }
                    accumulated += size
                    leftCount += 1
                }
            }
            let kind = self.kind
            _ = MutableTreeNode.initialize(ref, base, kind: kind)
            for j in 0..<leftCount {
                let (pointer, size) = try logicalCell(j)
                guard fits(size) else { throw TreeError.corrupt(ref, "split does not fit") }
                appendCellContiguous(pointer, size: size)
            }
            let (rightRef, rightBase) = try pages.allocatePage()
            let right = MutableTreeNode.initialize(rightRef, rightBase, kind: kind)
            for j in leftCount...n {
                let (pointer, size) = try logicalCell(j)
                guard right.fits(size) else { throw TreeError.corrupt(ref, "split does not fit") }
                right.appendCellContiguous(pointer, size: size)
            }
            if isLeaf {
                total = UInt64(count)
                right.total = UInt64(right.count)
            } else {
                total = branchTotal()
                right.total = right.branchTotal()
            }
            return TreeSplit(right: rightRef, leftTotal: total, rightTotal: right.total)
        }
    }
}

extension MutableTreeNode {
    /// The append split of `splitInsert` that moves the full left part to a detached page:
    /// the left part is this node's content as it is (all `count` cells, header and all, the
    /// gap included), the right node is this page with `cell` alone.
    private func splitAppendApart<F: TreeFlavor>(_ cell: UnsafeRawBufferPointer, isLeaf: Bool,
                                                 pages: any PageWriting, _ flavor: F.Type) throws -> TreeSplit {
        guard let cellBase = cell.baseAddress else { throw StorageError(.invalidState, "split without a cell") }
        let (leftRef, leftBase) = try pages.allocateDetachedPage()
        leftBase.copyMemory(from: UnsafeRawPointer(base), byteCount: TreeLayout.payloadSize)
        let left = MutableTreeNode(ref: leftRef, base: leftBase)
        left.total = isLeaf ? UInt64(left.count) : left.branchTotal()
        let right = MutableTreeNode.initialize(ref, base, kind: kind)
        guard right.fits(cell.count) else { throw TreeError.corrupt(ref, "split does not fit") }
        right.appendCellContiguous(cellBase, size: cell.count)
        right.total = isLeaf ? 1 : right.branchTotal()
        return TreeSplit(right: ref, leftTotal: left.total, rightTotal: right.total, movedLeft: leftRef)
    }
}
