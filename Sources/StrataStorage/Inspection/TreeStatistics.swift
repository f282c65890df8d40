// The shape of one tree: depth, pages by kind, how full its leaves are, its overflow chains.
// For the `strata stat` report (which trees take the file's pages, and how densely).
//
// Invariants:
// - Walks exactly the pages `TreePages.forEachPage` walks (nodes and overflow pages), checking
//   each one as the trees do: a damaged page throws `.corruptFile` (TreeError), never a figure.
// - Leaf fill counts the bytes a leaf's entries take (header, slots and live cells; for a packed
//   leaf its planes) against the payload of a page, so a freshly split leaf reads about 0.5.

/// The shape of one tree.
public struct TreeStatistics: Hashable, Sendable {
    /// Levels of nodes from the root to the leaves (0 for an empty tree).
    public var depth = 0
    public var branchPages = 0
    public var leafPages = 0
    /// Pages of large values stored outside their leaf.
    public var overflowPages = 0
    /// Values stored in overflow pages (each is one chain).
    public var overflowValues = 0
    /// Entries in the leaves.
    public var entries = 0
    /// Bytes the leaves' entries take, headers and slots included.
    public var leafBytes = 0

    public init() {}

    public var pages: Int { branchPages + leafPages + overflowPages }

    /// Mean fill of the leaves, 0…1 (0 for an empty tree).
    public var leafFill: Double {
        leafPages == 0 ? 0 : Double(leafBytes) / Double(leafPages * PageLayout.payloadSize)
    }

    /// Adds another tree's figures (depth: the deeper of the two).
    public mutating func add(_ other: TreeStatistics) {
        depth = max(depth, other.depth)
        branchPages += other.branchPages
        leafPages += other.leafPages
        overflowPages += other.overflowPages
        overflowValues += other.overflowValues
        entries += other.entries
        leafBytes += other.leafBytes
    }
}

extension TreePages {
    /// The shape of the tree rooted at `root` (any flavor).
    public static func statistics(ofTreeAt root: PageRef, in pages: some PageReading) throws -> TreeStatistics {
        var stats = TreeStatistics()
        var leafDepth: Int? = nil
        try forEachPage(ofTreeAt: root, in: pages, depthFirst: { ref, depth, parentIsLeaf in
            let payload = try pages.readPage(ref)
            let kind = payload.load(as: UInt8.self)
            switch kind {
            case TreePageKind.overflow:
                stats.overflowPages += 1
                if parentIsLeaf { stats.overflowValues += 1 }
                return false
            case TreePageKind.keyedPackedLeaf:
                let leaf = try PackedLeaf(ref: ref, base: payload)
                stats.leafPages += 1
                stats.entries += leaf.count
                stats.leafBytes += TreeLayout.headerSize + leaf.filledBytes
            case TreePageKind.keyedLeaf, TreePageKind.bytesLeaf, TreePageKind.positionalLeaf:
                let count = payload.treeU16(TreeLayout.countOffset)
                stats.leafPages += 1
                stats.entries += count
                stats.leafBytes += TreeLayout.headerSize + count * TreeLayout.slotSize + payload.treeU16(TreeLayout.usedBytesOffset)
            default:
                stats.branchPages += 1
                return false
            }
            if let known = leafDepth, known != depth {
                throw TreeError.corrupt(ref, "leaves at depths \(known) and \(depth) in one tree")
            }
            leafDepth = depth
            return true
        })
        stats.depth = leafDepth.map { $0 + 1 } ?? 0
        return stats
    }

    /// `forEachPage` with each page's node depth (overflow pages carry their leaf's) and whether
    /// its parent is a leaf (`body` returns whether the page it was given is one).
    private static func forEachPage(ofTreeAt root: PageRef, in pages: some PageReading,
                                    depthFirst body: (PageRef, Int, Bool) throws -> Bool) throws {
        guard !root.isNull else { return }
        var stack: [(ref: PageRef, depth: Int, parentIsLeaf: Bool)] = [(root, 0, false)]
        var seen = Set<UInt32>()
        while let (ref, depth, parentIsLeaf) = stack.popLast() {
            guard !ref.isNull else { throw TreeError.corrupt(ref, "null page reference in a tree") }
            guard seen.insert(ref.raw).inserted else { throw TreeError.corrupt(ref, "page referenced twice in one tree") }
            guard depth < TreeLayout.maxDepth + KeyedTree.maxValueSize / TreeOverflow.chunkSize + 1 else {
                throw TreeError.corrupt(ref, "tree deeper or overflow chain longer than possible")
            }
            let isLeaf = try body(ref, depth, parentIsLeaf)
            let payload = try pages.readPage(ref)
            let isOverflow = payload.load(as: UInt8.self) == TreePageKind.overflow
            // Overflow pages keep their leaf's depth so that a chain does not look like a level.
            try forEachChild(ofPage: ref, payload: payload) { child in
                stack.append((child, isLeaf || isOverflow ? depth : depth + 1, isLeaf))
            }
        }
    }
}
