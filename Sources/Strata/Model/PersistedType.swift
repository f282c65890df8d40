// `PersistedType`: the type a value is stored as, as RealmSwift names it. It is the value's own
// type for the storable scalars, `AnyRealmValue` and objects; the raw value for a
// `PersistableEnum`; the declared type for a `CustomPersistable`; and for an optional, the optional
// of the wrapped type's. Generic code states what a collection supports through it — a list of `V`
// has `min()` where `V.PersistedType: MinMaxType` — and the aggregates compute on stored values.
//
// Invariants:
// - `_strataPersistedValue` is exactly what the engine stores for the value, so an aggregate over
//   the persisted values equals the aggregate the engine's queries compute.
// - `_strataFromPersisted` is the inverse, nil where a failable custom type has no value for a
//   stored one; an optional maps a nil stored value to `.some(nil)`.
import Foundation

/// A type with a stored form (RealmSwift's `_HasPersistedType`).
public protocol _HasPersistedType {
    /// The type the value is stored as.
    associatedtype PersistedType
    /// The stored form of this value.
    var _strataPersistedValue: PersistedType { get }
    /// The value a stored form stands for, or nil when the type has none.
    static func _strataFromPersisted(_ persisted: PersistedType) -> Self?
}

/// The types stored as themselves: the scalars and `AnyRealmValue`.
public protocol _StoredAsItself: _HasPersistedType where PersistedType == Self {}

extension _StoredAsItself {
    public var _strataPersistedValue: Self { self }
    public static func _strataFromPersisted(_ persisted: Self) -> Self? { persisted }
}

extension Int: _StoredAsItself {}
extension Int8: _StoredAsItself {}
extension Int16: _StoredAsItself {}
extension Int32: _StoredAsItself {}
extension Int64: _StoredAsItself {}
extension Bool: _StoredAsItself {}
extension Float: _StoredAsItself {}
extension Double: _StoredAsItself {}
extension String: _StoredAsItself {}
extension Data: _StoredAsItself {}
extension Date: _StoredAsItself {}
extension UUID: _StoredAsItself {}
extension ObjectId: _StoredAsItself {}
extension Decimal128: _StoredAsItself {}
extension AnyRealmValue: _StoredAsItself {}

// Collections and the legacy property wrappers are stored as themselves too.
extension List: _StoredAsItself {}
extension MutableSet: _StoredAsItself {}
extension Map: _StoredAsItself {}
extension LinkingObjects: _StoredAsItself {}
extension RealmOptional: _StoredAsItself {}
extension RealmProperty: _StoredAsItself {}

extension Object: _HasPersistedType {
    public typealias PersistedType = Object
    public var _strataPersistedValue: Object { self }
    public static func _strataFromPersisted(_ persisted: Object) -> Self? { persisted as? Self }
}

extension Optional: _HasPersistedType where Wrapped: _HasPersistedType {
    public typealias PersistedType = Wrapped.PersistedType?
    public var _strataPersistedValue: Wrapped.PersistedType? { self.map { $0._strataPersistedValue } }
    public static func _strataFromPersisted(_ persisted: Wrapped.PersistedType?) -> Wrapped?? {
        guard let persisted else { return .some(nil) }
        return Wrapped._strataFromPersisted(persisted).map { .some($0) }
    }
}

extension PersistableEnum {
    public var _strataPersistedValue: RawValue { rawValue }
    public static func _strataFromPersisted(_ persisted: RawValue) -> Self? { Self(rawValue: persisted) }
}

extension _CustomPersistable {
    public var _strataPersistedValue: PersistedType { persistableValue }
    public static func _strataFromPersisted(_ persisted: PersistedType) -> Self? { _strataConvert(persisted) }
}

extension _HasPersistedType {
    /// The value a stored form stands for, where the caller needs one (an aggregate's result):
    /// a failable custom type with no value for it stops the process, as Realm's does.
    static func _strataConverted(_ persisted: PersistedType) -> Self {
        guard let value = _strataFromPersisted(persisted) else {
            Stop.now("Strata: invalidArgument: the stored value '\(persisted)' cannot be converted to \(Self.self) in a non-optional context")
        }
        return value
    }
}
