// What a migration block can do: Realm's `Migration` API on top of MigrationContext.
//
// Invariants: every method works only while the block runs (afterwards the context is gone and
// calls do nothing); failures are recorded and thrown by `Realm(configuration:)` when the block
// returns (the block's type, `(Migration, UInt64) -> Void`, cannot throw).
import Foundation

extension Migration {
    /// Calls a block for each object of a class that was stored before the migration, with its old
    /// and its new view.
    ///
    /// The new view is `nil` when the class is no longer in the code. An object the migration has
    /// deleted is skipped, as in Realm. For a class that is new in this schema version, the old
    /// view is `nil` and the block sees the class's current objects.
    ///
    /// ```swift
    /// let config = Realm.Configuration(schemaVersion: 2, migrationBlock: { migration, oldVersion in
    ///     if oldVersion < 2 {
    ///         migration.enumerateObjects(ofType: "Person") { old, new in
    ///             let first = old?["firstName"] as? String ?? ""
    ///             let last = old?["lastName"] as? String ?? ""
    ///             new?["fullName"] = "\(first) \(last)"
    ///         }
    ///     }
    /// })
    /// let realm = try Realm(configuration: config)
    /// ```
    ///
    /// A problem cannot be thrown from here (the block's type does not throw); it is kept, the whole
    /// migration is rolled back, and `Realm(configuration:)` throws it when the block returns.
    ///
    /// - Parameters:
    ///   - typeName: the class name, as stored in the file. For a class the file holds no objects
    ///     of, or does not know, the block is not called, as in Realm.
    ///   - block: called with the old view (`nil` for a class new in this version) and the new view.
    public func enumerateObjects(ofType typeName: String, _ block: (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void) {
        guard let ctx = context else { return }
        let core = ctx.core
        // Tables are added when a class is first stored, so a class of the schema may have none yet:
        // it has no objects to visit.
        guard let t = core.snap.tableByName[typeName], !ctx.removedTables.contains(t) else { return }
        let inCode = ctx.codeClasses[typeName] != nil
        do {
            if let old = try ctx.old(table: t) {
                for (key, row) in old.rows {
                    let new = ctx.newView(className: typeName, key: key)
                    // Deleted by the migration: skipped (a class gone from the code has no new views).
                    if new == nil && inCode { continue }
                    block(ctx.oldView(table: t, schema: old.schema, key: key, row: row), new)
                }
            } else {
                var keys: [UInt64] = []
                try core.snap.metas[t].objects.forEach(from: 0, in: core.pages()) { k, _ in
                    keys.append(k)
                    return true
                }
                for k in keys { block(nil, ctx.newView(className: typeName, key: k)) }
            }
        } catch {
            ctx.fail(error)
        }
    }

    /// Creates an object of a class of the code inside the migration.
    ///
    /// - Parameters:
    ///   - typeName: a class among the configuration's object types.
    ///   - value: the initial property values, as a dictionary by name or an array in declaration
    ///     order (empty: every property has its default).
    /// - Returns: the new object's view. When it could not be created the migration fails with
    ///   `Realm.Error` (`.invalidArgument` for an unknown class or a value that does not fit,
    ///   `.duplicatePrimaryKey` for a primary key in use) and the view returned reads `nil` and
    ///   ignores writes.
    @discardableResult
    public func create(_ typeName: String, value: Any = [String: Any]()) -> MigrationObject {
        guard let ctx = context else { return DynamicObject() }
        let failed = DynamicObject.migrating(.failed, key: 0, context: ctx)
        guard let info = ctx.codeClasses[typeName] else {
            ctx.fail(.invalidArgument, "create: '\(typeName)' is not a model class of this realm (objectTypes, or the program's classes without it)")
            return failed
        }
        do {
            let obj = try info.type.make(value: value)
            let key = try ctx.core.adding.addObject(obj, update: .error)
            guard let t = ctx.core.snap.tableByName[typeName] else {
                ctx.fail(.invalidArgument, "create: '\(typeName)' has no table in this realm")
                return failed
            }
            if info.primaryKeyColumn != nil { ctx.pkDirty.insert(t) }
            return DynamicObject.migrating(.new(object: obj, info: info, table: t), key: key, context: ctx)
        } catch {
            ctx.fail(error)
            return failed
        }
    }

    /// Deletes the object behind a *new* view.
    ///
    /// - Parameter object: a new view from ``enumerateObjects(ofType:_:)`` or ``create(_:value:)``;
    ///   an old view (a copy of the stored row) fails the migration with `.invalidArgument`.
    public func delete(_ object: MigrationObject) {
        guard let ctx = context else { return }
        guard let view = object.migrationView, case .new(_, _, let table) = view.backing else {
            ctx.fail(.invalidArgument, "delete: pass the new object of enumerateObjects, not the old one")
            return
        }
        do { _ = try ctx.core.deletion.deleteObject(table: table, key: view.key) } catch { ctx.fail(error) }
    }

    /// Deletes every object of a class and, when the code no longer has the class, the class
    /// itself, as in Realm.
    ///
    /// A class of the code keeps its table, empty. A class the code no longer has leaves the file
    /// when the migration commits: afterwards neither the realm's schema nor the stored schema
    /// (`StrataFile`, `strata schema`) lists it, and within the block `enumerateObjects` finds no
    /// objects of it and a second `deleteData` returns `false`. A class the file keeps (one the
    /// code no longer has either, whose data stays) may not link to it: the migration then fails
    /// with `Realm.Error` code `.invalidSchema` naming the property; delete that class's data too.
    ///
    /// - Parameter typeName: the class name, as stored in the file.
    /// - Returns: whether the file held that class (`false` for a name it does not know).
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        guard let ctx = context else { return false }
        let core = ctx.core
        guard let t = core.snap.tableByName[typeName], !ctx.removedTables.contains(t) else { return false }
        if ctx.codeClasses[typeName] == nil { ctx.removedTables.insert(t) }
        do {
            var keys: [UInt64] = []
            try core.snap.metas[t].objects.forEach(from: 0, in: core.pages()) { k, _ in
                keys.append(k)
                return true
            }
            for k in keys { _ = try core.deletion.deleteObject(table: t, key: k) }
        } catch {
            ctx.fail(error)
        }
        return true
    }

    /// Moves the values of a property to its new name, for every object of a class.
    ///
    /// Use it when a property was renamed in the code, so its values are kept rather than dropped
    /// (old name) and defaulted (new name).
    ///
    /// - Parameters:
    ///   - typeName: a class both the file and the code have.
    ///   - oldName: the property's name in the file's schema.
    ///   - newName: its name in the code; it must have the same type, collection kind and link target.
    ///   Any mismatch fails the migration with `Realm.Error` code `.invalidArgument`.
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        guard let ctx = context else { return }
        let core = ctx.core
        guard let t = core.snap.tableByName[typeName], let info = ctx.codeClasses[typeName],
              let old = try? ctx.old(table: t) else {
            ctx.fail(.invalidArgument, "renameProperty: '\(typeName)' is not a class of both the file and the code")
            return
        }
        guard let oc = old.schema.allProperties.firstIndex(where: { $0.name == oldName }) else {
            ctx.fail(.invalidArgument, "renameProperty: '\(typeName)' had no property '\(oldName)'")
            return
        }
        guard let nc = info.columnIndex(named: newName), old.schema.allProperties[oc].type == info.schema.allProperties[nc].type,
              old.schema.allProperties[oc].collection == info.schema.allProperties[nc].collection,
              old.schema.allProperties[oc].objectClassName == info.schema.allProperties[nc].objectClassName else {
            ctx.fail(.invalidArgument, "renameProperty: '\(typeName).\(newName)' does not exist or has another type than '\(oldName)'")
            return
        }
        do {
            let w = try core.requireWriteThrowing("migrate")
            let oldColumn = RowLayout(properties: old.schema.allProperties).columns[oc]
            let newColumn = info.layout.columns[nc]
            for (key, oldRow) in old.rows {
                guard var row = try core.snap.metas[t].objects.withValue(forKey: key, in: w, { buf in
                    _RowBuilder(copying: buf, layout: info.layout, core: core, table: t, key: key)
                }) else { continue }
                if !(try Migrator.copyColumn(oldColumn, of: oldRow, to: newColumn, in: &row)) { continue }
                try row.bytes.withUnsafeBytes { _ = try core.snap.metas[t].objects.put(key, $0, in: w) }
            }
            for e in ctx.pendingBacklinks[t]?[oc] ?? [] { try core.migrator.putBacklink(e, column: nc, w: w) }
            ctx.pendingBacklinks[t]?[oc] = nil
            ctx.droppedColumns[t]?.remove(oc)
            core.snap.metasDirty = true
            core.changeCounter &+= 1
            if nc == info.primaryKeyColumn { ctx.pkDirty.insert(t) }
        } catch {
            ctx.fail(error)
        }
    }
}
