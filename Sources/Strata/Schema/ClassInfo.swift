// Schema discovery: turns an `Object` subclass into its `ObjectSchema`, row layout and field
// accessors, once per class per process.
//
// How the schema is found:
// - `Realm.Configuration.objectTypes`, when set, is the schema (plus the classes they link to).
// - Otherwise every model class of the program is in the schema `realm.schema` lists
//   (ModelDiscovery.swift), and a class is bound to its table on first use: the first `add`, `create`, `objects`,
//   `object(ofType:forPrimaryKey:)`… with a class checks it against the file (and adds its table
//   in the current write, or in a short write of its own, when the file lacks it). Classes
//   already used in this process are checked at open.
// Discovery itself: `WrapperLayout` lists the `@Persisted` wrappers, and the collections and boxes
// declared without one (LegacyDeclarations.swift), in declaration order (`_forEachField`, the
// stdlib's reflection SPI, which also gives field offsets), and a probe instance gives each
// property's flags (primary key, indexed, origin property).
//
// Invariants:
// - `ClassInfo` is immutable after creation and shared by every realm; the table number of a
//   class is per file and lives in `RealmCore`, never here.
// - `fields[i]`, `schema.allProperties[i]` and `layout.columns[i]` describe the same property.
@_spi(Reflection) import Swift
import Synchronization

final class ClassInfo: @unchecked Sendable {
    // @unchecked: every stored property is immutable after init; Object.Type and the field
    // accessors are never mutated.
    let type: Object.Type
    let schema: ObjectSchema
    let layout: RowLayout
    let fields: [AnyFieldIO]
    let primaryKeyColumn: Int?
    /// The linked class of each property (links, collections of links, LinkingObjects).
    let linkedTypes: [Object.Type?]
    private let fieldIndex: [String: Int]
    /// Per column, how `add` copies the unmanaged value without generic code (kind `.none`: through
    /// `fields[i].storeUnmanaged`).
    let rawStores: [RawFieldStore]
    /// The columns whose unmanaged value can hold objects (dropped once the object is managed).
    let objectHoldingFields: [Int]
    /// Whether a property can lead to another object (a link, a collection of links, an
    /// `AnyRealmValue`): only then can an `add` of this class reach back to the object it adds.
    let reachesObjects: Bool
    /// The List, MutableSet and Map properties, and every property declared without
    /// `@Persisted`: `add` makes their unmanaged instances managed.
    let collectionFields: [Int]
    /// The properties declared without `@Persisted` (LegacyDeclarations.swift): an object read
    /// from a realm binds their instances as it is handed out.
    let legacyFields: [Int]
    /// For a class whose stored columns are all non-optional raw scalars (no string, link,
    /// collection or optional; no primary key), the copies that make a whole new row: `add`
    /// then builds it on the stack. nil for other classes.
    let plainRow: [PlainRowCopy]?
    /// The byte size of a plain row (`layout.fixedSize`, read without going through the layout).
    let plainRowSize: Int
    /// Whether the class is `Encodable`: only then do its wrappers record that the object is
    /// managed (ModelCodable.swift), so binding other objects costs nothing more.
    let marksBoundWrappers: Bool
    /// Whether an iterator may rebind an accessor of this class to another row
    /// (AccessorRebinding.swift).
    let rebindsAccessors: Bool

    private static let cache = Mutex<[ObjectIdentifier: ClassInfo]>([:])
    /// Every class discovered in this process by class name (what an `AnyRealmValue` link stores).
    private static let byName = Mutex<[String: ClassInfo]>([:])

    /// The info of the class named `className`, if this process has discovered it.
    static func registered(named className: String) -> ClassInfo? {
        byName.withLock { $0[className] }
    }

    /// The info of `type`, discovered and validated the first time. Throws `.invalidSchema`.
    static func of(_ type: Object.Type) throws(Realm.Error) -> ClassInfo {
        let id = ObjectIdentifier(type)
        if let hit = cache.withLock({ $0[id] }) { return hit }
        let info = try discover(type)
        byName.withLock { $0[info.schema.className] = info }
        return cache.withLock { c in
            if let hit = c[id] { return hit }
            c[id] = info
            return info
        }
    }

    /// The column of the wrapper with `ordinal` (a wrapper's ordinal is its column index).
    @inline(__always) func column(forOrdinal ordinal: Int) -> _Column {
        layout.columns[ordinal]
    }

    /// Binds the instances `object` holds in properties declared without `@Persisted` to its
    /// stored properties (an object handed out by a realm: what they held was never stored).
    /// Only an instance of this very class is bound: the fields read its memory at this class's
    /// offsets, and an object of another class reading the same stored object (a
    /// `DynamicObject`, a frozen copy of one, another class stored under the same name) has
    /// other memory there, and binding it as this class's crashed the process.
    func bindLegacyFields(_ object: Object, _ binding: ObjectBinding) {
        guard ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(type) else { return }
        for i in legacyFields { fields[i].adoptUnmanagedCollection(object, binding) }
    }

    func field(named name: String) -> AnyFieldIO? { fieldIndex[name].map { fields[$0] } }
    func columnIndex(named name: String) -> Int? { fieldIndex[name] }

    var isEmbedded: Bool { schema.isEmbedded }

    private init(type: Object.Type, schema: ObjectSchema, fields: [AnyFieldIO], linked: [Object.Type?]) {
        self.type = type
        self.schema = schema
        self.layout = RowLayout(properties: schema.allProperties)
        self.fields = fields
        primaryKeyColumn = schema.allProperties.firstIndex { $0.isPrimary }
        linkedTypes = linked
        var idx: [String: Int] = [:]
        for (i, f) in fields.enumerated() { idx[f.name] = i }
        fieldIndex = idx
        rawStores = fields.map { f in f.shape.isOptional ? RawFieldStore(kind: .none, valueOffset: 0) : f.rawStore }
        let legacy = fields.indices.filter { fields[$0].isLegacy }
        legacyFields = legacy
        let collections = fields.indices.filter {
            fields[$0].isLegacy || (fields[$0].shape.collection != .none && fields[$0].shape.type != .linkingObjects)
        }
        collectionFields = collections
        objectHoldingFields = fields.indices.filter { fields[$0].holdsObjects && !collections.contains($0) }
        reachesObjects = fields.contains { $0.shape.type == .object || $0.shape.type == .any }
        var plain: [PlainRowCopy]? = primaryKeyColumn == nil ? [] : nil
        for (i, c) in layout.columns.enumerated() where c.type != .linkingObjects {
            guard rawStores[i].kind != .none, !c.isOptional, c.collection == .none else { plain = nil; break }
            plain?.append(PlainRowCopy(kind: rawStores[i].kind, valueOffset: rawStores[i].valueOffset, slotOffset: c.offset))
        }
        plainRow = plain
        plainRowSize = layout.fixedSize
        marksBoundWrappers = type is any Encodable.Type
        rebindsAccessors = WrapperLayout.of(type).holdsOnlyColumns
    }

    private static func discover(_ type: Object.Type) throws(Realm.Error) -> ClassInfo {
        let className = type.className()
        let probe = type.init()
        let fields = WrapperLayout.of(type).fields
        var properties: [Property] = []
        var linked: [Object.Type?] = []
        for (column, f) in fields.enumerated() {
            // Every managed access trusts the stamped ordinal as the column: a model whose
            // wrappers were not stamped so (an `init` that never reached `Object.init`) is
            // refused here rather than read through the wrong columns.
            guard f.ordinal(probe) == Int32(column) else {
                throw Realm.Error(.invalidSchema, "property '\(className).\(f.name)' cannot be mapped to a column: its wrapper was not initialised through Object.init")
            }
            let shape = f.shape
            let flags = f.flags(probe)
            linked.append(shape.objectType)
            properties.append(Property(
                name: f.name, type: shape.type, isOptional: shape.isOptional, collection: shape.collection,
                objectClassName: shape.objectType?.className(), isPrimary: flags.primaryKey,
                isIndexed: flags.indexed || flags.primaryKey, linkOriginPropertyName: flags.origin))
        }
        try SchemaOverrides.apply(of: type, to: &properties)
        try SchemaOverrides.applyColumnNames(of: type, to: &properties)
        var schema = ObjectSchema(className: className, properties: properties, isEmbedded: type is EmbeddedObject.Type)
        schema.boundClass = type
        try validate(schema, linked: linked)
        return ClassInfo(type: type, schema: schema, fields: fields, linked: linked)
    }

    static func validate(_ s: ObjectSchema, linked: [Object.Type?]) throws(Realm.Error) {
        let n = s.className.utf8.count
        guard n > 0, n <= SchemaLimits.maxClassNameBytes else {
            throw Realm.Error(.invalidSchema, "class name '\(s.className)' is \(n) UTF-8 bytes; the limit is 1...\(SchemaLimits.maxClassNameBytes)")
        }
        guard !s.allProperties.isEmpty else {
            throw Realm.Error(.invalidSchema, "class '\(s.className)' has no @Persisted properties")
        }
        var seen = Set<String>()
        for (i, p) in s.allProperties.enumerated() {
            let where_ = "'\(s.className).\(p.name)'"
            guard p.name.utf8.count <= SchemaLimits.maxPropertyNameBytes, !p.name.isEmpty else {
                throw Realm.Error(.invalidSchema, "property name \(where_) is \(p.name.utf8.count) UTF-8 bytes; the limit is \(SchemaLimits.maxPropertyNameBytes)")
            }
            guard seen.insert(p.name).inserted else {
                throw Realm.Error(.invalidSchema, "property \(where_) is declared twice")
            }
            if p.columnName != p.name {
                guard !p.columnName.isEmpty, p.columnName.utf8.count <= SchemaLimits.maxPropertyNameBytes else {
                    throw Realm.Error(.invalidSchema, "column name '\(p.columnName)' of \(where_) is \(p.columnName.utf8.count) UTF-8 bytes; the limit is 1...\(SchemaLimits.maxPropertyNameBytes)")
                }
            }
            if p.isPrimary {
                guard !s.isEmbedded else { throw Realm.Error(.invalidSchema, "embedded class '\(s.className)' cannot have a primary key (\(where_))") }
                guard p.collection == .none, p.type.canBePrimaryKey else {
                    throw Realm.Error(.invalidSchema, "primary key \(where_) has type \(p.type); it must be Int, String, ObjectId or UUID")
                }
                guard s.allProperties.filter(\.isPrimary).count == 1 else {
                    throw Realm.Error(.invalidSchema, "class '\(s.className)' has more than one primary key")
                }
            }
            if p.isIndexed && !p.isPrimary {
                // A mixed property may be declared indexed, as in RealmSwift; it gets no index
                // tree (IndexKeys.isSecondary), so queries on it scan.
                guard p.collection == .none, p.type.canBeIndexed || p.type == .any else {
                    throw Realm.Error(.invalidSchema, "property \(where_) of type \(p.type) cannot be indexed")
                }
            }
            if p.type == .object {
                if p.collection == .none && !p.isOptional {
                    throw Realm.Error(.invalidSchema, "to-one link \(where_) must be optional (declare it '\(p.objectClassName ?? "Object")?')")
                }
                if p.collection != .none && p.isOptional && p.collection != .map {
                    throw Realm.Error(.invalidSchema, "collection \(where_) cannot hold optional objects")
                }
                if linked[i] == nil { throw Realm.Error(.invalidSchema, "link \(where_) has no target class") }
            }
            if let other = s.allProperties.indices.first(where: { $0 != i && s.allProperties[$0].columnName == p.columnName }) {
                throw Realm.Error(.invalidSchema, "properties \(where_) and '\(s.className).\(s.allProperties[other].name)' are both stored as '\(p.columnName)'")
            }
            if p.type == .linkingObjects {
                guard let origin = p.linkOriginPropertyName, !origin.isEmpty else {
                    throw Realm.Error(.invalidSchema, "LinkingObjects \(where_) needs @Persisted(originProperty:) or LinkingObjects(fromType:property:) naming a property")
                }
            }
        }
    }

    /// This class and every class reachable through its links, in discovery order.
    static func closure(of roots: [Object.Type]) throws(Realm.Error) -> [ClassInfo] {
        var out: [ClassInfo] = []
        var seen = Set<ObjectIdentifier>()
        var stack = roots
        while let t = stack.popLast() {
            guard seen.insert(ObjectIdentifier(t)).inserted else { continue }
            let info = try of(t)
            out.append(info)
            for case let l? in info.linkedTypes { stack.append(l) }
        }
        return out
    }
}
