// PositionalTree: the façade of the copy-on-write counted B+tree of byte elements addressed
// by position, on the shared node code with `PositionalFlavor` (branch cells carry subtree
// counts and no keys).
//
// Invariants: a branch cell's count is its child's total, so routing by index is O(log n);
// `count` is the root's total. Appends at the end split in append mode (full left pages).

/// A copy-on-write B+tree of byte-string elements addressed by position, with subtree counts:
/// get, insert, remove and replace at an index and append are O(log n). Lists live here
/// (a list of links stores 8-byte object keys).
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
public struct PositionalTree: Hashable, Sendable {
    /// The root page; `.null` for an empty tree. Store it where the tree lives (a meta root,
    /// a value of another tree) after every mutation.
    public internal(set) var root: PageRef

    /// Largest element in bytes (elements that do not fit inline go to overflow pages).
    public static let maxElementSize = KeyedTree.maxValueSize

    /// A tree whose root is `root` (`.null`: a new, empty list).
    public init(root: PageRef = .null) { self.root = root }

    /// True when the list has no elements (it then owns no page). Needs no page access.
    public var isEmpty: Bool { root.isNull }

    /// Number of elements; O(1).
    public func count(in pages: some PageReading) throws -> Int {
        try TreeReader<PositionalFlavor>.count(root, pages)
    }

    private func checkIndex(_ index: Int, below limit: Int) throws {
        guard index >= 0, index < limit else {
            throw StorageError(.invalidArgument, "index \(index) out of range 0..<\(limit)")
        }
    }

    /// Calls `body` with the element at `index`; throws `.invalidArgument` when out of range.
    public func withElement<R>(at index: Int, in pages: some PageReading,
                               _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        guard index >= 0, let (leaf, position) = try TreeReader<PositionalFlavor>.find(root, UInt64(index), pages) else {
            throw StorageError(.invalidArgument, "index \(index) out of range 0..<\(try count(in: pages))")
        }
        return try leaf.leafCell(position, PositionalFlavor.self).value.withBytes(pages, body)
    }

    /// The element at `index` read as a little-endian UInt64 (a link list's object key).
    /// Throws `.invalidArgument` when out of range or when the element is not 8 bytes.
    public func element64(at index: Int, in pages: some PageReading) throws -> UInt64 {
        try withElement(at: index, in: pages) { bytes in
            guard bytes.count == 8 else {
                throw StorageError(.invalidArgument, "element \(index) has \(bytes.count) bytes, not 8")
            }
            return UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        }
    }

    /// Inserts at `index` (0...count). An element over `maxElementSize` throws `.tooLarge`.
    public mutating func insert(_ element: UnsafeRawBufferPointer, at index: Int,
                                in pages: some PageWriting) throws {
        try checkIndex(index, below: try count(in: pages) + 1)
        let root = self.root
        self.root = try TreeCells.withLeafCell(.none, element, pages) { cell in
            try TreeEditor<PositionalFlavor>.apply(root: root, key: UInt64(index), .insert, cell: cell, pages).root
        }
    }

    /// Appends at the end. O(log n); appends fill pages completely (append-mode splits).
    /// An element over `maxElementSize` throws `.tooLarge`.
    public mutating func append(_ element: UnsafeRawBufferPointer, in pages: some PageWriting) throws {
        let index = try count(in: pages)
        let root = self.root
        self.root = try TreeCells.withLeafCell(.none, element, pages) { cell in
            try TreeEditor<PositionalFlavor>.apply(root: root, key: UInt64(index), .insert, cell: cell, pages).root
        }
    }

    /// Appends `value` as an 8-byte little-endian element.
    public mutating func appendUInt64(_ value: UInt64, in pages: some PageWriting) throws {
        var little = value.littleEndian
        try withUnsafeBytes(of: &little) { try append($0, in: pages) }
    }

    /// Replaces the element at `index` (0..<count; else `.invalidArgument`), freeing the old
    /// one's overflow pages.
    public mutating func replace(at index: Int, with element: UnsafeRawBufferPointer,
                                 in pages: some PageWriting) throws {
        try checkIndex(index, below: try count(in: pages))
        let root = self.root
        self.root = try TreeCells.withLeafCell(.none, element, pages) { cell in
            try TreeEditor<PositionalFlavor>.apply(root: root, key: UInt64(index), .replace, cell: cell, pages).root
        }
    }

    /// Removes the element at `index` (0..<count; else `.invalidArgument`). O(log n).
    public mutating func remove(at index: Int, in pages: some PageWriting) throws {
        try checkIndex(index, below: try count(in: pages))
        let (newRoot, delta) = try TreeEditor<PositionalFlavor>.apply(
            root: root, key: UInt64(index), .remove, cell: UnsafeRawBufferPointer(start: nil, count: 0), pages)
        guard delta == -1 else { throw TreeError.corrupt(root, "element \(index) not found; subtree counts are wrong") }
        root = newRoot
    }

    /// Removes the element at `index` (0..<count; else `.invalidArgument`) after calling
    /// `body` with it (valid only during the call): one descent instead of a read and a removal.
    /// When `body` throws, nothing is removed from the tree value (see the type's error note).
    public mutating func remove(at index: Int, in pages: some PageWriting,
                                removing body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try checkIndex(index, below: try count(in: pages))
        let (newRoot, delta) = try TreeEditor<PositionalFlavor>.apply(
            root: root, key: UInt64(index), .remove, cell: UnsafeRawBufferPointer(start: nil, count: 0), pages,
            removeIf: { element in try body(element); return true })
        guard delta == -1 else { throw TreeError.corrupt(root, "element \(index) not found; subtree counts are wrong") }
        root = newRoot
    }

    /// Removes the first `n` elements (0...count; else `.invalidArgument`): whole leaves are
    /// freed, one is trimmed, one descent per leaf (TreePositionalBatch.swift).
    public mutating func removeFirst(_ n: Int, in pages: some PageWriting) throws {
        try removeFirst(n, in: pages, removing: { _ in })
    }

    /// The index of the first element from `start` for which `predicate` is true, nil if none.
    public func index(from start: Int = 0, in pages: some PageReading,
                      where predicate: (UnsafeRawBufferPointer) throws -> Bool) throws -> Int? {
        var found: Int?
        try forEach(from: start, in: pages) { index, element in
            if try predicate(element) { found = index; return false }
            return true
        }
        return found
    }

    /// Visits elements from `start` in order until `body` returns false.
    public func forEach(from start: Int = 0, in pages: some PageReading,
                        _ body: (Int, UnsafeRawBufferPointer) throws -> Bool) throws {
        guard !root.isNull else { return }
        guard start >= 0 else { throw StorageError(.invalidArgument, "negative start index \(start)") }
        guard start < (try count(in: pages)) else { return }
        var index = start
        try TreeReader<PositionalFlavor>.scan(root, from: UInt64(start), depth: 0, pages) { leaf, position in
            let cell = try leaf.leafCell(position, PositionalFlavor.self)
            defer { index += 1 }
            return try cell.value.withBytes(pages) { try body(index, $0) }
        }
    }

    /// Visits elements from `end` (the last one when nil or beyond the end) down to index 0
    /// until `body` returns false.
    public func forEachReversed(through end: Int? = nil, in pages: some PageReading,
                                _ body: (Int, UnsafeRawBufferPointer) throws -> Bool) throws {
        let count = try count(in: pages)
        guard count > 0 else { return }
        if let end, end < 0 { return }
        var index = min(end ?? count - 1, count - 1)
        try TreeReader<PositionalFlavor>.scanReverse(root, through: UInt64(index), depth: 0, pages) { leaf, position in
            let cell = try leaf.leafCell(position, PositionalFlavor.self)
            defer { index -= 1 }
            return try cell.value.withBytes(pages) { try body(index, $0) }
        }
    }

    /// Frees every page of the list (overflow pages included); the list becomes empty.
    public mutating func destroy(in pages: some PageWriting) throws {
        guard !root.isNull else { return }
        try TreeReader<PositionalFlavor>.destroy(root, depth: 0, pages)
        root = .null
    }
}
