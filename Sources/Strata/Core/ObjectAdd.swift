// Adding objects: an unmanaged object becomes a row of its class's table, with cascading adds
// of the unmanaged objects it links to (`Realm.add`, `create`, links set on managed objects).
//
// Invariants:
// - Object keys come from the table's `nextKey` counter: no tree search to allocate one.
// - `add` writes the same row bytes on every path: the general one (`_RowBuilder`, generic
//   `storeUnmanaged` for strings, optionals, links, collections), raw copies of non-optional
//   scalars from the object's memory (`ClassInfo.rawStores`), and for plain classes a row built
//   on the stack (`ClassInfo.plainRow`). AddPathTests compares them byte for byte.
// - The row, its primary-key entry and its secondary index entries (IndexMaintenance.swift)
//   change together in one write; every link stored gets its backlink (Backlinks.swift), in the
//   target's row footer when the target is created for it (InlineBacklinks.swift).
// - Scratch buffers (`addPath.rowBytes`, `addPath.elementBytes`) are taken (swapped out) while in
//   use, so a nested use (a cascading add) finds them empty and allocates instead of sharing.
import StrataStorage

/// Adding objects to the core's tables (see the file header). A view of the core: the scratch
/// buffers it reuses are the core's `addPath`.
struct ObjectAdding {
    /// Strong, not `unowned(unsafe)`: each use of an unowned reference is retained and released
    /// again (measured: bulk inserts took 12% more CPU), while a strong one read from the view
    /// is borrowed; a view is made by its core for one call and never kept.
    let core: RealmCore
}

extension ObjectAdding {
    // MARK: - Adding

    /// Whether the row of a managed object of this realm is in the open write: stored, or being
    /// added (a cycle links back to an object whose row is stored after its links).
    private func rowExistsForLinking(_ binding: ObjectBinding) throws -> Bool {
        guard let w = core.writeTxn else { return true }
        if binding.table < core.snap.metas.count, try core.snap.metas[binding.table].objects.contains(binding.key, in: w) { return true }
        return core.addPath.rowsBeingAdded.contains { $0.table == binding.table && $0.key == binding.key }
    }

    /// The key of `obj` for storing a link to it, adding it (cascade) when unmanaged.
    func keyForLinking(_ obj: Object, from table: Int) throws -> UInt64 {
        if let binding = obj._binding {
            guard binding.core === core else {
                // `create` takes an object of another realm as a value: it links a copy, as RealmSwift does.
                guard core.write.foreignCopies != nil else {
                    throw Realm.Error(.wrongRealm, "a '\(binding.info.schema.className)' managed by another realm instance (\(binding.core.fileIdentity)) cannot be linked here; create(_:value:) copies it")
                }
                return try keyForLinking(try foreignCopy(of: obj, binding), from: table)
            }
            // A deleted object cannot be linked: the link would name no row (RealmSwift raises).
            if try binding.isStale || !rowExistsForLinking(binding) {
                core.misuse(.objectInvalidated, "this '\(binding.info.schema.className)' object was deleted or invalidated and cannot be linked")
            }
            // An embedded object has exactly one owner, the link that created it: a second link
            // would leave two owners of one object, and deleting either would delete it under the
            // other. RealmSwift raises here; the caller's own property is let through before this.
            if binding.info.isEmbedded {
                let name = binding.info.schema.className
                core.misuse(.invalidArgument, "this embedded '\(name)' object is already managed and has its owner; link a new or unmanaged one, or a copy (create(\(name).self, value: object))")
            }
            return binding.key
        }
        return try addObject(obj, update: core.write.updatePolicy, viaLink: true)
    }

    /// The unmanaged copy `create` links in place of `obj`, an object of another realm: made once
    /// per object, before it is added, so that links between such objects (cycles included) reach
    /// the same copy.
    private func foreignCopy(of obj: Object, _ binding: ObjectBinding) throws -> Object {
        let id = ForeignObject(core: ObjectIdentifier(binding.core), table: binding.table, key: binding.key)
        if let copy = core.write.foreignCopies?[id] { return copy }
        let copy = type(of: obj).init()
        core.write.foreignCopies?[id] = copy
        try copy._apply(value: obj, ignoringUnknownKeys: false)
        return copy
    }

    /// `keyForLinking` for a link from (source, column, sourceKey): a new object created for it
    /// gets the link's backlink in its row footer (InlineBacklinks.swift). `inlined`: whether it
    /// did; when false the caller records the backlink as usual.
    func keyForLinking(_ obj: Object, from table: Int, column: Int, sourceKey: UInt64) throws -> (key: UInt64, inlined: Bool) {
        guard obj._binding == nil, core.backlinkStore.inlineBacklinksEnabled else { return (try keyForLinking(obj, from: table), false) }
        var inlined = false
        let entry = InlineBacklink(table: UInt32(truncatingIfNeeded: table), column: UInt32(truncatingIfNeeded: column),
                                   key: sourceKey, count: 1)
        let key = try addObject(obj, update: core.write.updatePolicy, viaLink: true, inline: entry, inlined: &inlined)
        return (key, inlined)
    }

    /// Adds an unmanaged object (and the unmanaged objects it links to). Returns its key.
    @discardableResult
    func addObject(_ obj: Object, update: Realm.UpdatePolicy, viaLink: Bool = false) throws -> UInt64 {
        var inlined = false
        return try addObject(obj, update: update, viaLink: viaLink, inline: nil, inlined: &inlined)
    }

    /// `addObject`; a new row (not an existing one found by primary key) gets `inline` as its
    /// footer's entry, and `inlined` tells whether it did.
    private func addObject(_ obj: Object, update: Realm.UpdatePolicy, viaLink: Bool, inline: InlineBacklink?,
                           inlined: inout Bool) throws -> UInt64 {
        let writing = try core.requireWriteThrowing("add objects")
        if let binding = obj._binding {
            if binding.core === core {
                // Adding a managed object is a no-op, but not for one that is gone (RealmSwift
                // refuses it): the caller would go on as if it were stored.
                guard !binding.isStale, try rowExistsForLinking(binding) else {
                    throw Realm.Error(.objectInvalidated, "this '\(binding.info.schema.className)' object was deleted or invalidated and cannot be added")
                }
                return binding.key
            }
            throw Realm.Error(.wrongRealm, "the '\(binding.info.schema.className)' is already managed by another realm instance (\(binding.core.fileIdentity))")
        }
        let (info, t) = try core.classAndTable(forAdding: type(of: obj), viaLink: viaLink)  // RealmCore.swift
        if let plain = info.plainRow, try !core.indexes.maintainedIndexes(table: t, writing) {
            // A plain class (ClassInfo.plainRow): the row is its scalars copied from the object's
            // memory into a zeroed stack buffer (all null bits clear), exactly the bytes the
            // general path below writes, without its row builder. Such a class has no primary
            // key (always a new row) and no link (no nested add; the update policy is unused).
            let key = core.snap.metas[t].nextKey
            core.snap.metas[t].nextKey = key &+ 1
            obj._binding = ObjectBinding(core: core, info: info, table: t, key: key)
            do {
                let base = UnsafeRawPointer(Unmanaged.passUnretained(obj).toOpaque())
                // The footer: empty, or the creating link's backlink.
                let footer = RowFooter.encodedLength(inline)
                try withUnsafeTemporaryAllocation(byteCount: info.plainRowSize + footer, alignment: 8) { buf in
                    guard let dst = buf.baseAddress else { return }
                    dst.initializeMemory(as: UInt8.self, repeating: 0, count: buf.count)
                    withExtendedLifetime(obj) {
                        for copy in plain { copy.kind.copy(from: base + copy.valueOffset, to: dst + copy.slotOffset) }
                    }
                    RowFooter.store(inline, at: dst + info.plainRowSize)
                    // Plain rows hold no page references: the rows tree may pack them
                    // (BatchLinks.putPlainRows says why that stays safe, and why not rows
                    // created with an inline backlink).
                    _ = try core.snap.metas[t].objects.put(key, UnsafeRawBufferPointer(buf),
                                                      packing: footer <= RowFooter.emptyLength, in: writing)
                }
                inlined = footer > RowFooter.emptyLength
            } catch {
                obj._binding = nil
                throw error
            }
            core.snap.metasDirty = true
            core.changeCounter &+= 1
            return key
        }
        return try addGeneralObject(obj, info: info, table: t, update: update, inline: inline, inlined: &inlined, writing)
    }

    /// `addObject` for every class but a plain one: primary keys, links, collections, indexes.
    /// A function of its own, so that the plain rows the harness adds in bulk do not pay for the
    /// larger frame and clean-ups of this path.
    /// `existing`: the key of the row `obj` becomes and updates (an embedded object updated in
    /// place, EmbeddedInPlaceUpdate.swift); the row must exist.
    @inline(never)
    func addGeneralObject(_ obj: Object, info: ClassInfo, table t: Int, update: Realm.UpdatePolicy,
                          inline: InlineBacklink?, inlined: inout Bool, existing: UInt64? = nil,
                          _ writing: WriteTransaction) throws -> UInt64 {
        let outerPolicy = core.write.updatePolicy
        core.write.updatePolicy = update
        defer { core.write.updatePolicy = outerPolicy }

        var key: UInt64 = 0
        var existingRow: [UInt8]? = nil
        var pkIndexKey: [UInt8]? = nil
        if let existing {
            key = existing
            existingRow = try core.snap.metas[t].objects.withValue(forKey: existing, in: writing) { Array($0) }
            guard existingRow != nil else {
                throw Realm.Error(.objectInvalidated, "the embedded '\(info.schema.className)' to update in place does not exist")
            }
        } else if let pkc = info.primaryKeyColumn {
            let indexKey = try info.fields[pkc].primaryKeyIndexKey(obj, core: core)
            pkIndexKey = indexKey
            let found: UInt64? = try indexKey.withUnsafeBytes { keyBytes in
                try core.snap.metas[t].primaryKeys.withValue(forKey: keyBytes, in: writing) { valueBytes in
                    valueBytes.count >= 8 ? UInt64(littleEndian: valueBytes.loadUnaligned(as: UInt64.self)) : nil
                }
            } ?? nil
            if let found {
                guard update != .error else {
                    let pkName = info.schema.allProperties[pkc].name
                    throw Realm.Error(.duplicatePrimaryKey, "a '\(info.schema.className)' with primary key \(pkName) = \(info.fields[pkc].getAny(obj).map { "\($0)" } ?? "nil") already exists")
                }
                key = found
                existingRow = try core.snap.metas[t].objects.withValue(forKey: found, in: writing) { Array($0) }
                if existingRow == nil, core.addPath.rowsBeingAdded.contains(where: { $0.table == t && $0.key == found }) {
                    // The object with this primary key is being added by this very add (links lead
                    // back to it): this instance becomes that object.
                    let binding = ObjectBinding(core: core, info: info, table: t, key: found)
                    obj._binding = binding
                    info.bindLegacyFields(obj, binding)
                    return found
                }
            }
        }
        if existingRow == nil {
            key = core.snap.metas[t].nextKey
            core.snap.metas[t].nextKey = key &+ 1
        }
        obj._binding = ObjectBinding(core: core, info: info, table: t, key: key)
        // Only a class that can link out can be reached again before its row is stored; the
        // others skip the bookkeeping (bulk inserts of plain indexed rows add objects here).
        let tracked = info.reachesObjects
        if tracked { core.addPath.rowsBeingAdded.append((t, key)) }
        defer { if tracked { core.addPath.rowsBeingAdded.removeLast() } }
        do {
            // The primary key is taken before the links are stored: an object they add with the
            // same key (another instance reached through them) finds it, instead of a second row
            // taking the key. A failure past this point fails the whole write, which rolls back.
            if existingRow == nil, let indexKey = pkIndexKey {
                try withUnsafeBytes(of: key.littleEndian) { valueBytes in
                    try indexKey.withUnsafeBytes { keyBytes in _ = try core.snap.metas[t].primaryKeys.put(keyBytes, valueBytes, in: writing) }
                }
            }
            var row: _RowBuilder
            if let existing = existingRow {
                row = existing.withUnsafeBytes { _RowBuilder(copying: $0, layout: info.layout, core: core, table: t, key: key) }
            } else {
                // The row is built in the scratch buffer of the previous add (no allocation per
                // object); a nested add (cascade through a link) finds it taken and allocates.
                let reused = core.addPath.rowBytes
                core.addPath.rowBytes = []
                row = _RowBuilder(reusing: reused, layout: info.layout, core: core, table: t, key: key)
            }
            let columns = info.layout.columns
            let raw = info.rawStores
            let base = UnsafeRawPointer(Unmanaged.passUnretained(obj).toOpaque())
            for i in 0..<columns.count where columns[i].type != .linkingObjects {
                if existingRow != nil && i == info.primaryKeyColumn { continue }
                let r = raw[i]
                if r.kind != .none {
                    withExtendedLifetime(obj) { row.storeRaw(r.kind, from: base + r.valueOffset, columns[i]) }
                } else {
                    try info.fields[i].storeUnmanaged(obj, &row, columns[i])
                }
            }
            if existingRow == nil, let inline {
                row.setInlineBacklink(inline)
                inlined = true
            } else if existingRow != nil {
                // Links stored above may have changed this row's footer (a cycle back to it).
                try syncFooter(&row, writing)
            }
            try row.bytes.withUnsafeBytes { _ = try core.snap.metas[t].objects.put(key, $0, in: writing) }
            if try core.indexes.maintainedIndexes(table: t, writing) {
                try row.bytes.withUnsafeBytes { new in
                    if let existing = existingRow {
                        try existing.withUnsafeBytes { old in try core.indexes.indexReplace(table: t, key: key, old: old, new: new, writing) }
                    } else {
                        try core.indexes.indexInsert(table: t, key: key, row: new, writing)
                    }
                }
            }
            if existingRow == nil { core.addPath.rowBytes = row.bytes }
        } catch {
            obj._binding = nil
            throw error
        }
        // The object is managed now. Its collections become views of the stored ones, so a
        // reference taken before `add` reads and writes the realm (and holds no objects any more).
        // Its unmanaged links are stored and never read again: dropping them breaks cycles between
        // objects linked both ways before `add` (which would keep the objects, this core and its
        // file alive; see AnyFieldIO.holdsObjects).
        if let binding = obj._binding {
            for i in info.collectionFields { info.fields[i].adoptUnmanagedCollection(obj, binding) }
        }
        for i in info.objectHoldingFields { info.fields[i].dropUnmanagedValue(obj) }
        core.snap.metasDirty = true
        core.changeCounter &+= 1
        return key
    }

    /// Gives `row` the footer its object has in the transaction now (rows are copied before
    /// links are stored, and storing a link to the object itself changes its stored footer).
    func syncFooter(_ row: inout _RowBuilder, _ writing: WriteTransaction) throws {
        row.setInlineBacklink(try core.backlinkStore.inlineBacklink(table: row.table, key: row.key, in: writing))
    }

    /// Stores a link slot, keeping backlinks; replacing an embedded target deletes the old one.
    func replaceLink(_ row: inout _RowBuilder, _ column: _Column, newKey: UInt64?, targetType: Object.Type) throws {
        let targetInfo = try ClassInfo.of(targetType)
        guard let targetTable = try core.tableIndex(for: targetInfo, create: newKey != nil || core.writeTxn != nil) else {
            row.setNull(column, true)
            return
        }
        if !row.isNew && !row.isNull(column) {
            let old = UInt64(littleEndian: row.currentLoad(column, as: UInt64.self))
            if old == newKey { return }
            try core.backlinkStore.removeBacklink(target: targetTable, targetKey: old, source: row.table, column: column.index, sourceKey: row.key)
            if targetInfo.isEmbedded { try core.deletion.deleteObject(table: targetTable, key: old) }
        }
        if let indexKey = newKey {
            row.store(indexKey, column)
            try core.backlinkStore.addBacklink(target: targetTable, targetKey: indexKey, source: row.table, column: column.index, sourceKey: row.key)
        } else {
            row.setNull(column, true)
        }
    }
}
