// QuerySchema: the minimal description of object types that queries are checked against.
// The object layer adapts its own schema to this one.
//
// Invariant: a schema is a plain value (Sendable); type names and property names are matched
// exactly (case-sensitive), as Realm does.

/// The stored type of a property (of each element, for collections).
package enum QueryPropertyType: String, Hashable, Sendable {
    case bool, int, float, double, string, data, date, decimal, objectId, uuid
    /// A link; `QueryPropertySchema.linkTarget` names the target type.
    case object
    /// Any value (`AnyRealmValue`): compatible with every operator and operand.
    case mixed

    var isNumeric: Bool {
        switch self {
        case .int, .float, .double, .decimal: return true
        default: return false
        }
    }
}

/// Whether a property holds one value or many.
package enum QueryCollectionKind: String, Hashable, Sendable {
    case single, list, set, map
    /// Inverse links (`LinkingObjects`): to-many, computed.
    case linkingObjects
}

/// One property of an object type.
package struct QueryPropertySchema: Hashable, Sendable {
    /// The persisted property name, as queries spell it.
    var name: String
    /// The stored type (of each element, for a collection).
    var type: QueryPropertyType
    /// Whether the property (or each element) may be nil.
    var isOptional: Bool
    /// Single value, `List`, `MutableSet`, `Map` or inverse links.
    package var collection: QueryCollectionKind
    /// The linked type's name when `type == .object`.
    package var linkTarget: String?

    /// A property named `name` holding `type` values.
    package init(_ name: String, _ type: QueryPropertyType, optional: Bool = false,
                collection: QueryCollectionKind = .single, linkTarget: String? = nil) {
        self.name = name
        self.type = type
        self.isOptional = optional
        self.collection = collection
        self.linkTarget = linkTarget
    }

    /// A to-one link: always optional, as in Realm.
    static func link(_ name: String, to target: String) -> QueryPropertySchema {
        QueryPropertySchema(name, .object, optional: true, linkTarget: target)
    }

    /// A `List` of links.
    static func list(_ name: String, of target: String) -> QueryPropertySchema {
        QueryPropertySchema(name, .object, collection: .list, linkTarget: target)
    }
}

/// One object type: its name and properties.
package struct QueryObjectSchema: Hashable, Sendable {
    /// The type name queries are checked for (`"Dog"`).
    var name: String
    /// Its persisted properties (computed inverse links included).
    var properties: [QueryPropertySchema]
    /// An embedded class (only reachable through links; the class a location must be).
    package var isEmbedded = false

    /// A type named `name` with `properties`.
    package init(_ name: String, _ properties: [QueryPropertySchema]) {
        self.name = name
        self.properties = properties
    }

    /// The property called `name`, if any.
    package func property(named name: String) -> QueryPropertySchema? {
        properties.first { $0.name == name }
    }
}

/// The object types a query can refer to.
package struct QuerySchema: Hashable, Sendable {
    /// The types by name.
    var types: [String: QueryObjectSchema]

    /// A schema of `types` (a later type with the same name replaces an earlier one).
    package init(_ types: [QueryObjectSchema]) {
        var byName: [String: QueryObjectSchema] = [:]
        for type in types { byName[type.name] = type }
        self.types = byName
    }

    /// The type called `typeName`, if any.
    package subscript(typeName: String) -> QueryObjectSchema? { types[typeName] }
}
