// KeyedTree: the façade of the copy-on-write B+tree from UInt64 keys to byte strings.
// Node format and algorithms are shared (NodeLayout, NodeEdit, TreeEdit, TreeRead,
// OverflowChain); this file maps the public API onto them with `KeyedFlavor`.
//
// Invariants: keys in a leaf are strictly ascending; `count` is the root's total.

/// A copy-on-write B+tree from `UInt64` keys to byte-string values, in key order.
/// Objects of one class live in one `KeyedTree` keyed by object key.
///
/// The tree is a value: `root` is all there is. Mutations go through a `PageWriting`
/// (a write transaction) and change `root`; the caller stores the new root where the old one was.
/// Values up to `maxValueSize` bytes are accepted; large ones spill to overflow pages.
///
/// Inserting keys in ascending order at the end of the tree fills leaves completely
/// (append-mode splits), so bulk inserts of increasing object keys leave dense pages.
///
/// Threading: the tree value itself is immutable between mutations and `Sendable`. Reads may
/// run on any thread the given `PageReading` allows (several at once on a frozen version);
/// mutations run on the thread that holds the write transaction (`PageWriting`), which the
/// transaction enforces. Pointers handed to `body` closures are valid only during the call.
///
/// Page contract relied on: pointers from `readPage`, `writablePage` and `allocatePage` stay
/// valid until the transaction ends (or the page is freed), and `readPage` of a page the
/// transaction owns returns its current contents.
///
/// Errors: a mutation that throws leaves the tree value unchanged but may have copied or
/// changed pages of the transaction; roll the write transaction back instead of committing.
public struct KeyedTree: Hashable, Sendable {
    /// The root page; `.null` for an empty tree. Store it where the tree lives (a meta root,
    /// a value of another tree) after every mutation.
    public internal(set) var root: PageRef

    /// Largest value in bytes: 16 MiB of payload plus a small header of the layer above.
    public static let maxValueSize = 16 * 1024 * 1024 + 64

    /// A tree whose root is `root` (`.null`: a new, empty tree).
    public init(root: PageRef = .null) { self.root = root }

    /// True when the tree has no entries (it then owns no page). Needs no page access.
    public var isEmpty: Bool { root.isNull }

    /// Number of keys; O(1) (kept in the root).
    public func count(in pages: some PageReading) throws -> Int {
        try TreeReader<KeyedFlavor>.count(root, pages)
    }

    /// Calls `body` with the value stored under `key` (zero-copy when it fits in a page);
    /// nil when absent. The buffer is valid only inside `body`.
    public func withValue<R>(forKey key: UInt64, in pages: some PageReading,
                             _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        guard let (leaf, index) = try KeyedFlavor.find(root, key, pages) else { return nil }
        // The packed read out of line: inlined into this generic function (unspecialised where
        // the object layer calls it), its temporary buffer made every call instantiate generic
        // metadata, packed leaf or not (~1% of a one-reading transaction).
        if leaf.isPacked { return try Self.withPackedValue(leaf, index, body) }
        return try leaf.leafCell(index, KeyedFlavor.self).value.withBytes(pages, body)
    }

    @inline(never)
    static func withPackedValue<R>(_ leaf: TreeNode, _ index: Int,
                                           _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        try leaf.packed.withValue(index, body)
    }

    /// Whether `key` is present. O(log n).
    public func contains(_ key: UInt64, in pages: some PageReading) throws -> Bool {
        try KeyedFlavor.find(root, key, pages) != nil
    }

    /// Inserts or replaces. Returns true when `key` was not present before.
    /// A value over `maxValueSize` throws `.tooLarge`.
    ///
    /// `packing`: appends past the last key may go into packed leaves (PackedLeaf.swift), ~3×
    /// denser for short same-length values. Only for values that hold no page references (a
    /// tree whose `ValueReferences` are `.none`).
    @discardableResult
    public mutating func put(_ key: UInt64, _ value: UnsafeRawBufferPointer, packing: Bool = false,
                             in pages: some PageWriting) throws -> Bool {
        let root = self.root
        let (newRoot, delta) = try TreeCells.withLeafCell(.uint64(key), value, pages) { cell in
            try TreeEditor<KeyedFlavor>.apply(root: root, key: key, .upsert, cell: cell, packing: packing, pages)
        }
        self.root = newRoot
        return delta == 1
    }

    /// Removes `key`. Returns true when it was present.
    @discardableResult
    public mutating func remove(_ key: UInt64, in pages: some PageWriting) throws -> Bool {
        let (newRoot, delta) = try TreeEditor<KeyedFlavor>.apply(
            root: root, key: key, .remove, cell: UnsafeRawBufferPointer(start: nil, count: 0), pages)
        root = newRoot
        return delta == -1
    }

    /// The largest key, nil when empty (object keys are allocated above it). O(log n).
    public func lastKey(in pages: some PageReading) throws -> UInt64? {
        guard let leaf = try TreeReader<KeyedFlavor>.edgeLeaf(root, last: true, pages) else { return nil }
        return try KeyedFlavor.leafKey(leaf, leaf.count - 1)
    }

    /// The smallest key, nil when empty. O(log n).
    public func firstKey(in pages: some PageReading) throws -> UInt64? {
        guard let leaf = try TreeReader<KeyedFlavor>.edgeLeaf(root, last: false, pages) else { return nil }
        return try KeyedFlavor.leafKey(leaf, 0)
    }

    /// Calls `body` with the key and value at position `index` in key order (O(log n): branches
    /// carry subtree counts); throws `.invalidArgument` when out of range.
    public func withEntry<R>(at index: Int, in pages: some PageReading,
                             _ body: (UInt64, UnsafeRawBufferPointer) throws -> R) throws -> R {
        guard let (leaf, position) = try TreeReader<KeyedFlavor>.entry(at: index, root, pages) else {
            throw StorageError(.invalidArgument, "index \(index) out of range 0..<\(try count(in: pages))")
        }
        return try KeyedFlavor.withLeafEntry(leaf, position, pages, body)
    }

    /// The number of keys below `key`: its position in key order if present, else where it
    /// would be inserted. O(log n).
    public func rank(of key: UInt64, in pages: some PageReading) throws -> Int {
        try TreeReader<KeyedFlavor>.rank(of: key, root, pages)
    }

    /// Visits entries with key ≥ `start` in ascending order until `body` returns false.
    public func forEach(from start: UInt64 = 0, in pages: some PageReading,
                        _ body: (UInt64, UnsafeRawBufferPointer) throws -> Bool) throws {
        guard !root.isNull else { return }
        try TreeReader<KeyedFlavor>.scan(root, from: start, depth: 0, pages) { leaf, index in
            try KeyedFlavor.withLeafEntry(leaf, index, pages, body)
        }
    }

    /// Visits entries with key ≤ `end` (all when nil) in descending key order until `body`
    /// returns false.
    public func forEachReversed(through end: UInt64? = nil, in pages: some PageReading,
                                _ body: (UInt64, UnsafeRawBufferPointer) throws -> Bool) throws {
        guard !root.isNull else { return }
        try TreeReader<KeyedFlavor>.scanReverse(root, through: end, depth: 0, pages) { leaf, index in
            try KeyedFlavor.withLeafEntry(leaf, index, pages, body)
        }
    }

    /// Frees every page of the tree (and its overflow pages); the tree becomes empty.
    public mutating func destroy(in pages: some PageWriting) throws {
        guard !root.isNull else { return }
        try TreeReader<KeyedFlavor>.destroy(root, depth: 0, pages)
        root = .null
    }
}
