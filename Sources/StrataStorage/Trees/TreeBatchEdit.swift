// Batch edits of the three trees: many entries per root-to-leaf descent.
//
// A batch (`TreeLeafBatch`) is a cursor over entries in tree order. `TreeBatchEditor` descends
// from the root by the routing key of the batch's next entry, carrying down the upper bound of
// the leaf it reaches (the separator of the next sibling at the deepest level that has one);
// the batch then applies every following entry that belongs to that leaf (key below the bound)
// and fits, and the way back up is the single-entry edit's (`TreeEditor.absorbChild`:
// separators of splits, removal of emptied children, merges of underfull ones, then
// `finishRoot`). The editor loops until the batch is done: one descent per leaf touched
// instead of one per entry. Appending past the last entry fills the rightmost leaf and then
// fresh right leaves densely (a full left page, as the single-entry append-mode split does).
//
// Invariants:
// - The resulting tree is the one the same sequence of single edits yields in contents; its
//   shape obeys every invariant of NodeLayout.swift (leaves may be fuller).
// - Every descent consumes at least one entry (the first routes to the leaf it reaches, so it
//   is below that leaf's bound); a descent that consumes none throws `.corruptFile` instead of
//   looping.
// - Pages are changed only through `writableNodePage`/`allocatePage`; pages leaving the tree are
//   freed exactly once (by the batch for overflow chains, by `absorbChild`/`finishRoot` for
//   nodes). Errors leave the tree value unchanged but pages changed, as single edits do.

/// A cursor over the entries of one batch edit, applied a leaf at a time.
protocol TreeLeafBatch {
    associatedtype F: TreeFlavor
    /// Whether every entry was applied (or the batch stopped early).
    var isDone: Bool { get }
    /// Entries consumed so far (the editor checks that each descent consumes one).
    var position: Int { get }
    /// The routing key of the next entry (a position within the tree for positional batches).
    func nextKey() -> F.SearchKey
    /// Whether the batch adds entries (an empty tree then gets an empty leaf to fill).
    static var inserts: Bool { get }
    /// Whether the descent makes branches writable on the way down (the batch always changes
    /// the leaf it reaches) rather than on the way back up.
    static var eagerPath: Bool { get }
    /// The key of branch cell `i` > 0 as an upper bound for the entries of child `i − 1`;
    /// nil for trees without keys.
    static func separator(_ node: TreeNode, _ i: Int) throws -> F.SearchKey?
    /// Applies the entries that belong to `leaf` (routed by `key`, the next entry's key local
    /// to the leaf; entries from `upper` on belong to later leaves). `rightmost`: the leaf is
    /// the last of the tree. Makes the leaf writable itself when it changes it.
    mutating func edit(leaf: TreeNode, key: F.SearchKey, upper: F.SearchKey?, rightmost: Bool,
                       _ pages: any PageWriting) throws -> TreeEditResult
}

enum TreeBatchEditor<B: TreeLeafBatch> {
    typealias F = B.F

    /// Applies the whole batch to the tree at `root`; returns the new root and the count change.
    static func run(root: PageRef, _ batch: inout B, _ pages: any PageWriting) throws -> (root: PageRef, delta: Int) {
        var root = root
        var delta = 0
        while !batch.isDone {
            if root.isNull {
                guard B.inserts else { break }
                let (ref, base) = try pages.allocatePage()
                _ = MutableTreeNode.initialize(ref, base, kind: F.leafKind)
                root = ref
            }
            let before = batch.position
            let result = try descend(root, batch.nextKey(), upper: nil, rightmost: true, depth: 0, &batch, pages)
            // A descent that split a packed leaf without applying its entry (`retry`) made
            // room for it: the next one applies it.
            guard batch.position > before || batch.isDone || result.retry else {
                throw TreeError.corrupt(root, "a batch entry does not belong to the leaf its key routes to")
            }
            delta += result.delta
            if result.changed { root = try TreeEditor<F>.finishRoot(result, pages) }
        }
        return (root, delta)
    }

    private static func descend(_ ref: PageRef, _ key: F.SearchKey, upper: F.SearchKey?, rightmost: Bool, depth: Int,
                                _ batch: inout B, _ pages: any PageWriting) throws -> TreeEditResult {
        guard depth < TreeLayout.maxDepth else { throw TreeError.corrupt(ref, "tree deeper than \(TreeLayout.maxDepth) levels") }
        var node = try TreeNode.read(ref, pages, F.self)
        if node.isLeaf { return try batch.edit(leaf: node, key: key, upper: upper, rightmost: rightmost, pages) }
        var writable: UnsafeMutableRawPointer?
        if B.eagerPath {
            let (writableRef, base) = try pages.writableNodePage(ref)
            node = try TreeNode(ref: writableRef, base: UnsafeRawPointer(base), flavor: F.self)
            writable = base
        }
        let (index, childKey) = try F.searchBranch(node, key)
        let childUpper = index + 1 < node.count ? try B.separator(node, index + 1) : upper
        let oldChildCount = try node.childCount(index)
        let result = try descend(try node.child(index), childKey, upper: childUpper,
                                 rightmost: rightmost && index == node.count - 1, depth: depth + 1, &batch, pages)
        guard result.changed else {
            guard let writable else { return .unchanged(ref) }
            // The page was made writable (possibly copied) on the way down: report it.
            let branch = MutableTreeNode(ref: node.ref, base: writable)
            return TreeEditResult(ref: node.ref, delta: 0, changed: true, split: nil,
                                  cellCount: branch.count, filledBytes: branch.filledBytes)
        }
        guard result.delta >= 0 || oldChildCount >= UInt64(-result.delta) else {
            throw TreeError.corrupt(ref, "child count below zero")
        }
        let (writableRef, writableBase) = try writable.map { (node.ref, $0) } ?? pages.writableNodePage(ref)
        let branch = MutableTreeNode(ref: writableRef, base: writableBase)
        let split = try TreeEditor<F>.absorbChild(result, at: index, oldChildCount: oldChildCount, of: branch,
                                                  rightmost: rightmost, pages)
        return .edited(branch, delta: result.delta, split: split, retry: result.retry)
    }
}

extension TreeCells {
    /// The size of the leaf cell `withLeafCell` builds for a key part of `keySize` bytes and a
    /// value of `valueCount` bytes (without writing an overflow chain); `bytesKey`: the key part
    /// is a bytes key, whose cell with an empty value is the key alone.
    @inline(__always)
    static func leafCellSize(keySize: Int, valueCount: Int, bytesKey: Bool) -> Int {
        if valueCount == 0 && bytesKey { return keySize }
        let inline = keySize + TreeLayout.valueHeaderSize + valueCount <= TreeLayout.maxCellSize
        return keySize + (inline ? TreeLayout.valueHeaderSize + valueCount : TreeLayout.overflowValuePartSize)
    }
}

extension MutableTreeNode {
    /// Removes the first `k` cells (≤ count) of a leaf, whose sizes sum to `bytes`: one move of
    /// the slot array. Their bytes stay dead in the cell area until a defragmentation.
    func removeFirstCells(_ k: Int, bytes: Int) {
        let n = count
        guard k > 0 else { return }
        let slots = base + TreeLayout.headerSize
        if k < n {
            slots.copyMemory(from: slots + k * TreeLayout.slotSize, byteCount: (n - k) * TreeLayout.slotSize)
        }
        count = n - k
        usedBytes = usedBytes - bytes
        if k == n { cellStart = TreeLayout.payloadSize }
    }

    /// A new, empty leaf of `kind` right of a full one, for appends past the end.
    static func allocateRightLeaf(kind: UInt8, _ pages: any PageWriting) throws -> MutableTreeNode {
        let (ref, base) = try pages.allocatePage()
        return MutableTreeNode.initialize(ref, base, kind: kind)
    }
}
