// Page walking for the pager: accounting (which pages are reachable from a root) and
// compaction (copy pages to new numbers and rewrite the references) without knowing the
// node layout.
//
// Invariants:
// - `forEachChild` reports every page directly referenced by a tree page: branch children,
//   the first page of each overflow value in a leaf, the next page of an overflow page.
//   Walking from a root with it reaches every page of that tree exactly once.
// - `rewriteChildren` changes exactly those references and nothing else in the page.
// - Both check the page like the trees do and throw `.corruptFile` on a bad page.
// - Roots of other trees stored inside values are opaque bytes here (the object layer walks
//   them itself).

/// Structure-agnostic walking of tree pages, for the pager's accounting and compaction.
public enum TreePages {
    /// Whether a page whose first payload byte is `kind` belongs to the trees (1…8).
    public static func isTreePage(kind: UInt8) -> Bool {
        kind >= TreePageKind.keyedLeaf && kind <= TreePageKind.keyedPackedLeaf
    }

    /// Calls `body` with every page referenced by the tree page `ofPage` whose payload is
    /// `payload`. Throws `.corruptFile` when the page is not a valid tree page.
    public static func forEachChild(ofPage ref: PageRef, payload: UnsafeRawPointer,
                                    _ body: (PageRef) throws -> Void) throws {
        try walk(ref, payload) { pointer in
            try body(PageRef(payload.treeU32(pointer)))
        }
    }

    /// Replaces every page reference in the tree page at `payload` by `map(reference)`.
    /// Throws `.corruptFile` when the page is not a valid tree page.
    public static func rewriteChildren(payload: UnsafeMutableRawPointer,
                                       _ map: (PageRef) throws -> PageRef) throws {
        try walk(.null, UnsafeRawPointer(payload)) { pointer in
            let old = PageRef(UnsafeRawPointer(payload).treeU32(pointer))
            payload.setTreeU32(pointer, try map(old).raw)
        }
    }

    /// Calls `body` once with every page of the tree rooted at `root` (nodes and overflow
    /// pages), parents before children. Checks every page like the trees do; a page reached
    /// twice (a cycle or shared subtree in a corrupt file) or a tree deeper than possible
    /// throws `.corruptFile`. Nothing when `root` is null.
    public static func forEachPage(ofTreeAt root: PageRef, in pages: some PageReading,
                                   _ body: (PageRef) throws -> Void) throws {
        guard !root.isNull else { return }
        let maxChain = KeyedTree.maxValueSize / TreeOverflow.chunkSize + 1
        var stack: [(ref: PageRef, depth: Int)] = [(root, 0)]
        var seen = Set<UInt32>()
        while let (ref, depth) = stack.popLast() {
            guard !ref.isNull else { throw TreeError.corrupt(ref, "null page reference in a tree") }
            guard seen.insert(ref.raw).inserted else { throw TreeError.corrupt(ref, "page referenced twice in one tree") }
            let payload = try pages.readPage(ref)
            let isOverflow = payload.load(as: UInt8.self) == TreePageKind.overflow
            guard depth < (isOverflow ? TreeLayout.maxDepth + maxChain : TreeLayout.maxDepth) else {
                throw TreeError.corrupt(ref, "tree deeper or overflow chain longer than possible")
            }
            try body(ref)
            try walk(ref, payload) { offset in
                stack.append((PageRef(payload.treeU32(offset)), depth + 1))
            }
        }
    }

    /// Calls `body` with the byte offset of each page reference in the page.
    private static func walk(_ ref: PageRef, _ payload: UnsafeRawPointer, _ body: (Int) throws -> Void) throws {
        let kind = payload.load(as: UInt8.self)
        switch kind {
        case TreePageKind.keyedLeaf, TreePageKind.keyedBranch: try walkNode(ref, payload, KeyedFlavor.self, body)
        case TreePageKind.bytesLeaf, TreePageKind.bytesBranch: try walkNode(ref, payload, BytesFlavor.self, body)
        case TreePageKind.positionalLeaf, TreePageKind.positionalBranch:
            try walkNode(ref, payload, PositionalFlavor.self, body)
        case TreePageKind.keyedPackedLeaf:
            // Only inline values: no references to follow, but the page must be valid.
            _ = try PackedLeaf(ref: ref, base: payload)
        case TreePageKind.overflow:
            let chunk = Int(payload.treeU32(TreeOverflow.lengthOffset))
            guard chunk > 0, chunk <= TreeOverflow.chunkSize else {
                throw TreeError.corrupt(ref, "bad overflow page (\(chunk) bytes)")
            }
            if payload.treeU32(TreeOverflow.nextOffset) != 0 { try body(TreeOverflow.nextOffset) }
        default:
            throw TreeError.corrupt(ref, "page kind \(kind) is not a tree page")
        }
    }

    private static func walkNode<F: TreeFlavor>(_ ref: PageRef, _ payload: UnsafeRawPointer, _ flavor: F.Type,
                                                _ body: (Int) throws -> Void) throws {
        let node = try TreeNode(ref: ref, base: payload, flavor: F.self)
        for i in 0..<node.count {
            if node.isLeaf {
                let cell = try node.leafCell(i, F.self)
                if cell.value.inline == nil {
                    try body(cell.offset + cell.keySize + TreeLayout.valueHeaderSize)
                }
            } else {
                try body(try node.cellOffset(i, need: TreeLayout.branchKeyOffset) + TreeLayout.branchChildOffset)
            }
        }
    }
}
