// BytesTree: the façade of the copy-on-write B+tree from byte-string keys (memcmp order) to
// byte strings, on the shared node code with `BytesFlavor`.
//
// Invariants: keys in a leaf are strictly ascending in memcmp order (a proper prefix first);
// keys are at most `maxKeySize` bytes; `count` is the root's total.

/// A copy-on-write B+tree from byte-string keys (memcmp order, at most `maxKeySize` bytes)
/// to byte-string values. Used for indexes (key = encoded value ++ object key) and catalogs.
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
public struct BytesTree: Hashable, Sendable {
    /// The root page; `.null` for an empty tree. Store it where the tree lives (a meta root,
    /// a value of another tree) after every mutation.
    public internal(set) var root: PageRef

    /// Longest key in bytes: keeps at least three entries per page so splits always work.
    public static let maxKeySize = 1024
    /// Largest value in bytes (values that do not fit inline go to overflow pages).
    public static let maxValueSize = KeyedTree.maxValueSize

    /// A tree whose root is `root` (`.null`: a new, empty tree).
    public init(root: PageRef = .null) { self.root = root }

    /// True when the tree has no entries (it then owns no page). Needs no page access.
    public var isEmpty: Bool { root.isNull }

    /// Number of keys; O(1).
    public func count(in pages: some PageReading) throws -> Int {
        try TreeReader<BytesFlavor>.count(root, pages)
    }

    /// Calls `body` with the value stored under `key` (zero-copy when inline); nil when absent.
    public func withValue<R>(forKey key: UnsafeRawBufferPointer, in pages: some PageReading,
                             _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        guard key.count <= Self.maxKeySize else { return nil }
        guard let (leaf, index) = try BytesFlavor.find(root, key, pages) else { return nil }
        return try leaf.leafCell(index, BytesFlavor.self).value.withBytes(pages, body)
    }

    /// Whether `key` is present. O(log n).
    public func contains(_ key: UnsafeRawBufferPointer, in pages: some PageReading) throws -> Bool {
        guard key.count <= Self.maxKeySize else { return false }
        return try BytesFlavor.find(root, key, pages) != nil
    }

    /// Inserts or replaces; true when the key is new. A key over `maxKeySize` or a value over
    /// `maxValueSize` throws `.tooLarge`.
    @discardableResult
    public mutating func put(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer,
                             in pages: some PageWriting) throws -> Bool {
        guard key.count <= Self.maxKeySize else {
            throw StorageError(.tooLarge, "a key of \(key.count) bytes exceeds the limit of \(Self.maxKeySize)")
        }
        let root = self.root
        let (newRoot, delta) = try TreeCells.withLeafCell(.bytes(key), value, pages) { cell in
            try TreeEditor<BytesFlavor>.apply(root: root, key: key, .upsert, cell: cell, pages)
        }
        self.root = newRoot
        return delta == 1
    }

    /// Removes `key`; true when it was present.
    @discardableResult
    /// Removes `key` and frees its overflow pages; true when it was present. Removing an absent
    /// key changes and copies nothing.
    public mutating func remove(_ key: UnsafeRawBufferPointer, in pages: some PageWriting) throws -> Bool {
        guard key.count <= Self.maxKeySize else { return false }
        let (newRoot, delta) = try TreeEditor<BytesFlavor>.apply(
            root: root, key: key, .remove, cell: UnsafeRawBufferPointer(start: nil, count: 0), pages)
        root = newRoot
        return delta == -1
    }

    /// Removes `key` when it is present and `shouldRemove` (called with its value, valid only
    /// during the call) returns true; returns whether it was removed. One descent instead of a
    /// lookup followed by a removal (a reference count stored as the value: read it, and remove
    /// the entry when it drops to zero, else rewrite it).
    @discardableResult
    public mutating func remove(_ key: UnsafeRawBufferPointer, in pages: some PageWriting,
                                if shouldRemove: (UnsafeRawBufferPointer) throws -> Bool) throws -> Bool {
        guard key.count <= Self.maxKeySize else { return false }
        let (newRoot, delta) = try TreeEditor<BytesFlavor>.apply(
            root: root, key: key, .remove, cell: UnsafeRawBufferPointer(start: nil, count: 0), pages,
            removeIf: shouldRemove)
        root = newRoot
        return delta == -1
    }

    /// Calls `body` with the key and value at position `index` in key order (O(log n));
    /// throws `.invalidArgument` when out of range.
    public func withEntry<R>(at index: Int, in pages: some PageReading,
                             _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R) throws -> R {
        guard let (leaf, position) = try TreeReader<BytesFlavor>.entry(at: index, root, pages) else {
            throw StorageError(.invalidArgument, "index \(index) out of range 0..<\(try count(in: pages))")
        }
        let cell = try leaf.leafCell(position, BytesFlavor.self)
        let key = UnsafeRawBufferPointer(start: leaf.base + cell.offset + 2, count: cell.keySize - 2)
        return try cell.value.withBytes(pages) { try body(key, $0) }
    }

    /// The number of keys below `key` (its position, present or not). O(log n).
    /// Keys over `maxKeySize` throw `.tooLarge`.
    public func rank(of key: UnsafeRawBufferPointer, in pages: some PageReading) throws -> Int {
        guard key.count <= Self.maxKeySize else {
            throw StorageError(.tooLarge, "a key of \(key.count) bytes exceeds the limit of \(Self.maxKeySize)")
        }
        return try TreeReader<BytesFlavor>.rank(of: key, root, pages)
    }

    /// Visits entries with key ≥ `start` (all when nil) in ascending order until `body` returns false.
    public func forEach(from start: UnsafeRawBufferPointer?, in pages: some PageReading,
                        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        guard !root.isNull else { return }
        let visit = { (leaf: TreeNode, index: Int) throws -> Bool in
            let cell = try leaf.leafCell(index, BytesFlavor.self)
            let key = UnsafeRawBufferPointer(start: leaf.base + cell.offset + 2, count: cell.keySize - 2)
            return try cell.value.withBytes(pages) { try body(key, $0) }
        }
        if let start {
            try BytesFlavor.scan(try TreeNode.read(root, pages, BytesFlavor.self), from: start, lower: nil, upper: nil, depth: 0, pages, visit)
        } else {
            try TreeReader<BytesFlavor>.scan(root, from: nil, depth: 0, pages, visit)
        }
    }

    /// Visits entries with key ≤ `end` (all when nil) in descending key order until `body`
    /// returns false.
    public func forEachReversed(through end: UnsafeRawBufferPointer? = nil, in pages: some PageReading,
                                _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        guard !root.isNull else { return }
        try TreeReader<BytesFlavor>.scanReverse(root, through: end, depth: 0, pages) { leaf, index in
            let cell = try leaf.leafCell(index, BytesFlavor.self)
            let key = UnsafeRawBufferPointer(start: leaf.base + cell.offset + 2, count: cell.keySize - 2)
            return try cell.value.withBytes(pages) { try body(key, $0) }
        }
    }

    /// The smallest key ≥ `key` (lower bound), with its value; nil when every key is smaller.
    /// Key and value buffers are valid only inside `body`.
    public func withLowerBound<R>(_ key: UnsafeRawBufferPointer, in pages: some PageReading,
                                  _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R) throws -> R? {
        var result: R?
        try forEach(from: key, in: pages) { foundKey, value in
            result = try body(foundKey, value)
            return false
        }
        return result
    }

    /// Frees every page of the tree (overflow pages included); the tree becomes empty.
    public mutating func destroy(in pages: some PageWriting) throws {
        guard !root.isNull else { return }
        try TreeReader<BytesFlavor>.destroy(root, depth: 0, pages)
        root = .null
    }
}
