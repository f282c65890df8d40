// The keys of a keyed tree alone, leaf by leaf: what a collection of a whole class iterates
// (its objects by key), without touching the values. `forEach` hands each entry's value to its
// visitor, and assembling values held in overflow pages would read those pages for nothing.

extension KeyedTree {
    /// Every key, ascending (the keys `forEach` visits, in its order).
    public func allKeys(in pages: some PageReading) throws -> [UInt64] {
        guard !root.isNull else { return [] }
        var keys: [UInt64] = []
        keys.reserveCapacity(try count(in: pages))
        try Self.visitLeaves(root, depth: 0, pages) { node, next in
            Self.askFor(next)
            if node.isPacked {
                let packed = try node.packed
                for i in 0..<packed.count { keys.append(packed.key(i)) }
            } else {
                for i in 0..<node.count { keys.append(node.base.treeU64(try node.cellOffset(i, need: 8))) }
            }
        }
        return keys
    }
}
