// Binding Swift classes to the tables of a file: checked at open for `objectTypes`, on first use
// otherwise (see ClassInfo.swift for the discovery rule).
//
// Invariants:
// - A class is bound to table t only after its code schema equals the stored schema of t;
//   a difference is `.schemaMismatch` naming it. Tables are appended, never changed.
// - A fresh file gets its catalog (schema version, objectTypes' tables) in the first write.
import StrataStorage

extension RealmCore {
    func openSchema() throws {
        _ = try pages()
        let known = try configuration.objectTypes.map { try ClassInfo.closure(of: $0) } ?? []
        if snap.isFresh {
            if configuration.readOnly {
                throw Realm.Error(.invalidDatabase, "'\(fileIdentity)' is empty and the configuration is read-only", fileURL: configuration.fileURL)
            }
            try beginWrite()
            snap.schemaVersion = configuration.schemaVersion
            for info in known { _ = try tableIndex(for: info, create: true) }
            try commitWrite()
            return
        }
        if snap.schemaVersion > configuration.schemaVersion {
            throw Realm.Error(.invalidSchemaVersion, "'\(fileIdentity)' has schema version \(snap.schemaVersion), newer than the configuration's \(configuration.schemaVersion)", fileURL: configuration.fileURL)
        }
        if configuration.schemaVersion > snap.schemaVersion && !configuration.readOnly {
            try migrator.migrate(known: known)  // Migration/MigrationRun.swift
            return
        }
        var missing: [ClassInfo] = []
        for info in known {
            if try tableIndex(for: info, create: false) == nil { missing.append(info) }
        }
        let bump = configuration.schemaVersion > snap.schemaVersion
        guard (bump || !missing.isEmpty), !configuration.readOnly else { return }
        let oldVersion = snap.schemaVersion
        let oldSchema = Schema(objectSchema: snap.schemas)
        try beginWrite()
        do {
            snap.schemaVersion = configuration.schemaVersion
            snap.schemaDirty = true
            for info in missing { _ = try tableIndex(for: info, create: true) }
            if bump, let block = configuration.migrationBlock {
                block(Migration(oldSchema: oldSchema, newSchema: Schema(objectSchema: snap.schemas)), oldVersion)
            }
            try commitWrite()
        } catch {
            cancelWrite()
            throw error
        }
    }

    /// The table of `info`'s class, binding it (after checking the schema) on first use.
    /// With `create`, a missing table is added to the current write transaction.
    func tableIndex(for info: ClassInfo, create: Bool) throws(Realm.Error) -> Int? {
        if let t = snap.tableByClass[ObjectIdentifier(info.type)] { return t }
        if !snapValid { _ = try pages() }
        if let t = snap.tableByClass[ObjectIdentifier(info.type)] { return t }
        let name = info.schema.className
        if let t = snap.tableByName[name] {
            if let d = info.schema.difference(fromStored: snap.schemas[t]) {
                throw Realm.Error(.schemaMismatch, "the schema of '\(fileIdentity)' differs from the code: \(d) (raise schemaVersion to migrate it, with objectTypes listing the class, or set deleteRealmIfMigrationNeeded)", fileURL: configuration.fileURL)
            }
            snap.tableByClass[ObjectIdentifier(info.type)] = t
            snap.infos[t] = info
            // The bound class names the properties (the file may store them under mapped names).
            snap.schemas[t] = info.schema
            return t
        }
        guard create else { return nil }
        guard writeTxn != nil else {
            throw Realm.Error(.notInWriteTransaction, "class '\(name)' has no table yet; add objects inside a write transaction")
        }
        if let types = configuration.objectTypes, !types.contains(where: { $0 == info.type }) {
            let closure = try ClassInfo.closure(of: types)
            if !closure.contains(where: { $0 === info }) {
                throw Realm.Error(.invalidArgument, "class '\(name)' is not in this realm's objectTypes")
            }
        }
        let t = snap.schemas.count
        snap.schemas.append(info.schema)
        snap.metas.append(TableMeta(objects: KeyedTree(), primaryKeys: BytesTree(), nextKey: 1))
        snap.metas[t].indexes = indexes.requiredIndexColumns(table: t).map { IndexTree(column: $0, tree: BytesTree()) }
        snap.metas[t].indexesChecked = true
        snap.infos.append(info)
        snap.tableByName[name] = t
        snap.tableByClass[ObjectIdentifier(info.type)] = t
        snap.schemaDirty = true
        snap.metasDirty = true
        return t
    }

    /// The table of a class that must exist (trapping accessor paths use this).
    func tableIndex(forType type: Object.Type) throws(Realm.Error) -> Int? {
        try tableIndex(for: try ClassInfo.of(type), create: false)
    }

    /// The class info and table of an object about to be added (creating the table if needed),
    /// refusing embedded objects added on their own. Remembers the last class for the current
    /// snapshot (AddPathCache.swift): adding many objects of one class then skips ClassInfo's
    /// locked cache and the table lookup.
    @inline(__always)
    func classAndTable(forAdding type: Object.Type, viaLink: Bool) throws -> (ClassInfo, Int) {
        let id = ObjectIdentifier(type)
        if let last = addPath.lastAddedClass, last.type == id {
            if last.info.isEmbedded && !viaLink { try refuseEmbedded(last.info) }
            return (last.info, last.table)
        }
        let info = try ClassInfo.of(type)
        if info.isEmbedded && !viaLink { try refuseEmbedded(info) }
        guard let table = try tableIndex(for: info, create: true) else {
            throw Realm.Error(.invalidState, "no table for '\(info.schema.className)'")
        }
        addPath.lastAddedClass = ClassTableBinding(type: id, info: info, table: table)
        return (info, table)
    }

    fileprivate func refuseEmbedded(_ info: ClassInfo) throws {
        throw Realm.Error(.invalidArgument, "embedded '\(info.schema.className)' objects can only be added through their parent's link")
    }
}
