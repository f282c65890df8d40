// Deleting objects one at a time: nullifying the links to the object, dropping it from the
// collections holding it, deleting its embedded objects and freeing its collection trees; and
// deleting every object (`deleteAll`).
//
// Invariants:
// - Every stored link (to-one slot or collection element) has its backlink entry (Backlinks.swift),
//   so deleting an object finds the links to it without scanning tables.
// - The row, its primary-key entry and its secondary index entries (IndexMaintenance.swift) go
//   together in one write; embedded cascades go through the same delete.
import StrataStorage

extension ObjectDeletion {
    // MARK: - Deleting

    func deleteObject(_ obj: Object) throws {
        _ = try core.requireWriteThrowing("delete objects")
        guard let binding = obj._binding else {
            throw Realm.Error(.invalidArgument, "cannot delete an unmanaged '\(type(of: obj).className())'")
        }
        guard binding.core === core else {
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
        let writing = try core.requireWriteThrowing("delete objects")
        guard t < core.snap.metas.count else { return false }
        let info = core.snap.infos[t]
        let layout = info?.layout ?? RowLayout(properties: core.snap.schemas[t].allProperties)
        let primaryKeyColumn: Int? = if let info { info.primaryKeyColumn } else { core.snap.schemas[t].allProperties.firstIndex { $0.isPrimary } }
        if !layout.hasLinksOrCollections, primaryKeyColumn == nil, try !core.indexes.maintainedIndexes(table: t, writing) {
            // Nothing in the row needs releasing (no links, collections, primary key or index
            // entries): skip reading it. A missing object has no backlinks (Backlinks.swift's
            // invariant), so the links loop is empty for it and `remove` reports it missing.
            for backlink in knownUnlinked ? [] : try core.backlinkStore.backlinks(target: t, targetKey: key) {
                try unlink(target: t, targetKey: key, from: backlink)
                try core.backlinkStore.removeBacklinkEntry(target: t, targetKey: key, source: backlink.table, column: backlink.column, sourceKey: backlink.key, targetDying: true)
            }
            guard try core.snap.metas[t].objects.remove(key, in: writing) else { return false }
            core.snap.metasDirty = true
            core.changeCounter &+= 1
            return true
        }
        guard let rowBytes = try core.snap.metas[t].objects.withValue(forKey: key, in: writing, { Array($0) }) else { return false }
        let schema = core.snap.schemas[t]

        // 1. Links to this object.
        for backlink in knownUnlinked ? [] : try core.backlinkStore.backlinks(target: t, targetKey: key) {
            try unlink(target: t, targetKey: key, from: backlink)
            try core.backlinkStore.removeBacklinkEntry(target: t, targetKey: key, source: backlink.table, column: backlink.column, sourceKey: backlink.key, targetDying: true)
        }
        // 2. Links from this object, and its collection trees.
        for c in layout.columns where c.type != .linkingObjects && (c.type == .object || c.collection != .none) {
            let prop = schema.allProperties[c.index]
            if c.collection == .none {
                let (isNull, target) = rowBytes.withUnsafeBytes { rb -> (Bool, UInt64) in
                    let valueBytes = _RowView(bytes: rb, core: core)
                    return (valueBytes.isNull(c), UInt64(littleEndian: valueBytes.load(c, as: UInt64.self)))
                }
                if isNull { continue }
                guard let targetTableIndex = core.linkTargetTable(table: t, column: c.index) else { continue }
                try core.backlinkStore.removeBacklink(target: targetTableIndex, targetKey: target, source: t, column: c.index, sourceKey: key)
                if core.snap.schemas[targetTableIndex].isEmbedded { try deleteObject(table: targetTableIndex, key: target) }
            } else {
                let root = core.collectionRoot(table: t, column: c, owner: key, row: rowBytes)
                try core.destroyCollection(root: root, kind: c.collection, ownerTable: t, column: c.index, owner: key, property: prop)
                core.openCollections.remove(CollectionKey(table: t, column: c.index, owner: key))
            }
        }
        // 3. Secondary indexes, primary key and row.
        if try core.indexes.maintainedIndexes(table: t, writing) {
            try rowBytes.withUnsafeBytes { try core.indexes.indexRemove(table: t, key: key, row: $0, writing) }
        }
        if let pkc = primaryKeyColumn {
            let indexKey = rowBytes.withUnsafeBytes { core.primaryKeyIndexKey(row: _RowView(bytes: $0, core: core), column: layout.columns[pkc]) }
            try indexKey.withUnsafeBytes { _ = try core.snap.metas[t].primaryKeys.remove($0, in: writing) }
        }
        _ = try core.snap.metas[t].objects.remove(key, in: writing)
        core.snap.metasDirty = true
        core.changeCounter &+= 1
        return true
    }

    /// Removes the link `bl` (from another object) to (target, targetKey).
    private func unlink(target: Int, targetKey: UInt64, from backlink: Backlink) throws {
        let writing = try core.requireWriteThrowing("delete objects")
        // The backlink key comes from disk: check its table and column before indexing.
        guard backlink.table >= 0, backlink.table < core.snap.metas.count, backlink.column >= 0,
              backlink.column < core.snap.schemas[backlink.table].allProperties.count else {
            throw Realm.Error(.corruptFile, "a backlink names table \(backlink.table) column \(backlink.column), which do not exist")
        }
        let srcLayout = core.layout(ofTable: backlink.table)
        let c = srcLayout.columns[backlink.column]
        switch c.collection {
        case .none:
            guard var row = try core.snap.metas[backlink.table].objects.withValue(forKey: backlink.key, in: writing, { Array($0) }) else { return }
            row[c.index / 8] |= 1 << UInt8(c.index % 8)
            try row.withUnsafeBytes { _ = try core.snap.metas[backlink.table].objects.put(backlink.key, $0, in: writing) }
        case .list, .set:
            let state = try core.collectionState(table: backlink.table, column: c, owner: backlink.key)
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
            let state = try core.collectionState(table: backlink.table, column: c, owner: backlink.key)
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
        core.snap.metasDirty = true
    }

    /// Deletes every object of every table.
    func deleteAll() throws {
        let writing = try core.requireWriteThrowing("delete all objects")
        for t in 0..<core.snap.metas.count {
            let layout = core.layout(ofTable: t)
            let collCols = layout.columns.filter { $0.collection != .none }
            if !collCols.isEmpty {
                var roots: [(PageRef, CollectionKind)] = []
                try core.snap.metas[t].objects.forEach(from: 0, in: writing) { key, row in
                    for c in collCols {
                        if let open = core.openCollections[CollectionKey(table: t, column: c.index, owner: key)] {
                            roots.append((open.root, c.collection))
                        } else {
                            roots.append((PageRef(_RowView(bytes: row, core: core).load(c, as: UInt32.self)), c.collection))
                        }
                    }
                    return true
                }
                for (r, kind) in roots where !r.isNull {
                    if kind == .map { var tr = BytesTree(root: r); try tr.destroy(in: writing) } else { var tr = PositionalTree(root: r); try tr.destroy(in: writing) }
                }
            }
            try core.snap.metas[t].objects.destroy(in: writing)
            try core.snap.metas[t].primaryKeys.destroy(in: writing)
            try core.indexes.indexClear(table: t, writing)
        }
        try core.snap.backlinks.destroy(in: writing)
        core.openCollections.removeAll()
        core.snap.metasDirty = true
        core.changeCounter &+= 1
    }
}
