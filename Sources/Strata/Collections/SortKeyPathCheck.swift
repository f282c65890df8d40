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
        let names = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let failure = SchemaKeyPath.firstFailure(
            names, from: info.schema,
            schemaNamed: { name in
                if schemas == nil { schemas = ClassInfo.schemaClosure(of: info) }
                return schemas?.first { $0.className == name }
            },
            goesThrough: { $0.type == .object && $0.collection == .none },
            endsOn: { p in
                let toOneLink = p.type == .object && p.collection == .none
                return !(toOneLink && operation == "sort") && p.type != .linkingObjects && p.collection == .none
            })
        switch failure {
        case nil: return
        case let .noProperty(className, name):
            stop(operation, keyPath, "'\(className)' has no property '\(name)'")
        case let .cannotEnd(className, p):
            stop(operation, keyPath, "'\(className).\(p.name)' holds \(SchemaKeyPath.kind(of: p)), not one value per object")
        case let .cannotContinue(className, p):
            stop(operation, keyPath, "'\(className).\(p.name)' is \(SchemaKeyPath.kind(of: p)), and a key path goes on only through a to-one link")
        }
    }

    private static func stop(_ operation: String, _ keyPath: String, _ reason: String) -> Never {
        Stop.now("Strata: invalidArgument: cannot \(operation) by '\(keyPath)': \(reason)")
    }
}
