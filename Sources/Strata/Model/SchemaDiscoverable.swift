// RealmSwift's small public helpers that generic code and ported tests name: a storable type's
// property type (`_RealmSchemaDiscoverable`) and the casts between a value and its boxed,
// key-value-coding form (`dynamicBridgeCast`).
import Foundation

/// A storable type's schema facts, as RealmSwift's `_RealmSchemaDiscoverable` gives them.
public protocol _RealmSchemaDiscoverable {
    /// The property type the type is stored as.
    static var _rlmType: PropertyType { get }
    /// Whether the type is stored as an optional.
    static var _rlmOptional: Bool { get }
    /// Whether a legacy declaration needs `@objc` (never, on Linux).
    static var _rlmRequireObjc: Bool { get }
}

extension _Persistable {
    public static var _rlmType: PropertyType { _strataShape.type }
    public static var _rlmOptional: Bool { _strataShape.isOptional }
    public static var _rlmRequireObjc: Bool { false }
}

/// The nil of an optional type known only as a generic parameter.
protocol _OptionalNone {
    static var _none: Self { get }
}

extension Optional: _OptionalNone {
    static var _none: Wrapped? { nil }
}

/// A value in its boxed form (`value(forKey:)`'s elements, `NSNull` for nil) as `T`.
///
/// A value that is not a `T` stops with a `Strata:` message, as RealmSwift's cast does.
///
/// - Parameter x: the boxed value.
/// - Returns: the value as `T`.
public func dynamicBridgeCast<T>(fromObjectiveC x: Any) -> T {
    if let value = x as? T { return value }
    if x is NSNull, let none = (T.self as? _OptionalNone.Type)?._none as? T { return none }
    if let storable = T.self as? any _Persistable.Type, let value = storable._strataFromAny(x) as? T { return value }
    Stop.now("Strata: invalidArgument: could not convert value '\(x)' to type '\(T.self)'")
}

/// A value in its boxed form: its stored value, or `NSNull` for nil.
///
/// - Parameter x: the value.
/// - Returns: the boxed value.
public func dynamicBridgeCast<T>(fromSwift x: T) -> Any {
    if let storable = x as? any _Persistable { return storable._strataAny ?? NSNull() }
    return x
}

extension Optional: _RealmSchemaDiscoverable where Wrapped: _PersistableElement {}
