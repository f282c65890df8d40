// Encoding `StoredValue`s as the object layer stores them: row slots, collection elements, map
// entries. The inverse of StoredValueDecoder, for StrataFileWriter.
//
// Invariants:
// - The bytes are exactly those the typed accessors write for the same value (the fixed-width
//   scalars little-endian, dates as the bits of the Double of seconds since 2001, Decimal128
//   through its own packing, AnyRealmValue tagged as in AnyRealmValue.swift).
// - A value that does not fit its property (another type, nil where nil is not allowed, too
//   large) is `.invalidArgument` / `.valueTooLarge` naming the property; nothing is stored.
import Foundation
import StrataStorage

struct StoredValueEncoding {
    let core: RealmCore

    private func mismatch(_ value: StoredValue, _ type: PropertyType, _ place: String) -> Realm.Error {
        Realm.Error(.invalidArgument, "\(place) holds \(type) values, not \(value)")
    }

    /// The encoding of a single value of `type` (no presence byte).
    func scalar(_ value: StoredValue, _ type: PropertyType, place: String) throws(Realm.Error) -> [UInt8] {
        func little<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        switch (type, value) {
        case (.bool, .bool(let b)): return [b ? 1 : 0]
        case (.int, .int(let i)): return little(i)
        case (.float, .float(let f)): return little(f.bitPattern)
        case (.double, .double(let d)): return little(d.bitPattern)
        case (.date, .date(let d)): return little(d.timeIntervalSinceReferenceDate.bitPattern)
        case (.string, .string(let s)):
            let bytes = Array(s.utf8)
            guard bytes.count <= SchemaLimits.maxValueBytes else {
                throw Realm.Error(.valueTooLarge, "\(place): a string of \(bytes.count) bytes exceeds the 16 MB limit")
            }
            return bytes
        case (.data, .data(let bytes)):
            guard bytes.count <= SchemaLimits.maxValueBytes else {
                throw Realm.Error(.valueTooLarge, "\(place): data of \(bytes.count) bytes exceeds the 16 MB limit")
            }
            return bytes
        case (.objectId, .objectId(let id)):
            return withUnsafeBytes(of: id.bytes) { Array($0) }
        case (.uuid, .uuid(let u)): return withUnsafeBytes(of: u.uuid) { Array($0) }
        case (.decimal128, .decimal128(let d)):
            var buffer = _ElementBuffer(core: core, ownerTable: -1, ownerKey: 0, ownerColumn: -1)
            do { try d._strataEncodeElement(&buffer) } catch { throw RealmCore.realmError(error) }
            return buffer.bytes
        case (.any, let v): return try mixed(v, place: place)
        default: throw mismatch(value, type, place)
        }
    }

    /// Appends `part` preceded by its length (UInt32 little-endian), as nested collections are stored.
    private static func appendSized(_ out: inout [UInt8], _ part: [UInt8]) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: part.count).littleEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: part)
    }

    /// A tagged AnyRealmValue (`.mixed(x)` or a bare `x`; a nested collection as `.list`/`.map`).
    func mixed(_ value: StoredValue, place: String) throws(Realm.Error) -> [UInt8] {
        let inner: StoredValue
        if case .mixed(let v) = value { inner = v } else { inner = value }
        func tagged(_ tag: AnyRealmValueTag, _ type: PropertyType) throws(Realm.Error) -> [UInt8] {
            [tag.rawValue] + (try scalar(inner, type, place: place))
        }
        switch inner {
        case .null: return [AnyRealmValueTag.none.rawValue]
        case .bool: return try tagged(.bool, .bool)
        case .int: return try tagged(.int, .int)
        case .float: return try tagged(.float, .float)
        case .double: return try tagged(.double, .double)
        case .string: return try tagged(.string, .string)
        case .data: return try tagged(.data, .data)
        case .date: return try tagged(.date, .date)
        case .objectId: return try tagged(.objectId, .objectId)
        case .uuid: return try tagged(.uuid, .uuid)
        case .decimal128: return try tagged(.decimal128, .decimal128)
        case .link(let className, let key):
            return [AnyRealmValueTag.object.rawValue] + withUnsafeBytes(of: key.littleEndian) { Array($0) } + Array(className.utf8)
        case .list(let elements):
            var out = [AnyRealmValueTag.list.rawValue]
            for (i, element) in elements.enumerated() {
                Self.appendSized(&out, try mixed(element, place: "\(place)[\(i)]"))
            }
            return out
        case .map(let entries):
            var out = [AnyRealmValueTag.dictionary.rawValue]
            for entry in entries.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                Self.appendSized(&out, Array(entry.key.utf8))
                Self.appendSized(&out, try mixed(entry.value, place: "\(place)[\(entry.key)]"))
            }
            return out
        case .mixed, .set:
            throw Realm.Error(.invalidArgument, "\(place): an AnyRealmValue holds a single value, a list or a map, not \(inner)")
        }
    }

    /// Stores a single (non-collection, non-link) value into its row slot.
    func store(_ value: StoredValue, _ property: Property, _ column: _Column, into row: inout _RowBuilder, place: String) throws(Realm.Error) {
        if case .null = value, property.type != .any {
            guard property.isOptional else { throw Realm.Error(.invalidArgument, "\(place) cannot be nil") }
            row.setNull(column, true)
            return
        }
        let bytes = try scalar(value, property.type, place: place)
        if column.isVariable {
            bytes.withUnsafeBytes { row.storeVariable($0, column) }
        } else {
            bytes.withUnsafeBytes { row.storeBytes($0, column) }
        }
    }

    /// One element of a list, set or map of values: a presence byte first for optional types.
    func element(_ value: StoredValue, _ property: Property, place: String) throws(Realm.Error) -> [UInt8] {
        let tagged = property.isOptional && property.type != .any
        if case .null = value, property.type != .any {
            guard tagged else { throw Realm.Error(.invalidArgument, "\(place) cannot hold nil") }
            return [0]
        }
        let bytes = try scalar(value, property.type, place: place)
        return tagged ? [1] + bytes : bytes
    }

    /// A new tree holding a list, set or map of values; its root (null when empty).
    func collection(_ value: StoredValue, _ property: Property, place: String, _ writing: WriteTransaction) throws -> PageRef {
        switch (property.collection, value) {
        case (.list, .list(let elements)), (.set, .set(let elements)), (.set, .list(let elements)):
            var encoded = try elements.map { (e) throws(Realm.Error) -> [UInt8] in try element(e, property, place: place) }
            if property.collection == .set { encoded = Self.setOrder(encoded) }
            var tree = PositionalTree()
            for bytes in encoded { try bytes.withUnsafeBytes { try tree.append($0, in: writing) } }
            return tree.root
        case (.map, .map(let entries)):
            var tree = BytesTree()
            for entry in entries {
                try Self.putMapEntry(entry.key, try element(entry.value, property, place: place), into: &tree, place: place, writing)
            }
            return tree.root
        case (_, .null):
            return .null
        default:
            throw Realm.Error(.invalidArgument, "\(place) is a \(property.collection), not \(value)")
        }
    }

    /// A set's elements as MutableSet keeps them: distinct, in byte order of their encodings.
    static func setOrder(_ encoded: [[UInt8]]) -> [[UInt8]] {
        let sorted = encoded.sorted { a, b in
            a.withUnsafeBytes { pa in b.withUnsafeBytes { ListStore.compareEncodings(pa, $0) < 0 } }
        }
        var out: [[UInt8]] = []
        for bytes in sorted where bytes != out.last { out.append(bytes) }
        return out
    }

    static func putMapEntry(_ key: String, _ value: [UInt8], into tree: inout BytesTree, place: String,
                            _ writing: WriteTransaction) throws(Realm.Error) {
        let keyBytes = Array(key.utf8)
        guard keyBytes.count <= BytesTree.maxKeySize else {
            throw Realm.Error(.valueTooLarge, "\(place): a map key of \(keyBytes.count) bytes exceeds \(BytesTree.maxKeySize)")
        }
        try Realm.Error.wrap {
            try keyBytes.withUnsafeBytes { k in try value.withUnsafeBytes { v in _ = try tree.put(k, v, in: writing) } }
        }
    }
}
