// Codable models: a model class that declares `Codable` gets the compiler's synthesized
// `init(from:)` and `encode(to:)`, which decode and encode each `@Persisted` wrapper, so the
// wrapper and every type a property can hold must be Codable themselves (RealmSwift's rules):
// - a property is its value; `null` decodes as nil for an optional property, and a missing key
//   does too (KeyedDecodingContainer's overload below); a missing key of any other property is
//   the decoder's `keyNotFound`;
// - `List` and `MutableSet` are arrays, `Map` is an object keyed by its keys, `RealmProperty`
//   and `RealmOptional` are their value, `ObjectId` is its 24-digit hex string.
//
// Invariant: only an unmanaged object is encoded this way. A managed object's wrappers do not
// hold its values (they are read through the realm), so encoding one is an `EncodingError`
// rather than the stale values the wrappers happen to hold; a model that must encode managed
// objects writes its own `encode(to:)` through its properties.
import Foundation

extension Persisted: Decodable where Value: Decodable {
    /// Decodes the property's value (`null` is nil for an optional property).
    public init(from decoder: any Decoder) throws {
        self.init(value: try decoder.strataDecodeValue(Value.self))
    }
}

extension Persisted: Encodable where Value: Encodable {
    /// Encodes the property's value; an `EncodingError` when its object is managed (see the file
    /// header).
    public func encode(to encoder: any Encoder) throws {
        guard !isBound else {
            throw EncodingError.invalidValue(value, .init(
                codingPath: encoder.codingPath,
                debugDescription: "a managed object cannot be encoded by the synthesized encode(to:): its @Persisted wrappers do not hold its values; encode an unmanaged copy, or write encode(to:) reading the properties"))
        }
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// A property wrapper whose value can be nil, so that a missing key decodes as nil (RealmSwift's
/// `OptionalCodingWrapper`).
public protocol OptionalCodingWrapper {
    /// The wrapped value's type.
    associatedtype WrappedType: ExpressibleByNilLiteral
    /// A wrapper holding `wrappedValue`.
    init(wrappedValue: WrappedType)
}

extension Persisted: OptionalCodingWrapper where Value: ExpressibleByNilLiteral {
    /// The property's optional type.
    public typealias WrappedType = Value
}

extension KeyedDecodingContainer {
    /// Decodes an optional property, `nil` when the key is missing (the synthesized
    /// `init(from:)` of a model asks for every key).
    ///
    /// - Parameters:
    ///   - type: the wrapper's type.
    ///   - key: the property's key.
    public func decode<T: Decodable & OptionalCodingWrapper>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? T(wrappedValue: nil)
    }
}

extension Decoder {
    /// A single value of type `T`. `null` is nil when `T` is optional; any other type decides
    /// itself what `null` is (`RealmOptional` takes it as nil, `String` refuses it). A value is
    /// decoded through the container, so the decoder's own strategies apply (`Data` as base64,
    /// `Date` as the decoder's date format).
    func strataDecodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        let container = try singleValueContainer()
        guard container.decodeNil() else { return try container.decode(T.self) }
        if let optional = T.self as? any ExpressibleByNilLiteral.Type, let none = optional.init(nilLiteral: ()) as? T {
            return none
        }
        return try T(from: self)
    }
}

extension List: Decodable where Element: Decodable {
    /// Decodes an array of elements.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        try decoder.strataDecodeElements(Element.self) { append($0) }
    }
}

extension List: Encodable where Element: Encodable {
    /// Encodes the elements as an array.
    public func encode(to encoder: any Encoder) throws { try encoder.strataEncodeElements(self) }
}

extension MutableSet: Decodable where Element: Decodable {
    /// Decodes an array of elements (a repeated element is kept once).
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        try decoder.strataDecodeElements(Element.self) { insert($0) }
    }
}

extension MutableSet: Encodable where Element: Encodable {
    /// Encodes the elements as an array.
    public func encode(to encoder: any Encoder) throws { try encoder.strataEncodeElements(self) }
}

extension Decoder {
    /// Hands each element of an array to `body`, in order.
    func strataDecodeElements<E: Decodable>(_ type: E.Type, _ body: (E) -> Void) throws {
        var container = try unkeyedContainer()
        while !container.isAtEnd { body(try container.decode(E.self)) }
    }
}

extension Encoder {
    /// Encodes `elements` as an array.
    func strataEncodeElements<S: Sequence>(_ elements: S) throws where S.Element: Encodable {
        var container = unkeyedContainer()
        for element in elements { try container.encode(element) }
    }
}

extension Map: Decodable where Key: Decodable, Value: Decodable {
    /// Decodes an object keyed by the map's keys.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        let entries = try decoder.singleValueContainer().decode([Key: Value].self)
        for (key, value) in entries { self[key] = value }
    }
}

extension Map: Encodable where Key: Encodable, Value: Encodable {
    /// Encodes the entries as an object keyed by the map's keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(reduce(into: [Key: Value]()) { $0[$1.key] = $1.value })
    }
}

extension RealmProperty: Codable where Value: Codable {
    /// Decodes the value (`null` is nil for an optional value).
    public convenience init(from decoder: any Decoder) throws {
        self.init(value: try decoder.strataDecodeValue(Value.self))
    }

    /// Encodes the value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

extension RealmOptional: Codable where Wrapped: Codable {
    /// Decodes the value, `null` being nil.
    public convenience init(from decoder: any Decoder) throws {
        self.init(try decoder.strataDecodeValue(Wrapped?.self))
    }

    /// Encodes the value (`null` for nil).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

extension ObjectId: Codable {
    /// Decodes the 24-digit hex string; any other string is a `DecodingError`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do { try self.init(string: text) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ObjectId (24 hex digits)")
        }
    }

    /// Encodes the 24-digit hex string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
