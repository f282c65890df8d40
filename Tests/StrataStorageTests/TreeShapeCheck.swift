// A structural checker for the tree tests: walks a whole tree and reports every broken
// invariant of NodeLayout.swift — equal leaf depth, non-empty nodes, counts equal to the
// children's totals, used bytes equal to the cells' sizes, keys ascending and within the
// separators of the parent. Packed keyed leaves (PackedLeaf.swift) have no cells: their keys,
// count and depth are checked.

@testable import StrataStorage

/// memcmp-ordered bytes, for checking BytesTree separators.
struct OrderedBytes: Comparable {
    var bytes: [UInt8]
    static func < (a: OrderedBytes, b: OrderedBytes) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
}

enum TreeShapeCheck {
    static func keyed(_ tree: KeyedTree, _ pages: any PageReading) throws -> [String] {
        try check(tree.root, pages, KeyedFlavor.self) { base, offset in base.treeU64(offset) }
    }

    static func bytes(_ tree: BytesTree, _ pages: any PageReading) throws -> [String] {
        try check(tree.root, pages, BytesFlavor.self) { base, offset in
            OrderedBytes(bytes: Array(UnsafeRawBufferPointer(start: base + offset + 2, count: base.treeU16(offset) & ~TreeLayout.emptyValueFlag)))
        }
    }

    /// Positional trees have no keys: every key is the same unit value.
    static func positional(_ tree: PositionalTree, _ pages: any PageReading) throws -> [String] {
        try check(tree.root, pages, PositionalFlavor.self) { _, _ in 0 }
    }

    static func check<F: TreeFlavor, K: Comparable>(_ root: PageRef, _ pages: any PageReading, _ flavor: F.Type,
                                                     key: (UnsafeRawPointer, Int) -> K) throws -> [String] {
        guard !root.isNull else { return [] }
        var problems: [String] = []
        var leafDepth: Int?
        // Slotted leaves next to packed ones are never merged with them (TreeEdit.swift, `merge`),
        // and the splits of packed leaves leave short slotted parts: in a tree with packed leaves a
        // nearly empty slotted leaf is allowed.
        var nearlyEmpty: [String] = []
        var sawPacked = false
        /// A packed keyed leaf (PackedLeaf.swift): no slots or cells, so no used bytes to check;
        /// keys ascending and within the separators, total = count, same depth as other leaves.
        func visitPacked(_ node: TreeNode, depth: Int, lower: K?, upper: K?) throws -> UInt64 {
            let ref = node.ref
            let leaf = try node.packed
            sawPacked = true
            if leaf.count == 0 { problems.append("\(ref): empty packed leaf") }
            if leaf.count != node.count { problems.append("\(ref): packed count \(leaf.count) but node count \(node.count)") }
            var previous: K?
            for i in 0..<leaf.count {
                guard let k = leaf.key(i) as? K else {
                    problems.append("\(ref): a packed leaf in a tree without UInt64 keys")
                    break
                }
                if let previous, !(previous < k) { problems.append("\(ref): packed keys not ascending at \(i)") }
                if let lower, k < lower { problems.append("\(ref): packed key below its separator at \(i)") }
                if let upper, !(k < upper) { problems.append("\(ref): packed key not below the next separator at \(i)") }
                previous = k
            }
            if let leafDepth, leafDepth != depth { problems.append("\(ref): leaf at depth \(depth), others at \(leafDepth)") }
            leafDepth = depth
            if node.total != UInt64(leaf.count) { problems.append("\(ref): total \(node.total) but holds \(leaf.count)") }
            return UInt64(leaf.count)
        }
        func visit(_ ref: PageRef, depth: Int, lower: K?, upper: K?, isRoot: Bool) throws -> UInt64 {
            let node = try TreeNode.read(ref, pages, F.self)
            if node.isPacked { return try visitPacked(node, depth: depth, lower: lower, upper: upper) }
            if node.count == 0 { problems.append("\(ref): empty node") }
            if !isRoot && node.usedBytes + node.count * 2 < 16 { nearlyEmpty.append("\(ref): nearly empty (\(node.usedBytes) bytes)") }
            var used = 0
            var previous: K?
            var total: UInt64 = 0
            for i in 0..<node.count {
                if node.isLeaf {
                    let cell = try node.leafCell(i, F.self)
                    used += cell.size
                    let k = key(node.base, cell.offset)
                    if F.self != PositionalFlavor.self {
                        if let previous, !(previous < k) { problems.append("\(ref): keys not ascending at \(i)") }
                        if let lower, k < lower { problems.append("\(ref): key below its separator at \(i)") }
                        if let upper, !(k < upper) { problems.append("\(ref): key not below the next separator at \(i)") }
                    }
                    previous = k
                    total += 1
                } else {
                    let cell = try node.branchCell(i, F.self)
                    used += cell.size
                    if F.self == BytesFlavor.self, F.leafValueIsEmpty(node.base, at: cell.offset + TreeLayout.branchKeyOffset) {
                        problems.append("\(ref): branch cell \(i) carries a leaf's empty-value flag")
                    }
                    let childLower = i == 0 ? lower : key(node.base, cell.offset + TreeLayout.branchKeyOffset)
                    if i > 0, F.self != PositionalFlavor.self, let childLower {
                        if let previous, !(previous < childLower) { problems.append("\(ref): separators not ascending at \(i)") }
                        if let lower, childLower < lower { problems.append("\(ref): separator below the parent's at \(i)") }
                        previous = childLower
                    }
                    let childUpper = i + 1 < node.count
                        ? key(node.base, try node.branchCell(i + 1, F.self).offset + TreeLayout.branchKeyOffset) : upper
                    let childTotal = try visit(try node.child(i), depth: depth + 1, lower: childLower, upper: childUpper, isRoot: false)
                    if try node.childCount(i) != childTotal {
                        problems.append("\(ref): cell \(i) count \(try node.childCount(i)) but child holds \(childTotal)")
                    }
                    total += childTotal
                }
            }
            if node.isLeaf {
                if let leafDepth, leafDepth != depth { problems.append("\(ref): leaf at depth \(depth), others at \(leafDepth)") }
                leafDepth = depth
            }
            if used != node.usedBytes { problems.append("\(ref): used bytes \(node.usedBytes) but cells hold \(used)") }
            if node.total != total { problems.append("\(ref): total \(node.total) but holds \(total)") }
            return total
        }
        _ = try visit(root, depth: 0, lower: nil, upper: nil, isRoot: true)
        if !sawPacked { problems += nearlyEmpty }
        return problems
    }
}
