// STUB — the trees work replaces this file with the real copy-on-write counted B+tree.

/// A copy-on-write B+tree of byte-string elements addressed by position, with subtree counts:
/// get, insert, remove and replace at an index and append are O(log n). Lists live here
/// (a list of links stores 8-byte object keys).
public struct PositionalTree: Hashable, Sendable {
    public private(set) var root: PageRef

    public static let maxElementSize = KeyedTree.maxValueSize

    public init(root: PageRef = .null) { self.root = root }

    public var isEmpty: Bool { root.isNull }

    /// Number of elements; O(1).
    public func count(in pages: some PageReading) throws -> Int {
        throw StorageError(.invalidState, "PositionalTree is a stub")
    }

    /// Calls `body` with the element at `index`; throws `.invalidArgument` when out of range.
    public func withElement<R>(at index: Int, in pages: some PageReading,
                               _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        throw StorageError(.invalidState, "PositionalTree is a stub")
    }

    /// Inserts at `index` (0...count).
    public mutating func insert(_ element: UnsafeRawBufferPointer, at index: Int,
                                in pages: some PageWriting) throws {
        throw StorageError(.invalidState, "PositionalTree is a stub")
    }

    public mutating func append(_ element: UnsafeRawBufferPointer, in pages: some PageWriting) throws {
        throw StorageError(.invalidState, "PositionalTree is a stub")
    }

    public mutating func replace(at index: Int, with element: UnsafeRawBufferPointer,
                                 in pages: some PageWriting) throws {
        throw StorageError(.invalidState, "PositionalTree is a stub")
    }

    public mutating func remove(at index: Int, in pages: some PageWriting) throws {
        throw StorageError(.invalidState, "PositionalTree is a stub")
    }

    /// Visits elements from `start` in order until `body` returns false.
    public func forEach(from start: Int = 0, in pages: some PageReading,
                        _ body: (Int, UnsafeRawBufferPointer) throws -> Bool) throws {
        throw StorageError(.invalidState, "PositionalTree is a stub")
    }

    public mutating func destroy(in pages: some PageWriting) throws {
        throw StorageError(.invalidState, "PositionalTree is a stub")
    }
}
