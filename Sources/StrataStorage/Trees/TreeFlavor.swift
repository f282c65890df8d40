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
    /// Bytes of the key part of branch cell 0 of a new root (its key is never used).
    static var placeholderKeyPartSize: Int { get }
    /// Leaf: the position of `key` (or where it would be inserted) and whether it is there.
    static func searchLeaf(_ node: TreeNode, _ key: SearchKey) throws -> (index: Int, found: Bool)
    /// Branch: the child to descend into and the key to search for in it.
    static func searchBranch(_ node: TreeNode, _ key: SearchKey) throws -> (index: Int, key: SearchKey)
}

// MARK: - KeyedTree: UInt64 keys

enum KeyedFlavor: TreeFlavor {
    typealias SearchKey = UInt64
    static var leafKind: UInt8 { TreePageKind.keyedLeaf }
    static var branchKind: UInt8 { TreePageKind.keyedBranch }
    static var name: String { "keyed" }
    static var placeholderKeyPartSize: Int { 8 }

    @inline(__always)
    static func keyPartSize(_ base: UnsafeRawPointer, at offset: Int, ref: PageRef) throws -> Int {
        guard offset + 8 <= TreeLayout.payloadSize else { throw TreeError.corrupt(ref, "key outside the page") }
        return 8
    }

    @inline(__always)
    static func leafKey(_ node: TreeNode, _ i: Int) throws -> UInt64 {
        node.base.treeU64(try node.cellOffset(i, need: 8))
    }

    @inline(__always)
    static func branchKey(_ node: TreeNode, _ i: Int) throws -> UInt64 {
        node.base.treeU64(try node.cellOffset(i, need: TreeLayout.branchKeyOffset + 8) + TreeLayout.branchKeyOffset)
    }

    @inline(__always)
    static func searchLeaf(_ node: TreeNode, _ key: UInt64) throws -> (index: Int, found: Bool) {
        var low = 0, high = node.count
        while low < high {
            let mid = (low &+ high) >> 1
            if try leafKey(node, mid) < key { low = mid &+ 1 } else { high = mid }
        }
        guard low < node.count else { return (low, false) }
        return (low, try leafKey(node, low) == key)
    }

    @inline(__always)
    static func searchBranch(_ node: TreeNode, _ key: UInt64) throws -> (index: Int, key: UInt64) {
        // The last cell whose key is ≤ `key`, cell 0 standing for −∞.
        var low = 1, high = node.count
        while low < high {
            let mid = (low &+ high) >> 1
            if try branchKey(node, mid) <= key { low = mid &+ 1 } else { high = mid }
        }
        return (low - 1, key)
    }
}

// MARK: - BytesTree: byte-string keys in memcmp order

enum BytesFlavor: TreeFlavor {
    typealias SearchKey = UnsafeRawBufferPointer
    static var leafKind: UInt8 { TreePageKind.bytesLeaf }
    static var branchKind: UInt8 { TreePageKind.bytesBranch }
    static var name: String { "bytes" }
    static var placeholderKeyPartSize: Int { 2 }

    @inline(__always)
    static func keyPartSize(_ base: UnsafeRawPointer, at offset: Int, ref: PageRef) throws -> Int {
        guard offset + 2 <= TreeLayout.payloadSize else { throw TreeError.corrupt(ref, "key outside the page") }
        let length = base.treeU16(offset)
        guard length <= BytesTree.maxKeySize, offset + 2 + length <= TreeLayout.payloadSize else {
            throw TreeError.corrupt(ref, "key of \(length) bytes runs past the page")
        }
        return 2 + length
    }

    /// memcmp order, a proper prefix sorting first. Negative, zero or positive.
    @inline(__always)
    static func compare(_ a: UnsafeRawPointer, _ aCount: Int, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(aCount, b.count)
        if common > 0, let bBase = b.baseAddress {
            let c = Int(memcmp(a, bBase, common))
            if c != 0 { return c }
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
