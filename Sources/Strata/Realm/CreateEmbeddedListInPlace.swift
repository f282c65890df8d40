// `create(_:value:update: .modified)` given a list of embedded objects for an object that exists
// updates the list's elements in place, as RealmSwift does: element i of the value is written
// into the list's element i (a dictionary sets the properties it names, the others keep their
// values), further values are appended, and elements past the new count are deleted. Instances
// read before the update go on reading the kept elements.

import Foundation

/// A managed `List` of objects, seen without its element type.
protocol _ObjectListInPlace: AnyObject {
    var _strataObjectElements: [Object] { get }
    func _strataRemoveElements(from index: Int)
    /// Appends each value as `append` would an element built from it.
    /// - Throws: `.invalidArgument` for a value that is not an element.
    func _strataAppendValues(_ values: ArraySlice<Any>) throws
}

extension List: _ObjectListInPlace where Element: Object {
    var _strataObjectElements: [Object] { map { $0 } }

    func _strataRemoveElements(from index: Int) {
        guard index < count else { return }
        removeSubrange(index..<count)
    }

    func _strataAppendValues(_ values: ArraySlice<Any>) throws {
        for value in values {
            guard let element = Element._strataFromAny(value) else {
                throw Realm.Error(.invalidArgument, "value \(value) is not a valid \(Element.self)")
            }
            append(element)
        }
    }
}

extension Realm {
    /// Updates the managed list of embedded objects `list` in place to `values` (see the top).
    /// - Parameter update: sets the properties of one existing element from one value.
    func updateEmbeddedList(_ list: _ObjectListInPlace, to values: [Any],
                            update: (Object, ClassInfo, [String: Any]) throws -> Void) throws {
        let existing = list._strataObjectElements
        for (element, value) in zip(existing, values) {
            guard let binding = element._binding else { continue }
            try update(element, binding.info, try Self.propertyValues(value, of: binding.info))
        }
        list._strataRemoveElements(from: values.count)
        if values.count > existing.count { try list._strataAppendValues(values[existing.count...]) }
    }

    /// A value for an object as the properties it sets: a dictionary as it is, an array by
    /// declaration order, an object by all its persisted properties.
    private static func propertyValues(_ value: Any, of info: ClassInfo) throws -> [String: Any] {
        let names = info.schema.allProperties.filter { $0.type != .linkingObjects }.map(\.name)
        switch value {
        case let dictionary as [String: Any]: return dictionary
        case let array as [Any]:
            guard array.count == names.count else {
                throw Realm.Error(.invalidArgument, "an array for '\(info.schema.className)' needs \(names.count) values, got \(array.count)")
            }
            return Dictionary(uniqueKeysWithValues: zip(names, array))
        case let object as Object:
            var values: [String: Any] = [:]
            for name in names {
                guard let field = info.field(named: name) else { continue }
                values[name] = field.getAny(object) ?? NSNull()
            }
            return values
        default:
            throw Realm.Error(.invalidArgument, "\(type(of: value)) is not a value for '\(info.schema.className)'")
        }
    }
}
