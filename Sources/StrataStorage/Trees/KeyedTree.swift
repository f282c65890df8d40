// STUB — the trees work replaces this file with the real copy-on-write B+tree.
// The public signatures here are the contract the object layer codes against.

/// A copy-on-write B+tree from `UInt64` keys to byte-string values, in key order.
/// Objects of one class live in one `KeyedTree` keyed by object key.
///
/// The tree is a value: `root` is all there is. Mutations go through a `PageWriting`
/// (a write transaction) and change `root`; the caller stores the new root where the old one was.
/// Values up to `maxValueSize` bytes are accepted; large ones spill to overflow pages.
public struct KeyedTree: Hashable, Sendable {
    public private(set) var root: PageRef

    public static let maxValueSize = 16 * 1024 * 1024 + 64

    public init(root: PageRef = .null) { self.root = root }

    public var isEmpty: Bool { root.isNull }

    /// Number of keys; O(1) (kept in the root).
    public func count(in pages: some PageReading) throws -> Int {
        throw StorageError(.invalidState, "KeyedTree is a stub")
    }

    /// Calls `body` with the value stored under `key` (zero-copy when it fits in a page);
    /// nil when absent. The buffer is valid only inside `body`.
    public func withValue<R>(forKey key: UInt64, in pages: some PageReading,
                             _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        throw StorageError(.invalidState, "KeyedTree is a stub")
    }

    public func contains(_ key: UInt64, in pages: some PageReading) throws -> Bool {
        throw StorageError(.invalidState, "KeyedTree is a stub")
    }

    /// Inserts or replaces. Returns true when `key` was not present before.
    @discardableResult
    public mutating func put(_ key: UInt64, _ value: UnsafeRawBufferPointer,
                             in pages: some PageWriting) throws -> Bool {
        throw StorageError(.invalidState, "KeyedTree is a stub")
    }

    /// Removes `key`. Returns true when it was present.
    @discardableResult
    public mutating func remove(_ key: UInt64, in pages: some PageWriting) throws -> Bool {
        throw StorageError(.invalidState, "KeyedTree is a stub")
    }

    /// The largest key, nil when empty (object keys are allocated above it).
    public func lastKey(in pages: some PageReading) throws -> UInt64? {
        throw StorageError(.invalidState, "KeyedTree is a stub")
    }

    /// Visits entries with key ≥ `start` in ascending order until `body` returns false.
    public func forEach(from start: UInt64 = 0, in pages: some PageReading,
                        _ body: (UInt64, UnsafeRawBufferPointer) throws -> Bool) throws {
        throw StorageError(.invalidState, "KeyedTree is a stub")
    }

    /// Frees every page of the tree (and its overflow pages); the tree becomes empty.
    public mutating func destroy(in pages: some PageWriting) throws {
        throw StorageError(.invalidState, "KeyedTree is a stub")
    }
}
