// STUB — the trees work replaces this file with the real copy-on-write B+tree.

/// A copy-on-write B+tree from byte-string keys (memcmp order, at most `maxKeySize` bytes)
/// to byte-string values. Used for indexes (key = encoded value ++ object key) and catalogs.
public struct BytesTree: Hashable, Sendable {
    public private(set) var root: PageRef

    public static let maxKeySize = 1024
    public static let maxValueSize = KeyedTree.maxValueSize

    public init(root: PageRef = .null) { self.root = root }

    public var isEmpty: Bool { root.isNull }

    public func count(in pages: some PageReading) throws -> Int {
        throw StorageError(.invalidState, "BytesTree is a stub")
    }

    public func withValue<R>(forKey key: UnsafeRawBufferPointer, in pages: some PageReading,
                             _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        throw StorageError(.invalidState, "BytesTree is a stub")
    }

    /// Inserts or replaces; true when the key is new. A key over `maxKeySize` throws `.tooLarge`.
    @discardableResult
    public mutating func put(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer,
                             in pages: some PageWriting) throws -> Bool {
        throw StorageError(.invalidState, "BytesTree is a stub")
    }

    @discardableResult
    public mutating func remove(_ key: UnsafeRawBufferPointer, in pages: some PageWriting) throws -> Bool {
        throw StorageError(.invalidState, "BytesTree is a stub")
    }

    /// Visits entries with key ≥ `start` (all when nil) in ascending order until `body` returns false.
    public func forEach(from start: UnsafeRawBufferPointer?, in pages: some PageReading,
                        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        throw StorageError(.invalidState, "BytesTree is a stub")
    }

    public mutating func destroy(in pages: some PageWriting) throws {
        throw StorageError(.invalidState, "BytesTree is a stub")
    }
}
