// Leaf cells: the value part of a stored entry (inline bytes or an overflow reference) and
// building the cell of a new entry.
//
// Invariants:
// - A value is inline when key part + 4-byte header + value fit in `TreeLayout.maxCellSize`;
//   otherwise the cell holds the header (length | overflowFlag) and the first overflow page.
// - An empty value under a bytes key has no header at all (`TreeLayout.emptyValueFlag`).
// - `withBytes` hands out a pointer into the page for inline values (zero-copy); overflow
//   values are assembled in a temporary buffer that lives only during the call.
// - Parsing checks every length against the page and `KeyedTree.maxValueSize`.

/// A leaf value as stored: inline bytes in the page, or the head of an overflow chain.
struct TreeStoredValue {
    /// Inline: pointer to the bytes in the page. Overflow: nil.
    let inline: UnsafeRawPointer?
    let length: Int
    let firstOverflow: PageRef

    /// Parses the value part at `offset` of `base` (a page of `ref`), bounds-checked.
    @inline(__always)
    static func parse(_ base: UnsafeRawPointer, at offset: Int, ref: PageRef) throws -> (value: TreeStoredValue, partSize: Int) {
        guard offset + TreeLayout.valueHeaderSize <= TreeLayout.payloadSize else {
            throw TreeError.corrupt(ref, "value header outside the page")
        }
        let header = base.treeU32(offset)
        if header & TreeLayout.overflowFlag != 0 {
            let length = Int(header & ~TreeLayout.overflowFlag)
            guard offset + TreeLayout.overflowValuePartSize <= TreeLayout.payloadSize,
                  length <= KeyedTree.maxValueSize else {
                throw TreeError.corrupt(ref, "bad overflow value reference")
            }
            let first = PageRef(base.treeU32(offset + TreeLayout.valueHeaderSize))
            return (TreeStoredValue(inline: nil, length: length, firstOverflow: first), TreeLayout.overflowValuePartSize)
        }
        let length = Int(header)
        guard offset + TreeLayout.valueHeaderSize + length <= TreeLayout.payloadSize else {
            throw TreeError.corrupt(ref, "inline value of \(length) bytes runs past the page")
        }
        return (TreeStoredValue(inline: base + offset + TreeLayout.valueHeaderSize, length: length, firstOverflow: .null),
                TreeLayout.valueHeaderSize + length)
    }
}

extension TreeStoredValue {
    /// Calls `body` with the value: a pointer into the page when inline, a temporary copy
    /// when it lives in overflow pages.
    @inline(__always)
    func withBytes<R>(_ pages: any PageReading, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        if let inline { return try body(UnsafeRawBufferPointer(start: inline, count: length)) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 16)
        defer { buffer.deallocate() }
        guard let destination = buffer.baseAddress else { return try body(UnsafeRawBufferPointer(buffer)) }
        try TreeOverflow.read(first: firstOverflow, length: length, pages, into: destination)
        return try body(UnsafeRawBufferPointer(buffer))
    }

    /// Frees the overflow chain, if any.
    @inline(__always)
    func free(_ pages: any PageWriting) throws {
        if inline == nil { try TreeOverflow.free(first: firstOverflow, length: length, pages) }
    }
}

/// The key part of a leaf cell being built.
enum TreeKeyPart {
    case none
    case uint64(UInt64)
    case bytes(UnsafeRawBufferPointer)

    var size: Int {
        switch self {
        case .none: 0
        case .uint64: 8
        case .bytes(let key): 2 + key.count
        }
    }

    func write(to base: UnsafeMutableRawPointer) {
        switch self {
        case .none: break
        case .uint64(let key): base.setTreeU64(0, key)
        case .bytes(let key):
            base.setTreeU16(0, key.count)
            if let source = key.baseAddress, key.count > 0 { (base + 2).copyMemory(from: source, byteCount: key.count) }
        }
    }
}

enum TreeCells {
    /// Builds the leaf cell for `key` → `value` in a stack buffer and calls `body` with it.
    /// Values that would make the cell larger than `maxCellSize` go to a new overflow chain
    /// (written before `body` runs).
    static func withLeafCell<R>(_ key: TreeKeyPart, _ value: UnsafeRawBufferPointer, _ pages: any PageWriting,
                                _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        guard value.count <= KeyedTree.maxValueSize else {
            throw StorageError(.tooLarge, "a value of \(value.count) bytes exceeds the limit of \(KeyedTree.maxValueSize)")
        }
        let keySize = key.size
        if value.isEmpty, case .bytes(let bytes) = key {  // the key alone (NodeLayout.swift)
            return try withUnsafeTemporaryAllocation(byteCount: keySize, alignment: 8) { buffer in
                guard let cell = buffer.baseAddress else { throw StorageError(.invalidState, "no cell buffer") }
                key.write(to: cell)
                cell.setTreeU16(0, bytes.count | TreeLayout.emptyValueFlag)
                return try body(UnsafeRawBufferPointer(start: cell, count: keySize))
            }
        }
        let inline = keySize + TreeLayout.valueHeaderSize + value.count <= TreeLayout.maxCellSize
        let size = keySize + (inline ? TreeLayout.valueHeaderSize + value.count : TreeLayout.overflowValuePartSize)
        let first = inline ? PageRef.null : try TreeOverflow.write(value, pages)
        // Exactly the cell's size: buffers up to 1 KiB live on the stack (no allocation per put).
        return try withUnsafeTemporaryAllocation(byteCount: size, alignment: 8) { buffer in
            guard let cell = buffer.baseAddress else { throw StorageError(.invalidState, "no cell buffer") }
            key.write(to: cell)
            if inline {
                cell.setTreeU32(keySize, UInt32(value.count))
                if let source = value.baseAddress, value.count > 0 {
                    (cell + keySize + TreeLayout.valueHeaderSize).copyMemory(from: source, byteCount: value.count)
                }
            } else {
                cell.setTreeU32(keySize, UInt32(value.count) | TreeLayout.overflowFlag)
                cell.setTreeU32(keySize + TreeLayout.valueHeaderSize, first.raw)
            }
            return try body(UnsafeRawBufferPointer(start: cell, count: size))
        }
    }
}
