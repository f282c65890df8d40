// The byte layout of one object's row (the value stored under its key in the class's KeyedTree).
//
// Layout (all little-endian, read with loadUnaligned):
//   [null bitmap: ceil(columns/8) bytes][fixed slots, one per column, in declaration order][var tail]
// Fixed slot widths: bool 1, float 4, int/double/date/link 8, objectId 12, uuid/decimal128 16,
// string/data/any 8 (UInt32 offset from row start + UInt32 length into the var tail),
// list/set/map 4 (the raw PageRef of the collection's tree), linkingObjects 0 (computed).
//
// Invariants:
// - The layout is a pure function of the class's properties, and those are stored in the file
//   and compared at open, so a row is always decoded with the layout that wrote it.
// - A null bit set means nil (optional values, links); the slot's bytes are then meaningless.
// - A var slot with length 0 occupies no tail bytes, so it can be overwritten by appending.
import StrataStorage

/// Where one property lives in a row. Public only so the `_Persistable` requirements can name it.
public struct _Column: Sendable {
    let index: Int
    let offset: Int
    let type: PropertyType
    let collection: CollectionKind
    let isOptional: Bool

    var isVariable: Bool {
        collection == .none && (type == .string || type == .data || type == .any)
    }

    static func width(type: PropertyType, collection: CollectionKind) -> Int {
        if type == .linkingObjects { return 0 }
        if collection != .none { return 4 }
        switch type {
        case .bool: return 1
        case .float: return 4
        case .int, .double, .date, .object, .string, .data, .any: return 8
        case .objectId: return 12
        case .uuid, .decimal128: return 16
        case .linkingObjects: return 0
        }
    }
}

/// Column offsets of one class. A class (immutable) rather than a struct so that a row builder
/// holding it costs one reference count, not one per array.
final class RowLayout: Sendable {
    let columns: [_Column]
    let bitmapBytes: Int
    let fixedSize: Int
    let varColumns: [Int]
    /// Whether any column is a to-one link or a list/set/map (what deleting a row must release).
    let hasLinksOrCollections: Bool

    init(properties: [Property]) {
        bitmapBytes = (properties.count + 7) / 8
        var offset = bitmapBytes
        var cols: [_Column] = []
        var vars: [Int] = []
        for (i, p) in properties.enumerated() {
            let c = _Column(index: i, offset: offset, type: p.type, collection: p.collection, isOptional: p.isOptional)
            offset += _Column.width(type: p.type, collection: p.collection)
            if c.isVariable { vars.append(i) }
            cols.append(c)
        }
        columns = cols
        fixedSize = offset
        varColumns = vars
        hasLinksOrCollections = cols.contains { $0.type != .linkingObjects && ($0.type == .object || $0.collection != .none) }
    }

    /// Offsets of the slots that hold a collection tree's root (list, set and map columns): the
    /// page references inside a row, for relocation (compaction, copies, verify).
    var collectionRootOffsets: [Int] {
        columns.filter { $0.collection != .none && $0.type != .linkingObjects }.map(\.offset)
    }
}

/// A read-only view of a stored row, valid only inside the tree callback that produced it.
public struct _RowView {
    let bytes: UnsafeRawBufferPointer
    unowned(unsafe) let core: RealmCore

    @inline(__always) func isNull(_ c: _Column) -> Bool {
        guard c.index / 8 < bytes.count else { return true }
        return bytes[c.index / 8] & (1 << UInt8(c.index % 8)) != 0
    }

    @inline(__always) func load<T: FixedWidthInteger>(_ c: _Column, as: T.Type) -> T {
        guard c.offset + MemoryLayout<T>.size <= bytes.count else { return 0 }
        return bytes.loadUnaligned(fromByteOffset: c.offset, as: T.self)
    }

    @inline(__always) func loadDouble(_ c: _Column) -> Double { Double(bitPattern: load(c, as: UInt64.self)) }

    /// The bytes of a string/data slot (empty when out of bounds: a corrupt row reads as empty).
    func variable(_ c: _Column) -> UnsafeRawBufferPointer {
        let off = Int(load(c, as: UInt32.self))
        let len = Int(bytes.loadUnaligned(fromByteOffset: c.offset + 4, as: UInt32.self))
        guard len > 0, off >= 0, off + len <= bytes.count, let base = bytes.baseAddress else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: base + off, count: len)
    }

    func fixedBytes(_ c: _Column, count: Int) -> UnsafeRawBufferPointer {
        guard c.offset + count <= bytes.count, let base = bytes.baseAddress else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: base + c.offset, count: count)
    }
}

/// A row being built (new object) or patched (property set). Owns its bytes.
///
/// In files with row footers (InlineBacklinks.swift) `bytes` ends with the row's footer, its
/// last `footerLength` bytes: variable bytes are inserted before it, and a rebuild keeps it.
public struct _RowBuilder {
    var bytes: [UInt8]
    let layout: RowLayout
    unowned(unsafe) let core: RealmCore
    /// The object whose row this is (for collection trees and backlinks).
    let table: Int
    let key: UInt64
    /// A row being created (no previous values: no backlinks or trees to release).
    let isNew: Bool
    /// Bytes of the backlink footer at the end of `bytes` (0 when a stored footer is malformed).
    private(set) var footerLength: Int

    init(layout: RowLayout, core: RealmCore, table: Int, key: UInt64) {
        footerLength = RowFooter.emptyLength
        bytes = [UInt8](repeating: 0, count: layout.fixedSize + footerLength)
        isNew = true
        self.layout = layout
        self.core = core
        self.table = table
        self.key = key
    }

    /// A new row in `reused`'s storage (its capacity is kept: no allocation per row).
    init(reusing reused: consuming [UInt8], layout: RowLayout, core: RealmCore, table: Int, key: UInt64) {
        footerLength = RowFooter.emptyLength
        var b = reused
        b.removeAll(keepingCapacity: true)
        b.append(contentsOf: repeatElement(0, count: layout.fixedSize + footerLength))
        bytes = b
        isNew = true
        self.layout = layout
        self.core = core
        self.table = table
        self.key = key
    }

    /// A copy of a stored row. A malformed footer is kept as row bytes (footerLength 0): reading
    /// the object's backlinks then reports it as `.corruptFile`.
    init(copying row: UnsafeRawBufferPointer, layout: RowLayout, core: RealmCore, table: Int, key: UInt64) {
        bytes = [UInt8](row)
        isNew = false
        footerLength = RowFooter.length(row) ?? 0
        if bytes.count - footerLength < layout.fixedSize {
            bytes.insert(contentsOf: repeatElement(0, count: layout.fixedSize - (bytes.count - footerLength)),
                         at: bytes.count - footerLength)
        }
        self.layout = layout
        self.core = core
        self.table = table
        self.key = key
    }

    /// Replaces the footer with one holding `entry`.
    mutating func setInlineBacklink(_ entry: InlineBacklink?) {
        bytes.removeLast(footerLength)
        let n = RowFooter.encodedLength(entry)
        let at = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: n))
        bytes.withUnsafeMutableBytes { _ = RowFooter.store(entry, at: $0.baseAddress! + at) }
        footerLength = n
    }

    @inline(__always) mutating func setNull(_ c: _Column, _ isNull: Bool) {
        let bit: UInt8 = 1 << UInt8(c.index % 8)
        if isNull { bytes[c.index / 8] |= bit } else { bytes[c.index / 8] &= ~bit }
    }

    @inline(__always) mutating func store<T: FixedWidthInteger>(_ v: T, _ c: _Column) {
        setNull(c, false)
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: v.littleEndian, toByteOffset: c.offset, as: T.self) }
    }

    mutating func storeBytes(_ src: UnsafeRawBufferPointer, _ c: _Column) {
        setNull(c, false)
        guard let s = src.baseAddress, !src.isEmpty, c.offset + src.count <= bytes.count else { return }
        bytes.withUnsafeMutableBytes { dst in
            (dst.baseAddress! + c.offset).copyMemory(from: s, byteCount: src.count)
        }
    }

    /// Copies a non-optional scalar straight from an unmanaged object's wrapper memory into its
    /// slot (see `FieldIO.rawStore`): the `add` path without generic code per property.
    @inline(__always)
    mutating func storeRaw(_ kind: RawScalarKind, from src: UnsafeRawPointer, _ c: _Column) {
        setNull(c, false)
        guard c.offset + kind.slotWidth <= bytes.count else { return }
        bytes.withUnsafeMutableBytes { dst in kind.copy(from: src, to: dst.baseAddress! + c.offset) }
    }

    func currentLoad<T: FixedWidthInteger>(_ c: _Column, as: T.Type) -> T {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: c.offset, as: T.self) }
    }

    func isNull(_ c: _Column) -> Bool { bytes[c.index / 8] & (1 << UInt8(c.index % 8)) != 0 }

    /// Sets a string/data slot. Appends when the slot holds no bytes; otherwise rebuilds the tail.
    mutating func storeVariable(_ src: UnsafeRawBufferPointer, _ c: _Column) {
        setNull(c, false)
        let oldLen = currentLoad(c, as: UInt32.self) == 0 ? 0 : Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: c.offset + 4, as: UInt32.self) })
        if oldLen == 0 {
            appendTail(src, c)
            return
        }
        // Rebuild: copy fixed part, then every var column's bytes (the new ones for `c`), then
        // the footer.
        var out = Array(bytes[0..<layout.fixedSize])
        let old = bytes
        let footer = old.suffix(footerLength)
        bytes = out
        out = []
        footerLength = 0
        for vi in layout.varColumns {
            let vc = layout.columns[vi]
            if vi == c.index {
                appendTailRaw(src, vc)
            } else {
                old.withUnsafeBytes { ob in
                    let off = Int(ob.loadUnaligned(fromByteOffset: vc.offset, as: UInt32.self))
                    let len = Int(ob.loadUnaligned(fromByteOffset: vc.offset + 4, as: UInt32.self))
                    if len > 0, off + len <= ob.count {
                        appendTailRaw(UnsafeRawBufferPointer(rebasing: ob[off..<(off + len)]), vc)
                    } else {
                        setSlot(vc, offset: 0, length: 0)
                    }
                }
            }
        }
        bytes.append(contentsOf: footer)
        footerLength = footer.count
    }

    private mutating func appendTail(_ src: UnsafeRawBufferPointer, _ c: _Column) {
        appendTailRaw(src, c)
    }

    private mutating func appendTailRaw(_ src: UnsafeRawBufferPointer, _ c: _Column) {
        if src.isEmpty { setSlot(c, offset: 0, length: 0); return }
        let off = bytes.count - footerLength
        if footerLength == 0 {
            bytes.append(contentsOf: src)
        } else {
            bytes.insert(contentsOf: src, at: off)
        }
        setSlot(c, offset: off, length: src.count)
    }

    private mutating func setSlot(_ c: _Column, offset: Int, length: Int) {
        bytes.withUnsafeMutableBytes {
            $0.storeBytes(of: UInt32(truncatingIfNeeded: offset).littleEndian, toByteOffset: c.offset, as: UInt32.self)
            $0.storeBytes(of: UInt32(truncatingIfNeeded: length).littleEndian, toByteOffset: c.offset + 4, as: UInt32.self)
        }
    }
}
