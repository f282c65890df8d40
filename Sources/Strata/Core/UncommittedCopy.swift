// `Realm.writeCopy` inside a write: copies the state the write sees (uncommitted changes included)
// to a new file. The storage layer copies committed versions only, so this walks every tree of
// the object layer through the open write transaction and rebuilds it, densely, in the new file.
//
// Invariants:
// - The copy is a complete object-layer file: catalog (schema + table roots + key counters),
//   rows, primary-key indexes, secondary-index trees (`TableMeta.indexes`, object keys are kept so
//   their entries stay valid), collection trees (each row patched with its new roots), backlinks.
// - The source write is left as it was, except that open collections' roots are flushed into
//   their rows first (as commit would do), so a row always names its collection's current tree,
//   and tables' index lists are reconciled with the schema (as the write's first mutation of the
//   table would do), so the copy lists exactly the indexes its schema asks for.
// - The copy is written under a temporary name and gets its own only when complete
//   (`StorageFile.createAtomically`): on any failure, or a kill, no file of that name appears.
import Foundation
import StrataStorage

/// `writeCopy` inside a write: copies the write's uncommitted trees (see the file header). A
/// view of the core.
struct UncommittedCopy {
    /// Strong, not `unowned(unsafe)`: each use of an unowned reference is retained and released
    /// again (measured: bulk inserts took 12% more CPU), while a strong one read from the view
    /// is borrowed; a view is made by its core for one call and never kept.
    let core: RealmCore
}

extension UncommittedCopy {
    /// Copies the current write's state to `path` (which must not exist).
    func writeUncommittedCopy(toPath path: String, encryptionKey: [UInt8]?) throws {
        let w = try core.requireWriteThrowing("copy the uncommitted state")
        if FileManager.default.fileExists(atPath: path) {
            throw Realm.Error(.fileExists, "'\(path)' already exists; writeCopy needs a new file", fileURL: URL(fileURLWithPath: path))
        }
        try core.flushCollections(w)
        // Bring every table's index list in line with the schema first (what the write's first
        // mutation of the table would do anyway), so the copy's indexes are complete and listed.
        for t in 0..<core.snap.metas.count { _ = try core.indexes.maintainedIndexes(table: t, w) }
        // Written under a temporary name beside `path`, which appears only once complete.
        do {
            try StorageFile.createAtomically(StorageOptions(path: path, durability: .full, encryptionKey: encryptionKey)) { dest in
                let d = try dest.beginWrite()
                do {
                    try copyTrees(from: w, to: d)
                    _ = try d.commit()
                } catch {
                    d.rollback()
                    throw error
                }
            }
        } catch {
            throw Realm.Error.surfacing(error)
        }
    }

    private func copyTrees(from w: WriteTransaction, to d: WriteTransaction) throws {
        var metas: [TableMeta] = []
        metas.reserveCapacity(core.snap.metas.count)
        var rowCopy: [UInt8] = []
        for t in 0..<core.snap.metas.count {
            let columns = core.layout(ofTable: t).columns.filter { $0.type != .linkingObjects && $0.collection != .none }
            var objects = KeyedTree()
            try core.snap.metas[t].objects.forEach(from: 0, in: w) { key, row in
                rowCopy.removeAll(keepingCapacity: true)
                rowCopy.append(contentsOf: row)
                for c in columns {
                    guard c.offset + 4 <= row.count else {
                        throw Realm.Error(.corruptFile, "a row of table \(t) is shorter than its layout")
                    }
                    let root = PageRef(_RowView(bytes: row, core: core).load(c, as: UInt32.self))
                    let copied = try Self.copyCollection(root: root, isMap: c.collection == .map, from: w, to: d)
                    rowCopy.withUnsafeMutableBytes { $0.storeBytes(of: copied.raw.littleEndian, toByteOffset: c.offset, as: UInt32.self) }
                }
                try rowCopy.withUnsafeBytes { _ = try objects.put(key, $0, in: d) }
                return true
            }
            let primaryKeys = try Self.copyBytesTree(core.snap.metas[t].primaryKeys, from: w, to: d)
            // Secondary indexes are copied like the primary keys: object keys are kept, so every
            // entry (value ++ object key) is still exact, and the copy can use them at once
            // instead of scanning until its first write rebuilds them.
            let indexes = try core.snap.metas[t].indexes.map {
                IndexTree(column: $0.column, tree: try Self.copyBytesTree($0.tree, from: w, to: d))
            }
            metas.append(TableMeta(objects: objects, primaryKeys: primaryKeys, nextKey: core.snap.metas[t].nextKey, indexes: indexes))
        }
        let backlinks = try Self.copyBytesTree(core.snap.backlinks, from: w, to: d)
        var catalog = BytesTree()
        let schemaBytes = Catalog.encode(schemas: core.snap.schemas)
        let metaBytes = Catalog.encode(metas: metas)
        try Catalog.schemaKey.withUnsafeBytes { k in try schemaBytes.withUnsafeBytes { _ = try catalog.put(k, $0, in: d) } }
        try Catalog.tablesKey.withUnsafeBytes { k in try metaBytes.withUnsafeBytes { _ = try catalog.put(k, $0, in: d) } }
        var roots = d.roots
        // The copy holds the same primary-key trees, so it keeps their encoding's format.
        roots[0] = Catalog.marker(ofVersion: Catalog.writtenFormat(forRead: core.snap.objectFormat))
        roots[1] = core.snap.schemaVersion
        roots[2] = UInt64(catalog.root.raw)
        roots[3] = UInt64(backlinks.root.raw)
        d.roots = roots
    }

    private static func copyBytesTree(_ tree: BytesTree, from w: WriteTransaction, to d: WriteTransaction) throws -> BytesTree {
        var out = BytesTree()
        guard !tree.isEmpty else { return out }
        try tree.forEach(from: nil, in: w) { k, v in
            _ = try out.put(k, v, in: d)
            return true
        }
        return out
    }

    private static func copyCollection(root: PageRef, isMap: Bool, from w: WriteTransaction, to d: WriteTransaction) throws -> PageRef {
        if root.isNull { return .null }
        if isMap { return try copyBytesTree(BytesTree(root: root), from: w, to: d).root }
        var out = PositionalTree()
        try PositionalTree(root: root).forEach(from: 0, in: w) { _, e in
            try out.append(e, in: d)
            return true
        }
        return out.root
    }
}
