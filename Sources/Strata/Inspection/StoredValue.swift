// A stored value read by the schema kept in the file, without the app's model classes: what the
// `strata` tool exports and checks.
//
// Invariants:
// - Decoding never stops the process and never reads past a row: a slot, element or tagged value
//   that does not fit its type throws `.corruptFile` naming the class, property and object key.
//   (The object accessors read the same bytes through `_strataRead`; where those fall back to a
//   default for a malformed slot, this decoder reports it.)
// - One case per stored type, so an export names what the file holds exactly: `.int` is every
//   integer width (the file stores 64 bits), `.link` is a link by object key and class.
import Foundation
import StrataStorage

/// A value as stored in a Strata file.
public indirect enum StoredValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case data([UInt8])
    case date(Date)
    case objectId(ObjectId)
    case uuid(UUID)
    case decimal128(Decimal128)
    /// A link to object `key` of class `className`.
    case link(className: String, key: UInt64)
    /// An `AnyRealmValue` property or element: the value it holds.
    case mixed(StoredValue)
    case list([StoredValue])
    case set([StoredValue])
    /// A map's entries in key order.
    case map([MapEntry])

    public struct MapEntry: Hashable, Sendable {
        public var key: String
        public var value: StoredValue
        public init(key: String, value: StoredValue) {
            self.key = key
            self.value = value
        }
    }
}

/// One stored object: its key and the values of its stored properties, in schema order
/// (LinkingObjects properties, which are computed, read as `.null`).
public struct StoredObject: Hashable, Sendable {
    public var key: UInt64
    public var values: [StoredValue]
}

/// Decodes rows and collection elements by the file's schema.
struct StoredValueDecoder {
    let core: RealmCore
    let pages: any PageReading

    func damaged(_ schema: ObjectSchema, _ property: Property, _ key: UInt64, _ what: String) -> Realm.Error {
        Realm.Error(.corruptFile, "\(schema.className).\(property.name) of object \(key): \(what)")
    }

    /// The values of the row of object `key` of table `table`.
    func object(table: Int, key: UInt64, row: UnsafeRawBufferPointer) throws(Realm.Error) -> StoredObject {
        let schema = core.snap.schemas[table]
        let layout = core.layout(ofTable: table)
        let footer = RowFooter.length(row) ?? 0
        guard row.count - footer >= layout.fixedSize else {
            throw Realm.Error(.corruptFile, "\(schema.className) object \(key): row of \(row.count) bytes, shorter than its \(layout.fixedSize) fixed bytes")
        }
        let body = UnsafeRawBufferPointer(rebasing: row[0..<(row.count - footer)])
        let view = _RowView(bytes: body, core: core)
        var values: [StoredValue] = []
        values.reserveCapacity(schema.allProperties.count)
        for (i, property) in schema.allProperties.enumerated() {
            values.append(try value(of: property, column: layout.columns[i], in: view, schema: schema, key: key))
        }
        return StoredObject(key: key, values: values)
    }

    private func value(of property: Property, column c: _Column, in row: _RowView,
                       schema: ObjectSchema, key: UInt64) throws(Realm.Error) -> StoredValue {
        if property.type == .linkingObjects { return .null }
        if property.collection != .none {
            let root = PageRef(row.load(c, as: UInt32.self))
            do {
                return try collection(property, root: root)
            } catch let error as Realm.Error {
                throw damaged(schema, property, key, error.message)
            } catch {
                throw damaged(schema, property, key, "\(error)")
            }
        }
        if row.isNull(c) {
            guard property.isOptional || property.type == .object || property.type == .any else {
                throw damaged(schema, property, key, "nil in a property that cannot be nil")
            }
            return .null
        }
        if c.isVariable {
            let offset = Int(row.load(c, as: UInt32.self))
            let length = Int(row.bytes.loadUnaligned(fromByteOffset: c.offset + 4, as: UInt32.self))
            guard length == 0 || (offset >= c.offset && offset + length <= row.bytes.count) else {
                throw damaged(schema, property, key, "value at bytes \(offset)..<\(offset + length) lies outside its \(row.bytes.count)-byte row")
            }
            let bytes = length == 0 ? UnsafeRawBufferPointer(start: nil, count: 0) : row.variable(c)
            if property.type == .any {
                // An empty slot is a row written before the column existed (a migration added it).
                if bytes.isEmpty { return .mixed(.null) }
                do { return .mixed(try mixed(bytes)) } catch { throw damaged(schema, property, key, error.message) }
            }
            return property.type == .string ? .string(try text(bytes, schema, property, key)) : .data(Array(bytes))
        }
        switch property.type {
        case .bool: return .bool(row.load(c, as: UInt8.self) != 0)
        case .int: return .int(Int64(littleEndian: row.load(c, as: Int64.self)))
        case .float: return .float(Float(bitPattern: row.load(c, as: UInt32.self)))
        case .double: return .double(Double(bitPattern: row.load(c, as: UInt64.self)))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: row.load(c, as: UInt64.self))))
        case .objectId: return .objectId(ObjectId._strataDecodeElement(_ElementView(bytes: row.fixedBytes(c, count: 12), core: core)))
        case .uuid: return .uuid(UUID.fromBytes(row.fixedBytes(c, count: 16)))
        case .decimal128: return .decimal128(Decimal128._strataDecodeElement(_ElementView(bytes: row.fixedBytes(c, count: 16), core: core)))
        case .object: return try link(property, UInt64(littleEndian: row.load(c, as: UInt64.self)))
        case .string, .data, .any, .linkingObjects: return .null  // handled above
        }
    }

    private func text(_ bytes: UnsafeRawBufferPointer, _ schema: ObjectSchema, _ property: Property, _ key: UInt64) throws(Realm.Error) -> String {
        guard let s = String(validating: bytes, as: UTF8.self) else {
            throw damaged(schema, property, key, "a string that is not valid UTF-8")
        }
        return s
    }

    private func link(_ property: Property, _ key: UInt64) throws(Realm.Error) -> StoredValue {
        guard let target = property.objectClassName else {
            throw Realm.Error(.corruptFile, "link property '\(property.name)' names no class")
        }
        return .link(className: target, key: key)
    }

    /// The elements of a list, set or map tree.
    private func collection(_ property: Property, root: PageRef) throws -> StoredValue {
        if property.collection == .map {
            var entries: [StoredValue.MapEntry] = []
            var failure: Realm.Error? = nil
            try BytesTree(root: root).forEach(from: nil, in: pages) { k, v in
                do throws(Realm.Error) {
                    guard let key = String(validating: k, as: UTF8.self) else {
                        throw Realm.Error(.corruptFile, "a map key that is not valid UTF-8")
                    }
                    // Map values of links are stored optional-style (a presence byte, then the key).
                    let tagged = (property.isOptional && property.type != .any) || property.type == .object
                    entries.append(.init(key: key, value: try element(property, v, tagged: tagged)))
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
            if let failure { throw failure }
            return .map(entries)
        }
        var elements: [StoredValue] = []
        var failure: Realm.Error? = nil
        try PositionalTree(root: root).forEach(from: 0, in: pages) { _, e in
            do throws(Realm.Error) {
                elements.append(try element(property, e, tagged: property.isOptional && property.type != .any))
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
        return property.collection == .set ? .set(elements) : .list(elements)
    }

    /// One encoded element; `tagged`: a presence byte (0 nil, 1 value) comes first.
    private func element(_ property: Property, _ bytes: UnsafeRawBufferPointer, tagged: Bool) throws(Realm.Error) -> StoredValue {
        var payload = bytes
        if tagged {
            guard let tag = bytes.first, tag <= 1 else {
                throw Realm.Error(.corruptFile, "an optional element with presence byte \(bytes.first.map(String.init) ?? "(none)")")
            }
            if tag == 0 { return .null }
            payload = UnsafeRawBufferPointer(rebasing: bytes.dropFirst())
        }
        if property.type == .any { return .mixed(try mixed(payload)) }
        return try scalar(property.type, payload, linkClass: property.objectClassName)
    }

    /// A fixed-layout element (or an `AnyRealmValue` payload) of `type`.
    private func scalar(_ type: PropertyType, _ bytes: UnsafeRawBufferPointer, linkClass: String?) throws(Realm.Error) -> StoredValue {
        func exactly(_ n: Int) throws(Realm.Error) {
            guard bytes.count == n else {
                throw Realm.Error(.corruptFile, "a \(type) element of \(bytes.count) bytes instead of \(n)")
            }
        }
        let view = _ElementView(bytes: bytes, core: core)
        switch type {
        case .bool: try exactly(1); return .bool(bytes[0] != 0)
        case .int: try exactly(8); return .int(Int64(littleEndian: bytes.loadUnaligned(as: Int64.self)))
        case .float: try exactly(4); return .float(Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self))))
        case .double: try exactly(8); return .double(Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))))
        case .date:
            try exactly(8)
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)))))
        case .string:
            guard let s = String(validating: bytes, as: UTF8.self) else {
                throw Realm.Error(.corruptFile, "a string element that is not valid UTF-8")
            }
            return .string(s)
        case .data: return .data(Array(bytes))
        case .objectId: try exactly(12); return .objectId(ObjectId._strataDecodeElement(view))
        case .uuid: try exactly(16); return .uuid(UUID.fromBytes(bytes))
        case .decimal128: try exactly(16); return .decimal128(Decimal128._strataDecodeElement(view))
        case .object:
            try exactly(8)
            guard let linkClass else { throw Realm.Error(.corruptFile, "a link element of a property that names no class") }
            return .link(className: linkClass, key: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)))
        case .any: return .mixed(try mixed(bytes))
        case .linkingObjects: throw Realm.Error(.corruptFile, "a stored element of a computed (LinkingObjects) type")
        }
    }

    /// A tagged `AnyRealmValue` (AnyRealmValue.swift's encoding); a link carries its class name.
    private func mixed(_ bytes: UnsafeRawBufferPointer, depth: Int = 0) throws(Realm.Error) -> StoredValue {
        guard let first = bytes.first, let tag = AnyRealmValueTag(rawValue: first) else {
            throw Realm.Error(.corruptFile, "an AnyRealmValue with unknown type tag \(bytes.first.map(String.init) ?? "(empty)")")
        }
        let payload = UnsafeRawBufferPointer(rebasing: bytes.dropFirst())
        switch tag {
        case .none:
            guard payload.isEmpty else { throw Realm.Error(.corruptFile, "an AnyRealmValue nil with \(payload.count) bytes") }
            return .null
        case .int: return try scalar(.int, payload, linkClass: nil)
        case .bool: return try scalar(.bool, payload, linkClass: nil)
        case .float: return try scalar(.float, payload, linkClass: nil)
        case .double: return try scalar(.double, payload, linkClass: nil)
        case .string: return try scalar(.string, payload, linkClass: nil)
        case .data: return .data(Array(payload))
        case .date: return try scalar(.date, payload, linkClass: nil)
        case .objectId: return try scalar(.objectId, payload, linkClass: nil)
        case .decimal128: return try scalar(.decimal128, payload, linkClass: nil)
        case .uuid: return try scalar(.uuid, payload, linkClass: nil)
        case .object:
            guard payload.count > 8, let name = String(validating: UnsafeRawBufferPointer(rebasing: payload.dropFirst(8)), as: UTF8.self) else {
                throw Realm.Error(.corruptFile, "an AnyRealmValue link of \(payload.count) bytes without a valid class name")
            }
            return .link(className: name, key: UInt64(littleEndian: payload.loadUnaligned(as: UInt64.self)))
        case .list, .dictionary:
            guard depth < AnyRealmValue.maxNestingDepth else {
                throw Realm.Error(.corruptFile, "an AnyRealmValue nests collections more than \(AnyRealmValue.maxNestingDepth) levels deep")
            }
            let parts = try AnyRealmValue.nestedParts(payload, of: tag)
            if tag == .list {
                var elements: [StoredValue] = []
                for part in parts { elements.append(.mixed(try mixed(part, depth: depth + 1))) }
                return .list(elements)
            }
            var entries: [StoredValue.MapEntry] = []
            for i in stride(from: 0, to: parts.count, by: 2) {
                guard let key = String(validating: parts[i], as: UTF8.self) else {
                    throw Realm.Error(.corruptFile, "an AnyRealmValue dictionary key that is not valid UTF-8")
                }
                entries.append(StoredValue.MapEntry(key: key, value: .mixed(try mixed(parts[i + 1], depth: depth + 1))))
            }
            return .map(entries)
        }
    }
}
