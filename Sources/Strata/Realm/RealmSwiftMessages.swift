// The wording RealmSwift uses for misuse that Strata reports too, so that a message read in a log
// or searched for after a port finds what Realm's users wrote about it. Each message keeps
// Realm's sentence and adds what Realm's leaves out (the class and property involved).
import Foundation

enum RealmSwiftMessages {
    /// Setting the primary key of a managed object. Realm words it two ways, by the layer that
    /// refuses (its accessors and its object store); both are kept so that either is found.
    static func primaryKeyChange(className: String, property: String) -> String {
        "Primary key can't be changed after an object is inserted. Cannot modify primary key after creation: '\(className).\(property)'"
    }

    /// Changing an object or collection of a frozen realm (`what`: the change tried).
    static func modifyingFrozen(_ what: String) -> String {
        "Attempting to modify a frozen object - call thaw on the Object instance first. (\(what))"
    }

    /// Beginning a write on a frozen realm.
    static let frozenTransaction = "Can't perform transactions on a frozen Realm"

    /// A key path that names no property of the class it reaches.
    static func propertyNotFound(_ name: String, className: String) -> String {
        "property '\(name)' not found in object of type '\(className)'"
    }
}
