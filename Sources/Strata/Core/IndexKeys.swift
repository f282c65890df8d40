// Keys of the secondary indexes: an order-preserving encoding of a property value followed by
// the 8-byte big-endian object key. The value of every index entry is empty.
//
//   key = [tag] [value bytes] [object key, 8 bytes big-endian]
//   tag 0: nil (no value bytes) · tag 1: a value
//   bool      1 byte, 0 or 1
//   int       8 bytes big-endian of the Int64 with its sign bit flipped
//   date      8 bytes big-endian of the Double's order-preserving bits (-0 stored as +0)
//   objectId  its 12 bytes · uuid: its 16 bytes
//   string    the UTF-8 of its NFC form, each 0x00 byte written 0x00 0xFF, then 0x00 0x00 — or,
//             when that would exceed `maxStringBytes`, the first `maxStringBytes` bytes of it
//             (never splitting an escape pair) then 0x00 0x01.
//
// Invariants:
// - The value part is prefix-free (fixed width per type, or terminated), so a prefix scan from
//   [tag][value bytes] finds exactly the objects with that value, ascending by object key.
// - Candidates are a superset of the matches, never fewer: strings are indexed in NFC because
//   the query engine compares strings as Swift does (canonical equivalence); long strings share
//   a truncated key and -0/+0 dates share one. The query layer always re-checks the predicate on
//   every candidate (QueryAnalysis.swift), so a shared key costs time, never correctness.
// - Keys stay within `BytesTree.maxKeySize`: 1 + 1000 + 2 + 8 bytes at most.
import Foundation
import StrataStorage

enum IndexKeys {
    static let nullTag: UInt8 = 0
    static let valueTag: UInt8 = 1
    /// Longest escaped string prefix kept in a key (the rest of a longer string is not indexed).
    static let maxStringBytes = 1000

    /// Whether property `p` has a secondary index. Primary keys have their own unique tree
    /// (exact bytes, used by `object(ofType:forPrimaryKey:)` and for queries on Int, ObjectId
    /// and UUID keys); a String primary key is indexed here too, because a query's `==` on
    /// strings is canonical equivalence, which the byte-exact primary-key tree cannot answer.
    static func isSecondary(_ p: Property) -> Bool {
        guard p.isIndexed, p.collection == .none, p.type.canBeIndexed else { return false }
        return !p.isPrimary || p.type == .string
    }

    // MARK: - From stored rows

    /// Appends the key of the value of column `c` in `row`, without the object key.
    static func appendValue(row: _RowView, column c: _Column, to out: inout [UInt8]) {
        // A non-optional column is read from its slot whatever its null bit says (as accessors do).
        if c.isOptional && row.isNull(c) {
            out.append(nullTag)
            return
        }
        out.append(valueTag)
        switch c.type {
        case .bool:
            out.append(row.load(c, as: UInt8.self) != 0 ? 1 : 0)
        case .int:
            appendInt(Int64(littleEndian: row.load(c, as: Int64.self)), to: &out)
        case .date:
            appendDateBits(UInt64(littleEndian: row.load(c, as: UInt64.self)), to: &out)
        case .objectId:
            appendFixed(row.fixedBytes(c, count: 12), width: 12, to: &out)
        case .uuid:
            appendFixed(row.fixedBytes(c, count: 16), width: 16, to: &out)
        case .string:
            appendString(row.variable(c), to: &out)
        default:
            // Not indexable (the schema forbids it); an empty value keeps the key well-formed.
            break
        }
    }

    /// Appends the big-endian object key that ends every index key.
    @inline(__always) static func appendObjectKey(_ key: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: key.bigEndian) { out.append(contentsOf: $0) }
    }

    /// The object key at the end of an index key (0 for a key too short to hold one: the
    /// verifier reports such keys, lookups skip them).
    @inline(__always) static func objectKey(ofIndexKey k: UnsafeRawBufferPointer) -> UInt64? {
        guard k.count >= 9 else { return nil }
        return UInt64(bigEndian: k.loadUnaligned(fromByteOffset: k.count - 8, as: UInt64.self))
    }

    // MARK: - From query constants

    /// Appends the key of query constant `value` for a property of `type`, without the object
    /// key; false when the constant is not of the property's exact kind (e.g. a Double compared
    /// with an Int property): the caller then scans, since cross-kind equality has its own rules.
    static func appendValue(_ value: QueryValue, type: PropertyType, to out: inout [UInt8]) -> Bool {
        switch (value, type) {
        case (.null, _):
            out.append(nullTag)
        case (.bool(let b), .bool):
            out.append(valueTag)
            out.append(b ? 1 : 0)
        case (.int(let i), .int):
            out.append(valueTag)
            appendInt(i, to: &out)
        case (.date(let d), .date):
            out.append(valueTag)
            appendDateBits(d.timeIntervalSinceReferenceDate.bitPattern, to: &out)
        case (.objectId(let id), .objectId):
            out.append(valueTag)
            withUnsafeBytes(of: id.high.bigEndian) { out.append(contentsOf: $0) }
            withUnsafeBytes(of: id.low.bigEndian) { out.append(contentsOf: $0) }
        case (.uuid(let u), .uuid):
            out.append(valueTag)
            withUnsafeBytes(of: u.uuid) { out.append(contentsOf: $0) }
        case (.string(let s), .string):
            out.append(valueTag)
            var s = s
            s.withUTF8 { appendString(UnsafeRawBufferPointer($0), to: &out) }
        default:
            return false
        }
        return true
    }

    /// The primary-key tree's key for query constant `value` (the bytes `primaryKeyIndexKey`
    /// builds from a row: [1] + the Int64 as `encoding` writes it / 12 ObjectId bytes / 16 UUID
    /// bytes, [0] for nil); nil when the constant's kind differs from the key's type or the type
    /// is String (String primary keys are looked up in their secondary index, see `isSecondary`).
    static func primaryKeyTreeKey(_ value: QueryValue, type: PropertyType, encoding: PrimaryKeyEncoding) -> [UInt8]? {
        var out: [UInt8] = []
        switch (value, type) {
        case (.null, _): out.append(0)
        case (.int(let i), .int):
            out.append(1)
            switch encoding {
            case .littleEndian: withUnsafeBytes(of: i.littleEndian) { out.append(contentsOf: $0) }
            case .ordered: appendInt(i, to: &out)
            }
        case (.objectId(let id), .objectId):
            out.append(1)
            withUnsafeBytes(of: id.high.bigEndian) { out.append(contentsOf: $0) }
            withUnsafeBytes(of: id.low.bigEndian) { out.append(contentsOf: $0) }
        case (.uuid(let u), .uuid):
            out.append(1)
            withUnsafeBytes(of: u.uuid) { out.append(contentsOf: $0) }
        default:
            return nil
        }
        return out
    }

    // MARK: - Encodings

    @inline(__always) static func appendInt(_ v: Int64, to out: inout [UInt8]) {
        withUnsafeBytes(of: orderedBits(v).bigEndian) { out.append(contentsOf: $0) }
    }

    /// An Int64 as an unsigned integer of the same order (sign bit flipped): written big-endian,
    /// memcmp order is numeric order. One definition for the indexes and the primary-key tree.
    @inline(__always) static func orderedBits(_ v: Int64) -> UInt64 { UInt64(bitPattern: v) ^ (1 << 63) }

    /// Doubles ordered as unsigned integers: positive values get the sign bit set, negative
    /// values are inverted. -0 is stored as +0 (they are equal dates).
    @inline(__always) static func appendDateBits(_ bits: UInt64, to out: inout [UInt8]) {
        var b = bits
        if b == 1 << 63 { b = 0 }
        let ordered = b & (1 << 63) != 0 ? ~b : b | (1 << 63)
        withUnsafeBytes(of: ordered.bigEndian) { out.append(contentsOf: $0) }
    }

    private static func appendFixed(_ bytes: UnsafeRawBufferPointer, width: Int, to out: inout [UInt8]) {
        // A short slot only comes from a damaged row; zero-padding keeps the key's shape.
        out.append(contentsOf: bytes.prefix(width))
        if bytes.count < width { out.append(contentsOf: repeatElement(0, count: width - bytes.count)) }
    }

    /// Escaped, terminated NFC UTF-8 (see the file header). ASCII is already in NFC and is
    /// copied without building a String.
    static func appendString(_ utf8: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var isASCII = true
        for b in utf8 where b >= 0x80 {
            isASCII = false
            break
        }
        if isASCII {
            appendEscaped(utf8, to: &out)
        } else {
            var nfc = String(decoding: utf8, as: UTF8.self).precomposedStringWithCanonicalMapping
            nfc.withUTF8 { appendEscaped(UnsafeRawBufferPointer($0), to: &out) }
        }
    }

    private static func appendEscaped(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var written = 0
        for b in bytes {
            let width = b == 0 ? 2 : 1
            if written + width > maxStringBytes {
                out.append(0)
                out.append(1)
                return
            }
            out.append(b)
            if b == 0 { out.append(0xFF) }
            written += width
        }
        out.append(0)
        out.append(0)
    }
}

/// How the primary-key tree writes an Int primary key after its tag byte (Catalog.swift says
/// which object formats use which).
enum PrimaryKeyEncoding: Sendable {
    /// The Int64's 8 bytes little-endian (object formats 2 and 3): memcmp order is unrelated to
    /// numeric order, so ascending keys land in leaves all over the tree.
    case littleEndian
    /// Sign bit flipped, big-endian, as the secondary indexes write an Int (format 4 on):
    /// memcmp order is numeric order, so ascending keys append to the last leaf.
    case ordered

    init(objectFormat: Int) {
        self = objectFormat <= Catalog.littleEndianKeyFormat ? .littleEndian : .ordered
    }

    /// Rewrites, in `key` (a primary-key tree key of an `.int` primary key built with the
    /// little-endian bytes: tag 1 then 8 bytes), the value bytes in this encoding. A nil key
    /// ([0]) or a key of another shape is left as it is.
    @inline(__always)
    func finishIntKey(_ key: inout [UInt8]) {
        guard self == .ordered, key.count == 9, key[0] == IndexKeys.valueTag else { return }
        key.withUnsafeMutableBytes { bytes in
            let value = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: 1, as: Int64.self))
            bytes.storeBytes(of: IndexKeys.orderedBits(value).bigEndian, toByteOffset: 1, as: UInt64.self)
        }
    }
}
