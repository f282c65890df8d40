// The object layer's relocation description: which trees a version holds and where their page
// references live, so that the pager can compact and copy densely and `verify()` can account for
// every page (StrataStorage/Trees/Relocation.swift).
//
// Trees of a version (Catalog.swift, Backlinks.swift, RowLayout.swift, CollectionStore.swift):
//   UserRoots[2] catalog (BytesTree)  — its entries hold table roots: `Catalog.allTreeRoots`
//   UserRoots.data — when tagged `Catalog.rootDataTag`, the table metas (same encoding, same
//              function): their roots are `rootDataTrees`
//   UserRoots[3] backlinks (BytesTree) — values are counts, no references
//   per table: objects (KeyedTree) — each row holds the roots of its list/set/map trees at
//              `RowLayout.collectionRootOffsets`; other catalog trees (primary keys, indexes)
//              hold object keys, no references
//   collections (PositionalTree / BytesTree) — elements are values or object keys, no references
//
// Invariants:
// - Nothing here duplicates a layout: catalog roots come from `Catalog.allTreeRoots`, row slots
//   from `RowLayout`, the schema from the catalog of the very version being walked.
// - A file without the format marker (0: fresh and empty) has no trees; a file of any other
//   format is refused as open refuses it (`Catalog.checkFormat`).
import StrataStorage

/// Relocation for files written by the object layer. Registered on every file the layer opens.
struct ObjectRelocation: PageRelocating {
    enum Kind {
        static let catalog: UInt32 = 1
        static let backlinks: UInt32 = 2
        /// A table's objects; the role's index is the table number.
        static let objects: UInt32 = 3
        /// Any other tree held by the catalog (primary keys, indexes): no references in values.
        static let catalogTree: UInt32 = 4
        /// A list, set or map of an object: no references in values.
        static let collection: UInt32 = 5
    }

    func plan(for roots: UserRoots, in pages: any PageReading) throws -> any RelocationPlan {
        if roots[0] == 0 { return ObjectRelocationPlan(rootTrees: [], rootDataTrees: [], collectionOffsets: []) }
        try Catalog.checkFormat(marker: roots[0], of: "the file")
        let catalog = BytesTree(root: PageRef(UInt32(truncatingIfNeeded: roots[2])))
        let schemaBytes = try Catalog.schemaKey.withUnsafeBytes { k in
            try catalog.withValue(forKey: k, in: pages) { Array($0) }
        } ?? []
        let schemas = schemaBytes.isEmpty ? [] : try Catalog.decodeSchemas(schemaBytes)
        let offsets = schemas.map { RowLayout(properties: $0.allProperties).collectionRootOffsets }
        // Table metas kept in the meta page's root data (Catalog.swift): their roots, offset by
        // the tag byte.
        var dataTrees: [EmbeddedRoot] = []
        if roots.data.first == Catalog.rootDataTag {
            for entry in try Catalog.allTreeRoots(inMetas: Array(roots.data.dropFirst())) {
                dataTrees.append(EmbeddedRoot(offset: entry.offset + 1, role: try ObjectRelocationPlan.role(of: entry.tree, tables: offsets.count)))
            }
        }
        return ObjectRelocationPlan(rootTrees: [(2, TreeRole(kind: Kind.catalog)), (3, TreeRole(kind: Kind.backlinks))],
                                    rootDataTrees: dataTrees, collectionOffsets: offsets)
    }
}

/// The relocation plan of one version: its root trees and, per table, the collection slots of rows.
struct ObjectRelocationPlan: RelocationPlan {
    let rootTrees: [(word: Int, role: TreeRole)]
    let rootDataTrees: [EmbeddedRoot]
    /// Per table: offsets of the collection-root slots of its rows.
    let collectionOffsets: [[Int]]

    func valueReferences(for role: TreeRole) -> ValueReferences {
        switch role.kind {
        case ObjectRelocation.Kind.catalog:
            return .variable
        case ObjectRelocation.Kind.objects:
            let table = Int(role.index)
            guard table < collectionOffsets.count, !collectionOffsets[table].isEmpty else { return .none }
            return .fixed(collectionOffsets[table].map {
                EmbeddedRoot(offset: $0, role: TreeRole(kind: ObjectRelocation.Kind.collection))
            })
        default:
            return .none
        }
    }

    func embeddedRoots(inValue value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                       role: TreeRole) throws -> [EmbeddedRoot] {
        guard role.kind == ObjectRelocation.Kind.catalog else { return [] }
        return try Catalog.allTreeRoots(inEntry: key, value: value).map { entry in
            EmbeddedRoot(offset: entry.offset, role: try Self.role(of: entry.tree, tables: collectionOffsets.count))
        }
    }

    /// The role of a catalog-held tree: a table's objects (rows hold collection roots) or a tree
    /// whose values hold no references (primary keys, indexes).
    static func role(of tree: CatalogTree, tables: Int) throws(Realm.Error) -> TreeRole {
        if let table = tree.rowTable {
            guard table < tables else {
                throw CatalogReader.corrupt("table \(table) has roots but no schema (\(tables) classes)")
            }
            return TreeRole(kind: ObjectRelocation.Kind.objects, index: UInt32(table))
        }
        return TreeRole(kind: ObjectRelocation.Kind.catalogTree)
    }
}
