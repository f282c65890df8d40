// Objects in tables: reading and patching rows, materialising objects, primary-key lookup.
// Adding is ObjectAdd.swift (`ObjectAdding`), deleting ObjectDelete.swift (`ObjectDeletion`).
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
    func readColumn<R>(_ binding: BorrowedBinding, _ column: _Column, _ body: (_RowView) -> R?) -> R? {
        checkThread()
        if binding.isStale { objectGone(binding.info) }
        do {
            let found: R??
            if !write.isOpen && !isFrozen, snapValid, let reading = currentReadTransaction {
                // `withRow`'s first case, written out: an iteration step through `withRow` ran
                // 3% slower (alternating runs at 1M objects), and this is every property read.
                guard binding.table < snap.metas.count else { objectGone(binding.info) }
                let rows = snap.metas[binding.table].objects
                var value: R?
                let hit = try rowFingers.withFinger(table: binding.table, version: snap.version) { finger in
                    try reading._withUnsafeGuaranteedRef { reading in
                        try rows.visitValue(forKey: binding.key, in: reading, finger: &finger) { value = body(_RowView(bytes: $0, core: self)) }
                    }
                }
                found = hit ? .some(value) : .none
            } else {
                found = try withRow(table: binding.table, key: binding.key, body)
            }
            guard let r = found else { objectGone(binding.info) }
            return r
        } catch {
            readFailed(error)
        }
    }

    /// `body` of the row of object `key` in table `t` in the version this core reads (nil when
    /// there is no such row or table). Outside a write, through the table's finger
    /// (Core/RowFingers.swift): objects read one after another mostly share a leaf, and a
    /// second read of the same row finds it at once.
    @inline(__always)
    func withRow<R>(table t: Int, key: UInt64, _ body: (_RowView) -> R) throws -> R? {
        if !write.isOpen && !isFrozen, snapValid, let reading = currentReadTransaction {
            // The snapshot's transaction is used without a reference count taken: the core
            // keeps it while the version stays, and nothing in a read moves the version.
            guard t < snap.metas.count else { return nil }
            let rows = snap.metas[t].objects
            var value: R?
            let hit = try rowFingers.withFinger(table: t, version: snap.version) { finger in
                try reading._withUnsafeGuaranteedRef { reading in
                    try rows.visitValue(forKey: key, in: reading, finger: &finger) { value = body(_RowView(bytes: $0, core: self)) }
                }
            }
            return hit ? value : nil
        }
        // `pages()` loads the snapshot (and with it the tables) when it has moved.
        let snapshotPages = try pages()
        guard t < snap.metas.count else { return nil }
        let rows = snap.metas[t].objects
        if write.isOpen || isFrozen {
            return try rows.withValue(forKey: key, in: snapshotPages) { body(_RowView(bytes: $0, core: self)) }
        }
        return try rowFingers.withFinger(table: t, version: snap.version) { finger in
            try rows.withValue(forKey: key, in: snapshotPages, finger: &finger) { body(_RowView(bytes: $0, core: self)) }
        }
    }

    /// The read transaction of the current snapshot, when it is the one `pages()` would give
    /// (no write open, the snapshot loaded and not moved), read without retaining it.
    @inline(__always)
    private var currentReadTransaction: Unmanaged<ReadTransaction>? {
        guard let reading = unretainedReadTxn,
              reading._withUnsafeGuaranteedRef({ $0.version }) == snap.version else { return nil }
        return reading
    }

    /// Stops on the use of an object that was deleted or whose realm was invalidated.
    @inline(never)
    func objectGone(_ binding: ObjectBinding) -> Never {
        objectGone(binding.info)
    }

    @inline(never)
    func objectGone(_ info: ClassInfo) -> Never {
        misuse(.objectInvalidated, "this '\(info.schema.className)' object was deleted or invalidated")
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
            let before = try indexes.maintainedIndexes(table: binding.table, writing) && indexes.hasIndex(table: binding.table, column: column.index) ? row.bytes : nil
            try body(&row)
            if column.type == .object || column.collection != .none {
                // A link set here may have changed this very row's footer (a link to itself):
                // the stored footer is the current one, not the copy's.
                try adding.syncFooter(&row, writing)
            }
            try row.bytes.withUnsafeBytes { _ = try snap.metas[binding.table].objects.put(binding.key, $0, in: writing) }
            if let before {
                try before.withUnsafeBytes { old in
                    try row.bytes.withUnsafeBytes { new in
                        try indexes.indexReplace(table: binding.table, key: binding.key, old: old, new: new, onlyColumn: column.index, writing)
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
        let object = ManagedInstantiation.make { T() }
        let binding = ObjectBinding(core: self, info: info, table: table, key: key)
        object._binding = binding
        if !info.legacyFields.isEmpty { info.bindLegacyFields(object, binding) }
        return object
    }

    /// A managed object of `info`'s class (the type is only known at run time here).
    func materializeAny(info: ClassInfo, table: Int, key: UInt64) -> Object {
        // `info.type.init()` (not a generic `T()`): the dynamic class must be instantiated.
        let o = ManagedInstantiation.make { info.type.init() }
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

    /// How this file's primary-key trees write an Int primary key (its object format).
    var primaryKeyEncoding: PrimaryKeyEncoding { PrimaryKeyEncoding(objectFormat: snap.objectFormat) }

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
        if V._strataShape.type == .int { primaryKeyEncoding.finishIntKey(&buffer.bytes) }
        defer { addPath.elementBytes = buffer.bytes }
        return try buffer.bytes.withUnsafeBytes(body)
    }

    /// The primary-key tree's key of `value`: [1] then its bytes (an Int as `primaryKeyEncoding`
    /// writes it), or what an optional encodes for itself ([0] for nil).
    func primaryKeyIndexKey<V: _Persistable>(of value: V) throws -> [UInt8] {
        var buffer = _ElementBuffer(core: self, ownerTable: -1, ownerKey: 0, ownerColumn: -1)
        if !V._strataShape.isOptional { buffer.bytes.append(1) }
        try value._strataEncodeKey(&buffer)
        if V._strataShape.type == .int { primaryKeyEncoding.finishIntKey(&buffer.bytes) }
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
        default:
            out.append(contentsOf: row.fixedBytes(c, count: 8))
            if c.type == .int { primaryKeyEncoding.finishIntKey(&out) }
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
        let column = info.layout.columns[pkc]
        let objKey: UInt64? = try Realm.Error.wrap {
            try withPrimaryKeyIndexKey(of: key) { indexKey in
                try objectKey(primaryKey: indexKey, table: t, column: column, in: snapshotPages)
            }
        }
        guard let objKey else { return nil }
        return materialize(T.self, info: info, table: t, key: objKey)
    }

    /// The object key that primary-key tree key `indexKey` names in table `t`, whose primary key
    /// is `column`; nil when there is none. An Int key of a live core first tries the row a
    /// confirmed offset names, and takes it only if that row holds this key
    /// (PrimaryKeyGuesses.swift); then the tree.
    func objectKey(primaryKey indexKey: UnsafeRawBufferPointer, table t: Int, column: _Column,
                   in pages: some PageReading) throws -> UInt64? {
        let value = column.type == .int && !isFrozen
            ? PrimaryKeyGuesses.intValue(ofTreeKey: indexKey, encoding: primaryKeyEncoding) : nil
        if let value, let guess = primaryKeyGuesses.guess(table: t, value: value) {
            let holds = try withRow(table: t, key: guess) { row in
                !(column.isOptional && row.isNull(column)) && row.load(column, as: Int64.self) == value
            }
            if holds == true { return guess }
            primaryKeyGuesses.missed(table: t)
        }
        let found = try snap.metas[t].primaryKeys.withValue(forKey: indexKey, in: pages) { valueBytes in
            valueBytes.count >= 8 ? UInt64(littleEndian: valueBytes.loadUnaligned(as: UInt64.self)) : nil
        } ?? nil
        if let value, let found { primaryKeyGuesses.learn(table: t, value: value, key: found) }
        return found
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
}
