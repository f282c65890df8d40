// Running a migration at open: when the configuration's `schemaVersion` is above the file's.
//
// Steps, all in ONE write transaction (a failure anywhere rolls everything back):
// 1. Copy the old rows of every table (MigrationContext: "old" views stay exact).
// 2. Convert each table whose stored schema differs from its class in `objectTypes`: rows are
//    rebuilt with the new layout, keeping the object keys (so links to them stay valid). A
//    property kept with the same type is copied (optional → required keeps the declared default
//    for nils); new properties get the declared defaults of a fresh instance of the class;
//    removed properties are dropped. Backlink entries follow their column (or wait for a
//    `renameProperty`). The primary-key index is rebuilt at the end.
// 3. Bind every class, create tables for new classes, store the new schema version.
// 4. Run the migration block (enumerateObjects / create / delete / deleteData / renameProperty).
// 5. Rebuild primary-key indexes of converted or key-changed tables; a duplicate is
//    `.duplicatePrimaryKey`. Rebuild every secondary index (maintenance is suspended while
//    steps 2–4 rewrite rows; added and removed `indexed:` take effect here). Remove the tables
//    `deleteData(forType:)` emptied of classes the code no longer has. Commit.
//
// Collection trees of removed collection properties (or of ones whose type changed) are freed
// after the block, unless the block renamed the property (the trees then belong to the new one);
// left allocated, no version would reach their pages and `verify()`, compaction and `writeCopy`
// would fail on them. Embedded objects held by such a property (a list, set or map of embedded
// objects, or a link to one) are deleted with it, with what they hold in turn: nothing else
// owns them, and left in their table they would be objects without a parent.
//
// The classes of the code are `objectTypes` (with the classes they link to) or, without it, every
// model class of the program (ModelDiscovery.swift), as RealmSwift's default schema has them:
// their tables are converted, `enumerateObjects` hands out their new objects, `create` makes them,
// and the block's new schema lists them. Tables are added at open for `objectTypes` only; without
// it, a class's table is added when the block creates one of its objects, or at first use.
//
// Tables of classes removed from the code are kept, unless the block calls
// `deleteData(forType:)` on them: that class then leaves the file (TableRemoval.swift).
import StrataStorage

/// The migration of one core: converts stored tables to the code's classes inside the write the
/// migration runs in (see the file header). A view of the core: all state is the core's.
struct Migrator {
    /// Strong, not `unowned(unsafe)`: each use of an unowned reference is retained and released
    /// again (measured: bulk inserts took 12% more CPU), while a strong one read from the view
    /// is borrowed; a view is made by its core for one call and never kept.
    let core: RealmCore
}

extension Migrator {
    func migrate(known: [ClassInfo]) throws {
        let oldVersion = core.snap.schemaVersion
        let oldSchema = Schema(objectSchema: core.snap.schemas)
        if core.configuration.deleteRealmIfMigrationNeeded,
           let changed = known.first(where: { i in core.snap.tableByName[i.schema.className].map { !core.snap.schemas[$0].isStoredAs(i.schema) } ?? false }) {
            // Realm.init catches this, deletes the file and opens a fresh one.
            throw Realm.Error(.schemaMismatch, "class '\(changed.schema.className)' changed and deleteRealmIfMigrationNeeded is set")
        }
        try core.beginWrite()
        core.indexing.suspended = true
        core.inlineBacklinksSuspended = true
        defer {
            core.indexing.suspended = false
            core.inlineBacklinksSuspended = false
        }
        do {
            let w = try core.requireWriteThrowing("migrate")
            // Column renumbering below works on the backlink tree: footer entries go there first.
            try core.backlinkStore.spillInlineBacklinks(w)
            let codeClasses = core.configuration.objectTypes == nil ? ModelDiscovery.validClassInfos : known
            let ctx = MigrationContext(core: core, codeClasses: codeClasses)
            try ctx.captureAll()
            for info in codeClasses {
                guard let t = core.snap.tableByName[info.schema.className], !core.snap.schemas[t].isStoredAs(info.schema) else { continue }
                if core.snap.schemas[t].isEmbedded != info.schema.isEmbedded {
                    throw Realm.Error(.schemaMismatch, "class '\(info.schema.className)' cannot change between embedded and top-level in a migration")
                }
                try convert(table: t, to: info, ctx: ctx, w: w)
            }
            core.snap.schemaVersion = core.configuration.schemaVersion
            core.snap.schemaDirty = true
            for info in known { _ = try core.tableIndex(for: info, create: true) }
            if let block = core.configuration.migrationBlock {
                let newSchema = core.configuration.objectTypes == nil ? withDiscoveredClasses(core.snap.schemas) : core.snap.schemas
                let migration = Migration(oldSchema: oldSchema, newSchema: Schema(objectSchema: newSchema))
                migration.context = ctx
                block(migration, oldVersion)
                migration.context = nil
            }
            if let e = ctx.error ?? core.pendingError { throw e }
            try freeDroppedColumns(ctx, w: w)
            for t in ctx.pkDirty.sorted() { try rebuildPrimaryKeys(table: t, w: w) }
            try core.indexes.rebuildAllIndexes(w)
            try removeTables(ctx, w: w)
            try core.commitWrite()
        } catch {
            core.cancelWrite()
            throw error
        }
    }

    /// `stored` (the schemas of the file's tables, each bound to its class) followed by the model
    /// classes of the program that have no table yet: the default schema, as RealmSwift lists it.
    func withDiscoveredClasses(_ stored: [ObjectSchema]) -> [ObjectSchema] {
        var schemas = stored
        var names = Set(schemas.map(\.className))
        for info in ModelDiscovery.validClassInfos where names.insert(info.schema.className).inserted {
            var schema = info.schema
            schema.boundClass = info.type
            schemas.append(schema)
        }
        return schemas
    }

    /// Rebuilds table `t`'s rows with `info`'s layout (same keys).
    private func convert(table t: Int, to info: ClassInfo, ctx: MigrationContext, w: WriteTransaction) throws {
        guard let old = try ctx.old(table: t) else { return }
        let oldLayout = RowLayout(properties: old.schema.allProperties)
        let from: [Int?] = info.schema.allProperties.map { p in
            guard p.type != .linkingObjects, let oi = old.schema.allProperties.firstIndex(where: { $0.name == p.name }) else { return nil }
            let q = old.schema.allProperties[oi]
            return q.type == p.type && q.collection == p.collection && q.objectClassName == p.objectClassName ? oi : nil
        }
        var tree = KeyedTree()
        for (key, oldRow) in old.rows {
            let probe = info.type.init()
            var row = _RowBuilder(layout: info.layout, core: core, table: t, key: key)
            for (c, col) in info.layout.columns.enumerated() where col.type != .linkingObjects {
                if let oc = from[c], try Self.copyColumn(oldLayout.columns[oc], of: oldRow, to: col, in: &row) { continue }
                if col.type == .object && col.collection == .none {
                    row.setNull(col, true)
                } else {
                    try info.fields[c].storeUnmanaged(probe, &row, col)
                }
            }
            try row.bytes.withUnsafeBytes { _ = try tree.put(key, $0, in: w) }
        }
        var oldTree = core.snap.metas[t].objects
        try oldTree.destroy(in: w)
        core.snap.metas[t].objects = tree
        var oldKeys = core.snap.metas[t].primaryKeys
        try oldKeys.destroy(in: w)
        core.snap.metas[t].primaryKeys = BytesTree()
        if info.primaryKeyColumn != nil { ctx.pkDirty.insert(t) }
        var oldToNew: [Int: Int] = [:]
        for (c, oc) in from.enumerated() { if let oc { oldToNew[oc] = c } }
        let dropped = oldLayout.columns.filter { c in
            oldToNew[c.index] == nil && (c.collection != .none || embeddedTarget(of: old.schema.allProperties[c.index]) != nil)
        }.map(\.index)
        if !dropped.isEmpty { ctx.droppedColumns[t] = Set(dropped) }
        try remapBacklinks(source: t, oldToNew: oldToNew, ctx: ctx, w: w)
        core.snap.schemas[t] = info.schema
        core.snap.infos[t] = info
        core.snap.tableByClass[ObjectIdentifier(info.type)] = t
        core.snap.schemaDirty = true
        core.snap.metasDirty = true
        core.changeCounter &+= 1
    }

    /// The table of `property`'s target class when that class is embedded.
    private func embeddedTarget(of property: Property) -> Int? {
        guard property.type == .object, let target = core.targetTable(of: property), core.snap.schemas[target].isEmbedded else { return nil }
        return target
    }

    /// Frees what every old row held in its dropped columns (`ctx.droppedColumns`): collection
    /// trees, and the embedded objects they or a link column held (deleted as any embedded
    /// object is, with their own collections and embedded objects). The columns' backlink
    /// entries are already out of the backlink tree (`remapBacklinks`), so deleting an embedded
    /// object finds no link to it to undo.
    private func freeDroppedColumns(_ ctx: MigrationContext, w: WriteTransaction) throws {
        for (t, columns) in ctx.droppedColumns where !columns.isEmpty {
            guard let old = try ctx.old(table: t) else { continue }
            let layout = RowLayout(properties: old.schema.allProperties)
            for oc in columns.sorted() {
                let column = layout.columns[oc]
                let embedded = embeddedTarget(of: old.schema.allProperties[oc])
                for (_, oldRow) in old.rows {
                    if column.collection == .none {
                        let target: UInt64? = oldRow.withUnsafeBytes { bytes in
                            let view = _RowView(bytes: bytes, core: core)
                            return view.isNull(column) ? nil : UInt64(littleEndian: view.load(column, as: UInt64.self))
                        }
                        if let embedded, let target { try core.deletion.deleteObject(table: embedded, key: target) }
                        continue
                    }
                    let root = oldRow.withUnsafeBytes { PageRef(_RowView(bytes: $0, core: core).load(column, as: UInt32.self)) }
                    if root.isNull { continue }
                    if let embedded {
                        for key in try core.linkedKeys(inCollection: root, kind: column.collection, w) {
                            try core.deletion.deleteObject(table: embedded, key: key)
                        }
                    }
                    if column.collection == .map {
                        var tree = BytesTree(root: root)
                        try tree.destroy(in: w)
                    } else {
                        var tree = PositionalTree(root: root)
                        try tree.destroy(in: w)
                    }
                }
            }
        }
        ctx.droppedColumns = [:]
    }

    /// Copies one column of an old row into a new row. False when the old value is nil and the
    /// new column cannot hold nil (the caller stores the default instead).
    static func copyColumn(_ oc: _Column, of oldRow: [UInt8], to nc: _Column, in row: inout _RowBuilder) throws -> Bool {
        try oldRow.withUnsafeBytes { b in
            let view = _RowView(bytes: b, core: row.core)
            if view.isNull(oc) {
                guard nc.isOptional || (nc.type == .object && nc.collection == .none) else { return false }
                row.setNull(nc, true)
                return true
            }
            if nc.isVariable {
                row.storeVariable(view.variable(oc), nc)
            } else {
                let width = _Column.width(type: nc.type, collection: nc.collection)
                let src = view.fixedBytes(oc, count: width)
                guard src.count == width else {
                    throw Realm.Error(.corruptFile, "a stored row is shorter than its schema says (column \(oc.index))")
                }
                row.storeBytes(src, nc)
            }
            return true
        }
    }

    /// Moves the backlink entries whose source is table `t` to their new column numbers; entries
    /// of columns without a new column are removed and kept in `ctx` for `renameProperty`.
    private func remapBacklinks(source t: Int, oldToNew: [Int: Int], ctx: MigrationContext, w: WriteTransaction) throws {
        var moved: [(key: [UInt8], value: [UInt8])] = []
        try core.snap.backlinks.forEach(from: nil, in: w) { k, v in
            if k.count == 28 {
                let s = Int(UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
                if s == t { moved.append(([UInt8](k), [UInt8](v))) }
            }
            return true
        }
        for e in moved {
            _ = try e.key.withUnsafeBytes { try core.snap.backlinks.remove($0, in: w) }
        }
        for e in moved {
            let oldColumn = Int(e.key.withUnsafeBytes { UInt32(bigEndian: $0.loadUnaligned(fromByteOffset: 16, as: UInt32.self)) })
            guard let c = oldToNew[oldColumn] else {
                ctx.pendingBacklinks[t, default: [:]][oldColumn, default: []].append(e)
                continue
            }
            try putBacklink(e, column: c, w: w)
        }
    }

    func putBacklink(_ e: (key: [UInt8], value: [UInt8]), column c: Int, w: WriteTransaction) throws {
        var k = e.key
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: c).bigEndian) { for i in 0..<4 { k[16 + i] = $0[i] } }
        try k.withUnsafeBytes { kb in try e.value.withUnsafeBytes { vb in _ = try core.snap.backlinks.put(kb, vb, in: w) } }
    }

    /// Rebuilds the primary-key index of table `t` from its rows; a duplicate is an error.
    func rebuildPrimaryKeys(table t: Int, w: WriteTransaction) throws {
        guard let info = core.snap.infos[t], let pkc = info.primaryKeyColumn else { return }
        let col = info.layout.columns[pkc]
        var index = core.snap.metas[t].primaryKeys
        try index.destroy(in: w)
        index = BytesTree()
        var duplicate: String?
        var entries: [(key: UInt64, index: [UInt8])] = []
        try core.snap.metas[t].objects.forEach(from: 0, in: w) { key, row in
            entries.append((key, core.primaryKeyIndexKey(row: _RowView(bytes: row, core: core), column: col)))
            return true
        }
        for e in entries {
            let exists = try e.index.withUnsafeBytes { try index.contains($0, in: w) }
            if exists {
                duplicate = describeKey(e.index, type: col.type)
                break
            }
            try e.index.withUnsafeBytes { kb in
                try withUnsafeBytes(of: e.key.littleEndian) { v in _ = try index.put(kb, v, in: w) }
            }
        }
        core.snap.metas[t].primaryKeys = index
        core.snap.metasDirty = true
        if let duplicate {
            throw Realm.Error(.duplicatePrimaryKey, "after the migration, two '\(info.schema.className)' objects have the primary key \(duplicate)")
        }
    }

    private func describeKey(_ k: [UInt8], type: PropertyType) -> String {
        guard k.first == 1 else { return "nil" }
        let body = k.dropFirst()
        switch type {
        case .string: return "'\(String(decoding: body, as: UTF8.self))'"
        case .int where body.count == 8:
            return String(body.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) })
        default: return body.map { String($0, radix: 16) }.joined()
        }
    }
}
