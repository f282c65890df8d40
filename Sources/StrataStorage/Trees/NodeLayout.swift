// Node layout shared by KeyedTree, BytesTree and PositionalTree: one slotted-page format.
//
// Every tree page payload (PageLayout.payloadSize bytes) starts with a 16-byte header:
//
//   offset 0  UInt8   kind (TreePageKind: 1…7; 0 is invalid; 16…31 belong to the pager)
//   offset 1  UInt8   reserved (0)
//   offset 2  UInt16  cell count n
//   offset 4  UInt16  cellStart: lowest byte offset of the cell area (cells grow down from the end)
//   offset 6  UInt16  usedBytes: bytes of live cells (the cell area may hold dead bytes too)
//   offset 8  UInt64  total: entries in this subtree (leaf: n; branch: sum of child counts)
//   offset 16 UInt16 × n  slot array: byte offset of cell i, in key (or position) order
//
// Cells (all integers little-endian, unaligned):
//   leaf   = keyPart, valueHeader UInt32, then the value bytes (inline) or a UInt32 first
//            overflow page (when valueHeader has bit 31 set; its low 31 bits are the length)
//   branch = child UInt32, child subtree count UInt64, keyPart
//   keyPart: keyed = UInt64 key; bytes = UInt16 length + key bytes; positional = nothing.
//   A bytes leaf cell whose value is empty (an index entry: the key is all it holds) has no value
//   header: bit 15 of its key length is set and the cell ends with the key (storage format 6;
//   bytes keys are at most 1,024 bytes, so the bit is free). Branch cells never set it.
//
// Invariants:
// - 16 + 2n ≤ cellStart ≤ payloadSize and usedBytes ≤ payloadSize − cellStart; every cell
//   lies inside [cellStart, payloadSize). Reading checks all of this and throws `.corruptFile`.
// - A cell plus its slot never exceeds a third of the usable bytes (`maxCellSize`), so a node
//   that overflows by one cell can always be split into two nodes that fit.
// - In a branch, the key of cell 0 is never used for routing (it stands for −∞); the key of
//   cell i > 0 is ≤ every key of child i and > every key of child i−1.
// - Leaves are never empty and branches have at least one child, except that an empty tree
//   has no page at all (root = PageRef.null).

internal import CStrataPrefetch

/// The first payload byte of every tree page.
public enum TreePageKind {
    /// KeyedTree leaf: UInt64 keys with values.
    public static let keyedLeaf: UInt8 = 1
    /// KeyedTree branch: children, their counts and separator keys.
    public static let keyedBranch: UInt8 = 2
    /// BytesTree leaf.
    public static let bytesLeaf: UInt8 = 3
    /// BytesTree branch.
    public static let bytesBranch: UInt8 = 4
    /// PositionalTree leaf: elements in order.
    public static let positionalLeaf: UInt8 = 5
    /// PositionalTree branch: children and their counts.
    public static let positionalBranch: UInt8 = 6
    /// One page of a large value's overflow chain (any tree).
    public static let overflow: UInt8 = 7
    /// KeyedTree leaf of same-length values stored as byte planes (PackedLeaf.swift).
    public static let keyedPackedLeaf: UInt8 = 8
}

enum TreeLayout {
    static let payloadSize = PageLayout.payloadSize
    static let kindOffset = 0
    static let countOffset = 2
    static let cellStartOffset = 4
    static let usedBytesOffset = 6
    static let totalOffset = 8
    static let headerSize = 16
    static let slotSize = 2
    /// Bytes available for slots and cells.
    static let usableSize = payloadSize - headerSize
    /// Largest cell: cell + slot ≤ usable / 3 guarantees a split of n + 1 cells into two pages
    /// (each half holds at most usable/2 + 1.5 × that ≤ usable bytes).
    static let maxCellSize = usableSize / 3 - slotSize
    /// Below this many used bytes (cells + slots) a node tries to merge with a sibling (when
    /// both fit in one page). Two fifths: high enough to keep pages reasonably full after
    /// random removals, below the half-full pages a split produces, so an insert/remove pair
    /// at a boundary does not split and merge the same pages over and over.
    static let underfullBytes = usableSize * 2 / 5
    /// Guard against reference cycles in a corrupt file: no real tree is this deep
    /// (fan-out ≥ 3 per level).
    static let maxDepth = 48

    static let branchChildOffset = 0
    static let branchCountOffset = 4
    static let branchKeyOffset = 12
    static let valueHeaderSize = 4
    static let overflowFlag: UInt32 = 1 << 31
    /// Bit 15 of a bytes leaf cell's key length: the cell has no value header and an empty value.
    static let emptyValueFlag = 0x8000
    /// Value part of a leaf cell whose value lives in overflow pages: header + first page.
    static let overflowValuePartSize = 8
}

// MARK: - Unaligned little-endian access

extension UnsafeRawPointer {
    @inline(__always) func treeU16(_ offset: Int) -> Int {
        Int(UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
    }
    @inline(__always) func treeU32(_ offset: Int) -> UInt32 {
        UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
    @inline(__always) func treeU64(_ offset: Int) -> UInt64 {
        UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}

extension UnsafeMutableRawPointer {
    @inline(__always) func setTreeU16(_ offset: Int, _ value: Int) {
        storeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian, toByteOffset: offset, as: UInt16.self)
    }
    @inline(__always) func setTreeU32(_ offset: Int, _ value: UInt32) {
        storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self)
    }
    @inline(__always) func setTreeU64(_ offset: Int, _ value: UInt64) {
        storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self)
    }
}

enum TreeError {
    static func corrupt(_ ref: PageRef, _ what: String) -> StorageError {
        StorageError(.corruptFile, "tree \(ref): \(what)")
    }
}

// MARK: - Validated read-only node view

/// A tree node whose header has been checked. Cell accessors check each cell's bounds.
struct TreeNode {
    let ref: PageRef
    let base: UnsafeRawPointer
    let kind: UInt8
    let isLeaf: Bool
    let count: Int
    let cellStart: Int
    let usedBytes: Int
    /// A packed keyed leaf (PackedLeaf.swift): it has no slots or cells, so `cellOffset` fails
    /// on it (`cellStart` is the page end) and every keyed path asks `packed` instead.
    let isPacked: Bool

    @inline(__always)
    static func read<F: TreeFlavor>(_ ref: PageRef, _ pages: any PageReading, _ flavor: F.Type) throws -> TreeNode {
        guard !ref.isNull else { throw TreeError.corrupt(ref, "null child reference in a \(F.name) tree") }
        return try TreeNode(ref: ref, base: try pages.readPage(ref), flavor: flavor)
    }

    @inline(__always)
    init<F: TreeFlavor>(ref: PageRef, base: UnsafeRawPointer, flavor: F.Type) throws {
        self.ref = ref
        self.base = base
        kind = base.load(as: UInt8.self)
        isPacked = kind == TreePageKind.keyedPackedLeaf && F.leafKind == TreePageKind.keyedLeaf
        guard kind == F.leafKind || kind == F.branchKind || isPacked else {
            throw TreeError.corrupt(ref, "page kind \(kind), expected a \(F.name) node")
        }
        isLeaf = kind != F.branchKind
        if isPacked {
            count = try PackedLeaf(ref: ref, base: base).count
            cellStart = TreeLayout.payloadSize
            usedBytes = 0
            return
        }
        count = base.treeU16(TreeLayout.countOffset)
        cellStart = base.treeU16(TreeLayout.cellStartOffset)
        usedBytes = base.treeU16(TreeLayout.usedBytesOffset)
        guard TreeLayout.headerSize + count * TreeLayout.slotSize <= cellStart,
              cellStart <= TreeLayout.payloadSize,
              usedBytes <= TreeLayout.payloadSize - cellStart else {
            throw TreeError.corrupt(ref, "inconsistent node header (count \(count), cell start \(cellStart), used \(usedBytes))")
        }
        if isLeaf {
            guard base.treeU64(TreeLayout.totalOffset) == UInt64(count) else {
                throw TreeError.corrupt(ref, "leaf total differs from its cell count \(count)")
            }
        } else if count == 0 {
            throw TreeError.corrupt(ref, "branch without children")
        }
    }

    @inline(__always) var total: UInt64 { base.treeU64(TreeLayout.totalOffset) }

    /// Asks for the lines a search's probe at entry `i` reads, before reading them: its slot
    /// and, estimated, its cell. At 1M objects a leaf is not in the caches, and the slot and the
    /// cell were two misses one after the other; asked for together they overlap.
    @inline(__always) func prefetchProbe(_ i: Int) {
        guard i >= 0, i < count, !isPacked else { return }
        Self.prefetchEntry(base, i, count: count, cellStart: cellStart)
    }

    /// `read`, asking first for the lines the node's header and a probe at entry `entry` of
    /// `count` will read, so that they come together instead of one after the other. A branch
    /// knows these before its child is read: the child's entry count is the branch's subtree
    /// count for it, and the entry is where the key lies between the child's bounds. The
    /// child's cells are assumed to fill its page. A child that is a branch, or less full,
    /// only costs bandwidth; a count of 2,048 or more is no leaf's, and nothing is asked for.
    @inline(__always)
    static func read<F: TreeFlavor>(_ ref: PageRef, _ pages: any PageReading, _ flavor: F.Type,
                                    probing entry: Int, of count: Int) throws -> TreeNode {
        guard !ref.isNull else { throw TreeError.corrupt(ref, "null child reference in a \(F.name) tree") }
        let base = try pages.readPage(ref)
        if count > 0, count < leafCountLimit, entry >= 0, entry < count {
            strata_prefetch(base, 1)
            prefetchEntry(base, entry, count: count, cellStart: TreeLayout.headerSize + count * TreeLayout.slotSize)
        }
        return try TreeNode(ref: ref, base: base, flavor: flavor)
    }

    /// More entries than any leaf holds: a subtree count at or above it is a branch's.
    static let leafCountLimit = 2_048

    /// The slot of entry `i` and the lines about its cell. Cells are laid down from the page's
    /// end in slot order (appends, splits, defragmenting), so entry `i` lies about `i + 1`
    /// average cells below the end. A wrong estimate costs bandwidth, never an answer.
    @inline(__always)
    private static func prefetchEntry(_ base: UnsafeRawPointer, _ i: Int, count: Int, cellStart: Int) {
        strata_prefetch(base + TreeLayout.headerSize + i * TreeLayout.slotSize, 1)
        guard cellStart < TreeLayout.payloadSize else { return }
        let estimate = TreeLayout.payloadSize - (i + 1) * (TreeLayout.payloadSize - cellStart) / count
        strata_prefetch(base + max(estimate - 64, cellStart), 192)
    }

    /// The packed view of this node (`isPacked`; validated when the node was read).
    @inline(__always) var packed: PackedLeaf {
        get throws { try PackedLeaf(ref: ref, base: base) }
    }

    /// Offset of cell `i` (< count), checked so that `need` bytes from it are inside the page.
    @inline(__always)
    func cellOffset(_ i: Int, need: Int) throws -> Int {
        let offset = base.treeU16(TreeLayout.headerSize + i * TreeLayout.slotSize)
        guard offset >= cellStart, offset + need <= TreeLayout.payloadSize else {
            throw TreeError.corrupt(ref, "cell \(i) at offset \(offset) outside the cell area")
        }
        return offset
    }

    // MARK: Branch cells

    @inline(__always)
    func child(_ i: Int) throws -> PageRef {
        PageRef(base.treeU32(try cellOffset(i, need: TreeLayout.branchKeyOffset)))
    }

    @inline(__always)
    func childCount(_ i: Int) throws -> UInt64 {
        base.treeU64(try cellOffset(i, need: TreeLayout.branchKeyOffset) + TreeLayout.branchCountOffset)
    }
}

extension TreeNode {
    /// Cell `i` of a leaf: its offset, key part size and total size (all bounds-checked).
    @inline(__always)
    func leafCell<F: TreeFlavor>(_ i: Int, _ flavor: F.Type) throws -> (offset: Int, keySize: Int, size: Int, value: TreeStoredValue) {
        let offset = try cellOffset(i, need: 0)
        let keySize = try F.keyPartSize(base, at: offset, ref: ref)
        if F.leafValueIsEmpty(base, at: offset) {
            return (offset, keySize, keySize, TreeStoredValue(inline: base + offset + keySize, length: 0, firstOverflow: .null))
        }
        let (value, partSize) = try TreeStoredValue.parse(base, at: offset + keySize, ref: ref)
        return (offset, keySize, keySize + partSize, value)
    }

    /// Cell `i` of a branch: its offset and total size (bounds-checked).
    @inline(__always)
    func branchCell<F: TreeFlavor>(_ i: Int, _ flavor: F.Type) throws -> (offset: Int, size: Int) {
        let offset = try cellOffset(i, need: TreeLayout.branchKeyOffset)
        let keySize = try F.keyPartSize(base, at: offset + TreeLayout.branchKeyOffset, ref: ref)
        return (offset, TreeLayout.branchKeyOffset + keySize)
    }

    /// Size of the cell at `offset` of a node page (leaf or branch).
    @inline(__always)
    static func cellSize<F: TreeFlavor>(_ base: UnsafeRawPointer, at offset: Int, isLeaf: Bool, ref: PageRef, _ flavor: F.Type) throws -> Int {
        if isLeaf {
            let keySize = try F.keyPartSize(base, at: offset, ref: ref)
            if F.leafValueIsEmpty(base, at: offset) { return keySize }
            return keySize + (try TreeStoredValue.parse(base, at: offset + keySize, ref: ref)).partSize
        }
        guard offset + TreeLayout.branchKeyOffset <= TreeLayout.payloadSize else {
            throw TreeError.corrupt(ref, "branch cell outside the page")
        }
        return TreeLayout.branchKeyOffset + (try F.keyPartSize(base, at: offset + TreeLayout.branchKeyOffset, ref: ref))
    }
}
