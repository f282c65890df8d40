// QueryValue: everything a persisted property can hold, as the query layer sees it.
//
// Invariants:
// - `Equatable`/`Hashable` are *structural* (used for expression-tree equality and `distinct`):
//   `.int(1) != .double(1)`, objects compare by identity only, `.double(.nan) != .double(.nan)`.
// - Realm's *query* semantics (numeric cross-type comparison, nil == nil, `[c]`/`[d]` folding)
//   live in `QueryValueComparison.swift`, not here.
// - Not `Sendable`: an `.object` value carries the `QueryValueSource` used to follow links, and
//   managed objects are confined to their thread (the object layer enforces it at run time).
import Foundation

/// Something whose properties can be read by name: a managed object, an unmanaged one, or a test
/// double. Link properties return `.object` values that carry their own source, so key paths chain.
public protocol QueryValueSource {
    /// The value of the property `key`. Throws (any error) for a property that does not exist;
    /// the evaluator propagates that error unchanged.
    func queryValue(forKey key: String) throws -> QueryValue
}

/// The identity of an object: two `.object` values are equal when their identities are.
public struct QueryObjectIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The object type's name (e.g. `"Dog"`).
    public var typeName: String
    /// A key unique among objects of that type (the object key of a managed object).
    public var key: UInt64

    /// The identity of object `key` of type `typeName`.
    public init(typeName: String, key: UInt64) {
        self.typeName = typeName
        self.key = key
    }

    /// An identity for an unmanaged object, from its address (valid while the object lives).
    public init(typeName: String, object: AnyObject) {
        self.typeName = typeName
        self.key = UInt64(UInt(bitPattern: ObjectIdentifier(object).hashValue))
    }

    public var description: String { "\(typeName)#\(key)" }
}

/// A link to an object: its identity plus the source that reads its properties.
public struct QueryObjectReference {
    /// Who the object is (what `==` compares).
    public var identity: QueryObjectIdentity
    /// Reads the object's properties (what key paths through the link follow).
    public var source: any QueryValueSource

    /// A link to the object `identity`, read through `source`.
    public init(identity: QueryObjectIdentity, source: any QueryValueSource) {
        self.identity = identity
        self.source = source
    }
}

/// A 12-byte ObjectId (4-byte timestamp, 5 random bytes, 3-byte counter), ordered by its bytes.
public struct QueryObjectID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Bytes 0..<8, big-endian.
    public let high: UInt64
    /// Bytes 8..<12, big-endian.
    public let low: UInt32

    /// From the id's bytes 0..<8 and 8..<12, each read big-endian.
    public init(high: UInt64, low: UInt32) {
        self.high = high
        self.low = low
    }

    /// Fails unless `bytes` holds exactly 12 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 12 else { return nil }
        var high: UInt64 = 0
        for byte in bytes[0..<8] { high = high << 8 | UInt64(byte) }
        var low: UInt32 = 0
        for byte in bytes[8..<12] { low = low << 8 | UInt32(byte) }
        self.high = high
        self.low = low
    }

    /// Fails unless `hex` is exactly 24 hexadecimal digits.
    public init?(hexString hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 24 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12)
        var index = 0
        while index < 24 {
            guard let hi = hexDigitValue(digits[index]), let lo = hexDigitValue(digits[index + 1]) else { return nil }
            bytes.append(hi << 4 | lo)
            index += 2
        }
        self.init(bytes: bytes)
    }

    /// The 12 bytes, in order.
    public var bytes: [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(12)
        for shift in stride(from: 56, through: 0, by: -8) { result.append(UInt8(truncatingIfNeeded: high >> UInt64(shift))) }
        for shift in stride(from: 24, through: 0, by: -8) { result.append(UInt8(truncatingIfNeeded: low >> UInt32(shift))) }
        return result
    }

    public var description: String {
        bytes.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }

    public static func < (lhs: QueryObjectID, rhs: QueryObjectID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}

/// A value as the query engine sees it: a property's value, a constant of a query, or an argument.
///
/// Swift values become query values through ``QueryValueConvertible``; the arguments of
/// ``Results/filter(_:_:)`` are converted the same way.
public enum QueryValue {
    /// No value: a `nil` property or argument.
    case null
    /// A Boolean.
    case bool(Bool)
    /// An integer of any width, widened to 64 bits.
    case int(Int64)
    /// A `Float`.
    case float(Float)
    /// A `Double`.
    case double(Double)
    /// A string.
    case string(String)
    /// Bytes.
    case data(Data)
    /// A point in time.
    case date(Date)
    /// A decimal number (a ``Decimal128`` property's value).
    case decimal(Decimal)
    /// An ``ObjectId`` value, as its twelve bytes.
    case objectId(QueryObjectID)
    /// A UUID.
    case uuid(UUID)
    /// A link to an object (a to-one link, or an element of a to-many link). Boxed (`indirect`)
    /// so that the reference's existential does not make every QueryValue wide.
    indirect case object(QueryObjectReference)
    /// A geospatial shape (``GeoBox``, ``GeoPolygon``, ``GeoCircle``): the right side of a
    /// `GEOWITHIN` comparison only.
    indirect case geo(QueryGeoRegion)
    /// An ordered to-many value (`List`), or a list of arguments / a `{…}` literal.
    case list([QueryValue])
    /// An unordered to-many value (`MutableSet`).
    case set([QueryValue])
    /// A `Map<String, V>`; queries see its values.
    case map([String: QueryValue])

    /// Whether the value is `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The elements of a to-many value (`list`, `set`, the values of a `map`), nil otherwise.
    /// Map values come in key order so that results are deterministic.
    public var collectionElements: [QueryValue]? {
        switch self {
        case .list(let elements), .set(let elements): return elements
        case .map(let entries): return entries.keys.sorted().compactMap { entries[$0] }
        default: return nil
        }
    }
}

// MARK: - Structural equality and hashing

extension QueryValue: Equatable {
    public static func == (lhs: QueryValue, rhs: QueryValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.float(a), .float(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.data(a), .data(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.decimal(a), .decimal(b)): return a == b
        case let (.objectId(a), .objectId(b)): return a == b
        case let (.uuid(a), .uuid(b)): return a == b
        case let (.object(a), .object(b)): return a.identity == b.identity
        case let (.list(a), .list(b)): return a == b
        case let (.set(a), .set(b)): return a == b
        case let (.map(a), .map(b)): return a == b
        case let (.geo(a), .geo(b)): return a == b
        default: return false
        }
    }
}

extension QueryValue: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(1); hasher.combine(value)
        case .int(let value): hasher.combine(2); hasher.combine(value)
        case .float(let value): hasher.combine(3); hasher.combine(value)
        case .double(let value): hasher.combine(4); hasher.combine(value)
        case .string(let value): hasher.combine(5); hasher.combine(value)
        case .data(let value): hasher.combine(6); hasher.combine(value)
        case .date(let value): hasher.combine(7); hasher.combine(value)
        case .decimal(let value): hasher.combine(8); hasher.combine(value)
        case .objectId(let value): hasher.combine(9); hasher.combine(value)
        case .uuid(let value): hasher.combine(10); hasher.combine(value)
        case .object(let value): hasher.combine(11); hasher.combine(value.identity)
        case .list(let value): hasher.combine(12); hasher.combine(value)
        case .set(let value): hasher.combine(13); hasher.combine(value)
        case .map(let value): hasher.combine(14); hasher.combine(value)
        case .geo(let value): hasher.combine(15); hasher.combine(value)
        }
    }
}

// MARK: - Conversions from Swift values

/// A Swift value that can be a query constant or argument.
public protocol QueryValueConvertible {
    /// The value as a query constant or argument.
    var queryValue: QueryValue { get }
}

extension QueryValue: QueryValueConvertible {
    /// The value itself.
    public var queryValue: QueryValue { self }
}
extension Bool: QueryValueConvertible { public var queryValue: QueryValue { .bool(self) } }
extension Int: QueryValueConvertible { public var queryValue: QueryValue { .int(Int64(self)) } }
extension Int8: QueryValueConvertible { public var queryValue: QueryValue { .int(Int64(self)) } }
extension Int16: QueryValueConvertible { public var queryValue: QueryValue { .int(Int64(self)) } }
extension Int32: QueryValueConvertible { public var queryValue: QueryValue { .int(Int64(self)) } }
extension Int64: QueryValueConvertible { public var queryValue: QueryValue { .int(self) } }
extension Float: QueryValueConvertible { public var queryValue: QueryValue { .float(self) } }
extension Double: QueryValueConvertible { public var queryValue: QueryValue { .double(self) } }
extension String: QueryValueConvertible { public var queryValue: QueryValue { .string(self) } }
extension Substring: QueryValueConvertible { public var queryValue: QueryValue { .string(String(self)) } }
extension Data: QueryValueConvertible { public var queryValue: QueryValue { .data(self) } }
extension Date: QueryValueConvertible { public var queryValue: QueryValue { .date(self) } }
extension Decimal: QueryValueConvertible { public var queryValue: QueryValue { .decimal(self) } }
extension UUID: QueryValueConvertible { public var queryValue: QueryValue { .uuid(self) } }
extension QueryObjectID: QueryValueConvertible { public var queryValue: QueryValue { .objectId(self) } }
extension QueryObjectReference: QueryValueConvertible { public var queryValue: QueryValue { .object(self) } }
extension Optional: QueryValueConvertible where Wrapped: QueryValueConvertible {
    /// The wrapped value's query value, or ``QueryValue/null`` for `nil`.
    public var queryValue: QueryValue { self?.queryValue ?? .null }
}
extension Array: QueryValueConvertible where Element: QueryValueConvertible {
    /// A list of the elements' query values, as the right side of `IN`.
    public var queryValue: QueryValue { .list(map(\.queryValue)) }
}
extension Set: QueryValueConvertible where Element: QueryValueConvertible {
    /// A set of the elements' query values, as the right side of `IN`.
    public var queryValue: QueryValue { .set(map(\.queryValue)) }
}

// MARK: - Conversion from untyped arguments

extension QueryValue {
    /// Converts an untyped argument (as `filter(_ format: String, _ args: Any...)` receives them):
    /// any `QueryValueConvertible`, nil / `NSNull`, unsigned integers that fit in Int64, and arrays
    /// or sets of those (for `IN %@` and `BETWEEN %@`). Returns nil for anything else, so the
    /// caller can report which argument it could not use.
    public init?(converting value: Any) {
        // Fast path (no Mirror): a convertible value, optional or not, converts as below would
        // (`Optional.queryValue` unwraps exactly like the Mirror branch).
        if let convertible = value as? QueryValueConvertible {
            self = convertible.queryValue
            return
        }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else {
                self = .null
                return
            }
            self.init(converting: wrapped)
            return
        }
        switch value {
        case is NSNull: self = .null
        case let convertible as QueryValueConvertible: self = convertible.queryValue
        case let number as UInt: guard let v = Int64(exactly: number) else { return nil }; self = .int(v)
        case let number as UInt64: guard let v = Int64(exactly: number) else { return nil }; self = .int(v)
        case let number as UInt32: self = .int(Int64(number))
        case let number as UInt16: self = .int(Int64(number))
        case let number as UInt8: self = .int(Int64(number))
        case let array as [Any]:
            var elements: [QueryValue] = []
            elements.reserveCapacity(array.count)
            for element in array {
                guard let converted = QueryValue(converting: element) else { return nil }
                elements.append(converted)
            }
            self = .list(elements)
        default:
            return nil
        }
    }
}
