// `AnyRealmValue`: a property or collection element that holds a value of any storable type
// (Realm's "mixed").
//
// Stored encoding (a row's variable tail for a property, the element bytes in a List, MutableSet
// or Map): one tag byte naming the case, then that case's payload. A property holding `.none`
// sets its null bit and stores nothing.
//   1 int       8 bytes, Int64 little-endian
//   2 bool      1 byte, 0 or 1
//   3 float     4 bytes, bit pattern little-endian
//   4 double    8 bytes, bit pattern little-endian
//   5 string    UTF-8 bytes (the rest of the value)
//   6 data      the bytes (the rest of the value)
//   7 date      8 bytes, timeIntervalSinceReferenceDate's bit pattern little-endian
//   8 objectId  12 bytes
//   9 decimal128 16 bytes, as a Decimal128 property stores them
//  10 uuid      16 bytes
//  11 object    8 bytes object key little-endian, then the class name in UTF-8
//  12 list      per element: its length (UInt32 little-endian), then its tagged encoding
//  13 dictionary per entry, in the keys' UTF-8 byte order: key length (UInt32), key UTF-8,
//               value length (UInt32), value's tagged encoding
//   0 none      (collection elements only) nothing
//
// Invariants:
// - The tag alone decides the case read back: a payload whose length does not match its tag, or a
//   tag not listed here, is a damaged file (reported as `.corruptFile`), never another case.
// - A link names its class, not a table number, so it survives compaction and migrations that
//   renumber tables. It is not a tracked link (no backlink): a link whose object was deleted reads
//   back as `.none`, which object keys make exact because they are never reused in a table. A
//   table `deleteData(forType:)` removed (TableRemoval.swift) is the exception: a class of that
//   name stored again later starts its keys afresh, and a stale link may name a new object.
// - A nested list or dictionary is stored inside the value that holds it, at most
//   `maxNestingDepth` levels deep; NestedCollections.swift makes it live on a managed object.
import Foundation

/// A value of any type a property can store: Realm's mixed type.
///
/// ```swift
/// final class Setting: Object {
///     @Persisted var key = ""
///     @Persisted var value: AnyRealmValue        // .none until set
///     @Persisted var history: List<AnyRealmValue>
/// }
/// setting.value = .int(3)
/// setting.value = .string("three")
/// let threes = realm.objects(Setting.self).filter("value == %@", 3)
/// ```
///
/// The case read back is always the case stored: `.int(1)` and `.double(1)` stay distinct values,
/// though a query's `==` compares numbers across the numeric cases as Realm's does.
public enum AnyRealmValue: Hashable {
    /// No value (a new property's value).
    case none
    case int(Int)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    /// A link to an object of any class; reads back as `.none` once that object is deleted.
    case object(Object)
    case objectId(ObjectId)
    case decimal128(Decimal128)
    case uuid(UUID)
    /// A dictionary of values, any of which may be a collection again. Read from a managed object,
    /// it is live: changing it (inside a write) changes the stored value.
    case dictionary(Map<String, AnyRealmValue>)
    /// A list of values, any of which may be a collection again. Read from a managed object, it is
    /// live: changing it (inside a write) changes the stored value.
    case list(List<AnyRealmValue>)

    /// `.none`.
    public init() { self = .none }

    /// The value when it is an `.int`, else nil.
    public var intValue: Int? { if case .int(let v) = self { v } else { nil } }
    /// The value when it is a `.bool`, else nil.
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    /// The value when it is a `.float`, else nil.
    public var floatValue: Float? { if case .float(let v) = self { v } else { nil } }
    /// The value when it is a `.double`, else nil.
    public var doubleValue: Double? { if case .double(let v) = self { v } else { nil } }
    /// The value when it is a `.string`, else nil.
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    /// The value when it is a `.data`, else nil.
    public var dataValue: Data? { if case .data(let v) = self { v } else { nil } }
    /// The value when it is a `.date`, else nil.
    public var dateValue: Date? { if case .date(let v) = self { v } else { nil } }
    /// The value when it is an `.objectId`, else nil.
    public var objectIdValue: ObjectId? { if case .objectId(let v) = self { v } else { nil } }
    /// The value when it is a `.decimal128`, else nil.
    public var decimal128Value: Decimal128? { if case .decimal128(let v) = self { v } else { nil } }
    /// The value when it is a `.uuid`, else nil.
    public var uuidValue: UUID? { if case .uuid(let v) = self { v } else { nil } }

    /// The dictionary when this is a `.dictionary`, else nil.
    public var dictionaryValue: Map<String, AnyRealmValue>? { if case .dictionary(let v) = self { v } else { nil } }
    /// The list when this is a `.list`, else nil.
    public var listValue: List<AnyRealmValue>? { if case .list(let v) = self { v } else { nil } }

    /// An unmanaged `.dictionary` holding `dictionary`'s entries.
    ///
    /// - Parameter dictionary: the entries.
    public static func fromDictionary(_ dictionary: [String: AnyRealmValue]) -> AnyRealmValue {
        let map = Map<String, AnyRealmValue>()
        map.unmanagedEntries = dictionary
        return .dictionary(map)
    }

    /// An unmanaged `.list` holding `array`'s elements in order.
    ///
    /// - Parameter array: the elements.
    public static func fromArray(_ array: [AnyRealmValue]) -> AnyRealmValue {
        let list = List<AnyRealmValue>()
        list.unmanagedElements = array
        return .list(list)
    }

    /// The linked object when this is an `.object` of class `objectType`, else nil.
    ///
    /// - Parameter objectType: the class the caller expects.
    public func object<T: Object>(_ objectType: T.Type) -> T? {
        if case .object(let o) = self { o as? T } else { nil }
    }

    /// The wrapped Swift value (`Int`, `String`, an `Object`…), nil for `.none`.
    var wrapped: Any? {
        switch self {
        case .none: nil
        case .int(let v): v
        case .bool(let v): v
        case .float(let v): v
        case .double(let v): v
        case .string(let v): v
        case .data(let v): v
        case .date(let v): v
        case .object(let v): v
        case .objectId(let v): v
        case .decimal128(let v): v
        case .uuid(let v): v
        case .dictionary(let v): v
        case .list(let v): v
        }
    }

    /// The value an `NSNumber` holds, by the type it was made from; nil for an unsigned integer
    /// beyond `Int`'s range.
    private init?(number n: NSNumber) {
        switch String(cString: n.objCType) {
        case "c", "B": self = .bool(n.boolValue)
        case "f": self = .float(n.floatValue)
        case "d": self = .double(n.doubleValue)
        default:
            guard let v = n as? Int else { return nil }
            self = .int(v)
        }
    }

    /// The case that holds `any` (itself an `AnyRealmValue` or a value of one of the cases' types;
    /// every integer width becomes `.int`); nil when no case holds it.
    init?(wrapping any: Any?) {
        guard let any else { self = .none; return }
        switch any {
        case let v as AnyRealmValue: self = v
        case is NSNull: self = .none
        // An `NSNumber` (key-value coding's form) keeps the kind it was made from; the casts
        // below would take a whole `Double` for an `Int` and a `Bool` for the integer 1.
        // The dynamic type is tested first: `as NSNumber` would bridge (allocate) every Swift number.
        case _ where type(of: any) is NSNumber.Type:
            guard let n = any as? NSNumber, let value = Self(number: n) else { return nil }
            self = value
        case let v as Int: self = .int(v)
        case let v as Int64: self = .int(Int(v))
        case let v as Int32: self = .int(Int(v))
        case let v as Int16: self = .int(Int(v))
        case let v as Int8: self = .int(Int(v))
        case let v as Bool: self = .bool(v)
        case let v as Float: self = .float(v)
        case let v as Double: self = .double(v)
        case let v as String: self = .string(v)
        case let v as Data: self = .data(v)
        case let v as Date: self = .date(v)
        case let v as Object: self = .object(v)
        case let v as ObjectId: self = .objectId(v)
        case let v as Decimal128: self = .decimal128(v)
        case let v as UUID: self = .uuid(v)
        case let v as List<AnyRealmValue>: self = .list(v)
        case let v as Map<String, AnyRealmValue>: self = .dictionary(v)
        case let v as [String: Any]:
            var entries: [String: AnyRealmValue] = [:]
            for (key, element) in v {
                guard let value = AnyRealmValue(wrapping: element) else { return nil }
                entries[key] = value
            }
            self = .fromDictionary(entries)
        case let v as [Any]:
            var elements: [AnyRealmValue] = []
            for element in v {
                guard let value = AnyRealmValue(wrapping: element) else { return nil }
                elements.append(value)
            }
            self = .fromArray(elements)
        default:
            // An optional inside the `Any` (an element of `["a", nil]`): nil is `.none`, a
            // value is that value.
            let mirror = Mirror(reflecting: any)
            guard mirror.displayStyle == .optional else { return nil }
            guard let wrapped = mirror.children.first?.value else { self = .none; return }
            guard let value = AnyRealmValue(wrapping: wrapped) else { return nil }
            self = value
        }
    }
}

extension AnyRealmValue {
    /// Values of one case compare their payloads (collections as ``List`` and ``Map`` compare:
    /// managed ones by location, unmanaged ones by contents); values of different cases differ.
    public static func == (lhs: AnyRealmValue, rhs: AnyRealmValue) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): true
        case let (.int(a), .int(b)): a == b
        case let (.bool(a), .bool(b)): a == b
        case let (.float(a), .float(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.data(a), .data(b)): a == b
        case let (.date(a), .date(b)): a == b
        case let (.object(a), .object(b)): a == b
        case let (.objectId(a), .objectId(b)): a == b
        case let (.decimal128(a), .decimal128(b)): a == b
        case let (.uuid(a), .uuid(b)): a == b
        case let (.dictionary(a), .dictionary(b)): a == b
        case let (.list(a), .list(b)): a == b
        default: false
        }
    }

    /// Hashes the payload; a collection hashes its case only (its contents can change).
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .none: hasher.combine(0)
        case .int(let v): hasher.combine(v)
        case .bool(let v): hasher.combine(v)
        case .float(let v): hasher.combine(v)
        case .double(let v): hasher.combine(v)
        case .string(let v): hasher.combine(v)
        case .data(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v)
        case .object(let v): hasher.combine(v)
        case .objectId(let v): hasher.combine(v)
        case .decimal128(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .dictionary: hasher.combine(12)
        case .list: hasher.combine(13)
        }
    }
}

extension AnyRealmValue: QueryValueConvertible {
    /// The wrapped value as a query constant or argument (``QueryValue/null`` for `.none`).
    public var queryValue: QueryValue { Object.queryValue(of: wrapped) }
}

// MARK: - Storage

/// The tags of the stored encoding (see the file header); stored in files, so never renumbered.
enum AnyRealmValueTag: UInt8 {
    case none = 0, int, bool, float, double, string, data, date, objectId, decimal128, uuid, object, list, dictionary
}

extension AnyRealmValue {
    /// The length-prefixed parts of a stored list or dictionary payload (elements; keys and values
    /// alternating); a length that overruns the payload is a damaged file.
    static func nestedParts(_ payload: UnsafeRawBufferPointer, of tag: AnyRealmValueTag) throws(Realm.Error) -> [UnsafeRawBufferPointer] {
        var parts: [UnsafeRawBufferPointer] = []
        var rest = payload
        while !rest.isEmpty {
            guard rest.count >= 4 else { throw Realm.Error(.corruptFile, "an AnyRealmValue \(tag) ends inside a length") }
            let length = Int(UInt32(littleEndian: rest.loadUnaligned(as: UInt32.self)))
            guard length <= rest.count - 4 else {
                throw Realm.Error(.corruptFile, "an AnyRealmValue \(tag) part of \(length) bytes overruns its \(rest.count - 4)")
            }
            parts.append(UnsafeRawBufferPointer(rebasing: rest[(rest.startIndex + 4)..<(rest.startIndex + 4 + length)]))
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(4 + length))
        }
        if tag == .dictionary, parts.count % 2 != 0 {
            throw Realm.Error(.corruptFile, "an AnyRealmValue dictionary has a key without a value")
        }
        return parts
    }

    /// How deep collections may nest (a list in a dictionary in a list… counts each level); deeper
    /// values are refused when written and reported as damage when read.
    static let maxNestingDepth = 100
}

extension AnyRealmValue: _PersistableElement {
    public static var _strataShape: _PropertyShape { _PropertyShape(type: .any, isOptional: true) }
    public static func _strataDefault() -> AnyRealmValue { .none }
    public var _strataAny: Any? { wrapped }

    public static func _strataFromAny(_ any: Any?) -> AnyRealmValue? {
        let value = AnyRealmValue(wrapping: any)
        // `create(_:value:)` copies an unmanaged object it is given (UnmanagedValueCopies.swift).
        if case .object(let o)? = value, o._binding == nil, let copies = UnmanagedValueCopies.current {
            return copies.copy(of: o).map { .object($0) }
        }
        return value
    }

    /// The stored value; a nested collection in it is a live view of the property.
    public static func _strataGet(_ obj: Object, _ ordinal: Int) -> AnyRealmValue {
        storedValue(obj, ordinal).attached(to: NestedCollectionLocation(root: .property(obj, ordinal: ordinal)))
    }

    /// The stored value of a managed object's property, nested collections as copies.
    static func storedValue(_ obj: Object, _ ordinal: Int) -> AnyRealmValue {
        guard let binding = obj._binding?.borrowed else { return .none }
        let column = binding.column(forOrdinal: ordinal)
        return binding.core.readColumn(binding, column) { row in _strataRead(row, column) } ?? .none
    }

    public static func _strataRead(_ row: _RowView, _ column: _Column) -> AnyRealmValue? {
        if row.isNull(column) { return AnyRealmValue.none }
        let bytes = row.variable(column)
        // An empty slot is a row written before the column existed (a migration added it).
        if bytes.isEmpty { return AnyRealmValue.none }
        return decode(bytes, core: row.core)
    }

    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        if case .none = self {
            row.setNull(column, true)
            return
        }
        var buffer = _ElementBuffer(core: row.core, ownerTable: row.table, ownerKey: row.key, ownerColumn: column.index)
        try _strataEncodeElement(&buffer)
        buffer.bytes.withUnsafeBytes { row.storeVariable($0, column) }
    }

    public static func _strataDecodeElement(_ element: _ElementView) -> AnyRealmValue {
        decode(element.bytes, core: element.core)
    }

    public func _strataEncodeElement(_ out: inout _ElementBuffer) throws {
        try encode(into: &out, depth: 0)
    }

    /// Appends this value's tagged encoding; `depth` counts the collections that hold it.
    func encode(into out: inout _ElementBuffer, depth: Int) throws {
        func put<T: FixedWidthInteger>(_ tag: AnyRealmValueTag, _ bits: T) {
            out.bytes.append(tag.rawValue)
            withUnsafeBytes(of: bits.littleEndian) { out.bytes.append(contentsOf: $0) }
        }
        func putBytes(_ tag: AnyRealmValueTag, _ bytes: some Collection<UInt8>) throws {
            guard bytes.count <= SchemaLimits.maxValueBytes else {
                throw Realm.Error(.valueTooLarge, "an AnyRealmValue of \(bytes.count) bytes exceeds the 16 MB limit")
            }
            out.bytes.append(tag.rawValue)
            out.bytes.append(contentsOf: bytes)
        }
        switch self {
        case .none: out.bytes.append(AnyRealmValueTag.none.rawValue)
        case .int(let v): put(.int, Int64(v))
        case .bool(let v): put(.bool, UInt8(v ? 1 : 0))
        case .float(let v): put(.float, v.bitPattern)
        case .double(let v): put(.double, v.bitPattern)
        case .date(let v): put(.date, v.timeIntervalSinceReferenceDate.bitPattern)
        case .string(let v): try putBytes(.string, v.utf8)
        case .data(let v): try putBytes(.data, v)
        case .objectId(let v):
            out.bytes.append(AnyRealmValueTag.objectId.rawValue)
            try v._strataEncodeElement(&out)
        case .uuid(let v):
            out.bytes.append(AnyRealmValueTag.uuid.rawValue)
            try v._strataEncodeElement(&out)
        case .decimal128(let v):
            out.bytes.append(AnyRealmValueTag.decimal128.rawValue)
            try v._strataEncodeElement(&out)
        case .object(let o):
            let key = try out.core.adding.keyForLinking(o, from: out.ownerTable)
            put(.object, key)
            out.bytes.append(contentsOf: type(of: o).className().utf8)
        case .list(let list):
            try Self.checkNesting(depth)
            out.bytes.append(AnyRealmValueTag.list.rawValue)
            for element in list.elements {
                try Self.appendSized(&out) { try element.encode(into: &$0, depth: depth + 1) }
            }
        case .dictionary(let map):
            try Self.checkNesting(depth)
            out.bytes.append(AnyRealmValueTag.dictionary.rawValue)
            for (key, value) in map.entries.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                try Self.appendSized(&out) { $0.bytes.append(contentsOf: key.utf8) }
                try Self.appendSized(&out) { try value.encode(into: &$0, depth: depth + 1) }
            }
        }
        guard out.bytes.count <= SchemaLimits.maxValueBytes else {
            throw Realm.Error(.valueTooLarge, "an AnyRealmValue of \(out.bytes.count) bytes exceeds the 16 MB limit")
        }
    }

    private static func checkNesting(_ depth: Int) throws {
        guard depth < maxNestingDepth else {
            throw Realm.Error(.invalidArgument, "collections in an AnyRealmValue nest more than \(maxNestingDepth) levels deep (does a collection hold itself?)")
        }
    }

    /// Appends what `body` writes, preceded by its length as a UInt32 little-endian.
    private static func appendSized(_ out: inout _ElementBuffer, _ body: (inout _ElementBuffer) throws -> Void) throws {
        let start = out.bytes.count
        out.bytes.append(contentsOf: [0, 0, 0, 0])
        try body(&out)
        let length = UInt32(truncatingIfNeeded: out.bytes.count - start - 4)
        withUnsafeBytes(of: length.littleEndian) { out.bytes.replaceSubrange(start..<start + 4, with: $0) }
    }

    /// Decodes the tagged bytes; a malformed value stops the read as a damaged file (see the header).
    static func decode(_ bytes: UnsafeRawBufferPointer, core: RealmCore, depth: Int = 0) -> AnyRealmValue {
        guard let first = bytes.first, let tag = AnyRealmValueTag(rawValue: first) else {
            core.readFailed(Realm.Error(.corruptFile, "an AnyRealmValue has an unknown type tag \(bytes.first.map(String.init) ?? "(empty)")"))
        }
        let payload = UnsafeRawBufferPointer(rebasing: bytes.dropFirst())
        func fixed<T: FixedWidthInteger>(_: T.Type) -> T {
            guard payload.count == MemoryLayout<T>.size else {
                core.readFailed(Realm.Error(.corruptFile, "an AnyRealmValue \(tag) has \(payload.count) bytes instead of \(MemoryLayout<T>.size)"))
            }
            return T(littleEndian: payload.loadUnaligned(as: T.self))
        }
        func exactly(_ count: Int) -> UnsafeRawBufferPointer {
            guard payload.count == count else {
                core.readFailed(Realm.Error(.corruptFile, "an AnyRealmValue \(tag) has \(payload.count) bytes instead of \(count)"))
            }
            return payload
        }
        let view = _ElementView(bytes: payload, core: core)
        switch tag {
        case .none:
            _ = exactly(0)
            return .none
        case .int: return .int(Int(truncatingIfNeeded: fixed(Int64.self)))
        case .bool: return .bool(fixed(UInt8.self) != 0)
        case .float: return .float(Float(bitPattern: fixed(UInt32.self)))
        case .double: return .double(Double(bitPattern: fixed(UInt64.self)))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: fixed(UInt64.self))))
        case .string: return .string(String(decoding: payload, as: UTF8.self))
        case .data: return .data(Data(payload))
        case .objectId:
            _ = exactly(12)
            return .objectId(ObjectId._strataDecodeElement(view))
        case .decimal128:
            _ = exactly(16)
            return .decimal128(Decimal128._strataDecodeElement(view))
        case .uuid: return .uuid(UUID.fromBytes(exactly(16)))
        case .object:
            guard payload.count > 8 else {
                core.readFailed(Realm.Error(.corruptFile, "an AnyRealmValue link has \(payload.count) bytes, too few for a key and a class name"))
            }
            let key = UInt64(littleEndian: payload.loadUnaligned(as: UInt64.self))
            let className = String(decoding: UnsafeRawBufferPointer(rebasing: payload.dropFirst(8)), as: UTF8.self)
            return linkTarget(in: core, className: className, key: key).map { .object($0) } ?? .none
        case .list, .dictionary:
            guard depth < maxNestingDepth else {
                core.readFailed(Realm.Error(.corruptFile, "an AnyRealmValue nests collections more than \(maxNestingDepth) levels deep"))
            }
            let parts: [UnsafeRawBufferPointer]
            do { parts = try nestedParts(payload, of: tag) } catch { core.readFailed(error) }
            if tag == .list {
                return .fromArray(parts.map { decode($0, core: core, depth: depth + 1) }).asStoredCopy()
            }
            var entries: [String: AnyRealmValue] = [:]
            for i in stride(from: 0, to: parts.count, by: 2) {
                guard let key = String(validating: parts[i], as: UTF8.self), entries[key] == nil else {
                    core.readFailed(Realm.Error(.corruptFile, "an AnyRealmValue dictionary has an invalid or repeated key"))
                }
                entries[key] = decode(parts[i + 1], core: core, depth: depth + 1)
            }
            return .fromDictionary(entries).asStoredCopy()
        }
    }
}

extension AnyRealmValue {
    /// The object an `AnyRealmValue` link names, nil when it no longer exists. The class is the
    /// one this realm has bound to that name, else the one this process discovered under it (used,
    /// or listed in `objectTypes`); a link to a class this process never met cannot be
    /// materialised and is reported as a read failure naming it.
    static func linkTarget(in core: RealmCore, className: String, key: UInt64) -> Object? {
        do {
            let snapshotPages = try core.pages()
            guard let known = core.snap.tableByName[className] else { return nil }
            let bound = known < core.snap.infos.count ? core.snap.infos[known] : nil
            guard let info = bound ?? ClassInfo.registered(named: className) else {
                core.readFailed(Realm.Error(.invalidArgument, "an AnyRealmValue links to a '\(className)', a class this process has not used; list it in Realm.Configuration.objectTypes"))
            }
            guard let table = try core.tableIndex(for: info, create: false),
                  try core.snap.metas[table].objects.contains(key, in: snapshotPages) else { return nil }
            return core.materializeAny(info: info, table: table, key: key)
        } catch {
            core.readFailed(error)
        }
    }
}
