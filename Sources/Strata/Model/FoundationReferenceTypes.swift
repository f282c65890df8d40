// `NSString`, `NSDate` and `NSData` as property types, stored as `String`, `Date` and `Data`.
// RealmSwift's `@objc dynamic` models declare properties of these Foundation classes; a model
// ported by rewriting `@objc dynamic` to `@Persisted` keeps them, so they map onto the value
// types' columns through the custom-type mapping.
//
// Invariants:
// - The stored bytes, the schema and queries are those of the value type: a file written with
//   `@Persisted var name: NSString?` reads with `@Persisted var name: String?` and back.
// - A value read is a new instance of the declared class. A subclass of `NSData` other than
//   `NSMutableData` cannot be made from stored bytes: in an optional context it reads as nil, in a
//   non-optional one it stops with a `Strata:` message (the custom-type mapping's failable rule).
//
// Each class writes out `_strataFromPersisted`: a non-final class cannot take a requirement that
// returns `Self` from the protocol extension the value types use.
import Foundation

extension NSString: _CustomPersistable {
    /// Stored as `String`.
    public typealias PersistedType = String
    /// The text, as the property stores it.
    public var persistableValue: String { self as String }
    public static func _strataFromPersisted(_ persisted: String) -> Self? { _strataConvert(persisted) }
    public static func _strataConvert(_ persisted: String) -> Self? { Self(string: persisted) }
}

extension NSDate: _CustomPersistable {
    /// Stored as `Date`.
    public typealias PersistedType = Date
    /// The date, as the property stores it.
    public var persistableValue: Date { self as Date }
    public static func _strataFromPersisted(_ persisted: Date) -> Self? { _strataConvert(persisted) }
    public static func _strataConvert(_ persisted: Date) -> Self? {
        Self(timeIntervalSinceReferenceDate: persisted.timeIntervalSinceReferenceDate)
    }
}

extension NSData: _CustomPersistable {
    /// Stored as `Data`.
    public typealias PersistedType = Data
    /// The bytes, as the property stores them.
    public var persistableValue: Data { self as Data }
    public static func _strataFromPersisted(_ persisted: Data) -> Self? { _strataConvert(persisted) }
    // `NSData` has no required initializer to build `Self` with, so the two Foundation classes
    // are built by name; another subclass has no conversion (see the invariants).
    public static func _strataConvert(_ persisted: Data) -> Self? {
        NSData(data: persisted) as? Self ?? NSMutableData(data: persisted) as? Self
    }
}
