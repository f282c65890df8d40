// Numbers and booleans read by key-value coding are `NSNumber`s, as RealmSwift's (Objective-C)
// key-value coding gives them.
//
// An `NSNumber` answers every numeric cast that holds its value exactly: an `Int8` property read as
// `object["level"]` is both `as! Int8` and `is Int`, which Realm code relies on (a migration reading
// `old["level"] as! Int` whatever width the column has). A Swift `Int8` in an `Any` is only an
// `Int8`. Linux's Foundation bridges `NSNumber` to Swift's numeric types as Apple's does.
//
// Only the public key-value coding results are converted (`value(forKey:)`, subscripts, dynamic
// members, collections' `value(forKey:)`); Strata's own code reads the typed values.
import Foundation

enum KeyValueCodingNumbers {
    /// `value` with a Swift integer, floating-point number or `Bool` as an `NSNumber` of the same
    /// type; every other value (an `NSNumber` included) as it is.
    static func bridged(_ value: Any?) -> Any? {
        guard let value else { return nil }
        // `is NSNumber` holds for a Swift number too (it bridges); the dynamic type tells them apart.
        if type(of: value) is NSNumber.Type { return value }
        switch value {
        case let v as Bool: return NSNumber(value: v)
        case let v as Int: return NSNumber(value: v)
        case let v as Int8: return NSNumber(value: v)
        case let v as Int16: return NSNumber(value: v)
        case let v as Int32: return NSNumber(value: v)
        case let v as Int64: return NSNumber(value: v)
        case let v as Float: return NSNumber(value: v)
        case let v as Double: return NSNumber(value: v)
        default: return value
        }
    }
}
