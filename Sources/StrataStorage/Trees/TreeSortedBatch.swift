// Sorted batch edits of the keyed trees (KeyedTree, BytesTree): put and remove many keys in
// ascending order with one descent per leaf touched (TreeBatchEdit.swift drives them).
//
// Invariants:
// - Batch keys are strictly ascending (checked by the public entry points before any page
//   is touched, with key and value sizes); so within a leaf each key goes after the previous.
// - A put that does not fit its leaf splits it like a single put (`splitInsert`) and ends the
//   descent, except past the last key of the tree, where the full leaf stays as it is and the
//   following keys fill a fresh right leaf (dense pages for ascending appends).
// - A remove batch descends read-only and copies a leaf only when it removes from it.

/// A keyed flavor whose keys can be compared with each other and with branch separators.
protocol SortedBatchFlavor: TreeFlavor {
    static func keyPart(_ key: SearchKey) -> TreeKeyPart
    static func keyPartSize(of key: SearchKey) -> Int
    /// `a` sorts strictly before `b`.
    static func precedes(_ a: SearchKey, _ b: SearchKey) -> Bool
    /// The routing key of branch cell `i` > 0 (a pointer into the page for byte keys).
    static func branchSeparator(_ node: TreeNode, _ i: Int) throws -> SearchKey
    /// The key of leaf cell `i` (a pointer into the page for byte keys).
    static func leafSearchKey(_ node: TreeNode, _ i: Int) throws -> SearchKey
    /// `a` and `b` are the same key.
    static func same(_ a: SearchKey, _ b: SearchKey) -> Bool
    /// Packed leaves (KeyedTree only, PackedLeafEdit.swift): a fresh right leaf, the put and
    /// the remove of a batch's entries in a packed leaf.
    static func freshPackedLeaf(keys: UnsafeBufferPointer<SearchKey>, values: UnsafeBufferPointer<UnsafeRawBufferPointer>,
                                from start: Int, _ pages: any PageWriting) throws -> (ref: PageRef, count: Int)?
    static func packedBatchPut(_ node: TreeNode, keys: UnsafeBufferPointer<SearchKey>,
                               values: UnsafeBufferPointer<UnsafeRawBufferPointer>, position: inout Int,
                               upper: SearchKey?, rightmost: Bool, packing: Bool,
                               _ pages: any PageWriting) throws -> TreeEditResult
    static func packedBatchRemove(_ node: TreeNode, keys: UnsafeBufferPointer<SearchKey>, position: inout Int,
                                  upper: SearchKey?, stopAtAbsent: Bool, stopped: inout Bool,
                                  shouldRemove: (Int, UnsafeRawBufferPointer) throws -> Bool,
                                  _ pages: any PageWriting) throws -> (result: TreeEditResult, removed: Int)
}

extension SortedBatchFlavor {
    static func freshPackedLeaf(keys: UnsafeBufferPointer<SearchKey>, values: UnsafeBufferPointer<UnsafeRawBufferPointer>,
                                from start: Int, _ pages: any PageWriting) throws -> (ref: PageRef, count: Int)? { nil }
    static func packedBatchPut(_ node: TreeNode, keys: UnsafeBufferPointer<SearchKey>,
                               values: UnsafeBufferPointer<UnsafeRawBufferPointer>, position: inout Int,
                               upper: SearchKey?, rightmost: Bool, packing: Bool,
                               _ pages: any PageWriting) throws -> TreeEditResult {
        throw TreeError.corrupt(node.ref, "a packed leaf in a \(name) tree")
    }
    static func packedBatchRemove(_ node: TreeNode, keys: UnsafeBufferPointer<SearchKey>, position: inout Int,
                                  upper: SearchKey?, stopAtAbsent: Bool, stopped: inout Bool,
                                  shouldRemove: (Int, UnsafeRawBufferPointer) throws -> Bool,
                                  _ pages: any PageWriting) throws -> (result: TreeEditResult, removed: Int) {
        throw TreeError.corrupt(node.ref, "a packed leaf in a \(name) tree")
    }
}

extension KeyedFlavor: SortedBatchFlavor {
    @inline(__always) static func keyPart(_ key: UInt64) -> TreeKeyPart { .uint64(key) }
    @inline(__always) static func keyPartSize(of key: UInt64) -> Int { 8 }
    @inline(__always) static func precedes(_ a: UInt64, _ b: UInt64) -> Bool { a < b }
    @inline(__always) static func branchSeparator(_ node: TreeNode, _ i: Int) throws -> UInt64 { try branchKey(node, i) }
    @inline(__always) static func leafSearchKey(_ node: TreeNode, _ i: Int) throws -> UInt64 { try leafKey(node, i) }
    @inline(__always) static func same(_ a: UInt64, _ b: UInt64) -> Bool { a == b }
}

extension BytesFlavor: SortedBatchFlavor {
    @inline(__always) static func keyPart(_ key: UnsafeRawBufferPointer) -> TreeKeyPart { .bytes(key) }
    @inline(__always) static func keyPartSize(of key: UnsafeRawBufferPointer) -> Int { 2 + key.count }
    @inline(__always) static func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard let aBase = a.baseAddress, a.count > 0 else { return b.count > 0 }
        return compare(aBase, a.count, b) < 0
    }
    @inline(__always) static func branchSeparator(_ node: TreeNode, _ i: Int) throws -> UnsafeRawBufferPointer {
        let offset = try node.cellOffset(i, need: TreeLayout.branchKeyOffset) + TreeLayout.branchKeyOffset
        let size = try keyPartSize(node.base, at: offset, ref: node.ref)
        return UnsafeRawBufferPointer(start: node.base + offset + 2, count: size - 2)
    }
    @inline(__always) static func leafSearchKey(_ node: TreeNode, _ i: Int) throws -> UnsafeRawBufferPointer {
        let offset = try node.cellOffset(i, need: 0)
        let size = try keyPartSize(node.base, at: offset, ref: node.ref)
        return UnsafeRawBufferPointer(start: node.base + offset + 2, count: size - 2)
    }
    @inline(__always) static func same(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard let aBase = a.baseAddress, a.count > 0 else { return true }
        return compare(aBase, a.count, b) == 0
    }
}

extension SortedBatchFlavor {
    /// `searchLeaf`, answering at once for a key after the leaf's last one (ascending batches).
    @inline(__always)
    static func searchLeafFromEnd(_ node: TreeNode, _ key: SearchKey) throws -> (index: Int, found: Bool) {
        if try node.count == 0 || precedes(leafSearchKey(node, node.count - 1), key) { return (node.count, false) }
        return try searchLeaf(node, key)
    }
}

/// Puts (insert or replace) of ascending keys.
struct SortedPutBatch<F: SortedBatchFlavor>: TreeLeafBatch {
    let keys: UnsafeBufferPointer<F.SearchKey>
    let values: UnsafeBufferPointer<UnsafeRawBufferPointer>
    /// Whether appends past the tree's last key may be written as packed leaves.
    let packing: Bool
    private(set) var position = 0

    init(keys: UnsafeBufferPointer<F.SearchKey>, values: UnsafeBufferPointer<UnsafeRawBufferPointer>, packing: Bool = false) {
        self.keys = keys
        self.values = values
        self.packing = packing
    }

    var isDone: Bool { position >= keys.count }
    func nextKey() -> F.SearchKey { keys[position] }
    static var inserts: Bool { true }
    static var eagerPath: Bool { true }
    static func separator(_ node: TreeNode, _ i: Int) throws -> F.SearchKey? { try F.branchSeparator(node, i) }

    mutating func edit(leaf node: TreeNode, key _: F.SearchKey, upper: F.SearchKey?, rightmost: Bool,
                       _ pages: any PageWriting) throws -> TreeEditResult {
        if node.isPacked {
            return try F.packedBatchPut(node, keys: keys, values: values, position: &position, upper: upper,
                                        rightmost: rightmost, packing: packing, pages)
        }
        let (ref, base) = try pages.writableNodePage(node.ref)
        let leaf = MutableTreeNode(ref: ref, base: base)
        var delta = 0
        var split: TreeSplit?
        while position < keys.count {
            let key = keys[position], value = values[position]
            if let upper, !F.precedes(key, upper) { break }
            let view = try TreeNode(ref: ref, base: UnsafeRawPointer(base), flavor: F.self)
            let (index, found) = try F.searchLeafFromEnd(view, key)
            let size = TreeCells.leafCellSize(keySize: F.keyPartSize(of: key), valueCount: value.count, bytesKey: F.self == BytesFlavor.self)
            if found {
                let old = try view.leafCell(index, F.self)
                try old.value.free(pages)
                if size <= old.size {
                    // Not larger: written over the old cell (MutableTreeNode.overwriteCell).
                    try TreeCells.withLeafCell(F.keyPart(key), value, pages) { cell in
                        guard leaf.overwriteCell(at: index, oldSize: old.size, with: cell) else {
                            throw TreeError.corrupt(ref, "a leaf cell larger than its computed size")
                        }
                    }
                    position += 1
                    continue
                }
                leaf.removeCell(at: index, size: old.size)
                leaf.total = UInt64(leaf.count)
            } else {
                delta += 1
            }
            position += 1
            if leaf.fits(size) {
                try TreeCells.withLeafCell(F.keyPart(key), value, pages) { try leaf.insertCell($0, at: index, isLeaf: true, F.self) }
                leaf.total = UInt64(leaf.count)
                continue
            }
            if rightmost && index == leaf.count && leaf.count > 0 {
                // Past the last key of the tree: this leaf stays full and the following keys
                // fill fresh right leaves (one per descent), packed when the batch allows it.
                if packing, let packed = try F.freshPackedLeaf(keys: keys, values: values, from: position - 1, pages) {
                    position += packed.count - 1
                    delta += packed.count - 1
                    split = TreeSplit(right: packed.ref, leftTotal: leaf.total, rightTotal: UInt64(packed.count))
                    break
                }
                // The current entry (already counted) is the new leaf's first.
                let (right, end) = try Self.freshSlottedLeaf(keys: keys, values: values, from: position - 1, pages)
                delta += end - position
                position = end
                split = TreeSplit(right: right.ref, leftTotal: leaf.total, rightTotal: right.total)
            } else {
                split = try TreeCells.withLeafCell(F.keyPart(key), value, pages) {
                    try leaf.splitInsert($0, at: index, isLeaf: true, appendMode: false, pages: pages, F.self)
                }
            }
            break
        }
        return TreeEditResult(ref: ref, delta: delta, changed: true, split: split,
                              cellCount: leaf.count, filledBytes: leaf.filledBytes)
    }
}

extension SortedPutBatch {
    /// A new slotted leaf right of the tree's last one, holding `keys[start...]` with their
    /// values as far as they fit (at least the first); returns it and the index after its last.
    static func freshSlottedLeaf(keys: UnsafeBufferPointer<F.SearchKey>, values: UnsafeBufferPointer<UnsafeRawBufferPointer>,
                                 from start: Int, _ pages: any PageWriting) throws -> (leaf: MutableTreeNode, end: Int) {
        let leaf = try MutableTreeNode.allocateRightLeaf(kind: F.leafKind, pages)
        var end = start
        while end < keys.count {
            let size = TreeCells.leafCellSize(keySize: F.keyPartSize(of: keys[end]), valueCount: values[end].count, bytesKey: F.self == BytesFlavor.self)
            guard leaf.count == 0 || leaf.fits(size) else { break }
            try TreeCells.withLeafCell(F.keyPart(keys[end]), values[end], pages) {
                try leaf.insertCell($0, at: leaf.count, isLeaf: true, F.self)
            }
            end += 1
        }
        leaf.total = UInt64(leaf.count)
        return (leaf, end)
    }
}

/// Removals of ascending keys; absent keys are skipped, or end the batch (`stopAtAbsent`).
/// `shouldRemove(i, value)` decides for the present key `keys[i]` (value valid during the call).
struct SortedRemoveBatch<F: SortedBatchFlavor>: TreeLeafBatch {
    let keys: UnsafeBufferPointer<F.SearchKey>
    let stopAtAbsent: Bool
    let shouldRemove: (Int, UnsafeRawBufferPointer) throws -> Bool
    private(set) var position = 0
    private(set) var stopped = false
    private(set) var removed = 0

    init(keys: UnsafeBufferPointer<F.SearchKey>, stopAtAbsent: Bool,
         shouldRemove: @escaping (Int, UnsafeRawBufferPointer) throws -> Bool) {
        self.keys = keys
        self.stopAtAbsent = stopAtAbsent
        self.shouldRemove = shouldRemove
    }

    var isDone: Bool { stopped || position >= keys.count }
    func nextKey() -> F.SearchKey { keys[position] }
    static var inserts: Bool { false }
    static var eagerPath: Bool { false }
    static func separator(_ node: TreeNode, _ i: Int) throws -> F.SearchKey? { try F.branchSeparator(node, i) }

    mutating func edit(leaf node: TreeNode, key _: F.SearchKey, upper: F.SearchKey?, rightmost _: Bool,
                       _ pages: any PageWriting) throws -> TreeEditResult {
        if node.isPacked {
            let (result, removedHere) = try F.packedBatchRemove(node, keys: keys, position: &position, upper: upper,
                                                                stopAtAbsent: stopAtAbsent, stopped: &stopped,
                                                                shouldRemove: shouldRemove, pages)
            removed += removedHere
            return result
        }
        var writable: MutableTreeNode?
        var view = node
        var removedHere = 0
        // Where the next key is expected: keys ascend, so each is at or after the previous
        // one's position (runs of consecutive entries are found without a search).
        var hint = 0
        while position < keys.count {
            let key = keys[position]
            if let upper, !F.precedes(key, upper) { break }
            let index: Int, found: Bool
            if hint < view.count, try F.same(F.leafSearchKey(view, hint), key) {
                (index, found) = (hint, true)
            } else {
                (index, found) = try F.searchLeafFromEnd(view, key)
            }
            hint = index
            guard found else {
                if stopAtAbsent {
                    stopped = true
                    break
                }
                position += 1
                continue
            }
            let cell = try view.leafCell(index, F.self)
            let remove = try cell.value.withBytes(pages) { try shouldRemove(position, $0) }
            position += 1
            guard remove else {
                hint = index + 1
                continue
            }
            let leaf: MutableTreeNode
            if let writable {
                leaf = writable
            } else {
                let (ref, base) = try pages.writableNodePage(node.ref)
                leaf = MutableTreeNode(ref: ref, base: base)
                writable = leaf
            }
            try cell.value.free(pages)
            leaf.removeCell(at: index, size: cell.size)
            leaf.total = UInt64(leaf.count)
            removedHere += 1
            view = try TreeNode(ref: leaf.ref, base: UnsafeRawPointer(leaf.base), flavor: F.self)
        }
        removed += removedHere
        guard let writable else { return .unchanged(node.ref) }
        return TreeEditResult(ref: writable.ref, delta: -removedHere, changed: true, split: nil,
                              cellCount: writable.count, filledBytes: writable.filledBytes)
    }
}

enum SortedBatchCheck {
    /// Throws `.invalidArgument` unless `keys` are strictly ascending.
    static func ascending<F: SortedBatchFlavor>(_ keys: UnsafeBufferPointer<F.SearchKey>, _ flavor: F.Type) throws {
        var i = 1
        while i < keys.count {
            guard F.precedes(keys[i - 1], keys[i]) else {
                throw StorageError(.invalidArgument, "batch keys are not strictly ascending at index \(i)")
            }
            i += 1
        }
    }

    /// Throws `.tooLarge` for a value over `KeyedTree.maxValueSize`.
    static func valueSizes(_ values: UnsafeBufferPointer<UnsafeRawBufferPointer>, limit: Int) throws {
        for (i, value) in values.enumerated() where value.count > limit {
            throw StorageError(.tooLarge, "value \(i) of \(value.count) bytes exceeds the limit of \(limit)")
        }
    }
}
