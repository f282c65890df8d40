// The dynamic API: objects found, read and created by class name (`dynamicObjects`,
// `dynamicObject(ofType:forPrimaryKey:)`, `dynamicCreate`), for code that does not have the class.
//
// Invariant: the class must be one this realm can map: a class of its configuration's schema, or
// one this process has used or discovered; a name that is neither stops with a `Strata:` message,
// as Realm raises for an unknown class.

extension Realm {
    /// The class info for `className` in this realm.
    private func dynamicClass(_ className: String) -> ClassInfo {
        if className == "Object" || className == "EmbeddedObject" || className == "DynamicObject" {
            core.misuse(.invalidArgument, "'\(className)' is not a model class")
        }
        let known = configuration.objectTypes?.first { $0.className() == className }
            ?? ModelDiscovery.modelClasses.first { $0.className() == className }
        do {
            if let info = ClassInfo.registered(named: className) { return info }
            if let type = known { return try ClassInfo.of(type) }
        } catch {
            core.misuse(error.code, error.message)
        }
        core.misuse(.invalidArgument, "no class named '\(className)' is in the schema of this realm")
    }

    /// Every object of the class named `className`, as ``DynamicObject``s.
    ///
    /// ```swift
    /// for dog in realm.dynamicObjects("Dog") { print(dog.name as? String ?? "") }
    /// ```
    ///
    /// - Parameter className: a class of this realm's schema.
    public func dynamicObjects(_ className: String) -> Results<DynamicObject> {
        core.checkThread()
        let info = dynamicClass(className)
        do { _ = try core.tableIndex(for: info, create: false) } catch { core.misuse(error.code, error.message) }
        return Results(core: core, info: info)
    }

    /// The object of the class named `className` whose primary key equals `key`, nil when none.
    ///
    /// - Parameters:
    ///   - className: a class of this realm's schema that has a primary key.
    ///   - key: the primary key value.
    public func dynamicObject(ofType className: String, forPrimaryKey key: Any) -> DynamicObject? {
        core.checkThread()
        let info = dynamicClass(className)
        guard let primaryKeyColumn = info.primaryKeyColumn else {
            core.misuse(.missingPrimaryKey, "'\(className)' has no primary key")
        }
        do {
            let probe = info.type.init()
            try info.fields[primaryKeyColumn].setAny(probe, key)
            let indexKey = try info.fields[primaryKeyColumn].primaryKeyIndexKey(probe, core: core)
            guard let table = try core.tableIndex(for: info, create: false) else { return nil }
            let pages = try core.pages()
            let objectKey: UInt64? = try indexKey.withUnsafeBytes { keyBytes in
                try core.snap.metas[table].primaryKeys.withValue(forKey: keyBytes, in: pages) { valueBytes in
                    valueBytes.count >= 8 ? UInt64(littleEndian: valueBytes.loadUnaligned(as: UInt64.self)) : nil
                }
            } ?? nil
            return objectKey.map { DynamicObject.bound(ObjectBinding(core: core, info: info, table: table, key: $0)) }
        } catch {
            let surfaced = Realm.Error.surfacing(error) as? Realm.Error ?? Realm.Error(.invalidArgument, "\(error)")
            core.misuse(surfaced.code, surfaced.message)
        }
    }

    /// Creates an object of the class named `className` in the open write transaction, as
    /// ``create(_:value:update:)`` does, and returns it as a ``DynamicObject``.
    ///
    /// - Parameters:
    ///   - className: a class of this realm's schema.
    ///   - value: the values, as for `create`.
    ///   - update: what to do when an object with the same primary key exists.
    @discardableResult
    public func dynamicCreate(_ className: String, value: Any = [String: Any](), update: UpdatePolicy = .error) -> DynamicObject {
        let info = dynamicClass(className)
        if info.schema.isEmbedded {
            core.misuse(.invalidArgument, "'\(className)' is embedded: an embedded object is created by setting it on its parent")
        }
        var created: Object?
        core.deferringFailure("create an object") { created = try createObject(info.type, value: value, update: update) }
        return DynamicObject.view(of: created ?? info.type.init())
    }
}
