// DynamicObject: any object read and written by property name (RealmSwift's dynamic objects), for
// code that does not know, or does not have, the object's Swift class.
//
// A managed dynamic object shares the binding of the object it views (same realm, class, table and
// key): its reads and writes go through the property accessors of the stored class, by the
// column of the name, so they follow the accessors' rules (writes only inside a write transaction;
// a failure fails the write). An unmanaged dynamic object forwards to the object it views.
//
// Invariant: a DynamicObject is never itself a model class: it has no persisted properties and is
// left out of the default schema (ModelDiscovery.swift).

/// An object of any class, read and written by property name: `person.name` or `person["name"]`
/// (each an `Any?`), as RealmSwift's `DynamicObject`.
///
/// ```swift
/// if let author = document.body.dynamicObject {
///     print(author.name as? String ?? "")
/// }
/// ```
@dynamicMemberLookup
public final class DynamicObject: Object {
    /// The object viewed while it is unmanaged (a managed view has the object's binding instead).
    private var unmanagedBase: Object?
    /// Set on the views a migration hands out (MigrationObject.swift): they read and write
    /// through the migration rather than through the accessors.
    var migrationView: MigrationView?

    /// A dynamic object viewing no object (RealmSwift's dynamic objects come from a realm, from
    /// ``AnyRealmValue/dynamicObject``, or from `dynamicList` and its kin).
    public required init() { super.init() }

    /// A managed dynamic object bound to `binding`'s stored object.
    static func bound(_ binding: ObjectBinding) -> DynamicObject {
        let view = DynamicObject()
        view._binding = binding
        return view
    }

    /// A dynamic view of `object` (the object itself when it is one).
    static func view(of object: Object) -> DynamicObject {
        if let dynamic = object as? DynamicObject { return dynamic }
        let view = DynamicObject()
        if let binding = object._binding { view._binding = binding } else { view.unmanagedBase = object }
        return view
    }

    /// The value of the stored property `key`, as `value(forKey:)` (the name Realm's dynamic
    /// objects answer under for a key their class does not declare).
    public func value(forUndefinedKey key: String) -> Any? { value(forKey: key) }

    /// Sets the stored property `key`, as `setValue(_:forKey:)`.
    public func setValue(_ value: Any?, forUndefinedKey key: String) { setValue(value, forKey: key) }

    /// The value of the property `member`; setting it is `setValue(_:forKey:)`.
    public subscript(dynamicMember member: String) -> Any? {
        get { value(forKey: member) }
        set { setValue(newValue, forKey: member) }
    }

    /// The value of the stored property `key` with its Swift type; nil for an unknown key or a nil
    /// value. A link reads as an object of the linked class, and a collection of links as a
    /// `List`, `MutableSet` or `Map` of ``DynamicObject``s, as RealmSwift's dynamic objects give
    /// them; other collections with their stored element type.
    override func typedValue(forKey key: String) -> Any? {
        if let migrationView, migrationView.context != nil { return migrationView.value(forKey: key) }
        guard let binding = _binding else { return unmanagedBase?.typedValue(forKey: key) }
        guard let column = binding.info.columnIndex(named: key) else { return nil }
        let property = binding.info.schema.allProperties[column]
        if property.type == .object {
            switch property.collection {
            case .none: break
            case .list: return dynamicList(key)
            case .set: return dynamicMutableSet(key)
            case .map: return dynamicMap(key) as Map<String, DynamicObject?>
            }
        }
        return binding.info.fields[column].getAny(bound: self, ordinal: column)
    }

    /// Sets the stored property `key`, with the rules of `Object.setValue(_:forKey:)`.
    public override func setValue(_ value: Any?, forKey key: String) {
        if let migrationView, migrationView.context != nil { return migrationView.setValue(value, forKey: key) }
        guard let binding = _binding else {
            if migrationView != nil { return }
            guard let unmanagedBase else { Stop.now("Strata: invalidArgument: this DynamicObject views no object; it has no property '\(key)'") }
            unmanagedBase.setValue(value, forKey: key)
            return
        }
        binding.core.deferringFailure("set '\(key)'") {
            let info = binding.info
            guard let column = info.columnIndex(named: key) else {
                throw Realm.Error(.invalidArgument, "'\(info.schema.className)' has no property '\(key)'")
            }
            if column == info.primaryKeyColumn {
                throw Realm.Error(.primaryKeyChange, RealmSwiftMessages.primaryKeyChange(className: info.schema.className, property: key))
            }
            try binding.core.checkWritable(name: key)
            try info.fields[column].setAny(bound: self, ordinal: column, value)
        }
    }

    /// A migration's views read a property of the other schema version as nil: a migration
    /// reads old and new properties through the same views while both schemas are in play.
    override var stopsOnUnknownKeys: Bool { migrationView == nil }

    /// The schema of the viewed object's class.
    public override var objectSchema: ObjectSchema {
        migrationView?.objectSchema ?? _binding?.info.schema ?? unmanagedBase?.objectSchema ?? ObjectSchema(className: "DynamicObject", properties: [], isEmbedded: false)
    }

    override func description(depth: Int) -> String {
        if let unmanagedBase { return unmanagedBase.description(depth: depth) }
        if _binding != nil, isInvalidated { return "[invalid object]" }
        return RealmDescription.object(objectSchema, named: objectSchema.className, depth: depth) { value(forKey: $0) }
    }
}

extension AnyRealmValue {
    /// The linked object as a ``DynamicObject`` when this is an `.object`, else nil.
    public var dynamicObject: DynamicObject? {
        if case .object(let object) = self { DynamicObject.view(of: object) } else { nil }
    }
}

extension CollectionRef {
    /// The element `bytes` of this collection as an `E`. The links of a dynamic collection
    /// (`List<DynamicObject>`, `Map<String, DynamicObject?>`…) name no Swift class, so they are
    /// bound to the class the property links to; every other type decodes itself.
    @inline(__always)
    func decodeElement<E: _PersistableElement>(_ bytes: UnsafeRawBufferPointer, as type: E.Type) -> E {
        decodeElement(bytes, as: type, dynamic: DynamicElement(E.self))
    }

    /// `decodeElement(_:as:)` with `E`'s kind decided once by the caller, for a loop over many
    /// elements.
    @inline(__always)
    func decodeElement<E: _PersistableElement>(_ bytes: UnsafeRawBufferPointer, as: E.Type, dynamic: DynamicElement) -> E {
        switch dynamic {
        case .none:
            return E._strataDecodeElement(_ElementView(bytes: bytes, core: core))
        case .object:
            checkHoldsLinks()
            return unsafeBitCast(dynamicLink(bytes), to: E.self)
        case .optionalObject:
            checkHoldsLinks()
            // An optional link: a presence byte, then the key.
            guard bytes.first == 1 else { return unsafeBitCast(DynamicObject?.none, to: E.self) }
            return unsafeBitCast(DynamicObject?.some(dynamicLink(UnsafeRawBufferPointer(rebasing: bytes.dropFirst()))), to: E.self)
        }
    }

    private func checkHoldsLinks() {
        if column.type != .object {
            core.misuse(.invalidArgument, "'\(core.snap.schemas[table].className).\(core.snap.schemas[table].allProperties[column.index].name)' holds values, not objects: read its elements through its typed property or value(forKey:)")
        }
    }

    /// The object a dynamic collection's link element names, bound to the linked class.
    private func dynamicLink(_ bytes: UnsafeRawBufferPointer) -> DynamicObject {
        guard bytes.count >= 8 else { core.readFailed(Realm.Error(.corruptFile, "a link element of \(bytes.count) bytes")) }
        let key = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        guard let target = core.linkTargetTable(table: table, column: column.index) else {
            core.readFailed(Realm.Error(.corruptFile, "a link collection whose target class has no table"))
        }
        let bound = target < core.snap.infos.count ? core.snap.infos[target] : nil
        guard let info = bound ?? ClassInfo.registered(named: core.snap.schemas[target].className) else {
            core.readFailed(Realm.Error(.invalidArgument, "a dynamic collection links to '\(core.snap.schemas[target].className)', a class this process has not used; list it in Realm.Configuration.objectTypes"))
        }
        return DynamicObject.bound(ObjectBinding(core: core, info: info, table: target, key: key))
    }
}

extension Object {
    /// The list property `propertyName`, its objects as ``DynamicObject``s (a live view of the
    /// same stored list). An unknown name, or a property that is not a list, stops with a
    /// `Strata:` message, as Realm raises.
    ///
    /// On a list of values (as in RealmSwift) the view counts, moves and removes elements, but
    /// reading an element stops with a `Strata:` message and adding an object is an
    /// `.invalidArgument` error of the write: its elements are not objects.
    ///
    /// - Parameter propertyName: the name of a list property.
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        guard let ref = dynamicCollectionRef(propertyName, .list) else { return List() }
        return List(ref: ref)
    }

    /// The set property `propertyName`, its objects as ``DynamicObject``s (see ``dynamicList(_:)``,
    /// also for a set of values).
    ///
    /// - Parameter propertyName: the name of a set property.
    public func dynamicMutableSet(_ propertyName: String) -> MutableSet<DynamicObject> {
        guard let ref = dynamicCollectionRef(propertyName, .set) else { return MutableSet() }
        return MutableSet(ref: ref)
    }

    /// The map property `propertyName`, its objects as ``DynamicObject``s (see ``dynamicList(_:)``,
    /// also for a map of values).
    ///
    /// - Parameter propertyName: the name of a map property.
    public func dynamicMap<Key: _MapKey>(_ propertyName: String) -> Map<Key, DynamicObject?> {
        guard let ref = dynamicCollectionRef(propertyName, .map) else { return Map() }
        return Map(ref: ref)
    }

    /// The stored collection `propertyName` of this managed object; nil for an unmanaged one
    /// (whose dynamic collections are empty); stops on a wrong name or kind.
    private func dynamicCollectionRef(_ propertyName: String, _ kind: CollectionKind) -> CollectionRef? {
        guard let binding = _binding else {
            guard let info = try? ClassInfo.of(type(of: self)), info.columnIndex(named: propertyName) != nil else {
                Stop.now("Strata: invalidArgument: '\(type(of: self).className())' has no property '\(propertyName)'")
            }
            return nil
        }
        let info = binding.info
        guard let column = info.columnIndex(named: propertyName) else {
            binding.core.misuse(.invalidArgument, "'\(info.schema.className)' has no property '\(propertyName)'")
        }
        let c = info.layout.columns[column]
        guard c.collection == kind else {
            binding.core.misuse(.invalidArgument, "'\(info.schema.className).\(propertyName)' is not a \(kind)")
        }
        return binding.collectionRef(ordinal: column)
    }
}

extension CollectionRef {
    /// A dynamic collection's static type admits any object: refuse one of another class than the
    /// property links to (a typed collection's element type makes that check).
    func checkDynamicElement<E>(_ element: E) throws(Realm.Error) {
        let object: Object? = (element as? DynamicObject) ?? ((element as? DynamicObject?) ?? nil)
        guard column.type == .object else {
            let schema = core.snap.schemas[table]
            throw Realm.Error(.invalidArgument, "'\(schema.className).\(schema.allProperties[column.index].name)' holds values: an object cannot be added to it")
        }
        guard let object else { return }
        let wanted = core.snap.schemas[table].allProperties[column.index].objectClassName ?? ""
        let actual = object._binding?.info.schema.className ?? type(of: object).className()
        guard actual == wanted else {
            throw Realm.Error(.invalidArgument, "a '\(actual)' cannot be added to a collection of '\(wanted)'")
        }
    }
}

/// Whether a collection's element type is one of the dynamic link types, which decode through the
/// collection's link target rather than themselves. Decided once per loop over a collection:
/// asked per element from generic code that is not specialised (a `List<T>` read from another
/// module), comparing with `DynamicObject?.self` looked Optional's metadata up in the runtime
/// every time, a seventh of a list traversal's samples.
enum DynamicElement {
    case none
    case object
    case optionalObject

    init<E>(_: E.Type) {
        if E.self == DynamicObject.self {
            self = .object
        } else if E.self == DynamicObject?.self {
            self = .optionalObject
        } else {
            self = .none
        }
    }
}
