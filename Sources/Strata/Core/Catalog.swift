// What the object layer stores beside the objects: the format marker, the schema and the
// per-class tree roots, and how they are encoded.
//
// UserRoots words (committed atomically with the pages):
//   [0] format marker "STRATA" and two digits, 0 = a fresh, empty file. This version writes
//       `Catalog.formatMarker` ("STRATA04") into new files. Format 4 differs from 3 only in the
//       primary-key tree's key for an Int primary key: order-preserving bytes (the secondary
//       indexes' Int encoding, IndexKeys.swift) where 3 wrote the Int64 little-endian, so that
//       ascending keys append to the tree's last leaf instead of landing in scattered ones.
//       Format 3 (rows end with a backlink footer, InlineBacklinks.swift; a Decimal128's
//       coefficient may use bit 112, Decimal128.swift) is read and written as it is: its commits
//       keep marker 3 and the little-endian keys (`PrimaryKeyEncoding`), since converting would
//       rewrite every such tree. Format 2 lacks only the decimal bit, so its files read unchanged,
//       and a commit writes marker 3: once written to, a format-2 file is format 3, and builds of
//       format 2 refuse it instead of misreading such a decimal. A file of any other format,
//       earlier or later, is refused (`checkFormat`), never converted.
//   [1] schema version
//   [2] catalog BytesTree root: key "schema" → encoded [ObjectSchema]; key "tables" → TableMeta×n
//   [3] backlinks BytesTree root (see Backlinks.swift)
// UserRoots data (committed in the meta page itself): empty, or `rootDataTag` followed by the
//   encoded table metas. When present it is authoritative and the catalog's "tables" value is
//   stale; it is used whenever the encoded metas fit (`UserRoots.maxDataSize`), because the metas
//   change in almost every write (a tree root or `nextKey` moves) and keeping them in the meta
//   saves rewriting the catalog page per commit. Files whose data is empty (older files, more
//   tables than fit) keep the metas under "tables".
//
// The "tables" value:
//   [n × 16 bytes: objects root u32, primary-key root u32, nextKey u64]            (every file)
//   then, only when some table has a secondary index (IndexKeys.swift):
//   [per table: u16 k, k × (u16 column, u32 index root)][u32 n][u32 `indexTrailerMagic`]
// A value without the trailer is exactly n × 16 bytes: files written before indexes existed (and
// files without indexed properties) decode unchanged, and their missing indexes are built by the
// first write that touches the table (IndexMaintenance.swift). A legacy value could only be
// mistaken for one with a trailer if its last table's `nextKey` had `indexTrailerMagic` in its
// high 32 bits (≈ 6 × 10^18 keys allocated) AND the rest parsed exactly: not reachable.
//
// Invariants:
// - Table number i is the i-th schema in "schema" and the i-th meta in "tables"; tables are only
//   ever appended, so a table number is stable for the life of the file.
// - Decoding never traps: any inconsistency throws `.corruptFile` naming what was wrong.
import StrataStorage

enum Catalog {
    /// The object format this version writes into new files.
    static let formatVersion = 4
    /// "STRATA04" as little-endian bytes: "STRATA" followed by `formatVersion` in two digits.
    static let formatMarker: UInt64 = 0x3430_4154_4152_5453
    /// Earlier formats whose files this version reads (see the file header).
    static let readableEarlierVersions: Set<Int> = [2, 3]
    /// The last format whose Int primary keys are little-endian; what commits to a file of
    /// format 2 or 3 write.
    static let littleEndianKeyFormat = 3

    /// The format a commit writes into a file read in format `read` (see the file header).
    static func writtenFormat(forRead read: Int) -> Int {
        read <= littleEndianKeyFormat ? littleEndianKeyFormat : formatVersion
    }

    /// The marker word of format `version` (two decimal digits).
    static func marker(ofVersion version: Int) -> UInt64 {
        let digits = UInt64(0x30 + version / 10) | UInt64(0x30 + version % 10) << 8
        return formatMarker & 0xFFFF_FFFF_FFFF | digits << 48
    }

    /// The format version of a marker of the form "STRATA" and two digits; nil for any other.
    static func version(ofMarker marker: UInt64) -> Int? {
        guard marker & 0xFFFF_FFFF_FFFF == formatMarker & 0xFFFF_FFFF_FFFF else { return nil }
        let tens = UInt8(truncatingIfNeeded: marker >> 48), units = UInt8(truncatingIfNeeded: marker >> 56)
        guard (0x30...0x39).contains(tens), (0x30...0x39).contains(units) else { return nil }
        return Int(tens - 0x30) * 10 + Int(units - 0x30)
    }

    /// Refuses a file whose (non-zero) marker is neither `formatMarker` nor that of a readable
    /// earlier format: another format version is `.unsupportedFileFormat` naming it, anything else
    /// `.invalidDatabase`. Nothing is written, so the refused file stays as it was.
    static func checkFormat(marker: UInt64, of file: String) throws(Realm.Error) {
        if marker == formatMarker { return }
        guard let found = version(ofMarker: marker) else {
            throw Realm.Error(.invalidDatabase, "\(file) is a Strata storage file but was not written by the object layer (format marker \(marker))")
        }
        if readableEarlierVersions.contains(found) { return }
        let age = found < formatVersion ? "an earlier" : "a later"
        throw Realm.Error(.unsupportedFileFormat, "\(file) is in object format version \(found), \(age) format than the one this version of Strata reads (version \(formatVersion)); it was left unchanged")
    }
    static let schemaKey: [UInt8] = Array("schema".utf8)
    static let tablesKey: [UInt8] = Array("tables".utf8)
    static let metaSize = 16
    /// "INDX" little-endian: ends a "tables" value that carries secondary-index roots.
    static let indexTrailerMagic: UInt32 = 0x5844_4E49
    /// First byte of the UserRoots data when it holds the table metas.
    static let rootDataTag: UInt8 = 1
}

/// The roots of one class's trees and its key counter (16 bytes in the catalog, plus its
/// secondary-index roots in the trailer).
struct TableMeta: Equatable {
    var objects: KeyedTree
    var primaryKeys: BytesTree
    /// Object keys are allocated from this counter (never searched for): `nextKey` is the next one.
    var nextKey: UInt64
    /// Secondary indexes present in the file, ascending by column. An index listed here is
    /// complete (it holds exactly one entry per object); see IndexMaintenance.swift.
    var indexes: [IndexTree] = []
    /// Not stored: true once this snapshot checked `indexes` against the schema in a write
    /// (missing ones built, stale ones dropped). Reset by every decode.
    var indexesChecked = false
}

/// One secondary index: the BytesTree of (encoded value ++ big-endian object key) → empty.
struct IndexTree: Equatable {
    /// The indexed column (property position in the table's schema).
    let column: Int
    var tree: BytesTree
}

/// A little binary writer for the catalog.
struct CatalogWriter {
    var bytes: [UInt8] = []
    mutating func u8(_ v: UInt8) { bytes.append(v) }
    // Little endian, byte by byte: appending a raw buffer went through the generic
    // `append(contentsOf:)` (~1% of a one-reading transaction, which encodes the table metas).
    mutating func u16(_ v: UInt16) { little(UInt64(v), 2) }
    mutating func u32(_ v: UInt32) { little(UInt64(v), 4) }
    mutating func u64(_ v: UInt64) { little(v, 8) }
    @inline(__always) private mutating func little(_ v: UInt64, _ count: Int) {
        for i in 0..<count { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }
    mutating func str(_ s: String?) {
        let u = Array((s ?? "").utf8)
        u16(UInt16(truncatingIfNeeded: u.count))
        bytes.append(contentsOf: u)
    }
}

/// A bounds-checked reader; every failure is `.corruptFile`.
struct CatalogReader {
    let bytes: [UInt8]
    var at = 0
    static func corrupt(_ what: String) -> Realm.Error { Realm.Error(.corruptFile, "the catalog is damaged: \(what)") }
    mutating func need(_ n: Int) throws(Realm.Error) {
        guard n >= 0, at + n <= bytes.count else { throw Self.corrupt("ends early at byte \(at)") }
    }
    mutating func u8() throws(Realm.Error) -> UInt8 { try need(1); defer { at += 1 }; return bytes[at] }
    mutating func u16() throws(Realm.Error) -> UInt16 {
        try need(2); defer { at += 2 }
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }
    mutating func u32() throws(Realm.Error) -> UInt32 {
        try need(4); defer { at += 4 }
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(bytes[at + i]) << (8 * UInt32(i)) }
        return v
    }
    mutating func u64() throws(Realm.Error) -> UInt64 {
        try need(8); defer { at += 8 }
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(bytes[at + i]) << (8 * UInt64(i)) }
        return v
    }
    mutating func str() throws(Realm.Error) -> String {
        let n = Int(try u16())
        try need(n); defer { at += n }
        return String(decoding: bytes[at..<(at + n)], as: UTF8.self)
    }
}

extension Catalog {
    static func encode(schemas: [ObjectSchema]) -> [UInt8] {
        var w = CatalogWriter()
        w.u16(UInt16(schemas.count))
        for s in schemas {
            w.str(s.className)
            w.u8(s.isEmbedded ? 1 : 0)
            w.u16(UInt16(s.allProperties.count))
            for p in s.allProperties {
                w.str(p.columnName)
                w.u8(p.type.rawValue)
                w.u8(p.collection.rawValue)
                w.u8((p.isOptional ? 1 : 0) | (p.isPrimary ? 2 : 0) | (p.isIndexed ? 4 : 0))
                w.str(p.objectClassName)
                w.str(p.linkOriginPropertyName)
            }
        }
        return w.bytes
    }

    static func decodeSchemas(_ bytes: [UInt8]) throws(Realm.Error) -> [ObjectSchema] {
        var r = CatalogReader(bytes: bytes)
        let n = Int(try r.u16())
        var out: [ObjectSchema] = []
        for _ in 0..<n {
            let name = try r.str()
            let embedded = try r.u8() != 0
            let pn = Int(try r.u16())
            var props: [Property] = []
            for _ in 0..<pn {
                let pname = try r.str()
                guard let type = PropertyType(rawValue: try r.u8()) else { throw CatalogReader.corrupt("unknown property type in '\(name).\(pname)'") }
                guard let coll = CollectionKind(rawValue: try r.u8()) else { throw CatalogReader.corrupt("unknown collection kind in '\(name).\(pname)'") }
                let flags = try r.u8()
                let target = try r.str()
                let origin = try r.str()
                props.append(Property(name: pname, type: type, isOptional: flags & 1 != 0, collection: coll,
                                      objectClassName: target.isEmpty ? nil : target, isPrimary: flags & 2 != 0,
                                      isIndexed: flags & 4 != 0, linkOriginPropertyName: origin.isEmpty ? nil : origin))
            }
            out.append(ObjectSchema(className: name, properties: props, isEmbedded: embedded))
        }
        return out
    }

    static func encode(metas: [TableMeta]) -> [UInt8] {
        var w = CatalogWriter()
        w.bytes.reserveCapacity(metas.count * metaSize)
        var anyIndex = false
        for m in metas {
            w.u32(m.objects.root.raw)
            w.u32(m.primaryKeys.root.raw)
            w.u64(m.nextKey)
            if !m.indexes.isEmpty { anyIndex = true }
        }
        guard anyIndex else { return w.bytes }
        for m in metas {
            w.u16(UInt16(truncatingIfNeeded: m.indexes.count))
            for i in m.indexes {
                w.u16(UInt16(truncatingIfNeeded: i.column))
                w.u32(i.tree.root.raw)
            }
        }
        w.u32(UInt32(truncatingIfNeeded: metas.count))
        w.u32(indexTrailerMagic)
        return w.bytes
    }

    /// The number of tables a "tables" value describes (with or without the index trailer).
    static func tableCount(_ bytes: [UInt8]) -> Int {
        if let n = trailerTableCount(bytes) { return n }
        return bytes.count / metaSize
    }

    /// The table count of a value that ends with a plausible index trailer, nil otherwise.
    private static func trailerTableCount(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 8 else { return nil }
        var r = CatalogReader(bytes: bytes, at: bytes.count - 8)
        guard let n = try? r.u32(), let magic = try? r.u32(), magic == indexTrailerMagic else { return nil }
        // The fixed part plus at least a u16 per table must fit before the trailer.
        guard Int(n) * (metaSize + 2) + 8 <= bytes.count else { return nil }
        return Int(n)
    }

    static func decodeMetas(_ bytes: [UInt8], count: Int) throws(Realm.Error) -> [TableMeta] {
        let hasTrailer = trailerTableCount(bytes) == count
        guard hasTrailer || bytes.count == count * metaSize else {
            throw CatalogReader.corrupt("\(bytes.count) bytes of table roots for \(count) classes")
        }
        var r = CatalogReader(bytes: bytes)
        var out: [TableMeta] = []
        out.reserveCapacity(count)
        for _ in 0..<count {
            let o = try r.u32(), p = try r.u32(), k = try r.u64()
            out.append(TableMeta(objects: KeyedTree(root: PageRef(o)), primaryKeys: BytesTree(root: PageRef(p)), nextKey: k))
        }
        guard hasTrailer else { return out }
        for t in 0..<count {
            let k = Int(try r.u16())
            var previous = -1
            out[t].indexes.reserveCapacity(k)
            for _ in 0..<k {
                let column = Int(try r.u16()), root = try r.u32()
                guard column > previous else {
                    throw CatalogReader.corrupt("index columns of table \(t) are not ascending (\(column) after \(previous))")
                }
                previous = column
                out[t].indexes.append(IndexTree(column: column, tree: BytesTree(root: PageRef(root))))
            }
        }
        guard r.at == bytes.count - 8 else {
            throw CatalogReader.corrupt("the index roots end at byte \(r.at), not at the trailer (byte \(bytes.count - 8))")
        }
        return out
    }
}

// MARK: - Trees held by the catalog (for relocation: compaction, copies, verify)

/// A tree whose root the catalog stores.
enum CatalogTree: Equatable, Sendable {
    /// The objects of a table (rows keyed by object key).
    case objects(table: Int)
    /// The primary-key index of a table.
    case primaryKeys(table: Int)
    /// A secondary index of a table (IndexKeys.swift): keys are values + object keys, no refs.
    case index(table: Int, column: Int)

    /// The table whose rows this tree holds (rows may hold collection roots), nil for other trees.
    var rowTable: Int? {
        if case .objects(let table) = self { return table }
        return nil
    }
}

extension Catalog {
    /// Every tree root stored in the catalog entry `key` whose encoded value is `value`: the byte
    /// offset of its UInt32 root inside the value and which tree it is (null roots included).
    ///
    /// This is the one place relocation (dense compaction, `writeCopy`, `verify()`) learns which
    /// catalog bytes are tree roots: a new kind of catalog-held tree (an index, another entry)
    /// must be listed here, or compaction fails with `.corruptFile` (its pages would be unreached).
    static func allTreeRoots(inEntry key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(Realm.Error) -> [(offset: Int, tree: CatalogTree)] {
        guard key.elementsEqual(tablesKey) else { return [] }
        return try allTreeRoots(inMetas: Array(value))
    }

    /// Every tree root in an encoded "tables" value (`encode(metas:)`, with or without the index
    /// trailer), wherever it is kept: under the catalog's "tables" key or in the meta page's root
    /// data (after `rootDataTag`). Offsets are into `bytes`.
    static func allTreeRoots(inMetas bytes: [UInt8]) throws(Realm.Error) -> [(offset: Int, tree: CatalogTree)] {
        let count = tableCount(bytes)
        // Validates the whole value, trailer included, exactly as reading it does.
        let metas = try decodeMetas(bytes, count: count)
        var out: [(offset: Int, tree: CatalogTree)] = []
        out.reserveCapacity(count * 2)
        for table in 0..<count {
            // Layout of `encode(metas:)`: objects root u32, primary-key root u32, next key u64.
            out.append((table * metaSize, .objects(table: table)))
            out.append((table * metaSize + 4, .primaryKeys(table: table)))
        }
        guard metas.contains(where: { !$0.indexes.isEmpty }) || bytes.count != count * metaSize else { return out }
        // The trailer: per table u16 k, then k × (u16 column, u32 root); then u32 n, u32 magic.
        var at = count * metaSize
        for (table, meta) in metas.enumerated() {
            at += 2
            for index in meta.indexes {
                out.append((at + 2, .index(table: table, column: index.column)))
                at += 6
            }
        }
        return out
    }
}
