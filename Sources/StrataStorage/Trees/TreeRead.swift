// Read paths shared by the three trees: point lookup, edges (first/last), ordered scans in
// both directions, and destruction (which reads every page to free it).
//
// Invariants:
// - Nothing here writes a page; `destroy` only calls `freePage`.
// - Every descent is bounded by `TreeLayout.maxDepth`, so a cyclic (corrupt) tree throws
//   `.corruptFile` instead of looping.

enum TreeReader<F: TreeFlavor> {
    /// The leaf holding `key` and the position in it, or nil when absent.
    @inline(__always)
    static func find(_ root: PageRef, _ key: F.SearchKey, _ pages: any PageReading) throws -> (leaf: TreeNode, index: Int)? {
        if root.isNull { return nil }
        var node = try TreeNode.read(root, pages, F.self)
        var key = key
        var depth = 0
        while !node.isLeaf {
            depth += 1
            guard depth < TreeLayout.maxDepth else { throw TreeError.corrupt(root, "tree too deep") }
            let (index, childKey) = try F.searchBranch(node, key)
            key = childKey
            node = try TreeNode.read(try node.child(index), pages, F.self)
        }
        let (index, found) = try F.searchLeaf(node, key)
        return found ? (node, index) : nil
    }

    /// The first (or last) leaf of the tree, nil when empty.
    static func edgeLeaf(_ root: PageRef, last: Bool, _ pages: any PageReading) throws -> TreeNode? {
        if root.isNull { return nil }
        var node = try TreeNode.read(root, pages, F.self)
        var depth = 0
        while !node.isLeaf {
            depth += 1
            guard depth < TreeLayout.maxDepth else { throw TreeError.corrupt(root, "tree too deep") }
            node = try TreeNode.read(try node.child(last ? node.count - 1 : 0), pages, F.self)
        }
        guard node.count > 0 else { throw TreeError.corrupt(node.ref, "empty leaf in a non-empty tree") }
        return node
    }

    static func count(_ root: PageRef, _ pages: any PageReading) throws -> Int {
        if root.isNull { return 0 }
        let total = try TreeNode.read(root, pages, F.self).total
        guard total <= UInt64(Int.max) else { throw TreeError.corrupt(root, "entry count \(total) out of range") }
        return Int(total)
    }

    /// The leaf entry at position `index` in key order (every branch cell carries its child's
    /// count, so this is O(log n) in every tree); nil when `index` is out of range.
    static func entry(at index: Int, _ root: PageRef, _ pages: any PageReading) throws -> (leaf: TreeNode, index: Int)? {
        guard index >= 0, !root.isNull else { return nil }
        var node = try TreeNode.read(root, pages, F.self)
        guard UInt64(index) < node.total else { return nil }
        var remaining = UInt64(index)
        var depth = 0
        while !node.isLeaf {
            depth += 1
            guard depth < TreeLayout.maxDepth else { throw TreeError.corrupt(root, "tree too deep") }
            var child = node.count - 1
            for i in 0..<node.count {
                let count = try node.childCount(i)
                if remaining < count { child = i; break }
                if i == node.count - 1 { throw TreeError.corrupt(node.ref, "position beyond the child counts") }
                remaining -= count
            }
            node = try TreeNode.read(try node.child(child), pages, F.self)
        }
        guard remaining < UInt64(node.count) else { throw TreeError.corrupt(node.ref, "position beyond its leaf") }
        return (node, Int(remaining))
    }

    /// The number of entries whose key is below `key` (the position `key` has or would have).
    static func rank(of key: F.SearchKey, _ root: PageRef, _ pages: any PageReading) throws -> Int {
        if root.isNull { return 0 }
        var node = try TreeNode.read(root, pages, F.self)
        var key = key
        var before: UInt64 = 0
        var depth = 0
        while !node.isLeaf {
            depth += 1
            guard depth < TreeLayout.maxDepth else { throw TreeError.corrupt(root, "tree too deep") }
            let (index, childKey) = try F.searchBranch(node, key)
            for i in 0..<index { before &+= try node.childCount(i) }
            key = childKey
            node = try TreeNode.read(try node.child(index), pages, F.self)
        }
        before &+= UInt64(try F.searchLeaf(node, key).index)
        guard before <= UInt64(Int.max) else { throw TreeError.corrupt(root, "entry count out of range") }
        return Int(before)
    }

    /// Visits leaf entries in order from `start` (the first entry ≥ start; all when nil) until
    /// `body` returns false. Returns false when `body` stopped the scan.
    @discardableResult
    static func scan(_ ref: PageRef, from start: F.SearchKey?, depth: Int, _ pages: any PageReading,
                     _ body: (TreeNode, Int) throws -> Bool) throws -> Bool {
        guard depth < TreeLayout.maxDepth else { throw TreeError.corrupt(ref, "tree too deep") }
        let node = try TreeNode.read(ref, pages, F.self)
        if node.isLeaf {
            var i = 0
            if let start { i = try F.searchLeaf(node, start).index }
            while i < node.count {
                if try !body(node, i) { return false }
                i += 1
            }
            return true
        }
        var i = 0
        var childStart: F.SearchKey? = nil
        if let start { (i, childStart) = try F.searchBranch(node, start) }
        while i < node.count {
            if try !scan(try node.child(i), from: childStart, depth: depth + 1, pages, body) { return false }
            childStart = nil
            i += 1
        }
        return true
    }

    /// Visits leaf entries in descending order — those with key ≤ `through`, all when nil —
    /// until `body` returns false. Returns false when `body` stopped the scan.
    @discardableResult
    static func scanReverse(_ ref: PageRef, through end: F.SearchKey?, depth: Int, _ pages: any PageReading,
                            _ body: (TreeNode, Int) throws -> Bool) throws -> Bool {
        guard depth < TreeLayout.maxDepth else { throw TreeError.corrupt(ref, "tree too deep") }
        let node = try TreeNode.read(ref, pages, F.self)
        var i = node.count - 1
        var childEnd: F.SearchKey? = nil
        if let end {
            if node.isLeaf {
                let (index, found) = try F.searchLeaf(node, end)
                i = found ? index : index - 1
            } else {
                (i, childEnd) = try F.searchBranch(node, end)
            }
        }
        while i >= 0 {
            if node.isLeaf {
                if try !body(node, i) { return false }
            } else if try !scanReverse(try node.child(i), through: childEnd, depth: depth + 1, pages, body) {
                return false
            }
            childEnd = nil
            i -= 1
        }
        return true
    }

    /// Frees every page of the subtree, overflow chains included.
    static func destroy(_ ref: PageRef, depth: Int, _ pages: any PageWriting) throws {
        guard depth < TreeLayout.maxDepth else { throw TreeError.corrupt(ref, "tree too deep") }
        let node = try TreeNode.read(ref, pages, F.self)
        if node.isPacked {
            // Packed values are inline: nothing but the page to free.
            pages.freePage(ref)
            return
        }
        for i in 0..<node.count {
            if node.isLeaf {
                try node.leafCell(i, F.self).value.free(pages)
            } else {
                try destroy(try node.child(i), depth: depth + 1, pages)
            }
        }
        pages.freePage(ref)
    }
}
