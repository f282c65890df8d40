// Scans that read only some bytes of each value: the column scans of aggregates and filters.
//
// `forEach(from:reading:in:_:)` visits the entries `forEach` visits, in the same order, and
// hands each value with its full length; but only the bytes at the positions `reading` names
// are the value's own. The others may hold anything (in a packed leaf, another entry's byte).
// A packed leaf (PackedLeaf.swift) is then read plane by plane: its template is copied once per
// chunk of entries, and only the stored planes the caller reads are filled in, instead of
// assembling every byte of every value. Slotted leaves hand their values as `forEach` does.
//
// Invariants:
// - Same entries, keys, order, value lengths and errors as `forEach`; the named bytes are equal
//   to the value's bytes at those positions (positions past a value's length are ignored).
// - The buffer a value lives in is valid only during the call of `body`.

/// Byte positions of a value that a projected scan must fill in.
public struct ValueBytes: Sendable, Hashable {
    /// Sorted, distinct positions.
    public let positions: [Int]

    /// The positions of `ranges` (negative positions are dropped).
    public init(_ ranges: [Range<Int>]) {
        positions = Array(Set(ranges.flatMap { $0 }.filter { $0 >= 0 })).sorted()
    }
}

extension KeyedTree {
    /// Visits entries with key ≥ `start` in ascending order until `body` returns false, filling
    /// in of each value only the bytes at `needed` (see the top of this file).
    public func forEach(from start: UInt64 = 0, reading needed: ValueBytes, in pages: some PageReading,
                        _ body: (UInt64, UnsafeRawBufferPointer) throws -> Bool) throws {
        guard !root.isNull else { return }
        var projection = PackedProjection(needed: needed)
        defer { projection.release() }
        try TreeReader<KeyedFlavor>.scan(root, from: start, depth: 0, pages) { leaf, index in
            if leaf.isPacked { return try projection.visit(leaf, index, body) }
            return try KeyedFlavor.withLeafEntry(leaf, index, pages, body)
        }
    }
}

/// Entries of packed leaves, assembled a chunk at a time with only the needed planes.
struct PackedProjection {
    /// Entries assembled at a time (a chunk of 512-byte values is 32 KiB).
    static let chunk = 64

    private let needed: ValueBytes
    private var buffer: UnsafeMutableRawPointer?
    private var capacity = 0
    /// The leaf the chunk was taken from, its view, and the stored planes among `needed`.
    private var leafRef: PageRef?
    private var leaf: PackedLeaf?
    private var planes: [Int] = []
    /// Where each of `planes` is stored in the leaf.
    private var planeOffsets: [Int] = []
    /// Entries `first..<end` of `leaf` are in the buffer.
    private var first = 0
    private var end = 0

    init(needed: ValueBytes) { self.needed = needed }

    mutating func release() {
        buffer?.deallocate()
        buffer = nil
    }

    @inline(__always)
    mutating func visit(_ node: TreeNode, _ i: Int, _ body: (UInt64, UnsafeRawBufferPointer) throws -> Bool) throws -> Bool {
        if node.ref != leafRef || i < first || i >= end { try fill(node, from: i) }
        guard let leaf, let buffer else { throw TreeError.corrupt(node.ref, "packed leaf projection without a buffer") }
        let length = leaf.valueLength
        return try body(leaf.key(i), UnsafeRawBufferPointer(start: buffer + (i - first) * length, count: length))
    }

    /// Assembles entries `i..<i+chunk` (those that exist) of `node` in the buffer.
    private mutating func fill(_ node: TreeNode, from i: Int) throws {
        let fresh = node.ref != leafRef
        if fresh {
            let view = try node.packed
            leaf = view
            leafRef = node.ref
            planes = needed.positions.filter { $0 < view.valueLength && view.isStored(plane: $0) }
            planeOffsets = planes.map { view.planeOffset($0) }
            let size = Self.chunk * max(view.valueLength, 1)
            if size > capacity {
                buffer?.deallocate()
                buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
                capacity = size
            }
        }
        guard let leaf, let buffer else { throw TreeError.corrupt(node.ref, "packed leaf projection without a buffer") }
        guard i >= 0 && i < leaf.count else { throw TreeError.corrupt(node.ref, "entry \(i) outside its packed leaf") }
        let length = leaf.valueLength
        let n = min(Self.chunk, leaf.count - i)
        if fresh {
            // Constant planes are the template's bytes in every entry: copied once per leaf.
            for slot in 0..<Self.chunk {
                (buffer + slot * length).copyMemory(from: leaf.base + leaf.templateOffset, byteCount: length)
            }
        }
        for (j, offset) in zip(planes, planeOffsets) {
            let plane = leaf.base + offset + i
            var destination = buffer + j
            for e in 0..<n {
                destination.storeBytes(of: plane.load(fromByteOffset: e, as: UInt8.self), as: UInt8.self)
                destination += length
            }
        }
        first = i
        end = i + n
    }
}

extension PackedLeaf {
    /// The offset of stored plane `j`'s bytes: stored planes follow one another in plane order,
    /// `capacity` bytes each (the layout at the top of PackedLeaf.swift).
    func planeOffset(_ j: Int) -> Int {
        var rank = 0
        for b in 0..<(j >> 3) {
            rank += base.load(fromByteOffset: PackedLayout.bitmapOffset + b, as: UInt8.self).nonzeroBitCount
        }
        let bits = base.load(fromByteOffset: PackedLayout.bitmapOffset + j >> 3, as: UInt8.self)
        rank += (bits & UInt8((1 << (j & 7)) - 1)).nonzeroBitCount
        return planesOffset + rank * capacity
    }
}
