// What a migration block can do: Realm's `Migration` API on top of MigrationContext.
//
// Invariants: every method works only while the block runs (afterwards the context is gone and
// calls do nothing); failures are recorded and thrown by `Realm(configuration:)` when the block
// returns (the block's type, `(Migration, UInt64) -> Void`, cannot throw).
import Foundation

extension Migration {
    /// Calls `block` for every object of `typeName` that existed before the migration with its
    /// old view and its new view (nil when the class left the code or the block deleted it).
    /// For a class new in this version, `old` is nil and `new` iterates the current objects.
    public func enumerateObjects(ofType typeName: String, _ block: (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void) {
        guard let ctx = context else { return }
        let core = ctx.core
        guard let t = core.snap.tableByName[typeName] else {
            ctx.fail(.invalidArgument, "enumerateObjects: the realm has no class '\(typeName)'")
            return
        }
        do {
            if let old = try ctx.old(table: t) {
                let layout = RowLayout(properties: old.schema.properties)
                for (key, row) in old.rows {
                    let o = MigrationObject(.old(schema: old.schema, layout: layout, row: row), key: key, context: ctx)
                    block(o, ctx.newView(className: typeName, key: key))
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

    /// Creates an object of `typeName` (a class of the code) from a dictionary/array value.
    @discardableResult
    public func create(_ typeName: String, value: Any = [String: Any]()) -> MigrationObject? {
        guard let ctx = context else { return nil }
        guard let info = ctx.codeClasses[typeName] else {
            ctx.fail(.invalidArgument, "create: '\(typeName)' is not a class of this realm's objectTypes")
            return nil
        }
        do {
            let obj = try info.type.make(value: value)
            let key = try ctx.core.addObject(obj, update: .error)
            guard let t = ctx.core.snap.tableByName[typeName] else { return nil }
            if info.primaryKeyColumn != nil { ctx.pkDirty.insert(t) }
            return MigrationObject(.new(object: obj, info: info, table: t), key: key, context: ctx)
        } catch {
            ctx.fail(error)
            return nil
        }
    }

    /// Deletes the object of a new view (old views cannot be deleted: they are copies).
    public func delete(_ object: MigrationObject) {
        guard let ctx = context else { return }
        guard case .new(_, _, let table) = object.backing else {
            ctx.fail(.invalidArgument, "delete: pass the new object of enumerateObjects, not the old one")
            return
        }
        do { _ = try ctx.core.deleteObject(table: table, key: object.key) } catch { ctx.fail(error) }
    }

    /// Deletes every object of `typeName`. Returns whether the class exists in the file.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        guard let ctx = context else { return false }
        let core = ctx.core
        guard let t = core.snap.tableByName[typeName] else { return false }
        do {
            var keys: [UInt64] = []
            try core.snap.metas[t].objects.forEach(from: 0, in: core.pages()) { k, _ in
                keys.append(k)
                return true
            }
            for k in keys { _ = try core.deleteObject(table: t, key: k) }
        } catch {
            ctx.fail(error)
        }
        return true
    }

    /// Moves the data of property `oldName` (old schema) into `newName` (new schema) of every
    /// object of `typeName`. Both must have the same type; otherwise `.invalidArgument`.
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        guard let ctx = context else { return }
        let core = ctx.core
        guard let t = core.snap.tableByName[typeName], let info = ctx.codeClasses[typeName],
              let old = try? ctx.old(table: t) else {
            ctx.fail(.invalidArgument, "renameProperty: '\(typeName)' is not a class of both the file and the code")
            return
        }
        guard let oc = old.schema.properties.firstIndex(where: { $0.name == oldName }) else {
            ctx.fail(.invalidArgument, "renameProperty: '\(typeName)' had no property '\(oldName)'")
            return
        }
        guard let nc = info.columnIndex(named: newName), old.schema.properties[oc].type == info.schema.properties[nc].type,
              old.schema.properties[oc].collection == info.schema.properties[nc].collection,
              old.schema.properties[oc].objectClassName == info.schema.properties[nc].objectClassName else {
            ctx.fail(.invalidArgument, "renameProperty: '\(typeName).\(newName)' does not exist or has another type than '\(oldName)'")
            return
        }
        do {
            let w = try core.requireWriteThrowing("migrate")
            let oldColumn = RowLayout(properties: old.schema.properties).columns[oc]
            let newColumn = info.layout.columns[nc]
            for (key, oldRow) in old.rows {
                guard var row = try core.snap.metas[t].objects.withValue(forKey: key, in: w, { buf in
                    _RowBuilder(copying: buf, layout: info.layout, core: core, table: t, key: key)
                }) else { continue }
                if !(try RealmCore.copyColumn(oldColumn, of: oldRow, to: newColumn, in: &row)) { continue }
                try row.bytes.withUnsafeBytes { _ = try core.snap.metas[t].objects.put(key, $0, in: w) }
            }
            for e in ctx.pendingBacklinks[t]?[oc] ?? [] { try core.putBacklink(e, column: nc, w: w) }
            ctx.pendingBacklinks[t]?[oc] = nil
            ctx.droppedCollections[t]?.remove(oc)
            core.snap.metasDirty = true
            core.changeCounter &+= 1
            if nc == info.primaryKeyColumn { ctx.pkDirty.insert(t) }
        } catch {
            ctx.fail(error)
        }
    }
}
