// Batch edits of PositionalTree: appending many elements and removing the first n, one
// descent per leaf touched (TreeBatchEdit.swift drives them).
//
// Invariants:
// - An append batch only ever reaches the last leaf at its end (routing key = the tree's
//   count); it fills that leaf, then fresh right leaves, each full before the next starts.
// - A remove-front batch only ever reaches the first leaf at position 0. A leaf whose cells
//   all go is not copied: its page is freed by the parent (or by `finishRoot`) as it is; a
//   partly trimmed leaf loses its first cells with one move of its slot array.
// - Every removed element is handed to the batch's `body` before its overflow pages are freed.

/// Appends `elements` in order at the end of the tree.
struct PositionalAppendBatch: TreeLeafBatch {
    typealias F = PositionalFlavor
    let elements: UnsafeBufferPointer<UnsafeRawBufferPointer>
    /// The tree's count before the batch.
    let start: UInt64
    private(set) var position = 0

    init(elements: UnsafeBufferPointer<UnsafeRawBufferPointer>, start: UInt64) {
        self.elements = elements
        self.start = start
    }

    var isDone: Bool { position >= elements.count }
    func nextKey() -> UInt64 { start + UInt64(position) }
    static var inserts: Bool { true }
    static var eagerPath: Bool { true }
    static func separator(_ node: TreeNode, _ i: Int) throws -> UInt64? { nil }

    @inline(__always)
    private static func cellSize(_ element: UnsafeRawBufferPointer) -> Int {
        TreeCells.leafCellSize(keySize: 0, valueCount: element.count, bytesKey: false)
    }

    mutating func edit(leaf node: TreeNode, key: UInt64, upper _: UInt64?, rightmost: Bool,
                       _ pages: any PageWriting) throws -> TreeEditResult {
        guard rightmost, key == UInt64(node.count) else {
            throw TreeError.corrupt(node.ref, "an append reached position \(key) of a leaf of \(node.count); subtree counts are wrong")
        }
        let (ref, base) = try pages.writableNodePage(node.ref)
        let leaf = MutableTreeNode(ref: ref, base: base)
        var delta = 0
        var split: TreeSplit?
        while position < elements.count {
            let element = elements[position]
            if leaf.fits(Self.cellSize(element)) {
                try TreeCells.withLeafCell(.none, element, pages) { try leaf.insertCell($0, at: leaf.count, isLeaf: true, F.self) }
                position += 1
                delta += 1
                continue
            }
            guard leaf.count > 0 else { throw StorageError(.invalidState, "an element does not fit an empty leaf") }
            let right = try MutableTreeNode.allocateRightLeaf(kind: F.leafKind, pages)
            while position < elements.count {
                let next = elements[position]
                guard right.fits(Self.cellSize(next)) else { break }
                try TreeCells.withLeafCell(.none, next, pages) { try right.insertCell($0, at: right.count, isLeaf: true, F.self) }
                position += 1
                delta += 1
            }
            right.total = UInt64(right.count)
            leaf.total = UInt64(leaf.count)
            split = TreeSplit(right: right.ref, leftTotal: leaf.total, rightTotal: right.total)
            break
        }
        leaf.total = UInt64(leaf.count)
        return TreeEditResult(ref: ref, delta: delta, changed: true, split: split,
                              cellCount: leaf.count, filledBytes: leaf.filledBytes)
    }
}

/// Removes the first `count` elements, handing each to `body` first.
struct PositionalRemoveFrontBatch: TreeLeafBatch {
    typealias F = PositionalFlavor
    let count: Int
    let body: (UnsafeRawBufferPointer) throws -> Void
    private(set) var position = 0

    init(count: Int, body: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.count = count
        self.body = body
    }

    var isDone: Bool { position >= count }
    func nextKey() -> UInt64 { 0 }
    static var inserts: Bool { false }
    static var eagerPath: Bool { true }
    static func separator(_ node: TreeNode, _ i: Int) throws -> UInt64? { nil }

    mutating func edit(leaf node: TreeNode, key: UInt64, upper _: UInt64?, rightmost _: Bool,
                       _ pages: any PageWriting) throws -> TreeEditResult {
        guard key == 0, node.count > 0 else {
            throw TreeError.corrupt(node.ref, "a removal at the front reached position \(key) of a leaf of \(node.count)")
        }
        let k = min(count - position, node.count)
        var bytes = 0
        for i in 0..<k {
            let cell = try node.leafCell(i, F.self)
            try cell.value.withBytes(pages, body)
            try cell.value.free(pages)
            bytes += cell.size
        }
        position += k
        if k == node.count {
            // The whole leaf goes: its page is freed as it is (no copy).
            return TreeEditResult(ref: node.ref, delta: -k, changed: true, split: nil, cellCount: 0, filledBytes: 0)
        }
        let (ref, base) = try pages.writableNodePage(node.ref)
        let leaf = MutableTreeNode(ref: ref, base: base)
        leaf.removeFirstCells(k, bytes: bytes)
        leaf.total = UInt64(leaf.count)
        return TreeEditResult(ref: ref, delta: -k, changed: true, split: nil,
                              cellCount: leaf.count, filledBytes: leaf.filledBytes)
    }
}
