// Snapshot: the parsed catalog of the version a core reads — the schema version, the classes'
// schemas and table metas (object, primary-key and index tree roots), the class-to-table
// bindings, and the catalog and backlink tree roots. The core keeps one in `snap`.
//
// Invariants:
// - A snapshot describes one version (`version`): everything in it was read from that version's
//   roots, or, inside a write, changed in memory by the write since it began. `read(roots:…)` is
//   the one place a committed version is parsed; `writeCatalog(into:in:)` the one place the
//   catalog is written back (at commit), and only what the write dirtied (`metasDirty`,
//   `schemaDirty`, or every part of a fresh file).
// - `schemas`, `metas` and `infos` have one entry per table, in table order; `tableByName` and
//   `tableByClass` name indices into them. A table's schema never changes once stored, so the
//   bindings of checked classes (`infos`, `tableByClass`) survive a version move, except when a
//   migration (the schema version changed) or an older version (fewer tables) makes them stale:
//   then they are dropped here.
// - A value type, so that the write can keep the snapshot it began from (`WriteState`) and
//   `cancelWrite` restore it by assignment.
import StrataStorage

/// The parsed catalog of one version.
struct Snapshot {
    var version: UInt64 = 0
    var schemaVersion: UInt64 = 0
    /// The object format the file's marker names (format 2 until the next commit, which
    /// writes 3: Catalog.swift); a fresh file's is the current one.
    var objectFormat = Catalog.formatVersion
    var isFresh = true
    var schemas: [ObjectSchema] = []
    var metas: [TableMeta] = []
    var infos: [ClassInfo?] = []
    var tableByClass: [ObjectIdentifier: Int] = [:]
    var tableByName: [String: Int] = [:]
    var catalog = BytesTree()
    var backlinks = BytesTree()
    var metasDirty = false
    var schemaDirty = false

    /// Parses version `version` from its `roots` (read through `pages`), keeping the bindings
    /// that stay valid (see the file header). Returns whether the tables were renumbered (a
    /// migration removed a class): the objects and collections handed out name tables by
    /// number, so the caller invalidates them. `identity` names the file in errors.
    mutating func read(roots: UserRoots, version: UInt64, pages: some PageReading, of identity: String) throws(Realm.Error) -> Bool {
        self.version = version
        metasDirty = false
        schemaDirty = false
        if roots[0] == 0 {
            self = Snapshot()
            self.version = version
            return false
        }
        try Catalog.checkFormat(marker: roots[0], of: "'\(identity)'")
        objectFormat = Catalog.version(ofMarker: roots[0]) ?? Catalog.formatVersion
        isFresh = false
        // A migration (another core or process) rewrites table schemas in place and raises the
        // schema version: decode the schema again and drop the bindings then.
        let migrated = schemaVersion != roots[1] && !schemas.isEmpty
        schemaVersion = roots[1]
        catalog = BytesTree(root: PageRef(UInt32(truncatingIfNeeded: roots[2])))
        backlinks = BytesTree(root: PageRef(UInt32(truncatingIfNeeded: roots[3])))
        let catalog = self.catalog
        let metaBytes: [UInt8]
        if roots.data.first == Catalog.rootDataTag {
            metaBytes = Array(roots.data.dropFirst())
        } else {
            metaBytes = try Realm.Error.wrap {
                try Catalog.tablesKey.withUnsafeBytes { key in try catalog.withValue(forKey: key, in: pages) { Array($0) } }
            } ?? []
        }
        let count = Catalog.tableCount(metaBytes)
        let previousClasses = schemas.map(\.className)
        if migrated {
            schemas = []
            infos = []
            tableByClass = [:]
        }
        if migrated || count != schemas.count {
            let schemaBytes = try Realm.Error.wrap {
                try Catalog.schemaKey.withUnsafeBytes { key in try catalog.withValue(forKey: key, in: pages) { Array($0) } }
            } ?? []
            let decoded = try Catalog.decodeSchemas(schemaBytes)
            guard decoded.count == count else {
                throw CatalogReader.corrupt("\(decoded.count) classes in the schema but \(count) table roots")
            }
            schemas = decoded
            tableByName = [:]
            for (table, schema) in decoded.enumerated() { tableByName[schema.className] = table }
            // Bindings of already-checked classes stay valid: a table's schema never changes.
            // Tables past `count` were added after this version (a realm that adopted an older
            // reference's version): their bindings go.
            if count < infos.count {
                infos.removeLast(infos.count - count)
                tableByClass = tableByClass.filter { $0.value < count }
            }
            infos += [ClassInfo?](repeating: nil, count: max(0, count - infos.count))
            // A bound class names its properties, whatever names the file stores them under.
            for (table, info) in infos.enumerated() where table < count {
                if let info { schemas[table] = info.schema }
            }
        }
        metas = try Catalog.decodeMetas(metaBytes, count: count)
        // A migration that removed a class renumbers the tables after it (Realm invalidates the
        // accessors of a removed table rather than let them read another class's rows).
        return migrated && !schemas.map(\.className).starts(with: previousClasses)
    }

    /// Writes what the write changed of the catalog into `roots` (and the catalog tree through
    /// `writing`): the metas into the meta page's root data when they fit (no catalog page to
    /// rewrite, see Catalog.swift), the schema when tables were added, then the tree roots.
    mutating func writeCatalog(into roots: inout UserRoots, in writing: WriteTransaction) throws {
        if metasDirty || schemaDirty || isFresh {
            let encoded = Catalog.encode(metas: self.metas)
            if encoded.count < UserRoots.maxDataSize {
                var data = [UInt8]()
                data.reserveCapacity(encoded.count + 1)
                data.append(Catalog.rootDataTag)
                data.append(contentsOf: encoded)
                roots.data = data
            } else {
                roots.data = []
                try Catalog.tablesKey.withUnsafeBytes { key in
                    try encoded.withUnsafeBytes { value in _ = try catalog.put(key, value, in: writing) }
                }
            }
            if schemaDirty || isFresh {
                let encodedSchemas = Catalog.encode(schemas: self.schemas)
                try Catalog.schemaKey.withUnsafeBytes { key in
                    try encodedSchemas.withUnsafeBytes { value in _ = try catalog.put(key, value, in: writing) }
                }
            }
        }
        roots[0] = Catalog.marker(ofVersion: Catalog.writtenFormat(forRead: objectFormat))
        roots[1] = schemaVersion
        roots[2] = UInt64(catalog.root.raw)
        roots[3] = UInt64(backlinks.root.raw)
    }

    /// The write that changed this snapshot committed as `committed`: it now describes that
    /// version, in the format the commit wrote (`writeCatalog`), with nothing left to write.
    mutating func committed(as committed: UInt64) {
        version = committed
        objectFormat = Catalog.writtenFormat(forRead: objectFormat)
        isFresh = false
        metasDirty = false
        schemaDirty = false
    }
}
