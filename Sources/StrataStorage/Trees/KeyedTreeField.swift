// Scans of one fixed-width field of every value, leaf by leaf: the aggregates of a property over
// a whole class (sum, min, max, average) without a call per entry through the general visitors.
//
// A slotted leaf's values are read where they lie in the page; a packed leaf's field is gathered
// from its planes (the template byte for a constant plane, the entry's byte for a stored one).
// Values held in overflow pages are assembled as `forEach` assembles them.
//
// Invariants:
// - The same entries in the same (ascending key) order as `forEach`, and for each the value the
//   object layer's row view reads there: a null bit at or past the value's end reads as set, a
//   field past the value's end reads as zero (a damaged or older short row), as `_RowView` does.
// - Errors are `forEach`'s: a damaged page throws, never a guessed value.

/// Where a fixed-width field lies in each value: `width` bytes (1 to 8, little-endian) at
/// `offset`, and optionally a null bit (`nullMask` in byte `nullByte`; a mask of 0: no null bit).
public struct FixedField: Sendable, Hashable {
    public let offset: Int
    public let width: Int
    public let nullByte: Int
    public let nullMask: UInt8

    public init(offset: Int, width: Int, nullByte: Int = 0, nullMask: UInt8 = 0) {
        self.offset = offset
        self.width = Swift.max(1, Swift.min(8, width))
        self.nullByte = nullByte
        self.nullMask = nullMask
    }

    /// The field's bits in `value` (zero-extended), nil when its null bit is set (or lies past
    /// the value's end); 0 when the field runs past the value's end.
    @inline(__always)
    func read(_ value: UnsafeRawBufferPointer) -> UInt64? {
        if nullMask != 0 && (nullByte >= value.count || value[nullByte] & nullMask != 0) { return nil }
        guard offset >= 0, offset + width <= value.count, let start = value.baseAddress else { return 0 }
        return load(start + offset)
    }

    @inline(__always)
    func load(_ p: UnsafeRawPointer) -> UInt64 {
        if width == 8 { return UInt64(littleEndian: p.loadUnaligned(as: UInt64.self)) }
        var bits: UInt64 = 0
        for b in 0..<width { bits |= UInt64(p.load(fromByteOffset: b, as: UInt8.self)) << (8 * UInt64(b)) }
        return bits
    }
}

extension KeyedTree {
    /// Calls `body` with the key and the bits of `field` (nil: its null bit is set) of every
    /// entry, in ascending key order.
    public func forEachField(_ field: FixedField, in pages: some PageReading, _ body: (_ key: UInt64, _ bits: UInt64?) -> Void) throws {
        guard !root.isNull else { return }
        try Self.visitLeaves(root, depth: 0, pages) { node in
            if node.isPacked {
                try Self.readPacked(try node.packed, field, body)
                return
            }
            for i in 0..<node.count {
                let cell = try node.leafCell(i, KeyedFlavor.self)
                let key = node.base.treeU64(cell.offset)
                if let inline = cell.value.inline {
                    body(key, field.read(UnsafeRawBufferPointer(start: inline, count: cell.value.length)))
                } else {
                    try cell.value.withBytes(pages) { body(key, field.read($0)) }
                }
            }
        }
    }

    private static func visitLeaves(_ ref: PageRef, depth: Int, _ pages: some PageReading, _ leaf: (TreeNode) throws -> Void) throws {
        guard depth < TreeLayout.maxDepth else { throw TreeError.corrupt(ref, "tree too deep") }
        let node = try TreeNode.read(ref, pages, KeyedFlavor.self)
        if node.isLeaf { return try leaf(node) }
        for i in 0..<node.count { try visitLeaves(try node.child(i), depth: depth + 1, pages, leaf) }
    }

    /// The field of every entry of a packed leaf, gathered byte by byte from its planes.
    private static func readPacked(_ leaf: PackedLeaf, _ field: FixedField, _ body: (UInt64, UInt64?) -> Void) throws {
        let length = leaf.valueLength
        let template = leaf.base + leaf.templateOffset
        // Per byte of the field (and the null byte): where entry i's byte is, and the step
        // between entries (0 for a constant plane, whose byte is the template's).
        func source(_ j: Int) -> (UnsafeRawPointer, Int) {
            leaf.isStored(plane: j) ? (leaf.base + leaf.planeOffset(j), 1) : (template + j, 0)
        }
        let nullSource: (UnsafeRawPointer, Int)? = field.nullMask == 0 ? nil
            : field.nullByte < length ? source(field.nullByte) : nil
        let fieldFits = field.offset >= 0 && field.offset + field.width <= length
        var bytes: [(UnsafeRawPointer, Int)] = []
        if fieldFits { for j in field.offset..<(field.offset + field.width) { bytes.append(source(j)) } }
        for i in 0..<leaf.count {
            let key = leaf.key(i)
            if field.nullMask != 0 {
                // A null byte past the value's end reads as set (no value).
                guard let (p, step) = nullSource, p.load(fromByteOffset: i * step, as: UInt8.self) & field.nullMask == 0 else {
                    body(key, nil)
                    continue
                }
            }
            guard fieldFits else {
                body(key, 0)
                continue
            }
            var bits: UInt64 = 0
            for (b, (p, step)) in bytes.enumerated() {
                bits |= UInt64(p.load(fromByteOffset: i * step, as: UInt8.self)) << (8 * UInt64(b))
            }
            body(key, bits)
        }
    }
}
