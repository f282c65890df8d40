// The compact form of a tree page: what an encrypted file seals instead of the whole payload.
//
// Why: AES-GCM's cost is per byte, and a small commit seals pages that are largely free space —
// the rightmost leaf and the branches above it. In a bulk insert of one reading per transaction
// the pages sealed held on average 1,776 free bytes of their 4,064 (a temporary counter over
// 400,000 seals). Leaving the free space out of the seal cuts the cipher's work by about as much;
// the disk write is unchanged (a page is still written whole).
//
// What a compact form leaves out (the page's "slack"), by page kind:
// - slotted tree pages (TreePageKind 1–6, NodeLayout.swift): the gap between the slot array and
//   the cell area, which no reader looks at;
// - packed leaves (kind 8, PackedLeaf.swift): entries count..<capacity of the key-offset column
//   and of every stored plane, which that layout keeps zero, and the bytes after the last plane.
// Every other page (overflow, free-list, commit-record pages) has no compact form.
//
// The compact form is the kept byte ranges in page order. `expand` rebuilds the page in place
// from the sizes in the page's own header (decrypted and authenticated by then) and zero-fills
// the slack, so a page read back equals the page written except in bytes nobody reads, which
// come back as zeros.
//
// Invariants:
// - `compact` returns nil rather than guess when a header is not self-consistent; such a page
//   is sealed whole.
// - `expand` never reads or writes outside the payload, whatever the header says, and throws
//   `.corruptPage` when the header does not describe exactly `length` bytes.

enum CompactPage {
    /// A compact form must save at least this many bytes to be used (below it the copy costs more
    /// than the cipher saves).
    static let minimumSaving = 64

    /// Writes the compact form of `payload` (`PageLayout.payloadSize` bytes) to `out` and returns
    /// its length; nil when the page has no compact form or it would save too little.
    static func compact(_ payload: UnsafeRawPointer, into out: UnsafeMutableRawPointer) -> Int? {
        let size = PageLayout.payloadSize
        let kind = payload.load(as: UInt8.self)
        if isSlotted(kind) {
            guard let (head, cellStart) = slottedGap(payload), cellStart - head >= minimumSaving else { return nil }
            out.copyMemory(from: payload, byteCount: head)
            (out + head).copyMemory(from: payload + cellStart, byteCount: size - cellStart)
            return head + (size - cellStart)
        }
        guard kind == TreePageKind.keyedPackedLeaf, let leaf = try? PackedLeaf(ref: .null, base: payload),
              size - compactLength(leaf) >= minimumSaving else { return nil }
        let n = leaf.count
        let planes = keysEnd(leaf)
        out.copyMemory(from: payload, byteCount: planes)
        for column in 0..<leaf.storedPlanes {
            (out + planes + column * n).copyMemory(from: payload + leaf.planesOffset + column * leaf.capacity, byteCount: n)
        }
        return compactLength(leaf)
    }

    /// Rebuilds, in place, the page whose compact form of `length` bytes starts at `payload`.
    static func expand(_ payload: UnsafeMutableRawPointer, length: Int, page: UInt32,
                       path: String?) throws(StorageError) {
        let size = PageLayout.payloadSize
        guard length >= TreeLayout.headerSize, length <= size else {
            throw damaged(page, "a compact length of \(length) bytes", path: path)
        }
        let kind = payload.load(as: UInt8.self)
        if isSlotted(kind) {
            guard let (head, cellStart) = slottedGap(UnsafeRawPointer(payload)), length == head + (size - cellStart) else {
                throw damaged(page, "a slotted header that does not describe its \(length) bytes", path: path)
            }
            (payload + cellStart).copyMemory(from: payload + head, byteCount: size - cellStart)  // memmove
            (payload + head).initializeMemory(as: UInt8.self, repeating: 0, count: cellStart - head)
            return
        }
        guard kind == TreePageKind.keyedPackedLeaf, let leaf = try? PackedLeaf(ref: PageRef(page), base: UnsafeRawPointer(payload)),
              length == compactLength(leaf) else {
            throw damaged(page, "a page of kind \(kind) whose header does not describe its \(length) bytes", path: path)
        }
        // Columns move up, the last first: each one's destination lies at or above its source and
        // above every earlier column's source, so no column is overwritten before it moves.
        let n = leaf.count, c = leaf.capacity
        var column = leaf.storedPlanes - 1
        while column >= 0 {
            let from = keysEnd(leaf) + column * n
            let to = leaf.planesOffset + column * c
            (payload + to).copyMemory(from: payload + from, byteCount: n)
            (payload + to + n).initializeMemory(as: UInt8.self, repeating: 0, count: c - n)
            column -= 1
        }
        (payload + keysEnd(leaf)).initializeMemory(as: UInt8.self, repeating: 0, count: (c - n) * leaf.keyWidth)
        let end = leaf.planesOffset + leaf.storedPlanes * c
        (payload + end).initializeMemory(as: UInt8.self, repeating: 0, count: size - end)
    }

    private static func isSlotted(_ kind: UInt8) -> Bool {
        kind >= TreePageKind.keyedLeaf && kind <= TreePageKind.positionalBranch
    }

    /// A slotted page's gap: the end of its slot array and the start of its cell area, or nil when
    /// its header puts them out of order or past the page.
    private static func slottedGap(_ payload: UnsafeRawPointer) -> (head: Int, cellStart: Int)? {
        let head = TreeLayout.headerSize + TreeLayout.slotSize * payload.treeU16(TreeLayout.countOffset)
        let cellStart = payload.treeU16(TreeLayout.cellStartOffset)
        guard head <= cellStart, cellStart <= PageLayout.payloadSize else { return nil }
        return (head, cellStart)
    }

    /// Where a packed leaf's used key offsets end, which in the compact form is where its planes
    /// start (PackedLeaf validated the header).
    private static func keysEnd(_ leaf: PackedLeaf) -> Int { leaf.offsetsOffset + leaf.count * leaf.keyWidth }

    private static func compactLength(_ leaf: PackedLeaf) -> Int { keysEnd(leaf) + leaf.storedPlanes * leaf.count }

    private static func damaged(_ page: UInt32, _ what: String, path: String?) -> StorageError {
        StorageError(.corruptPage, "page \(page) authenticates but holds \(what)", path: path)
    }
}
