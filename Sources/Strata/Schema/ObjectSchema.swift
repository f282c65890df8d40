// The public description of a model: `ObjectSchema` per class, `Property` per `@Persisted`.
//
// Invariants:
// - A schema is a value: two schemas are equal exactly when every persisted detail matches
//   (names, types, optionality, collection kind, link targets, primary key, index, origin).
//   That equality is what "the stored schema matches the code" means at open.
// - Property order is declaration order; it also fixes the row layout (see RowLayout.swift),
//   so it is part of equality.

/// The storage type of a property, or of its elements for a collection.
///
/// Read it from ``Property/type`` when inspecting a realm's schema, for example in a migration.
public enum PropertyType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// A stored value: any integer width (`int`), `Bool`, `Float`, `Double`, `String`, `Data`,
    /// `Date`, ``Decimal128``, ``ObjectId`` or `UUID`, in that order.
    case int = 0, bool, float, double, string, data, date, decimal128, objectId, uuid
    /// A link to another object (to-one, or the elements of a collection of links).
    case object
    /// The inverse of a link: computed from backlinks, not stored in the row.
    case linkingObjects
    /// ``AnyRealmValue``: a value of any of the types above, tagged with its type.
    case any

    /// RealmSwift's name for ``uuid``.
    public static let UUID = PropertyType.uuid

    public var description: String {
        switch self {
        case .int: "int"
        case .bool: "bool"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .decimal128: "decimal128"
        case .objectId: "objectId"
        case .uuid: "uuid"
        case .object: "object"
        case .linkingObjects: "linkingObjects"
        case .any: "any"
        }
    }

    /// Types that may be a primary key (Realm: Int, String, ObjectId, UUID and their optionals).
    var canBePrimaryKey: Bool { self == .int || self == .string || self == .objectId || self == .uuid }
    /// Types that may be indexed.
    var canBeIndexed: Bool {
        switch self {
        case .int, .bool, .string, .date, .objectId, .uuid: true
        default: false
        }
    }
}

/// Whether a property holds one value or a collection of them.
public enum CollectionKind: UInt8, Sendable {
    /// A single value (`none`), a ``List`` (`list`), a ``MutableSet`` (`set`) or a ``Map`` (`map`).
    case none = 0, list, set, map
}

/// One persisted property of a class, as the schema describes it.
///
/// Two properties are equal when every persisted detail matches; a difference between a class's
/// code and the file's stored schema is what requires a migration.
public struct Property: Hashable, Sendable, CustomStringConvertible {
    /// The property's name, as declared.
    public var name: String
    /// The storage type of the value, or of the elements of a collection.
    public var type: PropertyType
    /// Whether the value (or each element) can be `nil`.
    public var isOptional: Bool
    /// Whether the property is a single value, a list, a set or a map.
    public var collection: CollectionKind
    /// The linked class name for `.object` / `.linkingObjects` properties.
    public var objectClassName: String?
    /// Whether the property is its class's primary key.
    public var isPrimary: Bool
    /// Whether the property has a search index, which `==` and `IN` queries use.
    public var isIndexed: Bool
    /// For `LinkingObjects`: the property of `objectClassName` that links here.
    public var linkOriginPropertyName: String?
    /// The name the file stores the property under when the class maps it to another one
    /// (`propertiesMapping()`); nil when it is stored under its own name.
    var storedName: String? = nil

    /// The name the file stores the property under: the one the class's `propertiesMapping()`
    /// gives it, or its own name. Queries, key-value coding and key paths use ``name``.
    public internal(set) var columnName: String {
        get { storedName ?? name }
        set { storedName = newValue == name ? nil : newValue }
    }

    /// Whether the property is a ``List``.
    public var isArray: Bool { collection == .list }
    /// Whether the property is a ``MutableSet``.
    public var isSet: Bool { collection == .set }
    /// Whether the property is a ``Map``.
    public var isMap: Bool { collection == .map }

    public var description: String {
        var s = "\(name): "
        switch collection {
        case .none: s += type == .object || type == .linkingObjects ? (objectClassName ?? "?") : type.description
        case .list: s += "List<\(objectClassName ?? type.description)>"
        case .set: s += "MutableSet<\(objectClassName ?? type.description)>"
        case .map: s += "Map<String, \(objectClassName ?? type.description)>"
        }
        if type == .linkingObjects { s = "\(name): LinkingObjects<\(objectClassName ?? "?")>(\(linkOriginPropertyName ?? "?"))" }
        if isOptional { s += "?" }
        if isPrimary { s += " (primary key)" }
        if isIndexed { s += " (indexed)" }
        return s
    }
}

/// The schema of one class: its name and its persisted properties in declaration order.
///
/// Declaration order is part of the schema: reordering properties changes it.
///
/// ```swift
/// if let schema = realm.schema["Dog"] {
///     print(schema.primaryKeyProperty?.name ?? "no primary key")
///     for property in schema.properties { print(property) }
/// }
/// ```
public struct ObjectSchema: Hashable, Sendable, CustomStringConvertible {
    /// The class's name in the realm.
    public var className: String
    /// Every property, persisted and computed (linking objects), in declaration order: the
    /// order of the class's fields and of the columns the file stores (tools that read a file
    /// column by column use it).
    public internal(set) var allProperties: [Property]
    /// Whether objects of the class are embedded: owned by the one object that links to them.
    public var isEmbedded: Bool
    /// The model class this schema was discovered from or bound to, when known (not part of
    /// equality: a schema is what is stored, whichever class describes it).
    var boundClass: Object.Type? = nil

    init(className: String, properties: [Property], isEmbedded: Bool, boundClass: Object.Type? = nil) {
        self.className = className
        self.allProperties = properties
        self.isEmbedded = isEmbedded
        self.boundClass = boundClass
    }

    /// The persisted properties, in declaration order; linking objects, which are computed, are
    /// in ``computedProperties``, as in RealmSwift.
    ///
    /// Setting it keeps the computed properties.
    public var properties: [Property] {
        get { allProperties.filter { $0.type != .linkingObjects } }
        set { allProperties = newValue.filter { $0.type != .linkingObjects } + computedProperties }
    }

    /// The computed properties: the class's `LinkingObjects`, in declaration order.
    public var computedProperties: [Property] { allProperties.filter { $0.type == .linkingObjects } }

    /// The primary key property, or `nil` when the class has none.
    public var primaryKeyProperty: Property? { allProperties.first { $0.isPrimary } }

    /// The property with a name, persisted or computed, or `nil` when the class has none by that
    /// name.
    ///
    /// - Parameter name: the property's name.
    public subscript(_ name: String) -> Property? { allProperties.first { $0.name == name } }

    /// The model class of this schema, as RealmSwift's `objectClass`: the class a realm bound the
    /// stored class to (or, for a schema not taken from a realm, the class of that name this
    /// process uses). A class the file stores but no code of this process declares (a file read
    /// by its stored schema) has none; it reads as `Object.self`, as RealmSwift gives its dynamic
    /// object class.
    public var objectClass: Object.Type { boundClass ?? ClassInfo.registered(named: className)?.type ?? Object.self }

    public static func == (lhs: ObjectSchema, rhs: ObjectSchema) -> Bool {
        lhs.className == rhs.className && lhs.allProperties == rhs.allProperties && lhs.isEmbedded == rhs.isEmbedded
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(className)
        hasher.combine(allProperties)
        hasher.combine(isEmbedded)
    }

    public var description: String {
        "\(className)\(isEmbedded ? " (embedded)" : "") {\n" + allProperties.map { "    \($0)\n" }.joined() + "}"
    }

    /// The schema as the file stores it: each property under its column name.
    var storedForm: ObjectSchema {
        var s = self
        for i in s.allProperties.indices {
            s.allProperties[i].name = s.allProperties[i].columnName
            s.allProperties[i].storedName = nil
        }
        return s
    }

    /// Whether the file stores both schemas the same way (whatever names the code gives the
    /// properties).
    func isStoredAs(_ other: ObjectSchema) -> Bool { storedForm == other.storedForm }

    /// A sentence naming the first difference between `self` (the code) and `stored` (the file),
    /// nil when they are stored the same way. Properties are named by their column names.
    func difference(fromStored stored: ObjectSchema) -> String? {
        let code = storedForm, stored = stored.storedForm
        return code.difference(fromStoredForm: stored)
    }

    private func difference(fromStoredForm stored: ObjectSchema) -> String? {
        if self == stored { return nil }
        if isEmbedded != stored.isEmbedded {
            return "class '\(className)' is \(isEmbedded ? "" : "not ")embedded in the code but \(stored.isEmbedded ? "" : "not ")embedded in the file"
        }
        let mine = Set(allProperties.map(\.name)), theirs = Set(stored.allProperties.map(\.name))
        if let added = allProperties.first(where: { !theirs.contains($0.name) }) {
            return "property '\(className).\(added.name)' was added"
        }
        if let removed = stored.allProperties.first(where: { !mine.contains($0.name) }) {
            return "property '\(className).\(removed.name)' was removed"
        }
        for p in allProperties {
            if let q = stored[p.name], p != q {
                return "property '\(className).\(p.name)' changed from '\(q)' to '\(p)'"
            }
        }
        return "properties of '\(className)' were reordered"
    }
}

/// The schema of a realm: the classes it stores.
public struct Schema: Sendable, Equatable, CustomStringConvertible {
    /// The classes' schemas.
    public var objectSchema: [ObjectSchema]
    /// The schema of a class, or `nil` when the realm stores no class by that name.
    ///
    /// - Parameter className: the class's name.
    public subscript(_ className: String) -> ObjectSchema? { objectSchema.first { $0.className == className } }
    public var description: String { objectSchema.map(\.description).joined(separator: "\n") }

    /// Whether both describe the same classes, in any order.
    public static func == (lhs: Schema, rhs: Schema) -> Bool { Set(lhs.objectSchema) == Set(rhs.objectSchema) }
}

/// Limits from Realm's documentation; exceeding one is an error, not a crash.
enum SchemaLimits {
    static let maxClassNameBytes = 57
    static let maxPropertyNameBytes = 63
    /// String and Data values: 16 MB.
    static let maxValueBytes = 16 * 1024 * 1024
}

extension Property {
    /// A property description, for code that writes a file by schema (`StrataFileWriter`) rather
    /// than through model classes.
    public init(name: String, type: PropertyType, collection: CollectionKind = .none, isOptional: Bool = false,
                objectClassName: String? = nil, isPrimary: Bool = false, isIndexed: Bool = false, originProperty: String? = nil) {
        self.init(name: name, type: type, isOptional: isOptional, collection: collection, objectClassName: objectClassName,
                  isPrimary: isPrimary, isIndexed: isIndexed, linkOriginPropertyName: originProperty)
    }
}

extension ObjectSchema {
    /// A class description, for code that writes a file by schema (`StrataFileWriter`).
    public init(className: String, properties: [Property], embedded: Bool = false) {
        self.init(className: className, properties: properties, isEmbedded: embedded)
    }
}
