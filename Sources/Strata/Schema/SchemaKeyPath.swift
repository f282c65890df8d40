// A dotted key path ("owner.address.city") walked through the schema, one property per name,
// before anything is read: every check of a key path given by the caller (sort and distinct,
// observation filters) walks it here and differs only in which properties a path may go on
// through and end on, so the names and the order of the checks are the same everywhere.
//
// Invariant: the walk reads schemas only (no table, no file). When the next class is unknown to
// the caller's lookup (a dynamic object's link outside the known closure), the walk ends there
// without a failure: the rest is checked when the path is used.

/// Why a key path does not fit, for the caller to word as its own error.
enum SchemaKeyPathFailure: Equatable {
    /// `name` is not a property of `className`.
    case noProperty(className: String, name: String)
    /// The path goes on after `property`, which the caller's rule does not go through.
    case cannotContinue(className: String, property: Property)
    /// The path ends on `property`, which the caller's rule does not accept as a last step.
    case cannotEnd(className: String, property: Property)
}

enum SchemaKeyPath {
    /// The first failure of `names` walked from `schema`, or nil when every step fits.
    /// - Parameters:
    ///   - schemaNamed: the schema of a linked class by name; nil ends the walk (see the header).
    ///   - goesThrough: whether the path may go on after a property; the property must link to a
    ///     class (`objectClassName`), else the path cannot go on whatever this says.
    ///   - endsOn: whether the path may end on a property.
    static func firstFailure(_ names: [String], from schema: ObjectSchema,
                             schemaNamed: (String) -> ObjectSchema?,
                             goesThrough: (Property) -> Bool,
                             endsOn: (Property) -> Bool) -> SchemaKeyPathFailure? {
        var schema = schema
        for (n, name) in names.enumerated() {
            guard let property = schema.allProperties.first(where: { $0.name == name }) else {
                return .noProperty(className: schema.className, name: name)
            }
            guard n < names.count - 1 else {
                return endsOn(property) ? nil : .cannotEnd(className: schema.className, property: property)
            }
            guard let target = property.objectClassName, goesThrough(property) else {
                return .cannotContinue(className: schema.className, property: property)
            }
            guard let next = schemaNamed(target) else { return nil }
            schema = next
        }
        return nil
    }

    /// How a property holds what it holds, for messages: "a list", "linking objects", "a link".
    static func kind(of property: Property) -> String {
        if property.type == .linkingObjects { return "linking objects" }
        switch property.collection {
        case .list: return "a list"
        case .set: return "a set"
        case .map: return "a map"
        case .none: return property.type == .object ? "a link" : "a value"
        }
    }
}
