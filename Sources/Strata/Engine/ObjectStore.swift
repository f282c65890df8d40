// Objects in tables: reading and patching rows, adding (with cascading adds of linked unmanaged
// objects), primary-key lookup, deleting (with link nullification and embedded cascade).
//
// Invariants:
// - Object keys come from the table's `nextKey` counter: no tree search to allocate one.
// - The primary-key index (a BytesTree per table) maps `primaryKeyIndexKey(value)` to the
//   8-byte object key: [1] + element encoding for a value, [0] for nil. Rows and index change
//   together in one write.
// - Secondary indexes (IndexMaintenance.swift) change with the rows too: add, property set,
//   delete (embedded cascades included) and deleteAll call its hooks.
// - Every stored link (to-one slot or collection element) has its backlink entry (Backlinks.swift),
//   so deleting an object finds the links to it without scanning tables.
// - `add` writes the same row bytes on every path: the general one (`_RowBuilder`, generic
//   `storeUnmanaged` for strings, optionals, links, collections), raw copies of non-optional
//   scalars from the object's memory (`ClassInfo.rawStores`), and for plain classes a row built
//   on the stack (`ClassInfo.plainRow`). AddPathTests compares them byte for byte.
// - Scratch buffers (`rowScratch`, `elementScratch`) are taken (swapped out) while in use, so a
//   nested use (a cascading add) finds them empty and allocates instead of sharing; frozen
//   cores, read from several threads, never use them.
import StrataStorage

extension RealmCore {
    // MARK: - Rows

    /// Reads the row of a managed object and decodes with `body`; nil when the object is gone.
    /// Accessor path: misuse traps (see Object.swift), storage errors are recorded.
    @inline(__always)
    func readColumn<R>(_ b: ObjectBinding, _ column: _Column, _ body: (_RowView) -> R?) -> R? {
        checkThread()
        do {
            let p = try pages()
            guard b.table < snap.metas.count else { return nil }
            let r = try snap.metas[b.table].objects.withValue(forKey: b.key, in: p) { buf in
                body(_RowView(bytes: buf, core: self))
            }
            return r ?? nil
        } catch {
            readFailed(error)
        }
    }

    /// Read-modify-write of one column of a managed object (accessor path).
    func updateColumn(_ b: ObjectBinding, _ column: _Column, _ body: (inout _RowBuilder) throws -> Void) {
        let w = requireWrite("setting a property of '\(b.info.schema.className)'")
        if column.index == b.info.primaryKeyColumn {
            misuse(.primaryKeyChange, "the primary key of a managed '\(b.info.schema.className)' cannot change")
        }
        do {
            guard b.table < snap.metas.count, var row = try snap.metas[b.table].objects.withValue(forKey: b.key, in: w, { buf in
                _RowBuilder(copying: buf, layout: b.info.layout, core: self, table: b.table, key: b.key)
            }) else {
                misuse(.objectInvalidated, "the '\(b.info.schema.className)' object was deleted or invalidated")
            }
            // The old bytes are kept only for an indexed column (they are then copied on write).
            let before = try maintainedIndexes(table: b.table, w) && hasIndex(table: b.table, column: column.index) ? row.bytes : nil
            try body(&row)
            if snap.rowFooters && (column.type == .object || column.collection != .none) {
                // A link set here may have changed this very row's footer (a link to itself):
                // the stored footer is the current one, not the copy's.
                try syncFooter(&row, w)
            }
            try row.bytes.withUnsafeBytes { _ = try snap.metas[b.table].objects.put(b.key, $0, in: w) }
            if let before {
                try before.withUnsafeBytes { old in
                    try row.bytes.withUnsafeBytes { new in
                        try indexReplace(table: b.table, key: b.key, old: old, new: new, onlyColumn: column.index, w)
                    }
                }
            }
            snap.metasDirty = true
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    func objectExists(_ b: ObjectBinding) -> Bool {
        guard confinement.isCurrent else { return false }
        do {
            let p = try pages()
            guard b.table < snap.metas.count else { return false }
            return try snap.metas[b.table].objects.contains(b.key, in: p)
        } catch {
            readFailed(error)
        }
    }

    @inline(__always)
    func materialize<T: Object>(_ type: T.Type, info: ClassInfo, table: Int, key: UInt64) -> T {
        let o = T()
        o._binding = ObjectBinding(core: self, info: info, table: table, key: key)
        return o
    }

    /// The object a link points to (no existence check: links are nullified on delete).
    /// The class and table of the last target are remembered for the current generation (a
    /// list read element by element asks for the same class each time); frozen cores, read from
    /// several threads, do not remember.
    func linkTarget<T: Object>(_ type: T.Type, key: UInt64) -> T? {
        if !isFrozen, let last = lastLinkTarget, last.type == ObjectIdentifier(T.self), last.generation == generation {
            return materialize(T.self, info: last.info, table: last.table, key: key)
        }
        let info: ClassInfo
        let table: Int?
        do {
            info = try classInfo(T.self)
            table = try tableIndex(for: info, create: false)
        } catch {
            readFailed(error)
        }
        guard let t = table else { return nil }
        if !isFrozen { lastLinkTarget = (ObjectIdentifier(T.self), info, t, generation) }
        return materialize(T.self, info: info, table: t, key: key)
    }

    /// `ClassInfo.of(type)` through a two-entry cache of this core (the classes of the last
    /// lookups), which skips the global cache's lock on accessor paths. Frozen cores, read from
    /// several threads at once, go to the global cache.
    @inline(__always)
    func classInfo(_ type: Object.Type) throws(Realm.Error) -> ClassInfo {
        if isFrozen { return try ClassInfo.of(type) }
        let id = ObjectIdentifier(type)
        if let a = recentInfos.0, ObjectIdentifier(a.type) == id { return a }
        if let b = recentInfos.1, ObjectIdentifier(b.type) == id {
            recentInfos = (b, recentInfos.0)
            return b
        }
        let info = try ClassInfo.of(type)
        recentInfos = (info, recentInfos.0)
        return info
    }

    func objectIfExists<T: Object>(_ type: T.Type, info: ClassInfo, key: UInt64) throws(Realm.Error) -> T? {
        guard let t = try tableIndex(for: info, create: false) else { return nil }
        let p = try pages()
        let exists = try Realm.Error.wrap { try snap.metas[t].objects.contains(key, in: p) }
        return exists ? materialize(T.self, info: info, table: t, key: key) : nil
    }

    /// The layout of table `t` (from its bound class, or from the stored schema).
    func layout(ofTable t: Int) -> RowLayout {
        if let info = snap.infos[t] { return info.layout }
        return RowLayout(properties: snap.schemas[t].properties)
    }

    // MARK: - Primary keys

    /// Calls `body` with `primaryKeyIndexKey(of: value)`, encoded in `elementScratch` on a live
    /// core (no allocation); frozen cores (shared between threads) allocate.
    func withPrimaryKeyIndexKey<V: _Persistable, R>(of value: V, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        if isFrozen { return try primaryKeyIndexKey(of: value).withUnsafeBytes(body) }
        var b = _ElementBuffer(core: self, ownerTable: -1, ownerKey: 0, ownerColumn: -1)
        b.bytes = elementScratch
        elementScratch = []
        b.bytes.removeAll(keepingCapacity: true)
        if !V._strataShape.isOptional { b.bytes.append(1) }
        try value._strataEncodeKey(&b)
        defer { elementScratch = b.bytes }
        return try b.bytes.withUnsafeBytes(body)
    }

    func primaryKeyIndexKey<V: _Persistable>(of value: V) throws -> [UInt8] {
        var b = _ElementBuffer(core: self, ownerTable: -1, ownerKey: 0, ownerColumn: -1)
        if !V._strataShape.isOptional { b.bytes.append(1) }
        try value._strataEncodeKey(&b)
        return b.bytes
    }

    /// The index key of the primary key stored in a row (same bytes as `primaryKeyIndexKey(of:)`).
    func primaryKeyIndexKey(row: _RowView, column c: _Column) -> [UInt8] {
        if c.isOptional && row.isNull(c) { return [0] }
        var out: [UInt8] = [1]
        switch c.type {
        case .string: out.append(contentsOf: row.variable(c))
        case .objectId: out.append(contentsOf: row.fixedBytes(c, count: 12))
        case .uuid: out.append(contentsOf: row.fixedBytes(c, count: 16))
        default: out.append(contentsOf: row.fixedBytes(c, count: 8))
        }
        return out
    }

    func objectForPrimaryKey<T: Object, K: _PersistableElement>(_ type: T.Type, _ key: K) throws(Realm.Error) -> T? {
        try checkThreadThrowing()
        let info = try classInfo(T.self)
        guard let pkc = info.primaryKeyColumn else {
            throw Realm.Error(.missingPrimaryKey, "'\(info.schema.className)' has no primary key")
        }
        guard K._strataShape.type == info.layout.columns[pkc].type else {
            let prop = info.schema.properties[pkc]
            throw Realm.Error(.invalidArgument, "primary key '\(info.schema.className).\(prop.name)' is \(prop.type), not \(K.self)")
        }
        guard let t = try tableIndex(for: info, create: false) else { return nil }
        let p = try pages()
        let objKey: UInt64? = try Realm.Error.wrap {
            try withPrimaryKeyIndexKey(of: key) { k in
                try snap.metas[t].primaryKeys.withValue(forKey: k, in: p) { v in
                    v.count >= 8 ? UInt64(littleEndian: v.loadUnaligned(as: UInt64.self)) : nil
                }
            }
        } ?? nil
        guard let objKey else { return nil }
        return materialize(T.self, info: info, table: t, key: objKey)
    }

    // MARK: - Adding

    /// The key of `obj` for storing a link to it, adding it (cascade) when unmanaged.
    func keyForLinking(_ obj: Object, from table: Int) throws -> UInt64 {
        if let b = obj._binding {
            guard b.core === self else {
                throw Realm.Error(.wrongRealm, "a '\(b.info.schema.className)' managed by another realm instance (\(b.core.fileIdentity)) cannot be linked here")
            }
            return b.key
        }
        return try addObject(obj, update: updatePolicy, viaLink: true)
    }

    /// `keyForLinking` for a link from (source, column, sourceKey): a new object created for it
    /// gets the link's backlink in its row footer (InlineBacklinks.swift). `inlined`: whether it
    /// did; when false the caller records the backlink as usual.
    func keyForLinking(_ obj: Object, from table: Int, column: Int, sourceKey: UInt64) throws -> (key: UInt64, inlined: Bool) {
        guard obj._binding == nil, inlineBacklinksEnabled else { return (try keyForLinking(obj, from: table), false) }
        var inlined = false
        let entry = InlineBacklink(table: UInt32(truncatingIfNeeded: table), column: UInt32(truncatingIfNeeded: column),
                                   key: sourceKey, count: 1)
        let key = try addObject(obj, update: updatePolicy, viaLink: true, inline: entry, inlined: &inlined)
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
        let w = try requireWriteThrowing("add objects")
        if let b = obj._binding {
            if b.core === self { return b.key }
            throw Realm.Error(.wrongRealm, "the '\(b.info.schema.className)' is already managed by another realm instance (\(b.core.fileIdentity))")
        }
        let (info, t) = try classAndTable(forAdding: type(of: obj), viaLink: viaLink)  // RealmCore.swift
        if let plain = info.plainRow, try !maintainedIndexes(table: t, w) {
            // A plain class (ClassInfo.plainRow): the row is its scalars copied from the object's
            // memory into a zeroed stack buffer (all null bits clear), exactly the bytes the
            // general path below writes, without its row builder. Such a class has no primary
            // key (always a new row) and no link (no nested add; the update policy is unused).
            let key = snap.metas[t].nextKey
            snap.metas[t].nextKey = key &+ 1
            obj._binding = ObjectBinding(core: self, info: info, table: t, key: key)
            do {
                let base = UnsafeRawPointer(Unmanaged.passUnretained(obj).toOpaque())
                // The footer (files with footers): empty, or the creating link's backlink.
                let footer = snap.rowFooters ? RowFooter.encodedLength(inline) : 0
                try withUnsafeTemporaryAllocation(byteCount: info.plainRowSize + footer, alignment: 8) { buf in
                    guard let dst = buf.baseAddress else { return }
                    dst.initializeMemory(as: UInt8.self, repeating: 0, count: buf.count)
                    withExtendedLifetime(obj) {
                        for c in plain { c.kind.copy(from: base + c.valueOffset, to: dst + c.slotOffset) }
                    }
                    if footer > 0 { RowFooter.store(inline, at: dst + info.plainRowSize) }
                    // Plain rows hold no page references: the rows tree may pack them
                    // (BatchLinks.putPlainRows says why that stays safe, and why not rows
                    // created with an inline backlink).
                    _ = try snap.metas[t].objects.put(key, UnsafeRawBufferPointer(buf),
                                                      packing: footer <= RowFooter.emptyLength, in: w)
                }
                inlined = footer > RowFooter.emptyLength
            } catch {
                obj._binding = nil
                throw error
            }
            snap.metasDirty = true
            changeCounter &+= 1
            return key
        }
        let saved = updatePolicy
        updatePolicy = update
        defer { updatePolicy = saved }

        var key: UInt64 = 0
        var existingRow: [UInt8]? = nil
        var pkIndexKey: [UInt8]? = nil
        if let pkc = info.primaryKeyColumn {
            let k = try info.fields[pkc].primaryKeyIndexKey(obj, core: self)
            pkIndexKey = k
            let found: UInt64? = try k.withUnsafeBytes { kb in
                try snap.metas[t].primaryKeys.withValue(forKey: kb, in: w) { v in
                    v.count >= 8 ? UInt64(littleEndian: v.loadUnaligned(as: UInt64.self)) : nil
                }
            } ?? nil
            if let found {
                guard update != .error else {
                    let pkName = info.schema.properties[pkc].name
                    throw Realm.Error(.duplicatePrimaryKey, "a '\(info.schema.className)' with primary key \(pkName) = \(info.fields[pkc].getAny(obj).map { "\($0)" } ?? "nil") already exists")
                }
                key = found
                existingRow = try snap.metas[t].objects.withValue(forKey: found, in: w) { Array($0) }
            }
        }
        if existingRow == nil {
            key = snap.metas[t].nextKey
            snap.metas[t].nextKey = key &+ 1
        }
        obj._binding = ObjectBinding(core: self, info: info, table: t, key: key)
        do {
            var row: _RowBuilder
            if let existing = existingRow {
                row = existing.withUnsafeBytes { _RowBuilder(copying: $0, layout: info.layout, core: self, table: t, key: key) }
            } else {
                // The row is built in the scratch buffer of the previous add (no allocation per
                // object); a nested add (cascade through a link) finds it taken and allocates.
                let reused = rowScratch
                rowScratch = []
                row = _RowBuilder(reusing: reused, layout: info.layout, core: self, table: t, key: key)
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
            if existingRow == nil, let inline, snap.rowFooters {
                row.setInlineBacklink(inline)
                inlined = true
            } else if existingRow != nil, snap.rowFooters {
                // Links stored above may have changed this row's footer (a cycle back to it).
                try syncFooter(&row, w)
            }
            try row.bytes.withUnsafeBytes { _ = try snap.metas[t].objects.put(key, $0, in: w) }
            if try maintainedIndexes(table: t, w) {
                try row.bytes.withUnsafeBytes { new in
                    if let existing = existingRow {
                        try existing.withUnsafeBytes { old in try indexReplace(table: t, key: key, old: old, new: new, w) }
                    } else {
                        try indexInsert(table: t, key: key, row: new, w)
                    }
                }
            }
            if existingRow == nil, let k = pkIndexKey {
                try withUnsafeBytes(of: key.littleEndian) { v in
                    try k.withUnsafeBytes { kb in _ = try snap.metas[t].primaryKeys.put(kb, v, in: w) }
                }
            }
            if existingRow == nil { rowScratch = row.bytes }
        } catch {
            obj._binding = nil
            throw error
        }
        // The object is managed now: its unmanaged links are stored and never read again. Dropping
        // them breaks cycles between objects linked both ways before `add` (which would keep the
        // objects, this core and its file alive; see AnyFieldIO.holdsObjects).
        for i in info.objectHoldingFields { info.fields[i].dropUnmanagedValue(obj) }
        snap.metasDirty = true
        changeCounter &+= 1
        return key
    }

    /// Gives `row` the footer its object has in the transaction now (rows are copied before
    /// links are stored, and storing a link to the object itself changes its stored footer).
    func syncFooter(_ row: inout _RowBuilder, _ w: WriteTransaction) throws {
        row.setInlineBacklink(try inlineBacklink(table: row.table, key: row.key, in: w))
    }

    /// Stores a link slot, keeping backlinks; replacing an embedded target deletes the old one.
    func replaceLink(_ row: inout _RowBuilder, _ column: _Column, newKey: UInt64?, targetType: Object.Type) throws {
        let targetInfo = try ClassInfo.of(targetType)
        guard let targetTable = try tableIndex(for: targetInfo, create: newKey != nil || writeTxn != nil) else {
            row.setNull(column, true)
            return
        }
        if !row.isNew && !row.isNull(column) {
            let old = UInt64(littleEndian: row.currentLoad(column, as: UInt64.self))
            if old == newKey { return }
            try removeBacklink(target: targetTable, targetKey: old, source: row.table, column: column.index, sourceKey: row.key)
            if targetInfo.isEmbedded { try deleteObject(table: targetTable, key: old) }
        }
        if let k = newKey {
            row.store(k, column)
            try addBacklink(target: targetTable, targetKey: k, source: row.table, column: column.index, sourceKey: row.key)
        } else {
            row.setNull(column, true)
        }
    }

    // MARK: - Deleting

    func deleteObject(_ obj: Object) throws {
        _ = try requireWriteThrowing("delete objects")
        guard let b = obj._binding else {
            throw Realm.Error(.invalidArgument, "cannot delete an unmanaged '\(type(of: obj).className())'")
        }
        guard b.core === self else {
            throw Realm.Error(.wrongRealm, "the '\(b.info.schema.className)' belongs to another realm instance")
        }
        guard try deleteObject(table: b.table, key: b.key) else {
            throw Realm.Error(.objectInvalidated, "the '\(b.info.schema.className)' was already deleted")
        }
    }

    /// Deletes one object: nullifies links to it, drops it from collections, deletes its embedded
    /// objects, frees its collection trees. False when it did not exist. `knownUnlinked`: the
    /// caller searched the backlink tree and found no link to the object (BatchDelete.swift),
    /// so the search is skipped.
    @discardableResult
    func deleteObject(table t: Int, key: UInt64, knownUnlinked: Bool = false) throws -> Bool {
        let w = try requireWriteThrowing("delete objects")
        guard t < snap.metas.count else { return false }
        let info = snap.infos[t]
        let layout = info?.layout ?? RowLayout(properties: snap.schemas[t].properties)
        let primaryKeyColumn: Int? = if let info { info.primaryKeyColumn } else { snap.schemas[t].properties.firstIndex { $0.isPrimary } }
        if !layout.hasLinksOrCollections, primaryKeyColumn == nil, try !maintainedIndexes(table: t, w) {
            // Nothing in the row needs releasing (no links, collections, primary key or index
            // entries): skip reading it. A missing object has no backlinks (Backlinks.swift's
            // invariant), so the links loop is empty for it and `remove` reports it missing.
            for bl in knownUnlinked ? [] : try backlinks(target: t, targetKey: key) {
                try unlink(target: t, targetKey: key, from: bl)
                try removeBacklinkEntry(target: t, targetKey: key, source: bl.table, column: bl.column, sourceKey: bl.key, targetDying: true)
            }
            guard try snap.metas[t].objects.remove(key, in: w) else { return false }
            snap.metasDirty = true
            changeCounter &+= 1
            return true
        }
        guard let rowBytes = try snap.metas[t].objects.withValue(forKey: key, in: w, { Array($0) }) else { return false }
        let schema = snap.schemas[t]

        // 1. Links to this object.
        for bl in knownUnlinked ? [] : try backlinks(target: t, targetKey: key) {
            try unlink(target: t, targetKey: key, from: bl)
            try removeBacklinkEntry(target: t, targetKey: key, source: bl.table, column: bl.column, sourceKey: bl.key, targetDying: true)
        }
        // 2. Links from this object, and its collection trees.
        for c in layout.columns where c.type != .linkingObjects && (c.type == .object || c.collection != .none) {
            let prop = schema.properties[c.index]
            if c.collection == .none {
                let (isNull, target) = rowBytes.withUnsafeBytes { rb -> (Bool, UInt64) in
                    let v = _RowView(bytes: rb, core: self)
                    return (v.isNull(c), UInt64(littleEndian: v.load(c, as: UInt64.self)))
                }
                if isNull { continue }
                guard let tt = linkTargetTable(table: t, column: c.index) else { continue }
                try removeBacklink(target: tt, targetKey: target, source: t, column: c.index, sourceKey: key)
                if snap.schemas[tt].isEmbedded { try deleteObject(table: tt, key: target) }
            } else {
                let root = collectionRoot(table: t, column: c, owner: key, row: rowBytes)
                try destroyCollection(root: root, kind: c.collection, ownerTable: t, column: c.index, owner: key, property: prop)
                collections[CollectionKey(table: Int32(t), column: Int32(c.index), owner: key)] = nil
            }
        }
        // 3. Secondary indexes, primary key and row.
        if try maintainedIndexes(table: t, w) {
            try rowBytes.withUnsafeBytes { try indexRemove(table: t, key: key, row: $0, w) }
        }
        if let pkc = primaryKeyColumn {
            let k = rowBytes.withUnsafeBytes { primaryKeyIndexKey(row: _RowView(bytes: $0, core: self), column: layout.columns[pkc]) }
            try k.withUnsafeBytes { _ = try snap.metas[t].primaryKeys.remove($0, in: w) }
        }
        _ = try snap.metas[t].objects.remove(key, in: w)
        snap.metasDirty = true
        changeCounter &+= 1
        return true
    }

    func targetTable(of prop: Property) -> Int? {
        guard let name = prop.objectClassName else { return nil }
        return snap.tableByName[name]
    }

    /// The tree root of a collection column: the open state's when there is one, else the row's.
    func collectionRoot(table: Int, column c: _Column, owner: UInt64, row: [UInt8]) -> PageRef {
        if let s = collections[CollectionKey(table: Int32(table), column: Int32(c.index), owner: owner)] { return s.root }
        return row.withUnsafeBytes { PageRef(_RowView(bytes: $0, core: self).load(c, as: UInt32.self)) }
    }

    /// Removes the link `bl` (from another object) to (target, targetKey).
    private func unlink(target: Int, targetKey: UInt64, from bl: Backlink) throws {
        let w = try requireWriteThrowing("delete objects")
        // The backlink key comes from disk: check its table and column before indexing.
        guard bl.table >= 0, bl.table < snap.metas.count, bl.column >= 0,
              bl.column < snap.schemas[bl.table].properties.count else {
            throw Realm.Error(.corruptFile, "a backlink names table \(bl.table) column \(bl.column), which do not exist")
        }
        let srcLayout = layout(ofTable: bl.table)
        let c = srcLayout.columns[bl.column]
        switch c.collection {
        case .none:
            guard var row = try snap.metas[bl.table].objects.withValue(forKey: bl.key, in: w, { Array($0) }) else { return }
            row[c.index / 8] |= 1 << UInt8(c.index % 8)
            try row.withUnsafeBytes { _ = try snap.metas[bl.table].objects.put(bl.key, $0, in: w) }
        case .list, .set:
            let state = try collectionState(table: bl.table, column: c, owner: bl.key)
            var tree = PositionalTree(root: state.root)
            var i = try tree.count(in: w) - 1
            while i >= 0 {
                let k = try tree.withElement(at: i, in: w) { $0.count >= 8 ? UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) : UInt64.max }
                if k == targetKey { try tree.remove(at: i, in: w) }
                i -= 1
            }
            state.root = tree.root
            state.dirty = true
        case .map:
            let state = try collectionState(table: bl.table, column: c, owner: bl.key)
            var tree = BytesTree(root: state.root)
            var hits: [[UInt8]] = []
            try tree.forEach(from: nil, in: w) { k, v in
                if v.count == 9, v[0] == 1, UInt64(littleEndian: UnsafeRawBufferPointer(rebasing: v[1...]).loadUnaligned(as: UInt64.self)) == targetKey {
                    hits.append(Array(k))
                }
                return true
            }
            let nilValue: [UInt8] = [0]
            for k in hits {
                try k.withUnsafeBytes { kb in try nilValue.withUnsafeBytes { _ = try tree.put(kb, $0, in: w) } }
            }
            state.root = tree.root
            state.dirty = true
        }
        snap.metasDirty = true
    }

    /// Deletes every object of every table.
    func deleteAll() throws {
        let w = try requireWriteThrowing("delete all objects")
        for t in 0..<snap.metas.count {
            let layout = layout(ofTable: t)
            let collCols = layout.columns.filter { $0.collection != .none }
            if !collCols.isEmpty {
                var roots: [(PageRef, CollectionKind)] = []
                try snap.metas[t].objects.forEach(from: 0, in: w) { key, row in
                    for c in collCols {
                        if let s = collections[CollectionKey(table: Int32(t), column: Int32(c.index), owner: key)] {
                            roots.append((s.root, c.collection))
                        } else {
                            roots.append((PageRef(_RowView(bytes: row, core: self).load(c, as: UInt32.self)), c.collection))
                        }
                    }
                    return true
                }
                for (r, kind) in roots where !r.isNull {
                    if kind == .map { var tr = BytesTree(root: r); try tr.destroy(in: w) } else { var tr = PositionalTree(root: r); try tr.destroy(in: w) }
                }
            }
            try snap.metas[t].objects.destroy(in: w)
            try snap.metas[t].primaryKeys.destroy(in: w)
            try indexClear(table: t, w)
        }
        try snap.backlinks.destroy(in: w)
        collections.removeAll()
        snap.metasDirty = true
        changeCounter &+= 1
    }
}
