// The dynamic API: objects found, read and created by class name (`dynamicObjects`,
// `dynamicObject(ofType:forPrimaryKey:)`, `dynamicCreate`), for code that does not have the class.
//
// Invariant: the class must be one this realm can map: the class it bound to the name, a class of
// its configuration's schema, or one this process has used or discovered; a name that is none of
// these stops with a `Strata:` message, as Realm raises for an unknown class.

extension Realm {
    /// The class info for `className` in this realm.
    private func dynamicClass(_ className: String) -> ClassInfo {
        if className == "Object" || className == "EmbeddedObject" || className == "DynamicObject" {
            core.misuse(.invalidArgument, "'\(className)' is not a model class")
        }
        do {
            // Several classes may give the same name (`_realmObjectName()`): the one this realm
            // bound, then the configuration's, then any this process has used.
            _ = try core.pages()
            if let t = core.snap.tableByName[className], t < core.snap.infos.count, let info = core.snap.infos[t] {
                return info
            }
            if let type = configuration.objectTypes?.first(where: { $0.className() == className }) {
                return try ClassInfo.of(type)
            }
            if let info = ClassInfo.registered(named: className) { return info }
            if let type = ModelDiscovery.modelClasses.first(where: { $0.className() == className }) {
                return try ClassInfo.of(type)
            }
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
        do {
            guard let (table, key) = try storedObject(info: info, primaryKey: key) else { return nil }
            return DynamicObject.bound(ObjectBinding(core: core, info: info, table: table, key: key))
        } catch {
            core.misuse(error.code, error.message)
        }
    }

    /// The table and key of the object of `info`'s class whose primary key is `primaryKey` (a
    /// value of any type the primary key property accepts, `NSNull` or nil for an optional one);
    /// nil when there is none.
    func storedObject(info: ClassInfo, primaryKey: Any?) throws(Realm.Error) -> (table: Int, key: UInt64)? {
        guard let primaryKeyColumn = info.primaryKeyColumn else {
            throw Realm.Error(.missingPrimaryKey, "'\(info.schema.className)' has no primary key")
        }
        do {
            let probe = info.type.init()
            try info.fields[primaryKeyColumn].setAny(probe, primaryKey)
            let indexKey = try info.fields[primaryKeyColumn].primaryKeyIndexKey(probe, core: core)
            guard let table = try core.tableIndex(for: info, create: false) else { return nil }
            let pages = try core.pages()
            let column = info.layout.columns[primaryKeyColumn]
            let objectKey = try indexKey.withUnsafeBytes { try core.objectKey(primaryKey: $0, table: table, column: column, in: pages) }
            return objectKey.map { (table, $0) }
        } catch {
            throw Realm.Error.surfacing(error) as? Realm.Error ?? Realm.Error(.invalidArgument, "\(error)")
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

extension Realm {
    /// The object of `type` whose primary key equals `key`, for a key whose static type is not a
    /// stored type (a generic key, `NSNull()` or `nil` for an optional primary key); nil when
    /// none. A class without a primary key, or a key its primary key cannot hold, stops with a
    /// `Strata:` message, as Realm raises.
    ///
    /// - Parameters:
    ///   - type: the class.
    ///   - key: the primary key value.
    public func object<Element: Object>(ofType type: Element.Type, forPrimaryKey key: Any?) -> Element? {
        core.checkThread()
        do {
            let info = try ClassInfo.of(type)
            guard let (table, objectKey) = try storedObject(info: info, primaryKey: key) else { return nil }
            return unsafeDowncast(core.materializeAny(info: info, table: table, key: objectKey), to: Element.self)
        } catch {
            core.misuse(error.code, error.message)
        }
    }
}
