// What a stored type supports in a typed query, as RealmSwift's generic code names it: numbers
// and dates are ordered and aggregated (`_QueryNumeric`), strings and data take the substring
// operators (`_QueryBinary`), strings also `like` (`_QueryString`). Generic code constrains on
// `T.PersistedType`, so enums and custom-persisted types inherit their stored type's kind.
import Foundation

/// A stored type that is ordered and can be aggregated (`min`, `max`, `sum`, `avg`).
public protocol _QueryNumeric: _RealmSchemaDiscoverable {}
extension Int: _QueryNumeric {}
extension Int8: _QueryNumeric {}
extension Int16: _QueryNumeric {}
extension Int32: _QueryNumeric {}
extension Int64: _QueryNumeric {}
extension Float: _QueryNumeric {}
extension Double: _QueryNumeric {}
extension Decimal128: _QueryNumeric {}
extension Date: _QueryNumeric {}
extension AnyRealmValue: _QueryNumeric {}
extension Optional: _QueryNumeric where Wrapped: _PersistableElement, Wrapped.PersistedType: _QueryNumeric {}

/// A stored type the substring operators apply to (`contains`, `starts(with:)`, …).
public protocol _QueryBinary {}
extension Data: _QueryBinary {}
extension Optional: _QueryBinary where Wrapped: _PersistableElement, Wrapped.PersistedType: _QueryBinary {}

/// A stored string type: the substring operators and `like`.
public protocol _QueryString: _QueryBinary {}
extension String: _QueryString {}
extension Optional: _QueryString where Wrapped: _PersistableElement, Wrapped.PersistedType: _QueryString {}
