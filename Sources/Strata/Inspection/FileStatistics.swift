// Which trees hold a Strata file's pages: the catalog, the backlinks, and per class its objects,
// primary keys, indexes and the collections of its rows (all lists of one property together).
// For `strata stat`.
//
// Invariants:
// - Every tree the relocation plan knows of (Relocation.swift) is listed, so the pages here plus
//   the pager's own (meta, free list, commit record) are the file's reachable pages.
import Foundation
import StrataStorage

/// The trees of one role in the file and their combined shape.
public struct NamedTreeStatistics: Hashable, Sendable {
    /// What the trees hold: "catalog", "backlinks", "Dog objects", "Dog primary keys",
    /// "Dog.name index", "Person.dogs lists".
    public var name: String
    /// How many trees of that role (one, or one per object for collections).
    public var trees: Int
    public var statistics: StrataFile.TreeStatistics
}

extension StrataFile {
    /// The shape of every tree of the newest version, by role.
    public func treeStatistics() throws(Realm.Error) -> [NamedTreeStatistics] {
        let p = try core.pages()
        var out: [NamedTreeStatistics] = []
        func add(_ name: String, _ root: PageRef) throws(Realm.Error) {
            let stats = try Realm.Error.wrap { try TreePages.statistics(ofTreeAt: root, in: p) }
            out.append(NamedTreeStatistics(name: name, trees: root.isNull ? 0 : 1, statistics: StrataFile.TreeStatistics(stats)))
        }
        try add("catalog", core.snap.catalog.root)
        try add("backlinks", core.snap.backlinks.root)
        for (t, schema) in schema.enumerated() {
            let meta = core.snap.metas[t]
            try add("\(schema.className) objects", meta.objects.root)
            if schema.allProperties.contains(where: \.isPrimary) {
                try add("\(schema.className) primary keys", meta.primaryKeys.root)
            }
            for index in meta.indexes where index.column < schema.allProperties.count {
                try add("\(schema.className).\(schema.allProperties[index.column].name) index", index.tree.root)
            }
            let layout = core.layout(ofTable: t)
            let collections = schema.allProperties.indices.filter {
                schema.allProperties[$0].collection != .none && schema.allProperties[$0].type != .linkingObjects
            }
            guard !collections.isEmpty else { continue }
            var combined = [NamedTreeStatistics](collections.map { c in
                let kind = schema.allProperties[c].collection == .list ? "lists" : schema.allProperties[c].collection == .set ? "sets" : "maps"
                return NamedTreeStatistics(name: "\(schema.className).\(schema.allProperties[c].name) \(kind)", trees: 0, statistics: StrataFile.TreeStatistics())
            })
            var failure: (any Error)? = nil
            try Realm.Error.wrap {
                try meta.objects.forEach(from: 0, in: p) { _, row in
                    let view = _RowView(bytes: row, core: core)
                    do {
                        for (i, c) in collections.enumerated() {
                            let root = PageRef(view.load(layout.columns[c], as: UInt32.self))
                            guard !root.isNull else { continue }
                            combined[i].trees += 1
                            combined[i].statistics.add(StrataFile.TreeStatistics(try TreePages.statistics(ofTreeAt: root, in: p)))
                        }
                        return true
                    } catch {
                        failure = error
                        return false
                    }
                }
                if let failure { throw failure }
            }
            out += combined
        }
        return out
    }
}
