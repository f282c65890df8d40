// `CustomPersistable` and `FailableCustomPersistable`: a type of the app stored as one of the
// types a property can hold (its "persisted type"), as RealmSwift maps them.
//
// Invariants:
// - The stored bytes, the schema and queries are the persisted type's: a custom type adds no
//   column kind, so a file written with `@Persisted var x: Int` reads with a wrapper of `Int`.
// - A failable mapping that cannot convert a stored value never reads as another value: in an
//   optional context (`T?`, `List<T?>`, `Map<_, T?>`) it reads as nil, in a non-optional one it
//   stops the process with a `Strata:` message — RealmSwift's documented behaviour, because the
//   property getter cannot throw. Such a value reaches the file as RealmSwift lets it: a value
//   of the persisted type set on a managed object's optional property (`setValue(_:forKey:)`,
//   the subscript, `DynamicObject`, a migration) is stored as it is, whether or not it converts
//   (`Optional.setUnconverted`). A non-optional property refuses it with `.invalidArgument`, as
//   reading it back would stop the process, and so does an unmanaged object, whose property can
//   hold only a value of the type. Queries read the persisted value of a property without
//   converting it, so they see (and never stop on) such values; collection elements are
//   converted, as reading them is.
import Foundation

/// A type of your app stored in a realm as one of the types a property can hold.
///
/// Declare the persisted type, how to build your type from it and how to turn your type into it;
/// the type can then be a `@Persisted` property, an optional one, and an element of `List`,
/// `MutableSet` and `Map`. Queries compare the persisted value: a value of your type in a query
/// stands for its ``persistableValue``.
///
/// ```swift
/// struct Temperature: CustomPersistable {
///     typealias PersistedType = Double
///     var celsius: Double
///     init(celsius: Double) { self.celsius = celsius }
///     init(persistedValue: Double) { celsius = persistedValue }
///     var persistableValue: Double { celsius }
/// }
///
/// final class Reading: Object {
///     @Persisted var temperature = Temperature(celsius: 20)
///     @Persisted var history: List<Temperature>
/// }
/// let warm = realm.objects(Reading.self).where { $0.temperature.persistableValue > 25 }
/// ```
public protocol CustomPersistable: _CustomPersistable {
    /// Builds a value from its stored form.
    init(persistedValue: PersistedType)
    /// The stored form of this value.
    var persistableValue: PersistedType { get }
}

/// A ``CustomPersistable`` type for which not every stored value can be converted back, such as
/// a URL stored as a string.
///
/// A value of the persisted type set on a managed object's optional property through
/// `setValue(_:forKey:)`, the subscript or ``DynamicObject`` is stored as it is, whether or not it
/// converts, as in RealmSwift. A stored value the type cannot convert reads as `nil` where the
/// property or the collection element is optional; where it is not optional, reading it stops
/// the process with a `Strata:` message, as RealmSwift raises an exception there. Declare the
/// property optional when stored data may not convert. A property declared without an initial value starts as the conversion
/// of the persisted type's default (`0`, `""`, …); when `init(persistedValue:)` refuses it, the
/// property has no value until one is set: reading it stops with a `Strata:` message, and adding
/// or creating its object fails the write with `.invalidArgument`, as in RealmSwift.
public protocol FailableCustomPersistable: _CustomPersistable {
    /// Builds a value from its stored form, or nil when the stored value has no counterpart.
    init?(persistedValue: PersistedType)
    /// The stored form of this value.
    var persistableValue: PersistedType { get }
}

/// What ``CustomPersistable`` and ``FailableCustomPersistable`` share.
public protocol _CustomPersistable: RealmCollectionValue, QueryValueConvertible
where PersistedType: RealmCollectionValue {
    /// The stored form of this value.
    var persistableValue: PersistedType { get }
    /// Converts a stored value; nil when the type has no counterpart for it.
    static func _strataConvert(_ persisted: PersistedType) -> Self?
}

extension CustomPersistable {
    public static func _strataConvert(_ persisted: PersistedType) -> Self? { Self(persistedValue: persisted) }
}

extension FailableCustomPersistable {
    public static func _strataConvert(_ persisted: PersistedType) -> Self? { Self(persistedValue: persisted) }
    public static var _strataMayLackDefault: Bool { true }
    public static func _strataDeclarationDefaultIfAny() -> Self? { _strataConvert(PersistedType._strataDeclarationDefault()) }
}

extension _CustomPersistable {
    /// The stored type's shape (see `FieldIO.shape` for a property of a type stored as an
    /// embedded object).
    public static var _strataShape: _PropertyShape { PersistedType._strataShape }

    public static func _strataDefault() -> Self {
        converted(PersistedType._strataDefault())
    }

    /// The value a stored value stands for, where it cannot be nil.
    static func converted(_ persisted: PersistedType) -> Self {
        guard let value = _strataConvert(persisted) else {
            Stop.now("Strata: invalidArgument: the stored value '\(persisted)' cannot be converted to \(Self.self) in a non-optional context")
        }
        return value
    }

    public static func _strataRead(_ row: _RowView, _ column: _Column) -> Self? {
        PersistedType._strataRead(row, column).map(converted)
    }

    public static func _strataReadInOptional(_ row: _RowView, _ column: _Column) -> Self? {
        PersistedType._strataRead(row, column).flatMap(_strataConvert)
    }

    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        try persistableValue._strataStore(&row, column)
    }

    public static func _strataDecodeElement(_ element: _ElementView) -> Self {
        converted(PersistedType._strataDecodeElement(element))
    }

    public static func _strataDecodeElementInOptional(_ element: _ElementView) -> Self? {
        _strataConvert(PersistedType._strataDecodeElement(element))
    }

    public func _strataEncodeElement(_ out: inout _ElementBuffer) throws {
        try persistableValue._strataEncodeElement(&out)
    }

    public static func _strataGetStored(_ obj: Object, _ ordinal: Int) -> Any? {
        PersistedType._strataGet(obj, ordinal)._strataAny
    }

    public static func _strataGetStoredInOptional(_ obj: Object, _ ordinal: Int) -> Any? {
        Optional<PersistedType>._strataGet(obj, ordinal)._strataAny
    }

    public func _strataEncodeKey(_ out: inout _ElementBuffer) throws {
        try persistableValue._strataEncodeKey(&out)
    }

    /// Accepts a value of this type or of its persisted type (as `init(value:)` and
    /// `create(_:value:)` receive them); a persisted value the type cannot convert does not fit.
    public static func _strataFromAny(_ any: Any?) -> Self? {
        if let value = any as? Self { return value }
        // Nil for a type mapped onto an embedded object (non-optional here: an optional one took
        // nil before this) is the value of a new embedded object, which is what such a property
        // reads when nothing is stored, as in RealmSwift.
        if any == nil || any is NSNull, PersistedType.self is EmbeddedObject.Type {
            return _strataConvert(PersistedType._strataDefault())
        }
        return PersistedType._strataFromAny(any).flatMap(_strataConvert)
    }

    /// Key-value coding hands out the persisted value, as RealmSwift's `value(forKey:)` does.
    public var _strataAny: Any? { persistableValue._strataAny }

    /// In a query, a value stands for its persisted value.
    public var queryValue: QueryValue { Object.queryValue(of: persistableValue._strataAny) }

    public func hash(into hasher: inout Hasher) { persistableValue.hash(into: &hasher) }
}

/// A property whose value may be stored without converting (see the file header).
protocol _UnconvertedStorable {
    /// Stores `any`, a value of the persisted type, in the property with `ordinal` of the managed
    /// object `obj`; false (and nothing stored) when it is not one.
    static func setUnconverted(_ obj: Object, _ ordinal: Int, _ any: Any?) -> Bool
}

extension Optional: _UnconvertedStorable where Wrapped: _CustomPersistable {
    static func setUnconverted(_ obj: Object, _ ordinal: Int, _ any: Any?) -> Bool {
        // Only a failable type can lack a value for a stored one, and only a scalar persisted
        // type is a loose value (an embedded object is built from it, and converts).
        guard Wrapped.self is any FailableCustomPersistable.Type, !(Wrapped.PersistedType.self is Object.Type),
              let persisted = Wrapped.PersistedType._strataFromAny(any) else { return false }
        Wrapped.PersistedType?._strataSet(obj, ordinal, persisted)
        return true
    }
}
