// Collection trees of objects (List, MutableSet: PositionalTree; Map: BytesTree): opening them
// through the per-snapshot cache, list operations, flushing roots at commit, freeing on delete.
//
// Invariants:
// - During a write, the current root of an open collection lives in `openCollections` (dirty;
//   CollectionCache.swift); the owner's row is rewritten once, at commit (`flushCollections`).
// - A collection of links stores 8-byte little-endian object keys; each element has a backlink
//   count (Backlinks.swift). Removing an element of an embedded class deletes that object.
import Foundation
import StrataStorage

/// A managed collection: which object and column it belongs to.
struct CollectionRef {
    let core: RealmCore
    let table: Int
    let column: _Column
    let owner: UInt64
    /// The realm's `era` when the collection was handed out (see `ObjectBinding.era`).
    let era: UInt32

    /// `era`: the owner's (`ObjectBinding.era`); by default the realm's current one.
    init(core: RealmCore, table: Int, column: _Column, owner: UInt64, era: UInt32? = nil) {
        self.core = core
        self.table = table
        self.column = column
        self.owner = owner
        self.era = era ?? core.era
    }
}

extension ObjectBinding {
    /// The collection stored in the property with `ordinal` of this managed object.
    func collectionRef(ordinal: Int) -> CollectionRef {
        CollectionRef(core: core, table: table, column: info.column(forOrdinal: ordinal), owner: key, era: era)
    }
}

extension RealmCore {
    /// The state of the collection `ref` names; throws `.objectInvalidated` when its owner was
    /// deleted or the realm invalidated since the collection was handed out.
    func collectionState(_ ref: CollectionRef) throws -> CollectionState {
        guard ref.era == era else {
            throw Realm.Error(.objectInvalidated, "this collection was invalidated with its realm ('\(fileIdentity)')")
        }
        return try collectionState(table: ref.table, column: ref.column, owner: ref.owner)
    }

    func collectionState(table: Int, column: _Column, owner: UInt64) throws -> CollectionState {
        let key = CollectionKey(table: table, column: column.index, owner: owner)
        // Frozen cores are read from several threads at once: they never cache (no mutation).
        if isFrozen {
            if let open = openCollections[key] { return open }
        } else if let open = openCollections.state(for: key, remember: true) {
            return open
        }
        let snapshotPages = try pages()
        guard table < snap.metas.count, let root = try snap.metas[table].objects.withValue(forKey: owner, in: snapshotPages, {
            PageRef(_RowView(bytes: $0, core: self).load(column, as: UInt32.self))
        }) else {
            throw Realm.Error(.objectInvalidated, "the object owning this collection was deleted or invalidated")
        }
        let state = CollectionState(root: root, table: table, column: column.index, owner: owner)
        if !isFrozen { openCollections.insert(state, for: key) }
        return state
    }

    func flushCollections(_ writing: WriteTransaction) throws {
        for state in openCollections.dirtyStates {
            let column = layout(ofTable: state.table).columns[state.column]
            guard var row = try snap.metas[state.table].objects.withValue(forKey: state.owner, in: writing, { Array($0) }) else { continue }
            guard column.offset + 4 <= row.count else { continue }
            row.withUnsafeMutableBytes { $0.storeBytes(of: state.root.raw.littleEndian, toByteOffset: column.offset, as: UInt32.self) }
            try row.withUnsafeBytes { _ = try snap.metas[state.table].objects.put(state.owner, $0, in: writing) }
            state.dirty = false
            snap.metasDirty = true
        }
    }

    /// Frees a collection tree, dropping the backlinks of its links (and deleting embedded targets).
    /// `keeping`: linked objects that stay linked from this collection's owner and column (a
    /// list of embedded objects updated in place, EmbeddedInPlaceUpdate.swift).
    func destroyCollection(root: PageRef, kind: CollectionKind, ownerTable: Int, column: Int, owner: UInt64, property: Property,
                           keeping: Set<UInt64> = []) throws {
        guard !root.isNull, let writing = writeTxn else { return }
        if property.type == .object, let targetTableIndex = targetTable(of: property) {
            let embedded = snap.schemas[targetTableIndex].isEmbedded
            for objectKey in try linkedKeys(inCollection: root, kind: kind, writing) where !keeping.contains(objectKey) {
                try backlinkStore.removeBacklinkEntry(target: targetTableIndex, targetKey: objectKey, source: ownerTable, column: column, sourceKey: owner)
                if embedded { try deletion.deleteObject(table: targetTableIndex, key: objectKey) }
            }
        }
        if kind == .map {
            var t = BytesTree(root: root)
            try t.destroy(in: writing)
        } else {
            var t = PositionalTree(root: root)
            try t.destroy(in: writing)
        }
    }

    /// The distinct object keys a collection tree of links holds (a map's non-null values).
    func linkedKeys(inCollection root: PageRef, kind: CollectionKind, _ pages: some PageReading) throws -> Set<UInt64> {
        var keys = Set<UInt64>()
        if kind == .map {
            try BytesTree(root: root).forEach(from: nil, in: pages) { _, value in
                if value.count == 9, value[0] == 1 { keys.insert(UInt64(littleEndian: UnsafeRawBufferPointer(rebasing: value[1...]).loadUnaligned(as: UInt64.self))) }
                return true
            }
        } else {
            try PositionalTree(root: root).forEach(from: 0, in: pages) { _, e in
                if e.count >= 8 { keys.insert(UInt64(littleEndian: e.loadUnaligned(as: UInt64.self))) }
                return true
            }
        }
        return keys
    }

    // MARK: - Positional collections (List, MutableSet)

    /// Encodes `element` for the collection `r` (adding an unmanaged linked object), records its
    /// backlink and calls `body` with the encoding (valid only inside `body`). The hot path of
    /// appends: a link is encoded on the stack, other values in `addPath.elementBytes` (no allocation).
    @inline(__always)
    func withEncodedElement<E: _PersistableElement, R>(_ element: E, for collection: CollectionRef,
                                                       _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        if E.self == DynamicObject.self || E.self == DynamicObject?.self { try collection.checkDynamicElement(element) }
        // Lists and sets of objects hold non-optional objects (validated by ClassInfo); map values
        // may be optional and take the general path below.
        if collection.column.type == .object, collection.column.collection != .map, let object = element as? Object {
            // An object created by this very append has no backlink entry yet: skip reading it.
            // (With an upsert policy an unmanaged object may resolve to an existing one: no skip.)
            let fresh = write.updatePolicy == .error && object._binding == nil
            // A new object gets this link's backlink in its row (InlineBacklinks.swift).
            let (key, inlined) = try adding.keyForLinking(object, from: collection.table, column: collection.column.index, sourceKey: collection.owner)
            if !inlined, let targetTableIndex = linkTargetTable(table: collection.table, column: collection.column.index) {
                try backlinkStore.addBacklink(target: targetTableIndex, targetKey: key, source: collection.table, column: collection.column.index, sourceKey: collection.owner, fresh: fresh)
            }
            return try withUnsafeBytes(of: key.littleEndian, body)
        }
        var buf = _ElementBuffer(core: self, ownerTable: collection.table, ownerKey: collection.owner, ownerColumn: collection.column.index)
        buf.bytes = addPath.elementBytes
        addPath.elementBytes = []
        buf.bytes.removeAll(keepingCapacity: true)
        try encodeElement(element, for: collection, into: &buf)
        defer { addPath.elementBytes = buf.bytes }
        return try buf.bytes.withUnsafeBytes(body)
    }

    /// Encodes `element` for the collection `r` (adding an unmanaged linked object) and records its
    /// backlink. Returns the encoded bytes.
    func encodeElement<E: _PersistableElement>(_ element: E, for collection: CollectionRef) throws -> [UInt8] {
        var buf = _ElementBuffer(core: self, ownerTable: collection.table, ownerKey: collection.owner, ownerColumn: collection.column.index)
        try encodeElement(element, for: collection, into: &buf)
        return buf.bytes
    }

    private func encodeElement<E: _PersistableElement>(_ element: E, for collection: CollectionRef, into buf: inout _ElementBuffer) throws {
        if E.self == DynamicObject.self || E.self == DynamicObject?.self { try collection.checkDynamicElement(element) }
        // An object created by this very append has no backlink entry yet: skip reading it.
        // (With an upsert policy an unmanaged object may resolve to an existing one: no skip.)
        let fresh = collection.column.type == .object && write.updatePolicy == .error && (element as? Object)?._binding == nil
        try element._strataEncodeElement(&buf)
        // Links are 8 bytes, or [1] + 8 bytes when the element type is optional (map values).
        let keyOffset = buf.bytes.count == 8 ? 0 : (buf.bytes.count == 9 && buf.bytes[0] == 1 ? 1 : -1)
        if collection.column.type == .object, keyOffset >= 0, let targetTableIndex = linkTargetTable(table: collection.table, column: collection.column.index) {
            let key = buf.bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: keyOffset, as: UInt64.self)) }
            try backlinkStore.addBacklink(target: targetTableIndex, targetKey: key, source: collection.table, column: collection.column.index, sourceKey: collection.owner, fresh: fresh)
        }
    }

    /// The table that column `c` of table `t` links to (nil: not a link, or no table yet). Through
    /// the bound class's linked type when there is one (an identifier lookup), else by class name.
    @inline(__always)
    func linkTargetTable(table t: Int, column c: Int) -> Int? {
        if t < snap.infos.count, let info = snap.infos[t], c < info.linkedTypes.count, let lt = info.linkedTypes[c],
           let targetTableIndex = snap.tableByClass[ObjectIdentifier(lt)] {
            return targetTableIndex
        }
        return targetTable(of: snap.schemas[t].allProperties[c])
    }

    /// Undoes `encodeElement`'s backlink for an element leaving the collection.
    func releaseElement(_ bytes: UnsafeRawBufferPointer, for collection: CollectionRef) throws {
        guard collection.column.type == .object, bytes.count >= 8,
              let targetTableIndex = linkTargetTable(table: collection.table, column: collection.column.index) else { return }
        let key = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        try backlinkStore.removeBacklink(target: targetTableIndex, targetKey: key, source: collection.table, column: collection.column.index, sourceKey: collection.owner)
        if snap.schemas[targetTableIndex].isEmbedded { try deletion.deleteObject(table: targetTableIndex, key: key) }
    }

    /// `releaseElement` for a link element given as its object key.
    func releaseLink(_ key: UInt64, for collection: CollectionRef) throws {
        guard collection.column.type == .object, let targetTableIndex = linkTargetTable(table: collection.table, column: collection.column.index) else { return }
        try backlinkStore.removeBacklink(target: targetTableIndex, targetKey: key, source: collection.table, column: collection.column.index, sourceKey: collection.owner)
        if snap.schemas[targetTableIndex].isEmbedded { try deletion.deleteObject(table: targetTableIndex, key: key) }
    }

    /// Writes a whole unmanaged collection into a new tree (used when adding an object or
    /// assigning a collection property); releases the previous tree of an existing row.
    /// `sortedSet`: store the distinct encodings in byte order (MutableSet's invariant).
    func storeCollection<E: _PersistableElement>(_ elements: [E], _ row: inout _RowBuilder, _ column: _Column,
                                                 sortedSet: Bool = false) throws {
        guard let writing = writeTxn else { throw Realm.Error(.notInWriteTransaction, "collections change only inside a write transaction") }
        if !sortedSet, embeddedInPlace.updatesEmbeddedListInPlace(row, column) {
            try embeddedInPlace.storeEmbeddedListInPlace(elements, &row, column, writing)
            return
        }
        if !row.isNew {
            let key = CollectionKey(table: row.table, column: column.index, owner: row.key)
            let oldRoot = openCollections[key]?.root ?? PageRef(row.currentLoad(column, as: UInt32.self))
            let property = snap.schemas[row.table].allProperties[column.index]
            try destroyCollection(root: oldRoot, kind: column.collection, ownerTable: row.table, column: column.index, owner: row.key, property: property)
            openCollections.remove(key)
        }
        let collection = CollectionRef(core: self, table: row.table, column: column, owner: row.key)
        var tree = PositionalTree()
        if sortedSet {
            var encoded = try elements.map { try encodeElement($0, for: collection) }
            encoded.sort { a, b in a.withUnsafeBytes { pa in b.withUnsafeBytes { ListStore.compareEncodings(pa, $0) < 0 } } }
            var previous: [UInt8]? = nil
            for bytes in encoded {
                if bytes == previous {
                    try bytes.withUnsafeBytes { try releaseElement($0, for: collection) }
                    continue
                }
                try bytes.withUnsafeBytes { try tree.append($0, in: writing) }
                previous = bytes
            }
        } else {
            for element in elements {
                try withEncodedElement(element, for: collection) { try tree.append($0, in: writing) }
            }
        }
        row.store(tree.root.raw, column)
    }
}
