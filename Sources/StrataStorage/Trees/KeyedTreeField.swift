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
internal import CStrataLeafScan
internal import CStrataPrefetch

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

    /// 8 bytes at a non-negative offset without a null bit (a Double, an Int, a Date): the field
    /// the scans' tight loop (`KeyedTree.gatherWide`) reads.
    var isWideAndNeverNull: Bool { width == 8 && nullMask == 0 && offset >= 0 }

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
    /// The key and the bits of `field` of every entry in ascending key order, a leaf at a time:
    /// `body` gets one leaf's keys, the bits of `field` of each entry (0 where null) and whether
    /// its null bit is set, in buffers of equal length valid during the call. A filter's test
    /// then runs as a loop compiled into the caller: one closure call per entry, and one more for
    /// the test, were half of a filtered count over a column.
    public func forEachFieldLeaf(_ field: FixedField, in pages: some PageReading,
                                 _ body: (_ keys: UnsafeBufferPointer<UInt64>, _ bits: UnsafeBufferPointer<UInt64>,
                                          _ isNull: UnsafeBufferPointer<Bool>) -> Void) throws {
        guard !root.isNull else { return }
        var capacity = TreeLayout.payloadSize / 8
        var keys = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        var values = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        var nulls = UnsafeMutablePointer<Bool>.allocate(capacity: capacity)
        defer {
            keys.deallocate()
            values.deallocate()
            nulls.deallocate()
        }
        try Self.visitLeaves(root, depth: 0, pages) { node, next in
            if node.count > capacity {
                keys.deallocate()
                values.deallocate()
                nulls.deallocate()
                capacity = node.count
                keys = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
                values = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
                nulls = UnsafeMutablePointer<Bool>.allocate(capacity: capacity)
            }
            // The common field of a slotted leaf through the tight loop; a leaf with a cell it does
            // not take (a value in overflow pages, a damaged cell) goes through `readLeaf` whole.
            if !node.isPacked && field.isWideAndNeverNull {
                let (taken, n) = Self.gatherWide(node.base, cells: 0..<node.count, cellStart: node.cellStart,
                                                 fieldOffset: field.offset, keys: keys, into: values, at: 0, next: next)
                if taken == node.count {
                    nulls.update(repeating: false, count: n)
                    body(UnsafeBufferPointer(start: keys, count: n), UnsafeBufferPointer(start: values, count: n),
                         UnsafeBufferPointer(start: nulls, count: n))
                    return
                }
            }
            Self.askFor(next)
            // A packed leaf reads its entry count from the same header field as `node.count`;
            // more entries than that would be a damaged page, reported rather than cut short.
            var n = 0
            var overflowed = false
            try Self.readLeaf(node, field, pages) { key, bits in
                guard n < capacity else {
                    overflowed = true
                    return
                }
                keys[n] = key
                values[n] = bits ?? 0
                nulls[n] = bits == nil
                n &+= 1
            }
            if overflowed { throw TreeError.corrupt(node.ref, "a leaf holds more entries than its count") }
            body(UnsafeBufferPointer(start: keys, count: n), UnsafeBufferPointer(start: values, count: n),
                 UnsafeBufferPointer(start: nulls, count: n))
        }
    }

    /// The bits of `field` of every entry whose null bit is clear, a leaf at a time: `body` gets
    /// one leaf's values in ascending key order, in a buffer valid during the call. An aggregate
    /// needs neither keys nor nulls; one call per leaf instead of one per entry lets its loop
    /// over the buffer be compiled into the aggregate itself.
    public func forEachFieldValues(_ field: FixedField, in pages: some PageReading,
                                   _ body: (UnsafeBufferPointer<UInt64>) -> Void) throws {
        guard !root.isNull else { return }
        // One buffer for every leaf, grown to the largest leaf's entry count; written by index
        // (an array's append checked its capacity and uniqueness per value).
        var capacity = TreeLayout.payloadSize / 8
        var values = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        defer { values.deallocate() }
        try Self.visitLeaves(root, depth: 0, pages) { node, next in
            if node.count > capacity {
                values.deallocate()
                capacity = node.count
                values = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
            }
            let n: Int
            if node.isPacked {
                Self.askFor(next)
                n = Self.gatherPacked(try node.packed, field, into: values)
            } else {
                n = try Self.gatherSlotted(node, field, pages, into: values, next: next)
            }
            body(UnsafeBufferPointer(start: values, count: n))
        }
    }

    /// The non-null field bits of a slotted leaf's entries, in order, into `values` (room for
    /// `node.count`); returns how many: the values `readLeaf` gives. An aggregate over a class is
    /// this and little else. Through the general cell parser (key, value part, overflow-checked
    /// arithmetic, a call to `body` per entry) its speed moved by up to a fifth between builds
    /// that differed only in where the linker placed it; so the inline values are read by a loop
    /// of their own without calls, and each cell it does not take (a value in overflow pages, or
    /// a damaged cell) goes through the general parser, which reads or rejects it.
    private static func gatherSlotted(_ node: TreeNode, _ field: FixedField, _ pages: some PageReading,
                                      into values: UnsafeMutablePointer<UInt64>, next: UnsafeRawPointer?) throws -> Int {
        if !field.isWideAndNeverNull { askFor(next) }
        var i = 0
        var n = 0
        while true {
            (i, n) = field.isWideAndNeverNull
                ? gatherWide(node.base, cells: i..<node.count, cellStart: node.cellStart, fieldOffset: field.offset, into: values, at: n, next: next)
                : gatherInline(node.base, cells: i..<node.count, cellStart: node.cellStart, field, into: values, at: n)
            guard i < node.count else { return n }
            if let bits = try node.leafCell(i, KeyedFlavor.self).value.withBytes(pages, { field.read($0) }) {
                values[n] = bits
                n &+= 1
            }
            i &+= 1
        }
    }

    /// `gatherInline` for the common field: 8 bytes, never null, at a non-negative offset (a
    /// Double, an Int, a Date). Its loop holds only what a row needs (the slot, the cell's
    /// bounds and length, one load), all in registers: at 1M objects the general loop, whose
    /// per-field state spilled to the stack, left the CPU fewer rows in flight while each row's
    /// cell was on its way from memory (a sum took 7.3–7.6 ns per row against 5.1 with this one).
    /// The loop is C's `strata_gather_wide` (Sources/CStrataLeafScan): written here it ran 7–16%
    /// slower at 20k objects in builds where the linker placed it 16 bytes off a 64-byte line.
    @inline(__always)
    private static func gatherWide(_ base: UnsafeRawPointer, cells: Range<Int>, cellStart: Int, fieldOffset: Int,
                                   keys: UnsafeMutablePointer<UInt64>? = nil,
                                   into values: UnsafeMutablePointer<UInt64>, at n: Int, next: UnsafeRawPointer?) -> (Int, Int) {
        let valueAt = 8 &+ TreeLayout.valueHeaderSize
        let leaf = strata_wide_leaf(slots: Int64(TreeLayout.headerSize), cellStart: Int64(cellStart),
                                    lastCell: Int64(TreeLayout.payloadSize &- valueAt), valueAt: Int64(valueAt),
                                    fieldOffset: Int64(fieldOffset))
        var count = Int64(n)
        let stop = strata_gather_wide(base.assumingMemoryBound(to: UInt8.self), Int64(cells.lowerBound), Int64(cells.upperBound),
                                      leaf, keys, values, &count, next?.assumingMemoryBound(to: UInt8.self))
        return (Int(stop), Int(count))
    }

    /// Reads `field` of the leaf's cells in `cells` into `values` from index `n` on, while each
    /// cell lies in the cell area and holds an inline value inside the page; returns the first
    /// cell it did not take (`cells.upperBound` when it took them all) and the new count. Per row:
    /// the cell's bounds, the value's, the null bit, one load, and no calls.
    private static func gatherInline(_ base: UnsafeRawPointer, cells: Range<Int>, cellStart: Int, _ field: FixedField,
                                     into values: UnsafeMutablePointer<UInt64>, at n: Int) -> (Int, Int) {
        // A cell: the 8-byte key, the value's 4-byte header (length, or the overflow flag), the bytes.
        let headerAt = 8
        let valueAt = headerAt &+ TreeLayout.valueHeaderSize
        let lastCell = TreeLayout.payloadSize &- valueAt
        // A field at a negative offset never fits (reads as 0), as `FixedField.read` has it; a
        // negative null byte, like one past the end, reads as set.
        let fieldEnd = field.offset >= 0 ? field.offset &+ field.width : Int.max
        let fieldMask: UInt64 = field.width == 8 ? ~0 : (1 << (8 &* UInt64(field.width))) &- 1
        // Where a whole 8-byte load of the field stays inside the page (always, for an 8-byte
        // field that fits its value); past it, byte by byte.
        let lastWideLoad = TreeLayout.payloadSize &- 8 &- Swift.max(0, field.offset)
        let nullMask = field.nullMask
        let nullByte = UInt(bitPattern: field.nullByte)
        var n = n
        for i in cells {
            let cell = base.treeU16(TreeLayout.headerSize &+ i &* TreeLayout.slotSize)
            guard cell >= cellStart, cell <= lastCell else { return (i, n) }
            // The overflow flag is bit 31: such a header, read as a length, runs past the page too.
            let length = Int(base.treeU32(cell &+ headerAt))
            guard length <= lastCell &- cell else { return (i, n) }
            let value = base + (cell &+ valueAt)
            if nullMask != 0 && (nullByte >= UInt(length) || value.load(fromByteOffset: Int(bitPattern: nullByte), as: UInt8.self) & nullMask != 0) {
                continue
            }
            values[n] = fieldEnd > length ? 0
                : cell &+ valueAt <= lastWideLoad ? UInt64(littleEndian: value.loadUnaligned(fromByteOffset: field.offset, as: UInt64.self)) & fieldMask
                : field.load(value + field.offset)
            n &+= 1
        }
        return (cells.upperBound, n)
    }

    /// The non-null field bits of a packed leaf's entries, in order, into `values` (room for
    /// `leaf.count`); returns how many. The values `readPacked` gives, built a plane at a time:
    /// each byte of the field ORed in over all entries (a loop the compiler vectorises), then the
    /// entries whose null bit is set dropped.
    private static func gatherPacked(_ leaf: PackedLeaf, _ field: FixedField, into values: UnsafeMutablePointer<UInt64>) -> Int {
        let count = leaf.count
        let length = leaf.valueLength
        let template = leaf.base + leaf.templateOffset
        values.update(repeating: 0, count: count)
        if field.offset >= 0 && field.offset + field.width <= length {
            for b in 0..<field.width {
                let j = field.offset + b
                let shift = UInt64(8 * b)
                if leaf.isStored(plane: j) {
                    let plane = leaf.base + leaf.planeOffset(j)
                    for i in 0..<count { values[i] |= UInt64(plane.load(fromByteOffset: i, as: UInt8.self)) << shift }
                } else {
                    let constant = UInt64(template.load(fromByteOffset: j, as: UInt8.self)) << shift
                    if constant != 0 { for i in 0..<count { values[i] |= constant } }
                }
            }
        }
        guard field.nullMask != 0 else { return count }
        // A null byte past the value's end reads as set: no entry has a value.
        guard field.nullByte < length else { return 0 }
        guard leaf.isStored(plane: field.nullByte) else {
            return template.load(fromByteOffset: field.nullByte, as: UInt8.self) & field.nullMask == 0 ? count : 0
        }
        let nulls = leaf.base + leaf.planeOffset(field.nullByte)
        var n = 0
        for i in 0..<count where nulls.load(fromByteOffset: i, as: UInt8.self) & field.nullMask == 0 {
            values[n] = values[i]
            n &+= 1
        }
        return n
    }

    /// The key and field bits of every entry of leaf `node`, slotted or packed.
    @inline(__always)
    private static func readLeaf(_ node: TreeNode, _ field: FixedField, _ pages: some PageReading,
                                 _ body: (UInt64, UInt64?) -> Void) throws {
        if node.isPacked {
            try readPacked(try node.packed, field, body)
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

    /// Every leaf of the tree at `ref`, in key order. `leaf` gets the leaf and the payload of the
    /// page read after it under the same branch (nil for a branch's last child), and asks for
    /// that page while it reads this one: a scan crosses to a new page every ~60 rows, and the
    /// CPU's own prefetcher stops at page boundaries. A loop over the leaf's rows asks for it a
    /// line a row (`strata_gather_wide`); any other reader at once (`askFor`).
    static func visitLeaves(_ ref: PageRef, depth: Int, _ pages: some PageReading,
                            _ leaf: (TreeNode, _ next: UnsafeRawPointer?) throws -> Void) throws {
        try visitLeaves(ref, next: nil, depth: depth, pages, leaf)
    }

    private static func visitLeaves(_ ref: PageRef, next: UnsafeRawPointer?, depth: Int, _ pages: some PageReading,
                                    _ leaf: (TreeNode, UnsafeRawPointer?) throws -> Void) throws {
        guard depth < TreeLayout.maxDepth else { throw TreeError.corrupt(ref, "tree too deep") }
        let node = try TreeNode.read(ref, pages, KeyedFlavor.self)
        if node.isLeaf { return try leaf(node, next) }
        // A branch's next sibling is small beside its leaves: asked for at once.
        askFor(next)
        for i in 0..<node.count {
            let following = i + 1 < node.count ? try pages.readPage(try node.child(i + 1)) : nil
            try visitLeaves(try node.child(i), next: following, depth: depth + 1, pages, leaf)
        }
    }

    /// Asks the CPU for a whole page payload at once (nil: nothing to ask for).
    @inline(__always)
    static func askFor(_ page: UnsafeRawPointer?) {
        if let page { strata_prefetch(page, TreeLayout.payloadSize) }
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
