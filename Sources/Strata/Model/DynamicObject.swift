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

    /// The value of the property `member`; setting it is `setValue(_:forKey:)`.
    public subscript(dynamicMember member: String) -> Any? {
        get { value(forKey: member) }
        set { setValue(newValue, forKey: member) }
    }

    /// The value of the stored property `key` (links as objects, collections as collections); nil
    /// for an unknown key or a nil value.
    public override func value(forKey key: String) -> Any? {
        guard let binding = _binding else { return unmanagedBase?.value(forKey: key) }
        guard let column = binding.info.columnIndex(named: key) else { return nil }
        return binding.info.fields[column].getAny(bound: self, ordinal: column)
    }

    /// Sets the stored property `key`, with the rules of `Object.setValue(_:forKey:)`.
    public override func setValue(_ value: Any?, forKey key: String) {
        guard let binding = _binding else {
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
                throw Realm.Error(.primaryKeyChange, "the primary key '\(key)' of a managed '\(info.schema.className)' cannot change")
            }
            try binding.core.checkWritable(name: key)
            try info.fields[column].setAny(bound: self, ordinal: column, value)
        }
    }

    /// The schema of the viewed object's class.
    public override var objectSchema: ObjectSchema {
        _binding?.info.schema ?? unmanagedBase?.objectSchema ?? ObjectSchema(className: "DynamicObject", properties: [], isEmbedded: false)
    }

    public override var description: String {
        if let unmanagedBase { return unmanagedBase.description }
        let schema = objectSchema
        if _binding != nil, isInvalidated { return "\(schema.className) <invalidated>" }
        let parts = schema.properties.map { property -> String in
            if property.type == .linkingObjects || property.collection != .none { return "\(property.name) = <collection>" }
            return "\(property.name) = \(value(forKey: property.name).map { "\($0)" } ?? "nil")"
        }
        return "\(schema.className) {\(parts.joined(separator: ", "))}"
    }
}

extension AnyRealmValue {
    /// The linked object as a ``DynamicObject`` when this is an `.object`, else nil.
    public var dynamicObject: DynamicObject? {
        if case .object(let object) = self { DynamicObject.view(of: object) } else { nil }
    }
}
