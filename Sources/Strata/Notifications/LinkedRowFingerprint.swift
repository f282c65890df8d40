// The fingerprint of an object watched without key paths: its row, then the rows of the objects
// reachable from it through forward links (to-one links, embedded objects, and the objects of
// its List, MutableSet and Map properties), up to `linkDepth` links away: four levels counting
// the object itself, the depth Realm searches. A collection observer then reports an element as
// modified when an object it links to changed (a dog of a person's list renamed, the city of a
// person's embedded address), as Realm does for collections.
//
// How: breadth first, one level of links at a time. Each object is read once per fingerprint:
// an object met again (a cycle back to the root, or two paths to one dog) adds only its key, as
// the rows already read hold the links that reach it. A class without link properties reads
// just its own row, as before.
//
// Invariants: read-only, as every fingerprint; the bytes depend only on the version read, so two
// versions compare equal exactly when no reachable object (within the depth) changed and no link
// on the way to one changed.
import StrataStorage

extension RowFingerprints {
    /// How many links from the observed object a fingerprint without key paths follows.
    static let linkDepth = 3

    /// What a row links to: one object, or the objects of one collection of links.
    private enum LinkStep {
        case one(table: Int, key: UInt64)
        case many(table: Int, root: PageRef, kind: CollectionKind)
    }

    private struct RowID: Hashable {
        let table: Int
        let key: UInt64
    }

    /// Appends the fingerprint of object `key` and of the objects it reaches (see the file
    /// header); false when the object does not exist.
    func appendWholeGraph(table: Int, key: UInt64, pages p: some PageReading, into out: inout [UInt8]) throws -> Bool {
        var level: [LinkStep] = []
        guard try appendRow(table: table, key: key, collectingLinks: &level, pages: p, into: &out) else { return false }
        guard !level.isEmpty else { return true }
        var seen: Set<RowID> = [RowID(table: table, key: key)]
        for depth in 1 ... Self.linkDepth {
            guard !level.isEmpty else { break }
            var next: [LinkStep] = []
            func visit(_ t: Int, _ k: UInt64) throws {
                out.append(0xFF)  // separator: a vanished object differs from an empty row
                guard seen.insert(RowID(table: t, key: k)).inserted else {
                    out.append(0xFC)
                    withUnsafeBytes(of: k.littleEndian) { out.append(contentsOf: $0) }
                    return
                }
                var links: [LinkStep] = []
                _ = try appendRow(table: t, key: k, collectingLinks: &links, pages: p, into: &out)
                if depth < Self.linkDepth { next.append(contentsOf: links) }
            }
            for step in level {
                switch step {
                case let .one(t, k):
                    try visit(t, k)
                case let .many(t, root, kind):
                    out.append(0xFE)
                    for k in try linkKeys(root: root, kind: kind, pages: p) { try visit(t, k) }
                }
            }
            level = next
        }
        return true
    }

    /// Appends the row of object `key` without its backlink footer (being linked from somewhere
    /// is no change of the object), and lists the links it holds; false when it does not exist.
    private func appendRow(table: Int, key: UInt64, collectingLinks links: inout [LinkStep],
                           pages p: some PageReading, into out: inout [UInt8]) throws -> Bool {
        guard table < core.snap.metas.count else { return false }
        let layout = core.layout(ofTable: table)
        let props = core.snap.schemas[table].allProperties
        let found: Bool? = try core.snap.metas[table].objects.withValue(forKey: key, in: p) { row in
            let footer = RowFooter.length(row) ?? 0
            out.append(contentsOf: row[0 ..< row.count - footer])
            for (c, column) in layout.columns.enumerated() where column.type == .object && c < props.count {
                if let link = linkTarget(of: column, property: props[c], in: row) {
                    links.append(.one(table: link.table, key: link.key))
                } else if let many = linkCollection(of: column, property: props[c], in: row) {
                    links.append(.many(table: many.table, root: many.root, kind: column.collection))
                }
            }
            return true
        }
        return found == true
    }
}
