// Lookups in a byte-string tree (a point lookup, the start of a scan) that guess a key's position
// from the separators above it.
//
// Bisection inside a node costs about eight probes, each a slot and a cell on cache lines of their
// own; in a leaf of a large tree every one of them misses. A primary-key tree of Int keys (object
// format 4: a tag byte, then the value big-endian) and an index of Int values hold keys that are
// close to evenly spaced within a node, so their position follows from the bounds the parent
// already read: its separators on either side of the child (lowerKey ≤ every key < upperKey).
// The guess interpolates the 8 bytes that follow the bounds' shared prefix. One probe usually
// lands on the key; one more brackets it; bisection finishes what is left.
//
// Invariants:
// - The guess only chooses where to compare first. Every narrowing of [low, high) follows from a
//   comparison with a stored key, so the result is bisection's whatever the keys and bounds are
//   (uneven, equal, wrong because the page is damaged).
// - A node without both bounds (the root, the tree's outer edges) is bisected: the root stays in
//   cache, and reading a node's own first and last keys costs the lines the guess saves.
// - Only reads use it; edits keep `BytesFlavor.searchLeaf`/`searchBranch`.

extension BytesFlavor {
    /// The key part at `offset` of `node` (2-byte length, then the key), bounds-checked.
    @inline(__always)
    static func keyBytes(_ node: TreeNode, at offset: Int) throws -> UnsafeRawBufferPointer {
        let size = try keyPartSize(node.base, at: offset, ref: node.ref)
        return UnsafeRawBufferPointer(start: node.base + offset + 2, count: size - 2)
    }

    /// The bounds of child `index` of branch `node`: the separators on either side of it, or
    /// the branch's own bounds where the child is its first or last.
    @inline(__always)
    static func childBounds(_ node: TreeNode, _ index: Int, lower: UnsafeRawBufferPointer?,
                            upper: UnsafeRawBufferPointer?) throws -> (lower: UnsafeRawBufferPointer?, upper: UnsafeRawBufferPointer?) {
        func separator(_ i: Int) throws -> UnsafeRawBufferPointer {
            try keyBytes(node, at: node.cellOffset(i, need: TreeLayout.branchKeyOffset) + TreeLayout.branchKeyOffset)
        }
        return (index > 0 ? try separator(index) : lower, index + 1 < node.count ? try separator(index + 1) : upper)
    }

    /// The 8 bytes of `key` from `offset` as a big-endian word, zero past the key's end.
    @inline(__always)
    static func word(_ key: UnsafeRawBufferPointer, from offset: Int) -> UInt64 {
        guard let base = key.baseAddress else { return 0 }
        if offset + 8 <= key.count { return UInt64(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        var word: UInt64 = 0
        for i in offset..<(offset + 8) {
            word = word << 8 | (i < key.count ? UInt64(base.load(fromByteOffset: i, as: UInt8.self)) : 0)
        }
        return word
    }

    /// The length of the prefix `a` and `b` share.
    @inline(__always)
    static func sharedPrefix(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        guard common > 0, let x = a.baseAddress, let y = b.baseAddress else { return 0 }
        var i = 0
        while i + 8 <= common, x.loadUnaligned(fromByteOffset: i, as: UInt64.self) == y.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
            i += 8
        }
        while i < common, x.load(fromByteOffset: i, as: UInt8.self) == y.load(fromByteOffset: i, as: UInt8.self) { i += 1 }
        return i
    }

    /// Where in `low..<high` a node bounded by `lower` and `upper` probably holds `key`: nil
    /// when the bounds give no usable spread.
    @inline(__always)
    static func guess(_ key: UnsafeRawBufferPointer, lower: UnsafeRawBufferPointer, upper: UnsafeRawBufferPointer,
                      low: Int, high: Int) -> Int? {
        let shared = sharedPrefix(lower, upper)
        let first = word(lower, from: shared), last = word(upper, from: shared)
        guard last > first else { return nil }
        let target = min(max(word(key, from: shared), first), last)
        let position = low + Int(Double(target - first) / Double(last - first) * Double(high - low))
        return min(max(position, low), high - 1)
    }

    /// The first index in `low..<high` whose key is not "before" `key` (before: `<`, or `<=`
    /// when `orEqual`), probing first where `lower`/`upper` place it.
    @inline(__always)
    static func partition(_ node: TreeNode, low: Int, high: Int, keyOffset: Int, _ key: UnsafeRawBufferPointer,
                          orEqual: Bool, lower: UnsafeRawBufferPointer?, upper: UnsafeRawBufferPointer?) throws -> Int {
        @inline(__always) func before(_ i: Int) throws -> Bool {
            let order = try compareKey(node, at: node.cellOffset(i, need: keyOffset) + keyOffset, key)
            return orEqual ? order <= 0 : order < 0
        }
        var low = low, high = high
        if high - low > 8, let lower, let upper, let guess = guess(key, lower: lower, upper: upper, low: low, high: high) {
            node.prefetchProbe(guess)
            let order = try compareKey(node, at: node.cellOffset(guess, need: keyOffset) + keyOffset, key)
            if order == 0 { return orEqual ? guess + 1 : guess }  // keys within a node are unique
            if order < 0 {
                low = guess + 1
                let probe = min(guess + 4, high - 1)
                if probe >= low { if try before(probe) { low = probe + 1 } else { high = probe } }
            } else {
                high = guess
                let probe = max(guess - 4, low)
                if probe < high { if try before(probe) { low = probe + 1 } else { high = probe } }
            }
        }
        while low < high {
            let mid = (low &+ high) >> 1
            if try before(mid) { low = mid &+ 1 } else { high = mid }
        }
        return low
    }

    /// Child `index` of branch `node`, its lines asked for where `key` lies between the child's
    /// bounds, as the child's own search will guess (`TreeNode.read(_:_:_:probing:of:)`).
    @inline(__always)
    static func readChild(_ node: TreeNode, _ index: Int, toward key: UnsafeRawBufferPointer,
                          lower: UnsafeRawBufferPointer?, upper: UnsafeRawBufferPointer?,
                          _ pages: any PageReading) throws -> TreeNode {
        let child = try node.child(index)
        if let lower, let upper, case let count = Int(clamping: try node.childCount(index)),
           count > 8, count < TreeNode.leafCountLimit,
           let guess = guess(key, lower: lower, upper: upper, low: 0, high: count) {
            return try TreeNode.read(child, pages, Self.self, probing: guess, of: count)
        }
        return try TreeNode.read(child, pages, Self.self)
    }

    /// The leaf holding `key` and its position, or nil when absent: a descent that carries each
    /// child's separators down as the bounds of its guess.
    @inline(__always)
    static func find(_ root: PageRef, _ key: UnsafeRawBufferPointer, _ pages: any PageReading) throws -> (leaf: TreeNode, index: Int)? {
        if root.isNull { return nil }
        var node = try TreeNode.read(root, pages, Self.self)
        var lower: UnsafeRawBufferPointer?, upper: UnsafeRawBufferPointer?
        var depth = 0
        while !node.isLeaf {
            depth += 1
            guard depth < TreeLayout.maxDepth else { throw TreeError.corrupt(root, "tree too deep") }
            // The last cell whose key is ≤ `key`, cell 0 standing for −∞.
            let index = try partition(node, low: 1, high: node.count, keyOffset: TreeLayout.branchKeyOffset, key,
                                      orEqual: true, lower: lower, upper: upper) - 1
            (lower, upper) = try childBounds(node, index, lower: lower, upper: upper)
            node = try readChild(node, index, toward: key, lower: lower, upper: upper, pages)
        }
        let index = try partition(node, low: 0, high: node.count, keyOffset: 0, key, orEqual: false, lower: lower, upper: upper)
        guard index < node.count, try compareKey(node, at: node.cellOffset(index, need: 0), key) == 0 else { return nil }
        return (node, index)
    }

    /// Visits leaf entries in order from the first ≥ `start` until `body` returns false, the
    /// descent to `start` guessing as `find` does. Returns false when `body` stopped the scan.
    @discardableResult
    static func scan(_ node: TreeNode, from start: UnsafeRawBufferPointer, lower: UnsafeRawBufferPointer?,
                     upper: UnsafeRawBufferPointer?, depth: Int, _ pages: any PageReading,
                     _ body: (TreeNode, Int) throws -> Bool) throws -> Bool {
        guard depth < TreeLayout.maxDepth else { throw TreeError.corrupt(node.ref, "tree too deep") }
        if node.isLeaf {
            var i = try partition(node, low: 0, high: node.count, keyOffset: 0, start, orEqual: false, lower: lower, upper: upper)
            while i < node.count {
                if try !body(node, i) { return false }
                i += 1
            }
            return true
        }
        let index = try partition(node, low: 1, high: node.count, keyOffset: TreeLayout.branchKeyOffset, start,
                                  orEqual: true, lower: lower, upper: upper) - 1
        let bounds = try childBounds(node, index, lower: lower, upper: upper)
        let child = try readChild(node, index, toward: start, lower: bounds.lower, upper: bounds.upper, pages)
        if try !scan(child, from: start, lower: bounds.lower, upper: bounds.upper, depth: depth + 1, pages, body) {
            return false
        }
        var i = index + 1
        while i < node.count {
            if try !TreeReader<BytesFlavor>.scan(try node.child(i), from: nil, depth: depth + 1, pages, body) { return false }
            i += 1
        }
        return true
    }
}
