// The copy-on-write edit of one path from the root to a leaf, shared by the three trees.
//
// An insertion or replacement makes each node on the path writable on the way down
// (`writableNodePage`: a copy for committed pages, in place for pages the transaction owns); a
// removal by key descends read-only and makes the path writable on the way back up, only if
// the key was there (a positional removal, checked against the count, is eager too). On the way up each node stores its child's new reference and count, and absorbs
// the child's split (new separator cell) or underflow (merge with a sibling, or removal of an
// emptied child). Merging is tried only after an edit that removed or replaced: an insertion
// never makes a node underfull, so it never restructures siblings.
// A `.remove` may be conditional (`removeIf` sees the present entry's value first): one descent
// for read-then-remove patterns such as reference counts.
// The way up (`absorbChild`) and the root's fix-up (`finishRoot`) are shared with the batch
// edits of TreeBatchEdit.swift, which apply many entries per descent.
//
// Invariants:
// - Every page changed is obtained from `writableNodePage`/`allocatePage`; pointers from
//   `readPage` are never written.
// - A branch cell's count always equals its child's total; a node's total is the sum.
// - Pages that leave the tree (emptied, merged away, collapsed roots, replaced overflow
//   chains) are handed to `freePage` exactly once.
// - When an edit throws (a corrupt page, a failing page allocation), pages of this transaction
//   may already be copied or changed and the tree value keeps its old root: the caller must roll
//   the write transaction back rather than commit it.

enum TreeEditOperation {
    /// Keyed: replace the value of an existing key or insert it.
    case upsert
    /// Positional: insert before the index.
    case insert
    /// Positional: replace the element at the index.
    case replace
    /// Remove the key or index, if present.
    case remove
}

struct TreeEditResult {
    var ref: PageRef
    /// Change of the entry count: +1 inserted, −1 removed, 0 replaced or unchanged.
    var delta: Int
    /// False when nothing was written (removing an absent key).
    var changed: Bool
    var split: TreeSplit?
    /// The node's state after the edit, for the parent's underflow handling.
    var cellCount: Int
    var filledBytes: Int
    /// The edit was not applied: a packed leaf on its path was split at the edit's place first
    /// (PackedLeafEdit.swift), and the caller applies it again on the new tree.
    var retry = false

    static func unchanged(_ ref: PageRef) -> TreeEditResult {
        TreeEditResult(ref: ref, delta: 0, changed: false, split: nil, cellCount: 0, filledBytes: 0)
    }

    /// The result for `node` (writable, edited) that may have split: reports the page the
    /// node's left part now lives on (`TreeSplit.movedLeft`, an append split placed apart), else
    /// the node's own page.
    static func edited(_ node: MutableTreeNode, delta: Int, split: TreeSplit?, retry: Bool = false) -> TreeEditResult {
        TreeEditResult(ref: split?.movedLeft ?? node.ref, delta: delta, changed: true, split: split,
                       cellCount: node.count, filledBytes: node.filledBytes, retry: retry)
    }
}

enum TreeEditor<F: TreeFlavor> {
    /// Applies `operation` to the tree at `root`; returns the new root and the count change.
    @inline(__always)
    static func apply(root: PageRef, key: F.SearchKey, _ operation: TreeEditOperation,
                      cell: UnsafeRawBufferPointer, packing: Bool = false, _ pages: any PageWriting) throws -> (root: PageRef, delta: Int) {
        try apply(root: root, key: key, operation, cell: cell, packing: packing, pages, removeIf: { _ in true })
    }

    /// `apply`, where a `.remove` of a present entry first calls `removeIf` with its value
    /// (valid only during the call) and removes it only when that returns true; otherwise the
    /// tree is unchanged (delta 0). One descent for "read the value, then maybe remove it".
    /// `packing` (KeyedTree puts of values without page references): appends past the last key
    /// may go into packed leaves (PackedLeaf.swift).
    static func apply(root: PageRef, key: F.SearchKey, _ operation: TreeEditOperation,
                      cell: UnsafeRawBufferPointer, packing: Bool = false, _ pages: any PageWriting,
                      removeIf: (UnsafeRawBufferPointer) throws -> Bool) throws -> (root: PageRef, delta: Int) {
        if root.isNull {
            guard operation == .upsert || operation == .insert else { return (root, 0) }
            guard let bytes = cell.baseAddress else { throw StorageError(.invalidState, "insert without a cell") }
            let (ref, base) = try pages.allocatePage()
            let leaf = MutableTreeNode.initialize(ref, base, kind: F.leafKind)
            leaf.appendCellContiguous(bytes, size: cell.count)
            leaf.total = 1
            return (ref, 1)
        }
        var root = root
        var delta = 0
        while true {
            let result = try edit(root, key, operation, cell: cell, rightmost: true, packing: packing, depth: 0, pages, removeIf)
            guard result.changed else { return (root, delta) }
            root = try finishRoot(result, pages)
            delta += result.delta
            // At most once: after the split the edit lands at the edge of a packed part.
            if !result.retry { return (root, delta) }
        }
    }

    /// The new root after an edit of the old root changed it (`result.changed`): a new branch
    /// above a split root, `.null` when the root emptied (its page freed), and a branch root
    /// with a single child replaced by that child (repeatedly).
    static func finishRoot(_ result: TreeEditResult, _ pages: any PageWriting) throws -> PageRef {
        if let split = result.split {
            let (ref, base) = try pages.allocatePage()
            let branch = MutableTreeNode.initialize(ref, base, kind: F.branchKind)
            withUnsafeTemporaryAllocation(byteCount: TreeLayout.maxCellSize, alignment: 8) { buffer in
                guard let cell = buffer.baseAddress else { return }
                let placeholder = TreeLayout.branchKeyOffset + F.placeholderKeyPartSize
                cell.initializeMemory(as: UInt8.self, repeating: 0, count: placeholder)
                cell.setTreeU32(TreeLayout.branchChildOffset, result.ref.raw)
                cell.setTreeU64(TreeLayout.branchCountOffset, split.leftTotal)
                branch.appendCellContiguous(cell, size: placeholder)
            }
            try withSeparatorCell(split, left: result.ref, pages) { cell in
                guard let bytes = cell.baseAddress else { return }
                branch.appendCellContiguous(bytes, size: cell.count)
            }
            branch.total = split.leftTotal + split.rightTotal
            return ref
        }
        if result.cellCount == 0 {
            pages.freePage(result.ref)
            return .null
        }
        // A branch root with a single child is replaced by that child.
        var newRoot = result.ref
        var depth = 0
        while true {
            let node = try TreeNode.read(newRoot, pages, F.self)
            guard !node.isLeaf, node.count == 1, depth < TreeLayout.maxDepth else { break }
            let child = try node.child(0)
            pages.freePage(newRoot)
            newRoot = child
            depth += 1
        }
        return newRoot
    }

    /// Builds the branch cell pointing at a split's right node: its key is the key of the
    /// right node's first cell — for byte-string leaves shortened to the shortest prefix that
    /// still sorts above the left node's last key (any key k with last(left) < k ≤ first(right)
    /// separates them), so branches of long index keys hold more children.
    private static func withSeparatorCell(_ split: TreeSplit, left: PageRef, _ pages: any PageWriting,
                                          _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let right = try TreeNode.read(split.right, pages, F.self)
        if right.isPacked {
            // Keyed only: the separator is the right leaf's first key.
            let cellSize = TreeLayout.branchKeyOffset + 8
            try withUnsafeTemporaryAllocation(byteCount: cellSize, alignment: 8) { buffer in
                guard let cell = buffer.baseAddress else { return }
                cell.setTreeU32(TreeLayout.branchChildOffset, split.right.raw)
                cell.setTreeU64(TreeLayout.branchCountOffset, split.rightTotal)
                cell.setTreeU64(TreeLayout.branchKeyOffset, try right.packed.key(0))
                try body(UnsafeRawBufferPointer(start: cell, count: cellSize))
            }
            return
        }
        let keyOffset = try right.cellOffset(0, need: right.isLeaf ? 0 : TreeLayout.branchKeyOffset)
            + (right.isLeaf ? 0 : TreeLayout.branchKeyOffset)
        var keySize = try F.keyPartSize(right.base, at: keyOffset, ref: right.ref)
        var shortened: Int?
        if F.self == BytesFlavor.self && right.isLeaf {
            let leftNode = try TreeNode.read(left, pages, F.self)
            let last = try leftNode.cellOffset(leftNode.count - 1, need: 0)
            let lastLength = try F.keyPartSize(leftNode.base, at: last, ref: left) - 2
            let firstLength = keySize - 2
            var common = 0
            while common < lastLength && common < firstLength
                    && leftNode.base.load(fromByteOffset: last + 2 + common, as: UInt8.self)
                       == right.base.load(fromByteOffset: keyOffset + 2 + common, as: UInt8.self) {
                common += 1
            }
            if common < firstLength {
                shortened = common + 1
                keySize = 2 + common + 1
            }
        }
        let cellSize = TreeLayout.branchKeyOffset + keySize
        try withUnsafeTemporaryAllocation(byteCount: cellSize, alignment: 8) { buffer in
            guard let cell = buffer.baseAddress else { return }
            cell.setTreeU32(TreeLayout.branchChildOffset, split.right.raw)
            cell.setTreeU64(TreeLayout.branchCountOffset, split.rightTotal)
            (cell + TreeLayout.branchKeyOffset).copyMemory(from: right.base + keyOffset, byteCount: keySize)
            // A bytes key's length is written afresh: a leaf cell's may carry the empty-value flag,
            // which a branch cell never does.
            if F.self == BytesFlavor.self { cell.setTreeU16(TreeLayout.branchKeyOffset, shortened ?? keySize - 2) }
            try body(UnsafeRawBufferPointer(start: cell, count: cellSize))
        }
    }

    private static func edit(_ ref: PageRef, _ key: F.SearchKey, _ operation: TreeEditOperation,
                             cell: UnsafeRawBufferPointer, rightmost: Bool, packing: Bool, depth: Int,
                             _ pages: any PageWriting,
                             _ removeIf: (UnsafeRawBufferPointer) throws -> Bool) throws -> TreeEditResult {
        guard depth < TreeLayout.maxDepth else { throw TreeError.corrupt(ref, "tree deeper than \(TreeLayout.maxDepth) levels") }
        // Insertions and replacements always change the whole path: make each node writable on
        // the way down (one page call per level instead of a read and then a write). Removals
        // read first, so that removing an absent key copies nothing.
        let node: TreeNode
        var writable: UnsafeMutableRawPointer?
        if operation == .remove && !F.removalAlwaysChanges {
            node = try TreeNode.read(ref, pages, F.self)
        } else {
            guard !ref.isNull else { throw TreeError.corrupt(ref, "null child reference in a \(F.name) tree") }
            let (writableRef, base) = try pages.writableNodePage(ref)
            node = try TreeNode(ref: writableRef, base: UnsafeRawPointer(base), flavor: F.self)
            writable = base
        }
        if node.isLeaf {
            return try editLeaf(node, writable, key, operation, cell: cell, rightmost: rightmost, packing: packing, pages, removeIf)
        }

        let (index, childKey) = try F.searchBranch(node, key)
        let childRef = try node.child(index)
        let oldChildCount = try node.childCount(index)
        let result = try edit(childRef, childKey, operation, cell: cell,
                              rightmost: rightmost && index == node.count - 1, packing: packing, depth: depth + 1, pages, removeIf)
        guard result.changed else { return .unchanged(ref) }
        guard result.delta >= 0 || oldChildCount > 0 else { throw TreeError.corrupt(ref, "child count below zero") }

        let (writableRef, writableBase) = try writable.map { (node.ref, $0) } ?? pages.writableNodePage(ref)
        let branch = MutableTreeNode(ref: writableRef, base: writableBase)
        let split = try absorbChild(result, at: index, oldChildCount: oldChildCount, of: branch, rightmost: rightmost, pages)
        return .edited(branch, delta: result.delta, split: split, retry: result.retry)
    }

    /// Updates the writable `branch` after its child `index` (which counted `oldChildCount`
    /// entries) was edited with `result`: stores the child's new reference and count, absorbs
    /// its split (returning this node's own split, if it overflows), removes it when it
    /// emptied (freeing its page), or merges it with a sibling when it became underfull.
    static func absorbChild(_ result: TreeEditResult, at index: Int, oldChildCount: UInt64,
                            of branch: MutableTreeNode, rightmost: Bool, _ pages: any PageWriting) throws -> TreeSplit? {
        let writableBase = branch.base
        let writableRef = branch.ref
        let cellOffset = branch.slot(index)
        writableBase.setTreeU32(cellOffset + TreeLayout.branchChildOffset, result.ref.raw)
        // Wrapping arithmetic: counts come from the page, and a corrupt one must not trap
        // (the underflow case is rejected by the callers; the checker in the tests verifies counts).
        let delta = UInt64(bitPattern: Int64(result.delta))
        writableBase.setTreeU64(cellOffset + TreeLayout.branchCountOffset, oldChildCount &+ delta)
        branch.total = branch.total &+ delta

        var split: TreeSplit?
        if let childSplit = result.split {
            writableBase.setTreeU64(cellOffset + TreeLayout.branchCountOffset, childSplit.leftTotal)
            try withSeparatorCell(childSplit, left: result.ref, pages) { separator in
                if branch.fits(separator.count) {
                    try branch.insertCell(separator, at: index + 1, isLeaf: false, F.self)
                } else {
                    split = try branch.splitInsert(separator, at: index + 1, isLeaf: false,
                                                   appendMode: rightmost && index + 1 == branch.count, pages: pages, F.self)
                }
            }
        } else if result.cellCount == 0 {
            pages.freePage(result.ref)
            let size = try TreeNode.cellSize(UnsafeRawPointer(writableBase), at: cellOffset, isLeaf: false, ref: writableRef, F.self)
            branch.removeCell(at: index, size: size)
        } else if result.delta <= 0 && result.filledBytes < TreeLayout.underfullBytes && branch.count > 1 {
            // Only an edit that removed or replaced can have made the child underfull. An
            // insertion grew it: trying to merge it would mostly fail (after an append-mode
            // split the new right page starts almost empty next to a full left page, and every
            // append into it would read both pages to find that out), and is never needed.
            try mergeChild(at: index, of: branch, pages)
        }
        return split
    }

    /// `writable`: the node's page when it was already made writable on the way down.
    private static func editLeaf(_ node: TreeNode, _ writable: UnsafeMutableRawPointer?, _ key: F.SearchKey,
                                 _ operation: TreeEditOperation,
                                 cell: UnsafeRawBufferPointer, rightmost: Bool, packing: Bool,
                                 _ pages: any PageWriting,
                                 _ removeIf: (UnsafeRawBufferPointer) throws -> Bool) throws -> TreeEditResult {
        if node.isPacked {
            return try F.packedLeafEdit(node, writable, key, operation, cell: cell, rightmost: rightmost, packing: packing,
                                        pages, removeIf)
        }
        let (index, found) = try F.searchLeaf(node, key)
        switch operation {
        case .remove:
            if !found {
                // An eager (already copied) path cannot report "unchanged": the copy replaced the page.
                if writable != nil { throw TreeError.corrupt(node.ref, "position to remove not in its leaf") }
                return .unchanged(node.ref)
            }
            if try !node.leafCell(index, F.self).value.withBytes(pages, removeIf) {
                guard let writable else { return .unchanged(node.ref) }
                // Eager path: the page was already made writable (and possibly copied); report it.
                let leaf = MutableTreeNode(ref: node.ref, base: writable)
                return TreeEditResult(ref: node.ref, delta: 0, changed: true, split: nil,
                                      cellCount: leaf.count, filledBytes: leaf.filledBytes)
            }
        case .replace: if !found { throw TreeError.corrupt(node.ref, "position to replace not in its leaf") }
        case .upsert, .insert: break
        }
        let (writableRef, writableBase) = try writable.map { (node.ref, $0) } ?? pages.writableNodePage(node.ref)
        let leaf = MutableTreeNode(ref: writableRef, base: writableBase)
        var delta = 1
        if found && operation != .insert {
            let old = try node.leafCell(index, F.self)
            try old.value.free(pages)
            if operation != .remove, leaf.overwriteCell(at: index, oldSize: old.size, with: cell) {
                // A replacement not larger than the old cell: written over it, no slot moved.
                return TreeEditResult(ref: writableRef, delta: 0, changed: true, split: nil,
                                      cellCount: leaf.count, filledBytes: leaf.filledBytes)
            }
            leaf.removeCell(at: index, size: old.size)
            delta = 0
            if operation == .remove {
                leaf.total = UInt64(leaf.count)
                return TreeEditResult(ref: writableRef, delta: -1, changed: true, split: nil,
                                      cellCount: leaf.count, filledBytes: leaf.filledBytes)
            }
        }
        var split: TreeSplit?
        if leaf.fits(cell.count) {
            try leaf.insertCell(cell, at: index, isLeaf: true, F.self)
            leaf.total = UInt64(leaf.count)
        } else if packing && rightmost && delta == 1 && index == leaf.count,
                  let right = try F.packedRightLeaf(cell: cell, full: node, pages) {
            // A tree that packs: appends past the full leaf go into a packed leaf from here on.
            split = TreeSplit(right: right, leftTotal: leaf.total, rightTotal: 1)
        } else {
            split = try leaf.splitInsert(cell, at: index, isLeaf: true,
                                         appendMode: rightmost && delta == 1 && index == leaf.count, pages: pages, F.self)
        }
        return .edited(leaf, delta: delta, split: split)
    }

    /// Merges child `index` of `branch` (underfull) with a neighbour when both fit in one page.
    /// The left one absorbs the right one's cells; the right page is freed. There is no
    /// redistribution: a page below two fifths stays so only while both neighbours are too full
    /// to absorb it (after removing 90% of random keys, pages are about 55% used).
    /// Tries the left neighbour first, then the right one.
    private static func mergeChild(at index: Int, of branch: MutableTreeNode, _ pages: any PageWriting) throws {
        if index > 0, try merge(leftIndex: index - 1, of: branch, pages) { return }
        if index + 1 < branch.count { _ = try merge(leftIndex: index, of: branch, pages) }
    }

    /// Merges children `leftIndex` and `leftIndex + 1` when their cells fit in one page;
    /// false (nothing changed) when they do not.
    private static func merge(leftIndex: Int, of branch: MutableTreeNode, _ pages: any PageWriting) throws -> Bool {
        let rightIndex = leftIndex + 1
        guard rightIndex < branch.count else { return false }
        let parent = UnsafeRawPointer(branch.base)
        let leftSlot = branch.slot(leftIndex), rightSlot = branch.slot(rightIndex)
        let leftRef = PageRef(parent.treeU32(leftSlot)), rightRef = PageRef(parent.treeU32(rightSlot))
        let left = try TreeNode.read(leftRef, pages, F.self)
        let right = try TreeNode.read(rightRef, pages, F.self)
        guard left.isLeaf == right.isLeaf else { throw TreeError.corrupt(branch.ref, "siblings at different depths") }
        if left.isPacked || right.isPacked {
            // Rebuilt as one leaf (packed or slotted) when their entries fit one page.
            guard let merged = try F.mergePackedLeaves(left, right, pages) else { return false }
            branch.base.setTreeU32(leftSlot + TreeLayout.branchChildOffset, merged.raw)
            let leftCount = parent.treeU64(leftSlot + TreeLayout.branchCountOffset)
            let rightCount = parent.treeU64(rightSlot + TreeLayout.branchCountOffset)
            branch.base.setTreeU64(leftSlot + TreeLayout.branchCountOffset, leftCount &+ rightCount)
            let parentKeySize = try F.keyPartSize(parent, at: rightSlot + TreeLayout.branchKeyOffset, ref: branch.ref)
            branch.removeCell(at: rightIndex, size: TreeLayout.branchKeyOffset + parentKeySize)
            pages.freePage(rightRef)
            return true
        }
        // A branch's first cell key is a placeholder: in the merged node it takes the parent's
        // separator for the right node.
        let parentKeySize = try F.keyPartSize(parent, at: rightSlot + TreeLayout.branchKeyOffset, ref: branch.ref)
        var extra = 0
        if !right.isLeaf {
            let first = try right.branchCell(0, F.self)
            extra = TreeLayout.branchKeyOffset + parentKeySize - first.size
        }
        let needed = left.usedBytes + right.usedBytes + (left.count + right.count) * TreeLayout.slotSize + extra
        guard needed <= TreeLayout.usableSize else { return false }

        let (newLeftRef, newLeftBase) = try pages.writableNodePage(leftRef)
        let merged = MutableTreeNode(ref: newLeftRef, base: newLeftBase)
        branch.base.setTreeU32(leftSlot + TreeLayout.branchChildOffset, newLeftRef.raw)
        for j in 0..<right.count {
            if right.isLeaf {
                let c = try right.leafCell(j, F.self)
                try merged.insertCell(UnsafeRawBufferPointer(start: right.base + c.offset, count: c.size),
                                      at: merged.count, isLeaf: true, F.self)
            } else if j == 0 {
                let c = try right.branchCell(0, F.self)
                try withUnsafeTemporaryAllocation(byteCount: TreeLayout.maxCellSize, alignment: 8) { buffer in
                    guard let cell = buffer.baseAddress else { return }
                    cell.copyMemory(from: right.base + c.offset, byteCount: TreeLayout.branchKeyOffset)
                    (cell + TreeLayout.branchKeyOffset).copyMemory(from: parent + rightSlot + TreeLayout.branchKeyOffset,
                                                                   byteCount: parentKeySize)
                    try merged.insertCell(UnsafeRawBufferPointer(start: cell, count: TreeLayout.branchKeyOffset + parentKeySize),
                                          at: merged.count, isLeaf: false, F.self)
                }
            } else {
                let c = try right.branchCell(j, F.self)
                try merged.insertCell(UnsafeRawBufferPointer(start: right.base + c.offset, count: c.size),
                                      at: merged.count, isLeaf: false, F.self)
            }
        }
        merged.total = merged.total &+ right.total
        let leftCount = parent.treeU64(leftSlot + TreeLayout.branchCountOffset)
        let rightCount = parent.treeU64(rightSlot + TreeLayout.branchCountOffset)
        branch.base.setTreeU64(leftSlot + TreeLayout.branchCountOffset, leftCount &+ rightCount)
        let rightCellSize = TreeLayout.branchKeyOffset + parentKeySize
        branch.removeCell(at: rightIndex, size: rightCellSize)
        pages.freePage(rightRef)
        return true
    }
}
