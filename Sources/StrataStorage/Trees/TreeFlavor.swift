// What differs between the three trees: the key part of a cell and how a search routes.
// Everything else (layout, split, merge, overflow, iteration) is shared and generic over
// `TreeFlavor`; the generic code is specialised per flavor inside the module.
//
// Invariants:
// - `keyPartSize` never reads outside the page: it checks the bytes it reads and the size it
//   returns against the payload size.
// - Searches load keys with `loadUnaligned` straight from the page: no allocation, no closure
//   per comparison.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

protocol TreeFlavor {
    associatedtype SearchKey
    static var leafKind: UInt8 { get }
    static var branchKind: UInt8 { get }
    static var name: String { get }
    /// Size of the key part at `offset` of a cell (bounds-checked).
    static func keyPartSize(_ base: UnsafeRawPointer, at offset: Int, ref: PageRef) throws -> Int
    /// Whether the leaf cell at `offset` (whose key part `keyPartSize` checked) has no value
    /// header and an empty value (bytes trees only, NodeLayout.swift).
    static func leafValueIsEmpty(_ base: UnsafeRawPointer, at offset: Int) -> Bool
    /// Bytes of the key part of branch cell 0 of a new root (its key is never used).
    static var placeholderKeyPartSize: Int { get }
    /// Whether a removal always finds its entry (positions are checked against the count
    /// first), so the path can be made writable on the way down.
    static var removalAlwaysChanges: Bool { get }
    /// Leaf: the position of `key` (or where it would be inserted) and whether it is there.
    static func searchLeaf(_ node: TreeNode, _ key: SearchKey) throws -> (index: Int, found: Bool)
    /// Branch: the child to descend into and the key to search for in it.
    static func searchBranch(_ node: TreeNode, _ key: SearchKey) throws -> (index: Int, key: SearchKey)
    /// The single edit of a packed leaf (KeyedTree only, PackedLeafEdit.swift).
    static func packedLeafEdit(_ node: TreeNode, _ writable: UnsafeMutableRawPointer?, _ key: SearchKey,
                               _ operation: TreeEditOperation, cell: UnsafeRawBufferPointer, rightmost: Bool,
                               packing: Bool, _ pages: any PageWriting,
                               _ removeIf: (UnsafeRawBufferPointer) throws -> Bool) throws -> TreeEditResult
    /// A new packed leaf holding `cell` alone, for the append split of a slotted leaf in a tree
    /// that packs; nil when the cell's value cannot be packed (KeyedTree only).
    static func packedRightLeaf(cell: UnsafeRawBufferPointer, full: TreeNode, _ pages: any PageWriting) throws -> PageRef?
    /// Merges two sibling leaves of which one or both are packed into the left one's writable
    /// copy when their entries fit one page; its reference, or nil (nothing changed).
    static func mergePackedLeaves(_ left: TreeNode, _ right: TreeNode, _ pages: any PageWriting) throws -> PageRef?
}

extension TreeFlavor {
    @inline(__always)
    static func leafValueIsEmpty(_ base: UnsafeRawPointer, at offset: Int) -> Bool { false }
    static func packedLeafEdit(_ node: TreeNode, _ writable: UnsafeMutableRawPointer?, _ key: SearchKey,
                               _ operation: TreeEditOperation, cell: UnsafeRawBufferPointer, rightmost: Bool,
                               packing: Bool, _ pages: any PageWriting,
                               _ removeIf: (UnsafeRawBufferPointer) throws -> Bool) throws -> TreeEditResult {
        throw TreeError.corrupt(node.ref, "a packed leaf in a \(name) tree")
    }
    static func packedRightLeaf(cell: UnsafeRawBufferPointer, full: TreeNode, _ pages: any PageWriting) throws -> PageRef? { nil }
    static func mergePackedLeaves(_ left: TreeNode, _ right: TreeNode, _ pages: any PageWriting) throws -> PageRef? {
        throw TreeError.corrupt(left.ref, "a packed leaf in a \(name) tree")
    }
}

// MARK: - KeyedTree: UInt64 keys

enum KeyedFlavor: TreeFlavor {
    typealias SearchKey = UInt64
    static var leafKind: UInt8 { TreePageKind.keyedLeaf }
    static var branchKind: UInt8 { TreePageKind.keyedBranch }
    static var name: String { "keyed" }
    static var placeholderKeyPartSize: Int { 8 }
    static var removalAlwaysChanges: Bool { false }

    @inline(__always)
    static func keyPartSize(_ base: UnsafeRawPointer, at offset: Int, ref: PageRef) throws -> Int {
        guard offset + 8 <= TreeLayout.payloadSize else { throw TreeError.corrupt(ref, "key outside the page") }
        return 8
    }

    @inline(__always)
    static func leafKey(_ node: TreeNode, _ i: Int) throws -> UInt64 {
        if node.isPacked {
            guard i >= 0 && i < node.count else { throw TreeError.corrupt(node.ref, "entry \(i) outside its packed leaf") }
            return try node.packed.key(i)
        }
        return node.base.treeU64(try node.cellOffset(i, need: 8))
    }

    /// `withLeafEntry` for a packed leaf, out of line: inlined into a caller that is generic over
    /// `R` and not specialised, its temporary buffer instantiates generic metadata on every call.
    @inline(never)
    static func withPackedEntry<R>(_ node: TreeNode, _ i: Int,
                                   _ body: (UInt64, UnsafeRawBufferPointer) throws -> R) throws -> R {
        let leaf = try node.packed
        guard i >= 0 && i < leaf.count else { throw TreeError.corrupt(node.ref, "entry \(i) outside its packed leaf") }
        let key = leaf.key(i)
        return try leaf.withValue(i) { try body(key, $0) }
    }

    /// Calls `body` with key and value of leaf entry `i` (the value valid during the call):
    /// the one read path for slotted and packed leaves.
    @inline(__always)
    static func withLeafEntry<R>(_ node: TreeNode, _ i: Int, _ pages: any PageReading,
                                 _ body: (UInt64, UnsafeRawBufferPointer) throws -> R) throws -> R {
        if node.isPacked { return try withPackedEntry(node, i, body) }
        let cell = try node.leafCell(i, Self.self)
        let key = node.base.treeU64(cell.offset)
        return try cell.value.withBytes(pages) { try body(key, $0) }
    }

    @inline(__always)
    static func branchKey(_ node: TreeNode, _ i: Int) throws -> UInt64 {
        node.base.treeU64(try node.cellOffset(i, need: TreeLayout.branchKeyOffset + 8) + TreeLayout.branchKeyOffset)
    }

    /// The first index in `low..<high` whose key is not "before" `target` (before: `<`, or `<=`
    /// when `orEqual`). Object keys are mostly allocated in sequence, so keys within a node are
    /// close to evenly spaced: one interpolation probe usually lands on the key itself (or
    /// next to it, and one more probe brackets it), instead of the ~7 cache-missing probes of
    /// a binary search. Irregular keys only cost a few extra probes before the binary search.
    /// `lowerKey`/`upperKey`, when known from the parent's separators, bound the node's keys
    /// (lowerKey ≤ every key < upperKey) and save reading the node's first and last keys.
    @inline(__always)
    static func partition(_ node: TreeNode, low: Int, high: Int, keyOffset: Int, _ target: UInt64, orEqual: Bool,
                          lowerKey: UInt64? = nil, upperKey: UInt64? = nil) throws -> Int {
        @inline(__always) func keyAt(_ i: Int) throws -> UInt64 {
            node.base.treeU64(try node.cellOffset(i, need: keyOffset + 8) + keyOffset)
        }
        @inline(__always) func before(_ key: UInt64) -> Bool { orEqual ? key <= target : key < target }
        var low = low, high = high
        if high - low > 8 {
            // Interpolate: index `low` holds about `base`, index `high` about `base + span`.
            var base: UInt64, span: UInt64
            if let lowerKey, let upperKey, upperKey > lowerKey, target >= lowerKey, target < upperKey {
                base = lowerKey
                span = upperKey - lowerKey
            } else {
                let first = try keyAt(low)
                if !before(first) { return low }
                let last = try keyAt(high - 1)
                if before(last) { return high }
                // first ≤ target ≤ last and first < last: search within (low, high − 1).
                low += 1
                high -= 1
                base = first
                span = last &- first
                if high - low <= 1 { base = target; span = 1 }
            }
            var guess = low + Int(Double(target &- base) / Double(span) * Double(high - low))
            guess = min(max(guess, low), high - 1)
            node.prefetchProbe(guess)
            let key = try keyAt(guess)
            if key == target { return orEqual ? guess + 1 : guess }  // keys within a node are unique
            if before(key) {
                low = guess + 1
                let probe = min(guess + 4, high - 1)
                if probe >= low {
                    if before(try keyAt(probe)) { low = probe + 1 } else { high = probe }
                }
            } else {
                high = guess
                let probe = max(guess - 4, low)
                if probe < high {
                    if before(try keyAt(probe)) { low = probe + 1 } else { high = probe }
                }
            }
        }
        while low < high {
            let mid = (low &+ high) >> 1
            if before(try keyAt(mid)) { low = mid &+ 1 } else { high = mid }
        }
        return low
    }

    /// Point lookup carrying the parent's separators down as interpolation bounds.
    @inline(__always)
    static func find(_ root: PageRef, _ key: UInt64, _ pages: any PageReading) throws -> (leaf: TreeNode, index: Int)? {
        if root.isNull { return nil }
        var node = try TreeNode.read(root, pages, Self.self)
        var lower: UInt64?, upper: UInt64?
        var depth = 0
        while !node.isLeaf {
            depth += 1
            guard depth < TreeLayout.maxDepth else { throw TreeError.corrupt(root, "tree too deep") }
            let index = try partition(node, low: 1, high: node.count, keyOffset: TreeLayout.branchKeyOffset, key,
                                      orEqual: true, lowerKey: lower, upperKey: upper) - 1
            if index > 0 { lower = try branchKey(node, index) }
            if index + 1 < node.count { upper = try branchKey(node, index + 1) }
            node = try TreeNode.read(try node.child(index), pages, Self.self)
        }
        if node.isPacked {
            let (index, found) = try node.packed.search(key)
            return found ? (node, index) : nil
        }
        let index = try partition(node, low: 0, high: node.count, keyOffset: 0, key, orEqual: false,
                                  lowerKey: lower, upperKey: upper)
        guard index < node.count, try leafKey(node, index) == key else { return nil }
        return (node, index)
    }

    @inline(__always)
    static func searchLeaf(_ node: TreeNode, _ key: UInt64) throws -> (index: Int, found: Bool) {
        try searchLeaf(node, key, lower: nil, upper: nil)
    }

    /// `searchLeaf` in a leaf whose keys are known to lie in [lower, upper) (the separators
    /// above it): the interpolation starts from them. Any bounds give the same answer.
    @inline(__always)
    static func searchLeaf(_ node: TreeNode, _ key: UInt64, lower: UInt64?, upper: UInt64?) throws -> (index: Int, found: Bool) {
        if node.isPacked { return try node.packed.search(key) }
        let index = try partition(node, low: 0, high: node.count, keyOffset: 0, key, orEqual: false,
                                  lowerKey: lower, upperKey: upper)
        guard index < node.count else { return (index, false) }
        return (index, try leafKey(node, index) == key)
    }

    @inline(__always)
    static func searchBranch(_ node: TreeNode, _ key: UInt64) throws -> (index: Int, key: UInt64) {
        // The last cell whose key is ≤ `key`, cell 0 standing for −∞.
        let index = try partition(node, low: 1, high: node.count, keyOffset: TreeLayout.branchKeyOffset, key, orEqual: true)
        return (index - 1, key)
    }
}

// MARK: - BytesTree: byte-string keys in memcmp order

enum BytesFlavor: TreeFlavor {
    typealias SearchKey = UnsafeRawBufferPointer
    static var leafKind: UInt8 { TreePageKind.bytesLeaf }
    static var branchKind: UInt8 { TreePageKind.bytesBranch }
    static var name: String { "bytes" }
    static var placeholderKeyPartSize: Int { 2 }
    static var removalAlwaysChanges: Bool { false }

    @inline(__always)
    static func keyPartSize(_ base: UnsafeRawPointer, at offset: Int, ref: PageRef) throws -> Int {
        guard offset + 2 <= TreeLayout.payloadSize else { throw TreeError.corrupt(ref, "key outside the page") }
        let length = base.treeU16(offset) & ~TreeLayout.emptyValueFlag
        guard length <= BytesTree.maxKeySize, offset + 2 + length <= TreeLayout.payloadSize else {
            throw TreeError.corrupt(ref, "key of \(length) bytes runs past the page")
        }
        return 2 + length
    }

    @inline(__always)
    static func leafValueIsEmpty(_ base: UnsafeRawPointer, at offset: Int) -> Bool {
        base.treeU16(offset) & TreeLayout.emptyValueFlag != 0
    }

    /// memcmp order, a proper prefix sorting first. Negative, zero or positive.
    /// Compares 8 bytes at a time as big-endian words (index keys are short: no libc call).
    @inline(__always)
    static func compare(_ a: UnsafeRawPointer, _ aCount: Int, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(aCount, b.count)
        guard common > 0, let bBase = b.baseAddress else { return aCount - b.count }
        var i = 0
        while i + 8 <= common {
            let x = UInt64(bigEndian: a.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let y = UInt64(bigEndian: bBase.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            if x != y { return x < y ? -1 : 1 }
            i += 8
        }
        // The tail (under 8 bytes: an integer index key's last byte) byte by byte; a memcmp
        // call cost more than the compare.
        while i < common {
            let x = a.load(fromByteOffset: i, as: UInt8.self)
            let y = bBase.load(fromByteOffset: i, as: UInt8.self)
            if x != y { return x < y ? -1 : 1 }
            i += 1
        }
        return aCount - b.count
    }

    /// Compares the key part at `offset` (already bounds-checked by `keyPartSize`) with `key`.
    @inline(__always)
    static func compareKey(_ node: TreeNode, at offset: Int, _ key: UnsafeRawBufferPointer) throws -> Int {
        let size = try keyPartSize(node.base, at: offset, ref: node.ref)
        return compare(node.base + offset + 2, size - 2, key)
    }

    @inline(__always)
    static func searchLeaf(_ node: TreeNode, _ key: UnsafeRawBufferPointer) throws -> (index: Int, found: Bool) {
        var low = 0, high = node.count
        while low < high {
            let mid = (low &+ high) >> 1
            if try compareKey(node, at: node.cellOffset(mid, need: 0), key) < 0 { low = mid &+ 1 } else { high = mid }
        }
        guard low < node.count else { return (low, false) }
        return (low, try compareKey(node, at: node.cellOffset(low, need: 0), key) == 0)
    }

    @inline(__always)
    static func searchBranch(_ node: TreeNode, _ key: UnsafeRawBufferPointer) throws -> (index: Int, key: UnsafeRawBufferPointer) {
        var low = 1, high = node.count
        while low < high {
            let mid = (low &+ high) >> 1
            let offset = try node.cellOffset(mid, need: TreeLayout.branchKeyOffset) + TreeLayout.branchKeyOffset
            if try compareKey(node, at: offset, key) <= 0 { low = mid &+ 1 } else { high = mid }
        }
        return (low - 1, key)
    }
}

// MARK: - PositionalTree: no keys, routing by subtree counts

enum PositionalFlavor: TreeFlavor {
    /// An index within the subtree.
    typealias SearchKey = UInt64
    static var leafKind: UInt8 { TreePageKind.positionalLeaf }
    static var branchKind: UInt8 { TreePageKind.positionalBranch }
    static var name: String { "positional" }
    static var placeholderKeyPartSize: Int { 0 }
    static var removalAlwaysChanges: Bool { true }

    @inline(__always)
    static func keyPartSize(_ base: UnsafeRawPointer, at offset: Int, ref: PageRef) throws -> Int { 0 }

    @inline(__always)
    static func searchLeaf(_ node: TreeNode, _ key: UInt64) throws -> (index: Int, found: Bool) {
        guard key <= UInt64(node.count) else {
            throw TreeError.corrupt(node.ref, "position \(key) beyond a leaf of \(node.count); subtree counts are wrong")
        }
        return (Int(key), key < UInt64(node.count))
    }

    /// The first child whose count exceeds the remaining index; an index equal to the total
    /// (insertion at the end) goes to the last child.
    @inline(__always)
    static func searchBranch(_ node: TreeNode, _ key: UInt64) throws -> (index: Int, key: UInt64) {
        var remaining = key
        let last = node.count - 1
        // Appends (and anything in the last child) skip the scan: the last child starts at
        // total − its count.
        let lastCount = try node.childCount(last)
        let total = node.total
        if total >= lastCount && key >= total - lastCount { return (last, key - (total - lastCount)) }
        var i = 0
        while i < last {
            let count = try node.childCount(i)
            if remaining < count { return (i, remaining) }
            remaining -= count
            i += 1
        }
        return (last, remaining)
    }
}
