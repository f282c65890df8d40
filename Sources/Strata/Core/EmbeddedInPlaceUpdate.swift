// EmbeddedInPlaceUpdate.swift — `add(_:update: .modified)` updates an existing object's
// embedded objects in place, as RealmSwift does.
//
// Why: with `.modified`, RealmSwift keeps the embedded objects an updated object already has and
// writes the new values into them; instances read before the update go on reading the object,
// with its new values. Replacing them (what `.all` and a plain assignment do) deletes the old
// embedded objects, and instances read before then stop as deleted.
//
// What is updated in place, during a `.modified` update of an existing row:
// - an embedded object link that holds an object, given an unmanaged object;
// - a list of embedded objects: element i, given unmanaged, becomes the list's element i when
//   there is one; further elements are added, and old elements past the new count are deleted.
// The unmanaged object given becomes the existing object (managed, reading its row), as an added
// object becomes its row. Everything else (managed objects given, sets, maps) is stored as for
// `.all`.

import StrataStorage

/// Rewrites of embedded objects in place (see the file header). A view of the core.
struct EmbeddedInPlaceUpdate {
    /// Strong, not `unowned(unsafe)`: each use of an unowned reference is retained and released
    /// again (measured: bulk inserts took 12% more CPU), while a strong one read from the view
    /// is borrowed; a view is made by its core for one call and never kept.
    let core: RealmCore
}

extension EmbeddedInPlaceUpdate {
    /// Whether `object`, stored by a `.modified` update into `column` of an existing row that
    /// links an embedded object, was written into that object in place (it is now that object).
    func updatedEmbeddedInPlace(_ object: Object, _ row: _RowBuilder, _ column: _Column) throws -> Bool {
        guard core.write.updatePolicy == .modified, object._binding == nil, !row.isNew, !row.isNull(column) else { return false }
        let current = UInt64(littleEndian: row.currentLoad(column, as: UInt64.self))
        return try updateEmbeddedInPlace(object, key: current)
    }

    /// Writes the unmanaged `object`'s values into the embedded object `key` of its class, which
    /// `object` becomes. False (nothing done) when the class is not embedded.
    private func updateEmbeddedInPlace(_ object: Object, key: UInt64) throws -> Bool {
        let writing = try core.requireWriteThrowing("add objects")
        let (info, table) = try core.classAndTable(forAdding: type(of: object), viaLink: true)
        guard info.isEmbedded else { return false }
        var inlined = false
        _ = try core.adding.addGeneralObject(object, info: info, table: table, update: .modified, inline: nil,
                                 inlined: &inlined, existing: key, writing)
        return true
    }

    /// Whether `storeCollection` of `column` in `row` updates a list of embedded objects in place.
    func updatesEmbeddedListInPlace(_ row: _RowBuilder, _ column: _Column) -> Bool {
        guard core.write.updatePolicy == .modified, !row.isNew, column.type == .object, column.collection == .list,
              let target = core.linkTargetTable(table: row.table, column: column.index) else { return false }
        return core.snap.schemas[target].isEmbedded
    }

    /// `storeCollection` for a list of embedded objects under a `.modified` update (see the top).
    func storeEmbeddedListInPlace<E: _PersistableElement>(_ elements: [E], _ row: inout _RowBuilder, _ column: _Column,
                                                          _ writing: WriteTransaction) throws {
        let collectionKey = CollectionKey(table: row.table, column: column.index, owner: row.key)
        let oldRoot = core.openCollections[collectionKey]?.root ?? PageRef(row.currentLoad(column, as: UInt32.self))
        var oldKeys: [UInt64] = []
        if !oldRoot.isNull {
            try PositionalTree(root: oldRoot).forEach(from: 0, in: writing) { _, element in
                if element.count >= 8 { oldKeys.append(UInt64(littleEndian: element.loadUnaligned(as: UInt64.self))) }
                return true
            }
        }
        // First the elements that take the place of old ones, updated in place.
        var keys: [UInt64?] = Array(repeating: nil, count: elements.count)
        for (i, element) in elements.enumerated() where i < oldKeys.count {
            if let object = element as? Object, object._binding == nil, try updateEmbeddedInPlace(object, key: oldKeys[i]) {
                keys[i] = oldKeys[i]
            }
        }
        // Every element kept where it was: the list itself is unchanged (and not reported changed).
        if keys.count == oldKeys.count, keys.allSatisfy({ $0 != nil }) { return }
        let collection = CollectionRef(core: core, table: row.table, column: column, owner: row.key)
        var tree = PositionalTree()
        for (element, key) in zip(elements, keys) {
            if let key {
                // The kept object's backlink from this list stays as it is.
                try withUnsafeBytes(of: key.littleEndian) { try tree.append($0, in: writing) }
            } else {
                try core.withEncodedElement(element, for: collection) { try tree.append($0, in: writing) }
            }
        }
        let kept = Set(keys.compactMap { $0 })
        let property = core.snap.schemas[row.table].allProperties[column.index]
        try core.destroyCollection(root: oldRoot, kind: .list, ownerTable: row.table, column: column.index, owner: row.key,
                              property: property, keeping: kept)
        core.openCollections.remove(collectionKey)
        row.store(tree.root.raw, column)
    }
}
