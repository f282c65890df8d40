// Deleting a sequence of objects (`Realm.delete(_:)` of a sequence): the same per-object
// deletions as `deleteObject(_:)`, in the caller's order, with one shared search of the
// backlink tree for the objects that nothing links to.
//
// Why: deleting an object first looks for the links to it (one descent of the backlink tree per
// object). The sensors pattern deletes the readings it just removed from their list — a run of
// consecutive keys with no backlink left — so one ordered scan of the backlink tree can show
// that none of them is linked, instead of one descent each.
//
// Invariants:
// - A key is reported unlinked only when the backlink tree holds no entry with its (table, key)
//   prefix and its row footer no entry (InlineBacklinks.swift) at the time of the scan. Deleting objects only removes links (it never adds one), so
//   an object unlinked at the scan is still unlinked when its turn comes in the same call.
// - Objects with backlinks (or of another table, realm, or unmanaged) take the unchanged path of
//   `deleteObject(_:)`, with the same typed errors in the same order: objects before a bad one
//   are deleted, the bad one throws.
// - The scan visits at most the entries of the deleted keys plus one entry per gap between them
//   (it seeks again from the next key after an entry of an object not being deleted).
import StrataStorage

/// Deleting objects: one at a time (ObjectDelete.swift), many at once (see the file header),
/// and their removal from the collections linking to them (BatchListUnlink.swift). A view of
/// the core: it holds no state.
struct ObjectDeletion {
    /// Strong, not `unowned(unsafe)`: each use of an unowned reference is retained and released
    /// again (measured: bulk inserts took 12% more CPU), while a strong one read from the view
    /// is borrowed; a view is made by its core for one call and never kept.
    let core: RealmCore
}

extension ObjectDeletion {
    /// Deletes `objects` in order, as `deleteObject(_:)` for each, sharing the backlink search.
    func deleteObjects(_ objects: [Object]) throws {
        do {
            try deleteRows(of: objects)
        } catch {
            // The write fails and rolls back; the accessors whose objects it deleted before the
            // failure stay invalidated all the same, as each deletion leaves its accessor.
            for object in objects {
                if let binding = object._binding, binding.core === core, !binding.isStale, !core.objectExists(binding) {
                    object._binding = binding.detached()
                }
            }
            throw error
        }
        // The accessors given stay invalidated, as `deleteObject(_:)` leaves its own.
        for object in objects {
            if let binding = object._binding, binding.core === core, !binding.isStale { object._binding = binding.detached() }
        }
    }

    /// Deletes the objects' rows (see `deleteObjects(_:)`).
    private func deleteRows(of objects: [Object]) throws {
        if objects.count < 2 {
            for o in objects { try deleteObject(o) }
            return
        }
        let w = try core.requireWriteThrowing("delete objects")
        // Each object's binding is read once (a copy retains its core and class info): the
        // managed objects of this core by table and key; the rest go through deleteObject's checks.
        var located = [(table: Int, key: UInt64)](repeating: (-1, 0), count: objects.count)
        var byTable: [Int: [UInt64]] = [:]
        for (i, o) in objects.enumerated() {
            // An object read before `invalidate()` takes deleteObject's path, which refuses it.
            guard let b = o._binding, b.core === core, !b.isStale else { continue }
            located[i] = (b.table, b.key)
            byTable[b.table, default: []].append(b.key)
        }
        var unlinked: [Int: UnlinkedKeys] = [:]
        for (table, keys) in byTable where keys.count > 1 {
            unlinked[table] = try unlinkedKeys(target: table, keys: keys)
        }
        if try deletePlainRun(objects, located, unlinked, w) { return }
        // The linked ones leave their lists and sets first, one scan per list (BatchListUnlink.swift).
        for (table, keys) in byTable where keys.count > 1 {
            var free = unlinked[table] ?? UnlinkedKeys()
            let linked = keys.filter { !free.contains($0) }
            if linked.count > 1 { try unlinkFromCollections(target: table, keys: linked) }
        }
        // Whether the rows of the last table met have nothing to release (then an unlinked
        // object's deletion is the removal of its row; as deleteObject's first branch).
        var plain: (table: Int, value: Bool) = (-1, false)
        for (i, o) in objects.enumerated() {
            let (table, key) = located[i]
            guard table >= 0, unlinked[table]?.contains(key) == true else {
                try deleteObject(o)
                continue
            }
            if plain.table != table { plain = (table, try rowsNeedNoRelease(table: table, w)) }
            let deleted: Bool
            if plain.value {
                deleted = try core.snap.metas[table].objects.remove(key, in: w)
                if deleted {
                    core.snap.metasDirty = true
                    core.changeCounter &+= 1
                }
            } else {
                deleted = try deleteObject(table: table, key: key, knownUnlinked: true)
            }
            guard deleted else {
                let name = o._binding?.info.schema.className ?? "\(type(of: o))"
                throw Realm.Error(.objectInvalidated, "this '\(name)' object was deleted or invalidated")
            }
        }
    }

    /// The common case in one sorted removal of rows: every object managed here, of one table
    /// whose rows need no release, unlinked, keys strictly ascending in the caller's order.
    /// Removes up to the first already-deleted object and throws for it, as the per-object loop
    /// does (ascending order makes the tree's order the caller's). False, having changed
    /// nothing, when the objects do not qualify.
    private func deletePlainRun(_ objects: [Object], _ located: [(table: Int, key: UInt64)],
                                _ unlinked: [Int: UnlinkedKeys], _ w: WriteTransaction) throws -> Bool {
        guard let table = located.first?.table, table >= 0, var free = unlinked[table] else { return false }
        var keys: [UInt64] = []
        keys.reserveCapacity(located.count)
        for (i, l) in located.enumerated() {
            guard l.table == table, i == 0 || located[i - 1].key < l.key, free.contains(l.key) else { return false }
            keys.append(l.key)
        }
        guard try rowsNeedNoRelease(table: table, w) else { return false }
        let removed = try core.snap.metas[table].objects.removeSorted(keys, stopAtAbsent: true, in: w)
        if removed > 0 {
            core.snap.metasDirty = true
            core.changeCounter &+= UInt64(removed)
        }
        if removed < objects.count {
            let o = objects[removed]
            let name = o._binding?.info.schema.className ?? "\(type(of: o))"
            throw Realm.Error(.objectInvalidated, "this '\(name)' object was deleted or invalidated")
        }
        return true
    }

    /// Whether deleting an object of table `t` only removes its row once its backlinks are
    /// gone: no links, collections, primary key or secondary index to release (false for a
    /// table this snapshot does not have).
    func rowsNeedNoRelease(table t: Int, _ w: WriteTransaction) throws -> Bool {
        guard t >= 0, t < core.snap.metas.count else { return false }
        let info = core.snap.infos[t]
        let layout = info?.layout ?? RowLayout(properties: core.snap.schemas[t].allProperties)
        let primaryKeyColumn: Int? = if let info { info.primaryKeyColumn } else { core.snap.schemas[t].allProperties.firstIndex { $0.isPrimary } }
        if layout.hasLinksOrCollections || primaryKeyColumn != nil { return false }
        return try !core.indexes.maintainedIndexes(table: t, w)
    }

    /// The keys among `keys` (objects of table `target`) with no entry in the backlink tree and
    /// none in their row footer (InlineBacklinks.swift).
    func unlinkedKeys(target: Int, keys: [UInt64]) throws -> UnlinkedKeys {
        var free = try treeUnlinkedKeys(target: target, keys: keys)
        guard target >= 0, target < core.snap.metas.count, !free.sorted.isEmpty else { return free }
        var linked: [Bool] = []
        try core.backlinkStore.forEachRow(table: target, keys: free.sorted, try core.pages()) { i, row in
            if try RowFooter.entry(row) != nil {
                if linked.isEmpty { linked = [Bool](repeating: false, count: free.sorted.count) }
                linked[i] = true
            }
        }
        if !linked.isEmpty {
            free.sorted = free.sorted.indices.filter { !linked[$0] }.map { free.sorted[$0] }
        }
        return free
    }

    /// The keys among `keys` with no entry in the backlink tree. One ordered scan, seeking again
    /// only past entries of objects that are not in `keys`.
    private func treeUnlinkedKeys(target: Int, keys: [UInt64]) throws -> UnlinkedKeys {
        // Keys usually come ascending (a list's oldest elements): no sort then.
        var ascending = true
        for i in keys.indices.dropFirst() where keys[i - 1] >= keys[i] {
            ascending = false
            break
        }
        let sorted = ascending ? keys : Array(Set(keys)).sorted()
        var free = UnlinkedKeys()
        free.sorted.reserveCapacity(sorted.count)
        let tree = core.snap.backlinks
        if tree.isEmpty {
            free.sorted = sorted
            return free
        }
        let p = try core.pages()
        let table = UInt32(truncatingIfNeeded: target)
        var i = 0
        while i < sorted.count {
            var seekAgain = false
            // Whether an entry of sorted[i] was seen in this scan (then it is linked).
            var currentLinked = false
            try withUnsafeTemporaryAllocation(byteCount: 12, alignment: 8) { buf in
                buf.storeBytes(of: table.bigEndian, toByteOffset: 0, as: UInt32.self)
                buf.storeBytes(of: sorted[i].bigEndian, toByteOffset: 4, as: UInt64.self)
                try tree.forEach(from: UnsafeRawBufferPointer(buf), in: p) { k, _ in
                    guard k.count == 28 else {
                        throw Realm.Error(.corruptFile, "a backlink key has \(k.count) bytes, not 28")
                    }
                    // Entries are ordered by (target table, target key), big-endian.
                    if UInt32(bigEndian: k.loadUnaligned(as: UInt32.self)) != table { return false }
                    let linked = UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 4, as: UInt64.self))
                    // Every key below this entry's target key has no entry (unless seen before).
                    while i < sorted.count, sorted[i] < linked {
                        if !currentLinked { free.sorted.append(sorted[i]) }
                        currentLinked = false
                        i += 1
                    }
                    if i == sorted.count { return false }
                    if sorted[i] == linked {
                        currentLinked = true
                        return true  // its other entries, if any, follow
                    }
                    // An entry of an object not being deleted: seek from sorted[i] instead of
                    // walking the entries in between.
                    seekAgain = true
                    return false
                }
            }
            if seekAgain { continue }
            // The scan ended (end of the tree or of the table's entries, or every key decided):
            // no entry follows, so the keys left are unlinked, except one whose entries were seen.
            if currentLinked { i += 1 }
            while i < sorted.count {
                free.sorted.append(sorted[i])
                i += 1
            }
        }
        return free
    }
}

/// Object keys found without backlinks, ascending (`ObjectDeletion.unlinkedKeys`).
struct UnlinkedKeys {
    var sorted: [UInt64] = []
    /// Where the last lookup ended: deleting in ascending order finds each key at the next slot.
    private var hint = 0

    mutating func contains(_ key: UInt64) -> Bool {
        if hint < sorted.count, sorted[hint] == key {
            hint += 1
            return true
        }
        var lo = 0, hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        guard lo < sorted.count, sorted[lo] == key else { return false }
        hint = lo + 1
        return true
    }
}
