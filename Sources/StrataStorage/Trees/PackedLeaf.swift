// Packed keyed leaves: a KeyedTree leaf whose values all have one length, stored as byte planes.
//
// A slotted leaf spends 14 bytes per entry on its slot, 8-byte key and value header; for the
// small fixed-size rows of a class without strings or collections (25 bytes for the sensors'
// Reading) that overhead is most of the page. A packed leaf stores the keys as offsets from the
// first key (1, 2, 4 or 8 bytes each) and the values column-wise, one plane per byte position:
// a plane whose byte is the same in every value is stored once, the others as one byte per
// entry. Rows written together share their timestamp, high bytes of counters and flags, so most
// planes are constant: a Reading costs ~13 bytes instead of 39.
//
// Layout (page payload, little-endian):
//   offset 0  UInt8   kind = TreePageKind.keyedPackedLeaf
//   offset 1  UInt8   key width w ∈ {1, 2, 4, 8}
//   offset 2  UInt16  entry count n, 1 ≤ n ≤ capacity
//   offset 4  UInt16  value length L ≤ PackedLayout.maxValueLength
//   offset 6  UInt16  capacity c: entries the columns have room for
//   offset 8  UInt64  total = n (the same field as every tree node's)
//   offset 16 UInt64  key base
//   offset 24 ⌈L/8⌉ bytes: bit j (byte j/8, bit j%8) set = plane j stored per entry
//             then the template row, L bytes: byte j is plane j's value when it is constant,
//             0 when it is stored (a value is the template with its stored planes filled in,
//             and matches the constants when it equals the template outside the stored planes:
//             eight planes per word compare)
//             then c key offsets of w bytes (key i = base + offset i, strictly ascending, i < n)
//             then c bytes per stored plane, in plane order (plane j of entry i at i)
//   Slots n..<c of every column are zero. The writer gives a leaf all the capacity the page
//   has room for, so that appends, inserts and removals that keep the planes' constants and
//   the key width move bytes within the columns (O(n) moves, no re-encoding).
//
// Which leaves are packed — the one rule (every other file refers here):
//   A KeyedTree leaf is packed when, and only when, it is created by a put or sorted batch that
//   asks for `packing: true`, at the right edge of the tree (an append past the last key), for
//   values of one length of at most `PackedLayout.maxValueLength` bytes held inline: the leaf that
//   takes the append once the rightmost slotted leaf is full, if that leaf's last
//   `PackedLayout.minimumRun` values (or all of them) have the new value's length
//   (`packedRightLeaf`); after a full packed leaf, the next one if the value has the full leaf's
//   length (PackedLeafEdit `newRightLeaf`); in a sorted batch, a fresh leaf for a run of at least
//   `PackedLayout.minimumRun` such entries (PackedLeafBatch). Everything else is slotted.
//   The caller asks for packing only for trees whose values hold no page references: in the
//   object layer, the rows tree of a class with no collection columns, for rows without an
//   inline backlink footer (Strata's ObjectStore add path and BatchLinks `putPlainRows`); a
//   schema change rebuilds the rows tree unpacked.
//
// Invariants:
// - Packed leaves exist only in KeyedTrees, hold only inline values, and never in trees whose
//   values hold page references (`ValueReferences.none`): relocation could not rewrite a
//   reference spread over planes. Only puts with `packing: true` create them (the rule above);
//   other edits extend, shrink or rewrite existing ones (PackedLeafEdit.swift).
// - A subset of a packed leaf's entries always fits one page packed: fewer entries, key
//   offsets no wider, no constant plane becomes stored. Removals therefore fit in place.
// - Reading validates the header (kind, width, count, length, capacity, size) and throws
//   `.corruptFile`; every later access stays inside the encoded size.

enum PackedLayout {
    static let keyWidthOffset = 1
    static let valueLengthOffset = 4
    static let capacityOffset = 6
    static let keyBaseOffset = 16
    static let bitmapOffset = 24
    /// Longer values stay in slotted leaves: a page must hold a useful number of them.
    static let maxValueLength = 512
    /// A batch packs a fresh leaf only for a run of at least this many entries of one length
    /// (short runs would leave small packed leaves that every append re-encodes).
    static let minimumRun = 64

    @inline(__always) static func bitmapSize(_ valueLength: Int) -> Int { (valueLength + 7) / 8 }

    /// 0xFF in byte k for each set bit k of `bits` (little-endian: byte k is plane 8n + k).
    @inline(__always) static func byteMask(_ bits: UInt8) -> UInt64 {
        var x = UInt64(bits)
        x = (x | (x << 28)) & 0x0000_000F_0000_000F
        x = (x | (x << 14)) & 0x0003_0003_0003_0003
        x = (x | (x << 7)) & 0x0101_0101_0101_0101
        return x &* 0xFF
    }

    @inline(__always) static func keyWidth(span: UInt64) -> Int {
        span <= 0xFF ? 1 : span <= 0xFFFF ? 2 : span <= 0xFFFF_FFFF ? 4 : 8
    }

    /// The encoded size of a leaf with room for `count` entries.
    @inline(__always)
    static func size(count: Int, valueLength: Int, storedPlanes: Int, keyWidth: Int) -> Int {
        bitmapOffset + bitmapSize(valueLength) + valueLength + count * (keyWidth + storedPlanes)
    }

    /// Writes the 24-byte header (kind, key width, count, value length, capacity, total, key base).
    @inline(__always)
    static func writeHeader(_ base: UnsafeMutableRawPointer, keyWidth: Int, count: Int, valueLength: Int, capacity: Int,
                            keyBase: UInt64) {
        base.storeBytes(of: TreePageKind.keyedPackedLeaf, as: UInt8.self)
        base.storeBytes(of: UInt8(keyWidth), toByteOffset: keyWidthOffset, as: UInt8.self)
        base.setTreeU16(TreeLayout.countOffset, count)
        base.setTreeU16(valueLengthOffset, valueLength)
        base.setTreeU16(capacityOffset, capacity)
        base.setTreeU64(TreeLayout.totalOffset, UInt64(count))
        base.setTreeU64(keyBaseOffset, keyBase)
    }

    /// The most entries a page has room for with this shape.
    @inline(__always)
    static func capacity(valueLength: Int, storedPlanes: Int, keyWidth: Int) -> Int {
        let fixed = bitmapOffset + bitmapSize(valueLength) + valueLength
        return min(Int(UInt16.max), max(0, TreeLayout.payloadSize - fixed) / (keyWidth + storedPlanes))
    }

    /// The key width and capacity for `count` entries spanning `span` keys: the narrowest
    /// width whose capacity also covers the keys that appends at the current spacing would
    /// bring (so a growing leaf is not re-encoded for a wider width), at least the span's.
    static func shape(count: Int, span: UInt64, valueLength: Int, storedPlanes: Int) -> (keyWidth: Int, capacity: Int) {
        let minimum = keyWidth(span: span)
        let spacing = count > 1 ? max(1, span / UInt64(count - 1)) : 1
        for width in [1, 2, 4, 8] where width >= minimum {
            let capacity = capacity(valueLength: valueLength, storedPlanes: storedPlanes, keyWidth: width)
            guard capacity >= count else { break }
            let (projected, overflow) = spacing.multipliedReportingOverflow(by: UInt64(max(capacity, 1)))
            if width == 8 || (!overflow && keyWidth(span: max(span, projected)) <= width) { return (width, capacity) }
        }
        return (minimum, capacity(valueLength: valueLength, storedPlanes: storedPlanes, keyWidth: minimum))
    }
}

/// A validated view of a packed leaf page.
struct PackedLeaf {
    let ref: PageRef
    let base: UnsafeRawPointer
    private(set) var count: Int
    let capacity: Int
    let valueLength: Int
    let keyWidth: Int
    let keyBase: UInt64
    let templateOffset: Int
    let offsetsOffset: Int
    let planesOffset: Int
    let storedPlanes: Int

    init(ref: PageRef, base: UnsafeRawPointer) throws {
        self.ref = ref
        self.base = base
        guard base.load(as: UInt8.self) == TreePageKind.keyedPackedLeaf else {
            throw TreeError.corrupt(ref, "page kind \(base.load(as: UInt8.self)), expected a packed keyed leaf")
        }
        keyWidth = Int(base.load(fromByteOffset: PackedLayout.keyWidthOffset, as: UInt8.self))
        count = base.treeU16(TreeLayout.countOffset)
        valueLength = base.treeU16(PackedLayout.valueLengthOffset)
        capacity = base.treeU16(PackedLayout.capacityOffset)
        guard keyWidth == 1 || keyWidth == 2 || keyWidth == 4 || keyWidth == 8, count > 0, count <= capacity,
              valueLength <= PackedLayout.maxValueLength else {
            throw TreeError.corrupt(ref, "bad packed leaf header (key width \(keyWidth), count \(count), capacity \(capacity), value length \(valueLength))")
        }
        guard base.treeU64(TreeLayout.totalOffset) == UInt64(count) else {
            throw TreeError.corrupt(ref, "packed leaf total differs from its count \(count)")
        }
        keyBase = base.treeU64(PackedLayout.keyBaseOffset)
        let bitmapBytes = PackedLayout.bitmapSize(valueLength)
        var stored = 0
        for b in 0..<bitmapBytes {
            stored += base.load(fromByteOffset: PackedLayout.bitmapOffset + b, as: UInt8.self).nonzeroBitCount
        }
        if valueLength % 8 != 0 {
            let last = base.load(fromByteOffset: PackedLayout.bitmapOffset + bitmapBytes - 1, as: UInt8.self)
            guard last >> UInt8(valueLength % 8) == 0 else { throw TreeError.corrupt(ref, "packed leaf plane map past its value length") }
        }
        storedPlanes = stored
        let size = PackedLayout.size(count: capacity, valueLength: valueLength, storedPlanes: stored, keyWidth: keyWidth)
        guard size <= TreeLayout.payloadSize else {
            throw TreeError.corrupt(ref, "packed leaf of \(size) bytes (capacity \(capacity)) exceeds its page")
        }
        templateOffset = PackedLayout.bitmapOffset + bitmapBytes
        offsetsOffset = templateOffset + valueLength
        planesOffset = offsetsOffset + capacity * keyWidth
    }

    /// Bytes its entries take after the 16-byte node header, as `MutableTreeNode.filledBytes`
    /// counts for slotted nodes: what the parent compares with `TreeLayout.underfullBytes`.
    var filledBytes: Int {
        PackedLayout.size(count: count, valueLength: valueLength, storedPlanes: storedPlanes, keyWidth: keyWidth) - TreeLayout.headerSize
    }

    /// Calls `body` with each stored plane, in order (set bits of the plane map, a byte at a time).
    @inline(__always)
    func forEachStoredPlane(_ body: (Int) -> Void) {
        for b in 0..<PackedLayout.bitmapSize(valueLength) {
            var bits = base.load(fromByteOffset: PackedLayout.bitmapOffset + b, as: UInt8.self)
            while bits != 0 {
                body(b << 3 + bits.trailingZeroBitCount)
                bits &= bits &- 1
            }
        }
    }

    @inline(__always) func isStored(plane j: Int) -> Bool {
        base.load(fromByteOffset: PackedLayout.bitmapOffset + j >> 3, as: UInt8.self) & (1 << UInt8(j & 7)) != 0
    }

    @inline(__always) func keyOffset(_ i: Int) -> UInt64 {
        let p = offsetsOffset + i * keyWidth
        switch keyWidth {
        case 1: return UInt64(base.load(fromByteOffset: p, as: UInt8.self))
        case 2: return UInt64(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: p, as: UInt16.self)))
        case 4: return UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: p, as: UInt32.self)))
        default: return base.treeU64(p)
        }
    }

    /// Key `i` (< count). Wrapping: a corrupt offset must not trap (the order checks catch it).
    @inline(__always) func key(_ i: Int) -> UInt64 { keyBase &+ keyOffset(i) }

    /// The index of `key`, or where it would be inserted.
    @inline(__always)
    func search(_ key: UInt64) -> (index: Int, found: Bool) {
        guard key >= keyBase else { return (0, false) }
        let target = key - keyBase
        // Dense keys (objects added together) sit at their offset minus the first one's.
        // Appends land past the last key: one comparison.
        if target > keyOffset(count - 1) { return (count, false) }
        let first = keyOffset(0)
        if target >= first, target - first < UInt64(count) {
            let guess = Int(target - first)
            if keyOffset(guess) == target { return (guess, true) }
        }
        var low = 0, high = count
        while low < high {
            let mid = (low &+ high) >> 1
            if keyOffset(mid) < target { low = mid &+ 1 } else { high = mid }
        }
        return (low, low < count && keyOffset(low) == target)
    }

    /// Copies value `i` (`valueLength` bytes) to `destination`: the template row, then the
    /// entry's byte of each stored plane.
    @inline(__always)
    func copyValue(_ i: Int, to destination: UnsafeMutableRawPointer) {
        destination.copyMemory(from: base + templateOffset, byteCount: valueLength)
        var stored = planesOffset + i
        forEachStoredPlane { j in
            destination.storeBytes(of: base.load(fromByteOffset: stored, as: UInt8.self), toByteOffset: j, as: UInt8.self)
            stored += capacity
        }
    }

    /// Calls `body` with value `i`, assembled in a temporary buffer that lives during the call.
    @inline(__always)
    func withValue<R>(_ i: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(byteCount: max(valueLength, 1), alignment: 8) { buffer in
            guard let destination = buffer.baseAddress else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
            copyValue(i, to: destination)
            return try body(UnsafeRawBufferPointer(start: destination, count: valueLength))
        }
    }

    /// Whether `value` has this leaf's length and matches every constant plane (then only
    /// stored planes need its bytes).
    func matchesConstants(_ value: UnsafeRawBufferPointer) -> Bool {
        guard value.count == valueLength else { return false }
        guard let source = value.baseAddress else { return valueLength == 0 }
        var j = 0
        while j + 8 <= valueLength {
            // Eight planes per map byte: the value and the template must agree on the bytes of
            // the constant ones.
            let bits = base.load(fromByteOffset: PackedLayout.bitmapOffset + j >> 3, as: UInt8.self)
            if bits != 0xFF {
                let difference = source.loadUnaligned(fromByteOffset: j, as: UInt64.self)
                    ^ base.loadUnaligned(fromByteOffset: templateOffset + j, as: UInt64.self)
                if difference & PackedLayout.byteMask(~bits) != 0 { return false }
            }
            j += 8
        }
        while j < valueLength {
            if !isStored(plane: j),
               source.load(fromByteOffset: j, as: UInt8.self) != base.load(fromByteOffset: templateOffset + j, as: UInt8.self) {
                return false
            }
            j += 1
        }
        return true
    }

    /// This view after `count` changed in place (an insertion or removal that kept the shape).
    func with(count newCount: Int) -> PackedLeaf {
        var view = self
        view.count = newCount
        return view
    }

    /// Whether `value` can replace entry `i` in place.
    func canOverwrite(with value: UnsafeRawBufferPointer) -> Bool { matchesConstants(value) }

    /// Writes `value` (checked with `canOverwrite`) over entry `i` of the writable copy of this
    /// page at `writable`.
    func overwrite(_ i: Int, with value: UnsafeRawBufferPointer, in writable: UnsafeMutableRawPointer) {
        guard let source = value.baseAddress else { return }
        var stored = planesOffset + i
        forEachStoredPlane { j in
            writable.storeBytes(of: source.load(fromByteOffset: j, as: UInt8.self), toByteOffset: stored, as: UInt8.self)
            stored += capacity
        }
    }

    /// Whether `key` → `value` can be inserted at `index` (its place by `search`) in place:
    /// room left, the same constants, and a key offset the width holds.
    func canInsert(_ key: UInt64, _ value: UnsafeRawBufferPointer) -> Bool {
        guard count < capacity, key >= keyBase, PackedLayout.keyWidth(span: key - keyBase) <= keyWidth else { return false }
        return matchesConstants(value)
    }

    /// Inserts (checked with `canInsert`) at `index` in the writable copy of this page.
    func insert(_ key: UInt64, _ value: UnsafeRawBufferPointer, at index: Int, in writable: UnsafeMutableRawPointer) {
        let tail = count - index
        let offsets = writable + offsetsOffset
        if tail > 0 {
            (offsets + (index + 1) * keyWidth).copyMemory(from: offsets + index * keyWidth, byteCount: tail * keyWidth)
        }
        Self.store(key - keyBase, width: keyWidth, at: offsets + index * keyWidth)
        // Each stored plane takes the value's byte in the new entry's slot (planes are `capacity`
        // bytes apart, in plane order). Appending (no tail to move) is the common case of a
        // growing table, so it has a loop of its own, with every operand in a local.
        guard let source = value.baseAddress else {
            insertPlanes(tail: tail, at: index, in: writable) { _ in 0 }
            return finishInsert(in: writable)
        }
        if tail == 0 {
            let bitmap = base + PackedLayout.bitmapOffset
            let stride = capacity
            var slot = writable + planesOffset + index
            for b in 0..<PackedLayout.bitmapSize(valueLength) {
                var bits = bitmap.load(fromByteOffset: b, as: UInt8.self)
                while bits != 0 {
                    slot.storeBytes(of: source.load(fromByteOffset: b &<< 3 &+ bits.trailingZeroBitCount, as: UInt8.self),
                                    as: UInt8.self)
                    slot += stride
                    bits &= bits &- 1
                }
            }
        } else {
            insertPlanes(tail: tail, at: index, in: writable) { source.load(fromByteOffset: $0, as: UInt8.self) }
        }
        finishInsert(in: writable)
    }

    /// `insert`'s planes when entries follow the new one: each plane's tail moves up one slot.
    @inline(__always)
    private func insertPlanes(tail: Int, at index: Int, in writable: UnsafeMutableRawPointer, byte: (Int) -> UInt8) {
        var plane = writable + planesOffset
        forEachStoredPlane { j in
            if tail > 0 { (plane + index + 1).copyMemory(from: plane + index, byteCount: tail) }
            plane.storeBytes(of: byte(j), toByteOffset: index, as: UInt8.self)
            plane += capacity
        }
    }

    @inline(__always)
    private func finishInsert(in writable: UnsafeMutableRawPointer) {
        writable.setTreeU16(TreeLayout.countOffset, count + 1)
        writable.setTreeU64(TreeLayout.totalOffset, UInt64(count + 1))
    }

    /// Removes the entries at `indices` (ascending, fewer than `count`) in the writable copy
    /// of this page: each column closes up, its freed slots zeroed.
    func remove(_ indices: [Int], in writable: UnsafeMutableRawPointer) {
        func close(_ column: UnsafeMutableRawPointer, width: Int) {
            var write = indices[0]
            for (k, removed) in indices.enumerated() {
                let next = k + 1 < indices.count ? indices[k + 1] : count
                let run = next - removed - 1
                if run > 0 { (column + write * width).copyMemory(from: column + (removed + 1) * width, byteCount: run * width) }
                write += run
            }
            (column + write * width).initializeMemory(as: UInt8.self, repeating: 0, count: (count - write) * width)
        }
        close(writable + offsetsOffset, width: keyWidth)
        var plane = writable + planesOffset
        forEachStoredPlane { _ in
            close(plane, width: 1)
            plane += capacity
        }
        let remaining = count - indices.count
        writable.setTreeU16(TreeLayout.countOffset, remaining)
        writable.setTreeU64(TreeLayout.totalOffset, UInt64(remaining))
    }

    /// Inserts `key` → `value` at `index` (its place by `search`), or replaces entry `index`
    /// (`replacing`, same key), with a new layout of this leaf: the planes where `value` differs
    /// from the constants become stored, the key base and width follow the keys. Columns are
    /// copied as they are (no entry is decoded). False, nothing written, when the page cannot
    /// hold the entries so (or the value's length differs). `writable` is this page's writable
    /// copy (it may be `base` itself).
    func relaid(_ key: UInt64, _ value: UnsafeRawBufferPointer, at index: Int, replacing: Bool,
                in writable: UnsafeMutableRawPointer) -> Bool {
        guard value.count == valueLength, index >= 0, index <= count, !replacing || index < count else { return false }
        let source = value.baseAddress
        @inline(__always) func byte(_ j: Int) -> UInt8 { source?.load(fromByteOffset: j, as: UInt8.self) ?? 0 }
        var stored = storedPlanes
        for j in 0..<valueLength where !isStored(plane: j) && byte(j) != base.load(fromByteOffset: templateOffset + j, as: UInt8.self) {
            stored += 1
        }
        let n = replacing ? count : count + 1
        let newBase = min(keyBase, key)
        let last = max(self.key(count - 1), key)
        let (width, capacity) = PackedLayout.shape(count: n, span: last - newBase, valueLength: valueLength, storedPlanes: stored)
        guard capacity >= n else { return false }
        // Entry k of the result comes from old entry `old(k)`, except the new one at `index`.
        let after = replacing ? index + 1 : index
        return withUnsafeTemporaryAllocation(byteCount: TreeLayout.payloadSize, alignment: 8) { buffer -> Bool in
            guard let out = buffer.baseAddress else { return false }
            out.initializeMemory(as: UInt8.self, repeating: 0, count: TreeLayout.payloadSize)
            PackedLayout.writeHeader(out, keyWidth: width, count: n, valueLength: valueLength, capacity: capacity, keyBase: newBase)
            let template = PackedLayout.bitmapOffset + PackedLayout.bitmapSize(valueLength)
            let offsets = template + valueLength
            var outPlane = offsets + capacity * width
            var oldPlane = planesOffset
            for j in 0..<valueLength {
                let wasStored = isStored(plane: j)
                let old = base.load(fromByteOffset: templateOffset + j, as: UInt8.self)
                if wasStored || byte(j) != old {
                    let at = PackedLayout.bitmapOffset + j >> 3
                    out.storeBytes(of: out.load(fromByteOffset: at, as: UInt8.self) | (1 << UInt8(j & 7)), toByteOffset: at, as: UInt8.self)
                    if wasStored {
                        (out + outPlane).copyMemory(from: base + oldPlane, byteCount: index)
                        (out + outPlane + index + 1).copyMemory(from: base + oldPlane + after, byteCount: count - after)
                    } else {
                        (out + outPlane).initializeMemory(as: UInt8.self, repeating: old, count: n)
                    }
                    out.storeBytes(of: byte(j), toByteOffset: outPlane + index, as: UInt8.self)
                    outPlane += capacity
                } else {
                    out.storeBytes(of: old, toByteOffset: template + j, as: UInt8.self)
                }
                if wasStored { oldPlane += self.capacity }
            }
            if width == keyWidth && newBase == keyBase {
                (out + offsets).copyMemory(from: base + offsetsOffset, byteCount: index * width)
                (out + offsets + (index + 1) * width).copyMemory(from: base + offsetsOffset + after * width,
                                                                 byteCount: (count - after) * width)
            } else {
                for i in 0..<index { Self.store(self.key(i) - newBase, width: width, at: out + offsets + i * width) }
                for i in after..<count {
                    Self.store(self.key(i) - newBase, width: width, at: out + offsets + (i - after + index + 1) * width)
                }
            }
            Self.store(key - newBase, width: width, at: out + offsets + index * width)
            writable.copyMemory(from: out, byteCount: TreeLayout.payloadSize)
            return true
        }
    }

    @inline(__always)
    static func store(_ offset: UInt64, width: Int, at p: UnsafeMutableRawPointer) {
        switch width {
        case 1: p.storeBytes(of: UInt8(truncatingIfNeeded: offset), as: UInt8.self)
        case 2: p.storeBytes(of: UInt16(truncatingIfNeeded: offset).littleEndian, as: UInt16.self)
        case 4: p.storeBytes(of: UInt32(truncatingIfNeeded: offset).littleEndian, as: UInt32.self)
        default: p.storeBytes(of: offset.littleEndian, as: UInt64.self)
        }
    }
}

/// Entries being gathered for one packed leaf, checking as they come whether they still fit.
/// Values are compared with the first one plane by plane; a plane where any differs is stored.
struct PackedLeafSizer {
    let valueLength: Int
    private(set) var count = 0
    private(set) var firstKey: UInt64 = 0
    private(set) var lastKey: UInt64 = 0
    private(set) var storedPlanes = 0
    private var first: UnsafeRawPointer?
    private var stored: [Bool]

    init(valueLength: Int) {
        self.valueLength = valueLength
        stored = [Bool](repeating: false, count: valueLength)
    }

    var size: Int {
        count == 0 ? 0 : PackedLayout.size(count: count, valueLength: valueLength, storedPlanes: storedPlanes,
                                            keyWidth: PackedLayout.keyWidth(span: lastKey &- firstKey))
    }

    /// Adds the entry when the leaf still fits a page with it (keys must ascend, lengths match,
    /// the value must stay valid while the sizer is used); false, with nothing changed, when not.
    mutating func add(key: UInt64, value: UnsafeRawBufferPointer) -> Bool {
        guard value.count == valueLength, valueLength <= PackedLayout.maxValueLength else { return false }
        let source = value.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        guard count > 0, let first else {
            first = source
            firstKey = key
            lastKey = key
            count = 1
            return PackedLayout.size(count: 1, valueLength: valueLength, storedPlanes: 0, keyWidth: 1) <= TreeLayout.payloadSize
        }
        guard key > lastKey, count < Int(UInt16.max) else { return false }
        var newlyStored = 0
        for j in 0..<valueLength where !stored[j]
            && source.load(fromByteOffset: j, as: UInt8.self) != first.load(fromByteOffset: j, as: UInt8.self) {
            newlyStored += 1
        }
        let size = PackedLayout.size(count: count + 1, valueLength: valueLength, storedPlanes: storedPlanes + newlyStored,
                                     keyWidth: PackedLayout.keyWidth(span: key &- firstKey))
        guard size <= TreeLayout.payloadSize else { return false }
        if newlyStored > 0 {
            for j in 0..<valueLength where !stored[j]
                && source.load(fromByteOffset: j, as: UInt8.self) != first.load(fromByteOffset: j, as: UInt8.self) {
                stored[j] = true
            }
            storedPlanes += newlyStored
        }
        count += 1
        lastKey = key
        return true
    }
}

enum PackedLeafWriter {
    /// Encodes `keys` (strictly ascending) with `values` (each `valueLength` bytes, valid
    /// during the call) as a packed leaf with all the capacity the page has room for into the
    /// page payload at `base`; returns the encoded size. The caller has checked with
    /// `PackedLeafSizer` that they fit.
    @discardableResult
    static func write(keys: UnsafeBufferPointer<UInt64>, values: UnsafeBufferPointer<UnsafeRawPointer>,
                      valueLength: Int, to base: UnsafeMutableRawPointer) -> Int {
        let n = keys.count
        precondition(n > 0 && values.count == n, "a packed leaf needs entries")
        let keyBase = keys[0]
        let first = values[0]
        let bitmapBytes = PackedLayout.bitmapSize(valueLength)
        (base + PackedLayout.bitmapOffset).initializeMemory(as: UInt8.self, repeating: 0, count: bitmapBytes)
        var storedPlanes = 0
        for j in 0..<valueLength {
            let byte = first.load(fromByteOffset: j, as: UInt8.self)
            var i = 1
            while i < n && values[i].load(fromByteOffset: j, as: UInt8.self) == byte { i += 1 }
            if i < n {
                let at = PackedLayout.bitmapOffset + j >> 3
                base.storeBytes(of: base.load(fromByteOffset: at, as: UInt8.self) | (1 << UInt8(j & 7)), toByteOffset: at, as: UInt8.self)
                storedPlanes += 1
            }
        }
        let (width, capacity) = PackedLayout.shape(count: n, span: keys[n - 1] &- keyBase, valueLength: valueLength,
                                                   storedPlanes: storedPlanes)
        precondition(capacity >= n, "packed entries that do not fit their page")
        let size = PackedLayout.size(count: capacity, valueLength: valueLength, storedPlanes: storedPlanes, keyWidth: width)
        PackedLayout.writeHeader(base, keyWidth: width, count: n, valueLength: valueLength, capacity: capacity, keyBase: keyBase)
        let template = PackedLayout.bitmapOffset + bitmapBytes
        let offsets = template + valueLength
        // Everything after the plane map is zero first: the template's stored planes, unused
        // slots, and the rest of the page (nothing of a previous use of the buffer stays in it).
        (base + template).initializeMemory(as: UInt8.self, repeating: 0, count: TreeLayout.payloadSize - template)
        var planes = offsets + capacity * width
        for j in 0..<valueLength {
            let isStored = base.load(fromByteOffset: PackedLayout.bitmapOffset + j >> 3, as: UInt8.self) & (1 << UInt8(j & 7)) != 0
            if isStored {
                for i in 0..<n { base.storeBytes(of: values[i].load(fromByteOffset: j, as: UInt8.self), toByteOffset: planes + i, as: UInt8.self) }
                planes += capacity
            } else {
                base.storeBytes(of: first.load(fromByteOffset: j, as: UInt8.self), toByteOffset: template + j, as: UInt8.self)
            }
        }
        for i in 0..<n { PackedLeaf.store(keys[i] &- keyBase, width: width, at: base + offsets + i * width) }
        return size
    }
}
