// Sort and distinct key paths of object results are checked when the results are made, as
// RealmSwift checks them, not when they are first read: a name that is not a property, a step
// through anything but a to-one link, or a last property without one value per object (a
// collection, linking objects; for a sort, a link too, which has no order) stops with a `Strata:`
// message naming the key path. Distinct objects by a link are those with different targets.
//
// Invariant: only the class closure of the results' class is consulted (the classes its links
// reach), so the check needs no open table and reads nothing from the file. A link whose class
// the closure does not give (a dynamic object's) ends the check there: what follows it is checked
// when the results are read.
import Foundation

enum SortKeyPathCheck {
    /// Stops unless `keyPath` can order or tell apart objects of `info`'s class.
    static func require(_ keyPath: String, of info: ClassInfo, for operation: String) {
        var schemas: [ObjectSchema]? = nil
        var schema = info.schema
        let names = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (n, name) in names.enumerated() {
            guard let property = schema.properties.first(where: { $0.name == name }) else {
                stop(operation, keyPath, "'\(schema.className)' has no property '\(name)'")
            }
            let toOneLink = property.type == .object && property.collection == .none
            guard n < names.count - 1 else {
                guard !(toOneLink && operation == "sort"), property.type != .linkingObjects, property.collection == .none else {
                    stop(operation, keyPath, "'\(schema.className).\(name)' holds \(kind(of: property)), not one value per object")
                }
                return
            }
            guard toOneLink else {
                stop(operation, keyPath, "'\(schema.className).\(name)' is \(kind(of: property)), and a key path goes on only through a to-one link")
            }
            if schemas == nil { schemas = ClassInfo.schemaClosure(of: info) }
            guard let target = schemas?.first(where: { $0.className == property.objectClassName }) else { return }
            schema = target
        }
    }

    private static func kind(of property: Property) -> String {
        if property.type == .linkingObjects { return "linking objects" }
        switch property.collection {
        case .list: return "a list"
        case .set: return "a set"
        case .map: return "a map"
        case .none: return property.type == .object ? "a link" : "a value"
        }
    }

    private static func stop(_ operation: String, _ keyPath: String, _ reason: String) -> Never {
        Stop.now("Strata: invalidArgument: cannot \(operation) by '\(keyPath)': \(reason)")
    }
}
