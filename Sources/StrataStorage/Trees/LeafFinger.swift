// A finger into a keyed tree: the leaf where the last lookup ended and the range of keys that
// leaf covers, so that the next lookup of a key in that range reads the leaf alone instead of
// descending from the root. Reading the properties of one object after another, in key order,
// looks up the same leaf hundreds of times in a row.
//
// Invariants:
// - A finger is used only for the tree whose root it was taken in, and only for a key within the
//   bounds the descent to its leaf established (every key of that leaf is ≥ `lower` and
//   < `upper`): such a key, if present, is in that leaf. A missing key reads as missing, as a
//   full descent would report it.
// - A root's page number does not identify a tree's contents: a write changes pages in place,
//   and a page freed by one version may become another version's root. The holder forgets the
//   finger whenever the pages it reads may have changed (a write, a move to another version);
//   it is a value, kept by the one thread that reads that version.
// - A finger whose page is no longer a leaf is ignored (a full descent follows), never trusted.
// - The value the last lookup found is kept only when it lies in the leaf's page (a slotted
//   cell's inline bytes), so it stays valid exactly as long as the finger does: the pages the
//   holder reads do not change meanwhile.
// - A lookup that leaves the finger's leaf for the one right after it (a walk in key order) asks
//   the CPU for both that leaf's page and the next one's. The next page is read as any lookup
//   reads it (checked, or decrypted, on its first read); a failure there is not reported by this
//   lookup, which does not need that page, but by the one that does.

internal import CStrataPrefetch

/// The last leaf a lookup in a `KeyedTree` reached, with the key range it covers.
public struct LeafFinger: Sendable {
    var root: PageRef = .null
    var leaf: PageRef = .null
    var lower: UInt64 = 0
    /// Exclusive; nil: no upper bound (the rightmost leaf).
    var upper: UInt64?
    /// Where in the leaf the last lookup found its key: the next lookup in this leaf tries this
    /// entry (another property of the same object) and the one after it (the next object) before
    /// a search; one that walks on to the next leaf tries its first entries. A hint only: the key
    /// found there is compared, never assumed.
    var hint = 0
    /// The key the last lookup found, and where its value lies in the leaf's page (0: not kept,
    /// for a packed leaf's gathered row or an overflow chain's copy): a lookup of the same key
    /// again, another property of the same object, reads those bytes without reading the leaf.
    var lastKey: UInt64 = 0
    var lastValueAddress: UInt = 0
    var lastValueCount = 0

    public init() {}

    init(root: PageRef, leaf: PageRef, lower: UInt64, upper: UInt64?) {
        self.root = root
        self.leaf = leaf
        self.lower = lower
        self.upper = upper
    }

    /// Stops the finger from being used again.
    public mutating func forget() { root = .null }

    @inline(__always)
    func covers(_ key: UInt64, in root: PageRef) -> Bool {
        !root.isNull && self.root == root && !leaf.isNull && key >= lower && (upper.map { key < $0 } ?? true)
    }
}

extension KeyedTree {
    /// `withValue(forKey:in:_:)`, starting at `finger`'s leaf when it covers `key` in this tree,
    /// and leaving the finger at the leaf this lookup reached.
    public func withValue<R>(forKey key: UInt64, in pages: some PageReading, finger: inout LeafFinger,
                             _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        if finger.covers(key, in: root) {
            if finger.lastKey == key, let kept = UnsafeRawPointer(bitPattern: finger.lastValueAddress) {
                return try body(UnsafeRawBufferPointer(start: kept, count: finger.lastValueCount))
            }
            let node = try TreeNode.read(finger.leaf, pages, KeyedFlavor.self)
            if node.isLeaf { return try Self.withValue(in: node, key, pages, finger: &finger, tryHint: true, body) }
        }
        guard !root.isNull else { return nil }
        // Where the finger's leaf ended, when it was taken in this tree: a lookup that lands in
        // the leaf starting there is walking the tree in key order.
        let previousEnd = finger.root == root && !finger.leaf.isNull ? finger.upper : nil
        var node = try TreeNode.read(root, pages, KeyedFlavor.self)
        var lower: UInt64?, upper: UInt64?
        var following = PageRef.null
        var depth = 0
        while !node.isLeaf {
            depth += 1
            guard depth < TreeLayout.maxDepth else { throw TreeError.corrupt(root, "tree too deep") }
            let index = try KeyedFlavor.partition(node, low: 1, high: node.count, keyOffset: TreeLayout.branchKeyOffset, key,
                                                  orEqual: true, lowerKey: lower, upperKey: upper) - 1
            if index > 0 { lower = try KeyedFlavor.branchKey(node, index) }
            if index + 1 < node.count { upper = try KeyedFlavor.branchKey(node, index + 1) }
            let parent = node
            let child = try parent.child(index)
            // Where the key lies between the child's bounds (a fraction below 1), for a child
            // small enough to be a leaf: its lines are asked for before it is read.
            if let lower, let upper, key >= lower, key < upper,
               case let count = Int(clamping: try parent.childCount(index)), count > 0, count < TreeNode.leafCountLimit {
                let guess = Int(Double(key - lower) / Double(upper - lower) * Double(count))
                node = try TreeNode.read(child, pages, KeyedFlavor.self, probing: min(guess, count - 1), of: count)
            } else {
                node = try TreeNode.read(child, pages, KeyedFlavor.self)
            }
            following = node.isLeaf && index + 1 < parent.count ? try parent.child(index + 1) : .null
        }
        finger = LeafFinger(root: root, leaf: node.ref, lower: lower ?? 0, upper: upper)
        // A walk in key order lands on the leaf's first entry, which the hint tries first; any
        // other lookup goes straight to the search guided by the bounds the descent read.
        let walking = previousEnd != nil && previousEnd == lower ?? 0
        if walking { Self.prefetchWalk(node, following, pages) }
        return try Self.withValue(in: node, key, pages, finger: &finger, tryHint: walking, body)
    }

    /// Asks for the whole of `leaf`'s page, and of the leaf after it, ahead of a walk in key
    /// order (objects iterated or a list walked in the order they were added): a row is a cache
    /// line of its own, so without this every row of the leaf was a miss, and the CPU's own
    /// prefetcher stops at page boundaries. A next page that fails to read is left to the lookup
    /// that needs it to report.
    private static func prefetchWalk(_ leaf: TreeNode, _ following: PageRef, _ pages: some PageReading) {
        strata_prefetch(leaf.base, TreeLayout.payloadSize)
        if !following.isNull, let next = try? pages.readPage(following) { strata_prefetch(next, TreeLayout.payloadSize) }
    }

    /// `withValue(forKey:in:finger:_:)` compiled for a read transaction and a body that returns
    /// nothing; true when `key` was found. The object layer reads every property through it:
    /// the generic form, called from another module, is not specialised there, and its
    /// value-witness calls for the result were a fifth of an iteration step's samples.
    public func visitValue(forKey key: UInt64, in pages: ReadTransaction, finger: inout LeafFinger,
                           _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        try withValue(forKey: key, in: pages, finger: &finger, body) != nil
    }

    /// `contains(_:in:)`, through `finger` as `withValue(forKey:in:finger:_:)` goes.
    public func contains(_ key: UInt64, in pages: some PageReading, finger: inout LeafFinger) throws -> Bool {
        try withValue(forKey: key, in: pages, finger: &finger) { _ in true } != nil
    }

    @inline(__always)
    private static func withValue<R>(in leaf: TreeNode, _ key: UInt64, _ pages: some PageReading, finger: inout LeafFinger,
                                     tryHint: Bool, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        let hint = finger.hint
        let index: Int
        if tryHint, hint < leaf.count, try KeyedFlavor.leafKey(leaf, hint) == key {
            index = hint
        } else if tryHint, hint + 1 < leaf.count, try KeyedFlavor.leafKey(leaf, hint + 1) == key {
            index = hint + 1
        } else {
            // The finger's bounds are the separators the descent to this leaf read: the search
            // interpolates between them instead of first reading the leaf's own first and last
            // keys, two more lines of a page that is not in the caches.
            let (found, present) = try KeyedFlavor.searchLeaf(leaf, key, lower: finger.lower, upper: finger.upper)
            guard present else { return nil }
            index = found
        }
        finger.hint = index
        finger.lastValueAddress = 0
        if leaf.isPacked { return try withPackedValue(leaf, index, body) }
        let value = try leaf.leafCell(index, KeyedFlavor.self).value
        if let inline = value.inline {
            finger.lastKey = key
            finger.lastValueAddress = UInt(bitPattern: inline)
            finger.lastValueCount = value.length
        }
        return try value.withBytes(pages, body)
    }
}
