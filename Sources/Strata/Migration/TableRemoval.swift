// Removing a class from the file: what `deleteData(forType:)` of a class the code no longer has
// does, as RealmSwift removes its table, so that no view of the file (the realm's schema, the
// stored schema `StrataFile` and `strata` read) lists it afterwards.
//
// The block only empties the table and marks it (`MigrationContext.removedTables`); the table
// leaves the catalog after the block, in the migration's own write, so the block's old views keep
// reading the old data and table numbers stay fixed while it runs.
//
// Table numbers are positions in the catalog (Catalog.swift), and the only place the file stores
// them is the backlink tree's keys (Backlinks.swift): row footers are empty during a migration
// (`spillInlineBacklinks`), links store object keys and find their table by class name, and an
// `AnyRealmValue` link names its class. Removing table t therefore renumbers every later table
// down by one in the catalog (schemas and metas) and in the backlink keys, and nothing else; the
// file format is unchanged, and a file written by an earlier build reads as it did.
//
// Invariants:
// - A removed table holds no objects, so no backlink entry names it (deleting an object removes
//   the entries of the links to and from it). An entry that still names one is damage, reported
//   as `.corruptFile` before anything is renumbered.
// - A class the file keeps may not refer to a removed one (a link, a collection of links, or
//   linking objects in its stored schema): the migration fails with `.invalidSchema` naming the
//   property, as Realm refuses to remove a table other tables link to. A class of the code refers
//   only to classes of the code, so this concerns the classes the code no longer has and the
//   migration did not remove.
import StrataStorage

extension Migrator {
    /// Removes `ctx.removedTables` (emptied by the block) from the catalog and renumbers the
    /// tables after them; part of the migration's write.
    func removeTables(_ ctx: MigrationContext, w: WriteTransaction) throws {
        let removed = ctx.removedTables
        guard !removed.isEmpty else { return }
        let removedNames = Set(removed.map { core.snap.schemas[$0].className })
        for (t, schema) in core.snap.schemas.enumerated() where !removed.contains(t) {
            for property in schema.allProperties {
                guard let target = property.objectClassName, removedNames.contains(target) else { continue }
                throw Realm.Error(.invalidSchema, "deleteData(forType: \"\(target)\"): '\(schema.className).\(property.name)' of a class the file keeps refers to it; delete the data of '\(schema.className)' too, or keep '\(target)' in the code")
            }
        }
        // Open collections are keyed by table number: write their roots into their rows first.
        try core.flushCollections(w)
        for t in removed {
            var objects = core.snap.metas[t].objects
            guard try objects.firstKey(in: w) == nil else {
                throw Realm.Error(.invalidState, "deleteData(forType: \"\(core.snap.schemas[t].className)\") left objects behind")
            }
            try objects.destroy(in: w)
            var primaryKeys = core.snap.metas[t].primaryKeys
            try primaryKeys.destroy(in: w)
            for index in core.snap.metas[t].indexes {
                var tree = index.tree
                try tree.destroy(in: w)
            }
        }
        // New number of each old table (nil: removed).
        var renumbered: [Int?] = []
        var next = 0
        for t in core.snap.schemas.indices {
            if removed.contains(t) {
                renumbered.append(nil)
            } else {
                renumbered.append(next)
                next += 1
            }
        }
        try renumberBacklinks(renumbered, w: w)
        let kept = core.snap.schemas.indices.filter { !removed.contains($0) }
        core.snap.schemas = kept.map { core.snap.schemas[$0] }
        core.snap.metas = kept.map { core.snap.metas[$0] }
        core.snap.infos = kept.map { core.snap.infos[$0] }
        core.snap.tableByName = [:]
        core.snap.tableByClass = [:]
        for (t, schema) in core.snap.schemas.enumerated() {
            core.snap.tableByName[schema.className] = t
            if let info = core.snap.infos[t] { core.snap.tableByClass[ObjectIdentifier(info.type)] = t }
        }
        core.snap.schemaDirty = true
        core.snap.metasDirty = true
        // Caches keyed by table number (open collections, add paths) describe the old numbering.
        core.snapshotMoved()
    }

    /// Rewrites the backlink entries whose target or source table moves (`renumbered[old]`).
    private func renumberBacklinks(_ renumbered: [Int?], w: WriteTransaction) throws {
        var moved: [(key: [UInt8], value: [UInt8])] = []
        var damaged: String?
        try core.snap.backlinks.forEach(from: nil, in: w) { k, v in
            guard k.count == 28 else { return true }
            let target = Int(UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 0, as: UInt32.self)))
            let source = Int(UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
            guard target < renumbered.count, source < renumbered.count,
                  let newTarget = renumbered[target], let newSource = renumbered[source] else {
                damaged = "a backlink names table \(target) or \(source), which is removed or does not exist"
                return false
            }
            if newTarget != target || newSource != source { moved.append(([UInt8](k), [UInt8](v))) }
            return true
        }
        if let damaged { throw Realm.Error(.corruptFile, damaged) }
        for e in moved {
            _ = try e.key.withUnsafeBytes { try core.snap.backlinks.remove($0, in: w) }
        }
        for e in moved {
            var key = e.key
            let target = key.withUnsafeBytes { Int(UInt32(bigEndian: $0.loadUnaligned(fromByteOffset: 0, as: UInt32.self))) }
            let source = key.withUnsafeBytes { Int(UInt32(bigEndian: $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self))) }
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: renumbered[target] ?? target).bigEndian) { for i in 0..<4 { key[i] = $0[i] } }
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: renumbered[source] ?? source).bigEndian) { for i in 0..<4 { key[12 + i] = $0[i] } }
            try key.withUnsafeBytes { kb in try e.value.withUnsafeBytes { vb in _ = try core.snap.backlinks.put(kb, vb, in: w) } }
        }
    }
}
