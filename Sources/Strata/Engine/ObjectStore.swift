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
// - Scratch buffers (`addPath.rowBytes`, `addPath.elementBytes`) are taken (swapped out) while in use, so a
//   nested use (a cascading add) finds them empty and allocates instead of sharing; frozen
//   cores, read from several threads, never use them.
import StrataStorage

extension RealmCore {
    // MARK: - Rows

    /// Reads the row of a managed object and decodes with `body` (nil: what `body` gives for a
    /// null). A deleted or invalidated object stops, as RealmSwift raises: reading its
    /// property's default instead would be a value the object never had.
    /// Accessor path: misuse traps (see Object.swift), storage errors are recorded.
    @inline(__always)
    func readColumn<R>(_ binding: ObjectBinding, _ column: _Column, _ body: (_RowView) -> R?) -> R? {
        checkThread()
        if binding.isStale { objectGone(binding) }
        do {
            let snapshotPages = try pages()
            guard binding.table < snap.metas.count else { objectGone(binding) }
            let rows = snap.metas[binding.table].objects
            let found: R??
            if write.isOpen || isFrozen {
                found = try rows.withValue(forKey: binding.key, in: snapshotPages) { body(_RowView(bytes: $0, core: self)) }
            } else {
                // Objects read one after another mostly share a leaf (Engine/RowFingers.swift).
                var finger = rowFingers.finger(table: binding.table, version: snap.version)
                found = try rows.withValue(forKey: binding.key, in: snapshotPages, finger: &finger) { body(_RowView(bytes: $0, core: self)) }
                rowFingers.keep(finger, table: binding.table)
            }
            guard let r = found else { objectGone(binding) }
            return r
        } catch {
            readFailed(error)
        }
    }

    /// Stops on the use of an object that was deleted or whose realm was invalidated.
    @inline(never)
    func objectGone(_ binding: ObjectBinding) -> Never {
        misuse(.objectInvalidated, "this '\(binding.info.schema.className)' object was deleted or invalidated")
    }

    /// Read-modify-write of one column of a managed object (accessor path).
    func updateColumn(_ binding: ObjectBinding, _ column: _Column, _ body: (inout _RowBuilder) throws -> Void) {
        guard let writing = requireWrite("setting a property of '\(binding.info.schema.className)'") else { return }
        if binding.isStale { objectGone(binding) }
        if column.index == binding.info.primaryKeyColumn {
            let schema = binding.info.schema
            let property = column.index < schema.allProperties.count ? schema.allProperties[column.index].name : "?"
            misuse(.primaryKeyChange, RealmSwiftMessages.primaryKeyChange(className: schema.className, property: property))
        }
        do {
            guard binding.table < snap.metas.count, var row = try snap.metas[binding.table].objects.withValue(forKey: binding.key, in: writing, { buf in
                _RowBuilder(copying: buf, layout: binding.info.layout, core: self, table: binding.table, key: binding.key)
            }) else {
                objectGone(binding)
            }
            // The old bytes are kept only for an indexed column (they are then copied on write).
            let before = try maintainedIndexes(table: binding.table, writing) && hasIndex(table: binding.table, column: column.index) ? row.bytes : nil
            try body(&row)
            if column.type == .object || column.collection != .none {
                // A link set here may have changed this very row's footer (a link to itself):
                // the stored footer is the current one, not the copy's.
                try syncFooter(&row, writing)
            }
            try row.bytes.withUnsafeBytes { _ = try snap.metas[binding.table].objects.put(binding.key, $0, in: writing) }
            if let before {
                try before.withUnsafeBytes { old in
                    try row.bytes.withUnsafeBytes { new in
                        try indexReplace(table: binding.table, key: binding.key, old: old, new: new, onlyColumn: column.index, writing)
                    }
                }
            }
            snap.metasDirty = true
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    func objectExists(_ binding: ObjectBinding) -> Bool {
        guard confinement.isCurrent, !binding.isStale else { return false }
        do {
            let snapshotPages = try pages()
            guard binding.table < snap.metas.count else { return false }
            return try snap.metas[binding.table].objects.contains(binding.key, in: snapshotPages)
        } catch {
            readFailed(error)
        }
    }

    @inline(__always)
    func materialize<T: Object>(_ type: T.Type, info: ClassInfo, table: Int, key: UInt64) -> T {
        let object = T()
        let binding = ObjectBinding(core: self, info: info, table: table, key: key)
        object._binding = binding
        if !info.legacyFields.isEmpty { info.bindLegacyFields(object, binding) }
        return object
    }

    /// A managed object of `info`'s class (the type is only known at run time here).
    func materializeAny(info: ClassInfo, table: Int, key: UInt64) -> Object {
        // `info.type.init()` (not a generic `T()`): the dynamic class must be instantiated.
        let o = info.type.init()
        let binding = ObjectBinding(core: self, info: info, table: table, key: key)
        o._binding = binding
        if !info.legacyFields.isEmpty { info.bindLegacyFields(o, binding) }
        return o
    }

    /// The object a link points to (no existence check: links are nullified on delete).
    /// The class and table of the last target are remembered for the current snapshot (a
    /// list read element by element asks for the same class each time); frozen cores, read from
    /// several threads, do not remember.
    func linkTarget<T: Object>(_ type: T.Type, key: UInt64) -> T? {
        if !isFrozen, let last = addPath.lastLinkTarget, last.type == ObjectIdentifier(T.self) {
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
        if !isFrozen { addPath.lastLinkTarget = ClassTableBinding(type: ObjectIdentifier(T.self), info: info, table: t) }
        return materialize(T.self, info: info, table: t, key: key)
    }

    /// `ClassInfo.of(type)` through a two-entry cache of this core (the classes of the last
    /// lookups), which skips the global cache's lock on accessor paths. Frozen cores, read from
    /// several threads at once, go to the global cache.
    @inline(__always)
    func classInfo(_ type: Object.Type) throws(Realm.Error) -> ClassInfo {
        if isFrozen { return try ClassInfo.of(type) }
        let id = ObjectIdentifier(type)
        let recent = addPath.recentClassInfos
        if let mostRecent = recent.0, ObjectIdentifier(mostRecent.type) == id { return mostRecent }
        if let previous = recent.1, ObjectIdentifier(previous.type) == id {
            addPath.recentClassInfos = (previous, recent.0)
            return previous
        }
        let info = try ClassInfo.of(type)
        addPath.recentClassInfos = (info, recent.0)
        return info
    }

    func objectIfExists<T: Object>(_ type: T.Type, info: ClassInfo, key: UInt64) throws(Realm.Error) -> T? {
        guard let t = try tableIndex(for: info, create: false) else { return nil }
        let snapshotPages = try pages()
        let exists = try Realm.Error.wrap { try snap.metas[t].objects.contains(key, in: snapshotPages) }
        return exists ? materialize(T.self, info: info, table: t, key: key) : nil
    }

    /// The layout of table `t` (from its bound class, or from the stored schema).
    func layout(ofTable t: Int) -> RowLayout {
        if let info = snap.infos[t] { return info.layout }
        return RowLayout(properties: snap.schemas[t].allProperties)
    }

    // MARK: - Primary keys

    /// Calls `body` with `primaryKeyIndexKey(of: value)`, encoded in `addPath.elementBytes` on a live
    /// core (no allocation); frozen cores (shared between threads) allocate.
    func withPrimaryKeyIndexKey<V: _Persistable, R>(of value: V, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        if isFrozen { return try primaryKeyIndexKey(of: value).withUnsafeBytes(body) }
        var buffer = _ElementBuffer(core: self, ownerTable: -1, ownerKey: 0, ownerColumn: -1)
        buffer.bytes = addPath.elementBytes
        addPath.elementBytes = []
        buffer.bytes.removeAll(keepingCapacity: true)
        if !V._strataShape.isOptional { buffer.bytes.append(1) }
        try value._strataEncodeKey(&buffer)
        defer { addPath.elementBytes = buffer.bytes }
        return try buffer.bytes.withUnsafeBytes(body)
    }

    func primaryKeyIndexKey<V: _Persistable>(of value: V) throws -> [UInt8] {
        var buffer = _ElementBuffer(core: self, ownerTable: -1, ownerKey: 0, ownerColumn: -1)
        if !V._strataShape.isOptional { buffer.bytes.append(1) }
        try value._strataEncodeKey(&buffer)
        return buffer.bytes
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
            let prop = info.schema.allProperties[pkc]
            throw Realm.Error(.invalidArgument, "primary key '\(info.schema.className).\(prop.name)' is \(prop.type), not \(K.self)")
        }
        guard let t = try tableIndex(for: info, create: false) else { return nil }
        let snapshotPages = try pages()
        let objKey: UInt64? = try Realm.Error.wrap {
            try withPrimaryKeyIndexKey(of: key) { indexKey in
                try snap.metas[t].primaryKeys.withValue(forKey: indexKey, in: snapshotPages) { valueBytes in
                    valueBytes.count >= 8 ? UInt64(littleEndian: valueBytes.loadUnaligned(as: UInt64.self)) : nil
                }
            }
        } ?? nil
        guard let objKey else { return nil }
        return materialize(T.self, info: info, table: t, key: objKey)
    }

    // MARK: - Adding

    /// Whether the row of a managed object of this realm is in the open write: stored, or being
    /// added (a cycle links back to an object whose row is stored after its links).
    private func rowExistsForLinking(_ binding: ObjectBinding) throws -> Bool {
        guard let w = writeTxn else { return true }
        if binding.table < snap.metas.count, try snap.metas[binding.table].objects.contains(binding.key, in: w) { return true }
        return addPath.rowsBeingAdded.contains { $0.table == binding.table && $0.key == binding.key }
    }

    /// The key of `obj` for storing a link to it, adding it (cascade) when unmanaged.
    func keyForLinking(_ obj: Object, from table: Int) throws -> UInt64 {
        if let binding = obj._binding {
            guard binding.core === self else {
                // `create` takes an object of another realm as a value: it links a copy, as RealmSwift does.
                guard write.foreignCopies != nil else {
                    throw Realm.Error(.wrongRealm, "a '\(binding.info.schema.className)' managed by another realm instance (\(binding.core.fileIdentity)) cannot be linked here; create(_:value:) copies it")
                }
                return try keyForLinking(try foreignCopy(of: obj, binding), from: table)
            }
            // A deleted object cannot be linked: the link would name no row (RealmSwift raises).
            if try binding.isStale || !rowExistsForLinking(binding) {
                misuse(.objectInvalidated, "this '\(binding.info.schema.className)' object was deleted or invalidated and cannot be linked")
            }
            // An embedded object has exactly one owner, the link that created it: a second link
            // would leave two owners of one object, and deleting either would delete it under the
            // other. RealmSwift raises here; the caller's own property is let through before this.
            if binding.info.isEmbedded {
                let name = binding.info.schema.className
                misuse(.invalidArgument, "this embedded '\(name)' object is already managed and has its owner; link a new or unmanaged one, or a copy (create(\(name).self, value: object))")
            }
            return binding.key
        }
        return try addObject(obj, update: write.updatePolicy, viaLink: true)
    }

    /// The unmanaged copy `create` links in place of `obj`, an object of another realm: made once
    /// per object, before it is added, so that links between such objects (cycles included) reach
    /// the same copy.
    private func foreignCopy(of obj: Object, _ binding: ObjectBinding) throws -> Object {
        let id = ForeignObject(core: ObjectIdentifier(binding.core), table: binding.table, key: binding.key)
        if let copy = write.foreignCopies?[id] { return copy }
        let copy = type(of: obj).init()
        write.foreignCopies?[id] = copy
        try copy._apply(value: obj, ignoringUnknownKeys: false)
        return copy
    }

    /// `keyForLinking` for a link from (source, column, sourceKey): a new object created for it
    /// gets the link's backlink in its row footer (InlineBacklinks.swift). `inlined`: whether it
    /// did; when false the caller records the backlink as usual.
    func keyForLinking(_ obj: Object, from table: Int, column: Int, sourceKey: UInt64) throws -> (key: UInt64, inlined: Bool) {
        guard obj._binding == nil, inlineBacklinksEnabled else { return (try keyForLinking(obj, from: table), false) }
        var inlined = false
        let entry = InlineBacklink(table: UInt32(truncatingIfNeeded: table), column: UInt32(truncatingIfNeeded: column),
                                   key: sourceKey, count: 1)
        let key = try addObject(obj, update: write.updatePolicy, viaLink: true, inline: entry, inlined: &inlined)
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
        let writing = try requireWriteThrowing("add objects")
        if let binding = obj._binding {
            if binding.core === self {
                // Adding a managed object is a no-op, but not for one that is gone (RealmSwift
                // refuses it): the caller would go on as if it were stored.
                guard !binding.isStale, try rowExistsForLinking(binding) else {
                    throw Realm.Error(.objectInvalidated, "this '\(binding.info.schema.className)' object was deleted or invalidated and cannot be added")
                }
                return binding.key
            }
            throw Realm.Error(.wrongRealm, "the '\(binding.info.schema.className)' is already managed by another realm instance (\(binding.core.fileIdentity))")
        }
        let (info, t) = try classAndTable(forAdding: type(of: obj), viaLink: viaLink)  // RealmCore.swift
        if let plain = info.plainRow, try !maintainedIndexes(table: t, writing) {
            // A plain class (ClassInfo.plainRow): the row is its scalars copied from the object's
            // memory into a zeroed stack buffer (all null bits clear), exactly the bytes the
            // general path below writes, without its row builder. Such a class has no primary
            // key (always a new row) and no link (no nested add; the update policy is unused).
            let key = snap.metas[t].nextKey
            snap.metas[t].nextKey = key &+ 1
            obj._binding = ObjectBinding(core: self, info: info, table: t, key: key)
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
                    _ = try snap.metas[t].objects.put(key, UnsafeRawBufferPointer(buf),
                                                      packing: footer <= RowFooter.emptyLength, in: writing)
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
        let outerPolicy = write.updatePolicy
        write.updatePolicy = update
        defer { write.updatePolicy = outerPolicy }

        var key: UInt64 = 0
        var existingRow: [UInt8]? = nil
        var pkIndexKey: [UInt8]? = nil
        if let existing {
            key = existing
            existingRow = try snap.metas[t].objects.withValue(forKey: existing, in: writing) { Array($0) }
            guard existingRow != nil else {
                throw Realm.Error(.objectInvalidated, "the embedded '\(info.schema.className)' to update in place does not exist")
            }
        } else if let pkc = info.primaryKeyColumn {
            let indexKey = try info.fields[pkc].primaryKeyIndexKey(obj, core: self)
            pkIndexKey = indexKey
            let found: UInt64? = try indexKey.withUnsafeBytes { keyBytes in
                try snap.metas[t].primaryKeys.withValue(forKey: keyBytes, in: writing) { valueBytes in
                    valueBytes.count >= 8 ? UInt64(littleEndian: valueBytes.loadUnaligned(as: UInt64.self)) : nil
                }
            } ?? nil
            if let found {
                guard update != .error else {
                    let pkName = info.schema.allProperties[pkc].name
                    throw Realm.Error(.duplicatePrimaryKey, "a '\(info.schema.className)' with primary key \(pkName) = \(info.fields[pkc].getAny(obj).map { "\($0)" } ?? "nil") already exists")
                }
                key = found
                existingRow = try snap.metas[t].objects.withValue(forKey: found, in: writing) { Array($0) }
                if existingRow == nil, addPath.rowsBeingAdded.contains(where: { $0.table == t && $0.key == found }) {
                    // The object with this primary key is being added by this very add (links lead
                    // back to it): this instance becomes that object.
                    let binding = ObjectBinding(core: self, info: info, table: t, key: found)
                    obj._binding = binding
                    info.bindLegacyFields(obj, binding)
                    return found
                }
            }
        }
        if existingRow == nil {
            key = snap.metas[t].nextKey
            snap.metas[t].nextKey = key &+ 1
        }
        obj._binding = ObjectBinding(core: self, info: info, table: t, key: key)
        // Only a class that can link out can be reached again before its row is stored; the
        // others skip the bookkeeping (bulk inserts of plain indexed rows add objects here).
        let tracked = info.reachesObjects
        if tracked { addPath.rowsBeingAdded.append((t, key)) }
        defer { if tracked { addPath.rowsBeingAdded.removeLast() } }
        do {
            // The primary key is taken before the links are stored: an object they add with the
            // same key (another instance reached through them) finds it, instead of a second row
            // taking the key. A failure past this point fails the whole write, which rolls back.
            if existingRow == nil, let indexKey = pkIndexKey {
                try withUnsafeBytes(of: key.littleEndian) { valueBytes in
                    try indexKey.withUnsafeBytes { keyBytes in _ = try snap.metas[t].primaryKeys.put(keyBytes, valueBytes, in: writing) }
                }
            }
            var row: _RowBuilder
            if let existing = existingRow {
                row = existing.withUnsafeBytes { _RowBuilder(copying: $0, layout: info.layout, core: self, table: t, key: key) }
            } else {
                // The row is built in the scratch buffer of the previous add (no allocation per
                // object); a nested add (cascade through a link) finds it taken and allocates.
                let reused = addPath.rowBytes
                addPath.rowBytes = []
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
            if existingRow == nil, let inline {
                row.setInlineBacklink(inline)
                inlined = true
            } else if existingRow != nil {
                // Links stored above may have changed this row's footer (a cycle back to it).
                try syncFooter(&row, writing)
            }
            try row.bytes.withUnsafeBytes { _ = try snap.metas[t].objects.put(key, $0, in: writing) }
            if try maintainedIndexes(table: t, writing) {
                try row.bytes.withUnsafeBytes { new in
                    if let existing = existingRow {
                        try existing.withUnsafeBytes { old in try indexReplace(table: t, key: key, old: old, new: new, writing) }
                    } else {
                        try indexInsert(table: t, key: key, row: new, writing)
                    }
                }
            }
            if existingRow == nil { addPath.rowBytes = row.bytes }
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
        snap.metasDirty = true
        changeCounter &+= 1
        return key
    }

    /// Gives `row` the footer its object has in the transaction now (rows are copied before
    /// links are stored, and storing a link to the object itself changes its stored footer).
    func syncFooter(_ row: inout _RowBuilder, _ writing: WriteTransaction) throws {
        row.setInlineBacklink(try inlineBacklink(table: row.table, key: row.key, in: writing))
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
        if let indexKey = newKey {
            row.store(indexKey, column)
            try addBacklink(target: targetTable, targetKey: indexKey, source: row.table, column: column.index, sourceKey: row.key)
        } else {
            row.setNull(column, true)
        }
    }

    // MARK: - Deleting

    func deleteObject(_ obj: Object) throws {
        _ = try requireWriteThrowing("delete objects")
        guard let binding = obj._binding else {
            throw Realm.Error(.invalidArgument, "cannot delete an unmanaged '\(type(of: obj).className())'")
        }
        guard binding.core === self else {
            throw Realm.Error(.wrongRealm, "the '\(binding.info.schema.className)' belongs to another realm instance")
        }
        guard !binding.isStale, try deleteObject(table: binding.table, key: binding.key) else {
            throw Realm.Error(.objectInvalidated, "this '\(binding.info.schema.className)' object was deleted or invalidated")
        }
        obj._binding = binding.detached()
    }

    /// Deletes one object: nullifies links to it, drops it from collections, deletes its embedded
    /// objects, frees its collection trees. False when it did not exist. `knownUnlinked`: the
    /// caller searched the backlink tree and found no link to the object (BatchDelete.swift),
    /// so the search is skipped.
    @discardableResult
    func deleteObject(table t: Int, key: UInt64, knownUnlinked: Bool = false) throws -> Bool {
        let writing = try requireWriteThrowing("delete objects")
        guard t < snap.metas.count else { return false }
        let info = snap.infos[t]
        let layout = info?.layout ?? RowLayout(properties: snap.schemas[t].allProperties)
        let primaryKeyColumn: Int? = if let info { info.primaryKeyColumn } else { snap.schemas[t].allProperties.firstIndex { $0.isPrimary } }
        if !layout.hasLinksOrCollections, primaryKeyColumn == nil, try !maintainedIndexes(table: t, writing) {
            // Nothing in the row needs releasing (no links, collections, primary key or index
            // entries): skip reading it. A missing object has no backlinks (Backlinks.swift's
            // invariant), so the links loop is empty for it and `remove` reports it missing.
            for backlink in knownUnlinked ? [] : try backlinks(target: t, targetKey: key) {
                try unlink(target: t, targetKey: key, from: backlink)
                try removeBacklinkEntry(target: t, targetKey: key, source: backlink.table, column: backlink.column, sourceKey: backlink.key, targetDying: true)
            }
            guard try snap.metas[t].objects.remove(key, in: writing) else { return false }
            snap.metasDirty = true
            changeCounter &+= 1
            return true
        }
        guard let rowBytes = try snap.metas[t].objects.withValue(forKey: key, in: writing, { Array($0) }) else { return false }
        let schema = snap.schemas[t]

        // 1. Links to this object.
        for backlink in knownUnlinked ? [] : try backlinks(target: t, targetKey: key) {
            try unlink(target: t, targetKey: key, from: backlink)
            try removeBacklinkEntry(target: t, targetKey: key, source: backlink.table, column: backlink.column, sourceKey: backlink.key, targetDying: true)
        }
        // 2. Links from this object, and its collection trees.
        for c in layout.columns where c.type != .linkingObjects && (c.type == .object || c.collection != .none) {
            let prop = schema.allProperties[c.index]
            if c.collection == .none {
                let (isNull, target) = rowBytes.withUnsafeBytes { rb -> (Bool, UInt64) in
                    let valueBytes = _RowView(bytes: rb, core: self)
                    return (valueBytes.isNull(c), UInt64(littleEndian: valueBytes.load(c, as: UInt64.self)))
                }
                if isNull { continue }
                guard let targetTableIndex = linkTargetTable(table: t, column: c.index) else { continue }
                try removeBacklink(target: targetTableIndex, targetKey: target, source: t, column: c.index, sourceKey: key)
                if snap.schemas[targetTableIndex].isEmbedded { try deleteObject(table: targetTableIndex, key: target) }
            } else {
                let root = collectionRoot(table: t, column: c, owner: key, row: rowBytes)
                try destroyCollection(root: root, kind: c.collection, ownerTable: t, column: c.index, owner: key, property: prop)
                openCollections.remove(CollectionKey(table: t, column: c.index, owner: key))
            }
        }
        // 3. Secondary indexes, primary key and row.
        if try maintainedIndexes(table: t, writing) {
            try rowBytes.withUnsafeBytes { try indexRemove(table: t, key: key, row: $0, writing) }
        }
        if let pkc = primaryKeyColumn {
            let indexKey = rowBytes.withUnsafeBytes { primaryKeyIndexKey(row: _RowView(bytes: $0, core: self), column: layout.columns[pkc]) }
            try indexKey.withUnsafeBytes { _ = try snap.metas[t].primaryKeys.remove($0, in: writing) }
        }
        _ = try snap.metas[t].objects.remove(key, in: writing)
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
        if let open = openCollections[CollectionKey(table: table, column: c.index, owner: owner)] { return open.root }
        return row.withUnsafeBytes { PageRef(_RowView(bytes: $0, core: self).load(c, as: UInt32.self)) }
    }

    /// Removes the link `bl` (from another object) to (target, targetKey).
    private func unlink(target: Int, targetKey: UInt64, from backlink: Backlink) throws {
        let writing = try requireWriteThrowing("delete objects")
        // The backlink key comes from disk: check its table and column before indexing.
        guard backlink.table >= 0, backlink.table < snap.metas.count, backlink.column >= 0,
              backlink.column < snap.schemas[backlink.table].allProperties.count else {
            throw Realm.Error(.corruptFile, "a backlink names table \(backlink.table) column \(backlink.column), which do not exist")
        }
        let srcLayout = layout(ofTable: backlink.table)
        let c = srcLayout.columns[backlink.column]
        switch c.collection {
        case .none:
            guard var row = try snap.metas[backlink.table].objects.withValue(forKey: backlink.key, in: writing, { Array($0) }) else { return }
            row[c.index / 8] |= 1 << UInt8(c.index % 8)
            try row.withUnsafeBytes { _ = try snap.metas[backlink.table].objects.put(backlink.key, $0, in: writing) }
        case .list, .set:
            let state = try collectionState(table: backlink.table, column: c, owner: backlink.key)
            var tree = PositionalTree(root: state.root)
            // One pass from the front, ending at the last of the `count` links the backlink
            // records: the oldest element of a list (a trim's) is found at once.
            var positions: [Int] = []
            try tree.forEach(in: writing) { index, element in
                let indexKey = element.count >= 8 ? UInt64(littleEndian: element.loadUnaligned(as: UInt64.self)) : UInt64.max
                if indexKey == targetKey { positions.append(index) }
                return positions.count < max(Int(backlink.count), 1)
            }
            for index in positions.reversed() { try tree.remove(at: index, in: writing) }
            state.root = tree.root
            state.dirty = true
        case .map:
            let state = try collectionState(table: backlink.table, column: c, owner: backlink.key)
            var tree = BytesTree(root: state.root)
            var hits: [[UInt8]] = []
            try tree.forEach(from: nil, in: writing) { indexKey, valueBytes in
                if valueBytes.count == 9, valueBytes[0] == 1, UInt64(littleEndian: UnsafeRawBufferPointer(rebasing: valueBytes[1...]).loadUnaligned(as: UInt64.self)) == targetKey {
                    hits.append(Array(indexKey))
                }
                return true
            }
            let nilValue: [UInt8] = [0]
            for indexKey in hits {
                try indexKey.withUnsafeBytes { keyBytes in try nilValue.withUnsafeBytes { _ = try tree.put(keyBytes, $0, in: writing) } }
            }
            state.root = tree.root
            state.dirty = true
        }
        snap.metasDirty = true
    }

    /// Deletes every object of every table.
    func deleteAll() throws {
        let writing = try requireWriteThrowing("delete all objects")
        for t in 0..<snap.metas.count {
            let layout = layout(ofTable: t)
            let collCols = layout.columns.filter { $0.collection != .none }
            if !collCols.isEmpty {
                var roots: [(PageRef, CollectionKind)] = []
                try snap.metas[t].objects.forEach(from: 0, in: writing) { key, row in
                    for c in collCols {
                        if let open = openCollections[CollectionKey(table: t, column: c.index, owner: key)] {
                            roots.append((open.root, c.collection))
                        } else {
                            roots.append((PageRef(_RowView(bytes: row, core: self).load(c, as: UInt32.self)), c.collection))
                        }
                    }
                    return true
                }
                for (r, kind) in roots where !r.isNull {
                    if kind == .map { var tr = BytesTree(root: r); try tr.destroy(in: writing) } else { var tr = PositionalTree(root: r); try tr.destroy(in: writing) }
                }
            }
            try snap.metas[t].objects.destroy(in: writing)
            try snap.metas[t].primaryKeys.destroy(in: writing)
            try indexClear(table: t, writing)
        }
        try snap.backlinks.destroy(in: writing)
        openCollections.removeAll()
        snap.metasDirty = true
        changeCounter &+= 1
    }
}
