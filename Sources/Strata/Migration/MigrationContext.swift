// The state of one running migration: copies of the old rows, what the block did, and the
// primary-key indexes that must be rebuilt before the commit.
//
// Invariants:
// - Old rows are copied before anything of their table changes (`oldRows`), so "old" views read
//   exactly the pre-migration data even after the block modified or deleted objects.
// - `error` keeps the first failure inside the block; the migration then rolls back and throws it.
// - Tables whose primary key values may have changed (converted tables, tables whose key was set
//   or renamed by the block) are in `pkDirty` and get their index rebuilt, which is where
//   duplicates are detected (`.duplicatePrimaryKey`).
import Foundation
import StrataStorage

final class MigrationContext {
    unowned let core: RealmCore
    /// Old schema and rows of each table that existed before, captured on first need.
    var oldRows: [Int: (schema: ObjectSchema, rows: [(key: UInt64, row: [UInt8])])] = [:]
    let oldTableCount: Int
    var codeClasses: [String: ClassInfo]
    var pkDirty = Set<Int>()
    /// Backlink entries of converted tables whose column has no new column (yet): table →
    /// old column → entries. `renameProperty` moves them to the renamed column.
    var pendingBacklinks: [Int: [Int: [(key: [UInt8], value: [UInt8])]]] = [:]
    /// Columns of converted tables that own something and have no new column (removed, or
    /// changed in type): collections, and links to embedded objects. Table → old columns.
    /// `renameProperty` takes a column out (what it owns moves to the renamed column); what
    /// those left own (trees, embedded objects) is freed before the commit.
    var droppedColumns: [Int: Set<Int>] = [:]
    var error: Realm.Error?
    /// Tables `deleteData(forType:)` emptied whose class the code no longer has: they leave the
    /// file after the block (TableRemoval.swift), and the block no longer finds them.
    var removedTables = Set<Int>()
    /// Per old table: the row layout of its old schema, and the position of each key among its
    /// captured rows (built when an old link is first followed).
    private var oldLayouts: [Int: RowLayout] = [:]
    private var oldRowPositions: [Int: [UInt64: Int]] = [:]

    init(core: RealmCore, codeClasses: [ClassInfo]) {
        self.core = core
        oldTableCount = core.snap.schemas.count
        var byName: [String: ClassInfo] = [:]
        for c in codeClasses { byName[c.schema.className] = c }
        self.codeClasses = byName
    }

    func fail(_ code: Realm.Error.Code, _ message: String) {
        if error == nil { error = Realm.Error(code, message) }
    }

    func fail(_ e: Swift.Error) {
        guard error == nil else { return }
        if let r = e as? Realm.Error { error = r } else if let s = e as? StorageError { error = Realm.Error(s) } else {
            error = Realm.Error(.invalidState, "\(e)")
        }
    }

    /// The old rows of table `t` (copied now if not yet); nil for tables created by this migration.
    func old(table t: Int) throws -> (schema: ObjectSchema, rows: [(key: UInt64, row: [UInt8])])? {
        if let o = oldRows[t] { return o }
        guard t < oldTableCount else { return nil }
        let p = try core.pages()
        var rows: [(key: UInt64, row: [UInt8])] = []
        try core.snap.metas[t].objects.forEach(from: 0, in: p) { k, v in
            rows.append((k, [UInt8](v)))
            return true
        }
        let o = (core.snap.schemas[t], rows)
        oldRows[t] = o
        return o
    }

    /// Captures the old rows of every table before the first change (cheap enough for a
    /// migration, and it makes "old" exact whatever the block does).
    func captureAll() throws {
        for t in 0..<oldTableCount { _ = try old(table: t) }
    }

    // MARK: Values

    func decodeOld(_ p: Property, _ c: _Column, _ row: [UInt8]) -> Any? {
        if p.type == .linkingObjects { return nil }
        return row.withUnsafeBytes { b -> Any? in
            let view = _RowView(bytes: b, core: core)
            if p.collection != .none { return oldCollection(p, root: PageRef(view.load(c, as: UInt32.self))) }
            if view.isNull(c) { return nil }
            switch p.type {
            case .bool: return Bool._strataRead(view, c)
            case .int: return Int._strataRead(view, c)
            case .float: return Float._strataRead(view, c)
            case .double: return Double._strataRead(view, c)
            case .date: return Date._strataRead(view, c)
            case .string: return String._strataRead(view, c)
            case .data: return Data._strataRead(view, c)
            case .uuid: return UUID._strataRead(view, c)
            case .objectId: return ObjectId._strataRead(view, c)
            case .decimal128: return Decimal128._strataRead(view, c)
            // The value a mixed property holds, as the new object (and key-value coding) gives it;
            // a link in it reads as the old object, as a link property's does.
            case .any:
                let value = AnyRealmValue._strataRead(view, c)._strataAny
                if let linked = value as? Object, let binding = linked._binding {
                    return oldView(className: binding.info.schema.className, key: binding.key)
                }
                return value
            case .object:
                let target = UInt64(littleEndian: view.load(c, as: UInt64.self))
                return oldView(className: p.objectClassName ?? "", key: target)
            case .linkingObjects: return nil
            }
        }
    }

    /// The old-side view of object `key` of class `className` as the file held it before the
    /// migration (its old schema's property names and values), nil when the file held none: the
    /// object an old object's link reads, as in Realm.
    func oldView(className: String, key: UInt64) -> MigrationObject? {
        guard let t = core.snap.tableByName[className] else { return nil }
        let captured: (schema: ObjectSchema, rows: [(key: UInt64, row: [UInt8])])?
        do { captured = try old(table: t) } catch { core.readFailed(error) }
        guard let captured else { return nil }
        let positions = oldRowPositions[t] ?? Dictionary(uniqueKeysWithValues: captured.rows.enumerated().map { ($1.key, $0) })
        oldRowPositions[t] = positions
        guard let position = positions[key] else { return nil }
        return oldView(table: t, schema: captured.schema, key: key, row: captured.rows[position].row)
    }

    /// The old-side view of the captured `row` of old table `t`.
    func oldView(table t: Int, schema: ObjectSchema, key: UInt64, row: [UInt8]) -> MigrationObject {
        let layout = oldLayouts[t] ?? RowLayout(properties: schema.allProperties)
        oldLayouts[t] = layout
        return DynamicObject.migrating(.old(schema: schema, layout: layout, row: row), key: key, context: self)
    }

    /// The new-side view of object `key` of class `className`, nil when it does not exist.
    func newView(className: String, key: UInt64) -> MigrationObject? {
        guard let info = codeClasses[className], let t = core.snap.tableByName[className] else { return nil }
        let exists: Bool
        do { exists = try core.snap.metas[t].objects.contains(key, in: core.pages()) } catch { core.readFailed(error) }
        guard exists else { return nil }
        return DynamicObject.migrating(.new(object: core.materializeAny(info: info, table: t, key: key), info: info, table: t),
                                       key: key, context: self)
    }

    func set(_ value: Any?, name: String, on object: Object, info: ClassInfo, table: Int, key: UInt64) {
        guard let c = info.columnIndex(named: name) else {
            fail(.invalidArgument, "'\(info.schema.className)' has no property '\(name)'")
            return
        }
        let v: Any?
        if let view = value as? DynamicObject, let migrationView = view.migrationView {
            guard let object = view.migratedObject else {
                let what = if case .old = migrationView.backing { "an old object" } else { "an object create could not make" }
                fail(.invalidArgument, "'\(name)' cannot be set to \(what); set it to the new object")
                return
            }
            v = object
        } else if let elements = value as? [Any] {
            // A list given as an array may hold new views (`[migration.create(…)]`): each stands
            // for its object, as a single view does above.
            v = elements.map { element in (element as? DynamicObject)?.migratedObject ?? element }
        } else {
            v = value is NSNull ? nil : value
        }
        do {
            if c == info.primaryKeyColumn {
                // The accessor refuses primary-key changes; a migration may make them.
                let probe = info.type.init()
                try info.fields[c].setAny(probe, v)
                let w = try core.requireWriteThrowing("migrate")
                let col = info.layout.columns[c]
                guard var row = try core.snap.metas[table].objects.withValue(forKey: key, in: w, { buf in
                    _RowBuilder(copying: buf, layout: info.layout, core: core, table: table, key: key)
                }) else { return }
                try info.fields[c].storeUnmanaged(probe, &row, col)
                try row.bytes.withUnsafeBytes { _ = try core.snap.metas[table].objects.put(key, $0, in: w) }
                core.snap.metasDirty = true
                pkDirty.insert(table)
            } else {
                try info.fields[c].setAny(object, v)
                if let e = core.pendingError { throw e }
            }
        } catch {
            fail(error)
        }
    }
}
