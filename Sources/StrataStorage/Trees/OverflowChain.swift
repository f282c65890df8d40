// Overflow chains: values too large to sit inline in a leaf are stored in a linked list of
// overflow pages; the leaf cell keeps the value length and the first page.
//
// Overflow page payload:
//   offset 0  UInt8  kind = TreePageKind.overflow
//   offset 1  3 bytes reserved (0)
//   offset 4  UInt32 next page (0 = last)
//   offset 8  UInt32 bytes of value in this page (1…chunkSize)
//   offset 12 value bytes
//
// Invariants:
// - Overflow pages are written once, when the value is stored, and never modified: replacing
//   or removing the value frees the whole chain and (for a replacement) writes a new one.
// - A chain holds exactly `length` bytes in ⌈length / chunkSize⌉ pages; reading checks kinds,
//   chunk lengths and the page count, so a corrupt or cyclic chain throws `.corruptFile`.

enum TreeOverflow {
    static let nextOffset = 4
    static let lengthOffset = 8
    static let dataOffset = 12
    static let chunkSize = TreeLayout.payloadSize - dataOffset

    /// Writes `value` (non-empty) into a new chain and returns its first page.
    static func write(_ value: UnsafeRawBufferPointer, _ pages: any PageWriting) throws -> PageRef {
        guard let source = value.baseAddress, value.count > 0 else {
            throw StorageError(.invalidArgument, "an overflow chain needs a non-empty value")
        }
        var first = PageRef.null
        var previous: UnsafeMutableRawPointer?
        var written = 0
        while written < value.count {
            let (ref, page) = try pages.allocatePage()
            let chunk = min(chunkSize, value.count - written)
            page.initializeMemory(as: UInt8.self, repeating: 0, count: dataOffset)
            page.storeBytes(of: TreePageKind.overflow, as: UInt8.self)
            page.setTreeU32(lengthOffset, UInt32(chunk))
            (page + dataOffset).copyMemory(from: source + written, byteCount: chunk)
            if let previous { previous.setTreeU32(nextOffset, ref.raw) } else { first = ref }
            previous = page
            written += chunk
        }
        return first
    }

    /// Visits the pages of a chain of `length` bytes in order, checking each one.
    static func forEachPage(first: PageRef, length: Int, _ pages: any PageReading,
                            _ body: (PageRef, UnsafeRawPointer, Int) throws -> Void) throws {
        var ref = first
        var remaining = length
        while remaining > 0 {
            guard !ref.isNull else { throw TreeError.corrupt(first, "overflow chain ends \(remaining) bytes early") }
            let page = try pages.readPage(ref)
            let chunk = Int(page.treeU32(lengthOffset))
            guard page.load(as: UInt8.self) == TreePageKind.overflow, chunk > 0, chunk <= min(chunkSize, remaining) else {
                throw TreeError.corrupt(ref, "bad overflow page (kind \(page.load(as: UInt8.self)), \(chunk) bytes)")
            }
            let next = PageRef(page.treeU32(nextOffset))
            try body(ref, page, chunk)
            remaining -= chunk
            ref = next
        }
        guard ref.isNull else { throw TreeError.corrupt(first, "overflow chain longer than its value") }
    }

    /// Copies the chain into `destination` (`length` bytes).
    static func read(first: PageRef, length: Int, _ pages: any PageReading, into destination: UnsafeMutableRawPointer) throws {
        var written = 0
        try forEachPage(first: first, length: length, pages) { _, page, chunk in
            (destination + written).copyMemory(from: page + dataOffset, byteCount: chunk)
            written += chunk
        }
    }

    /// Frees every page of the chain.
    static func free(first: PageRef, length: Int, _ pages: any PageWriting) throws {
        try forEachPage(first: first, length: length, pages) { ref, _, _ in pages.freePage(ref) }
    }
}
