// Removing a batch of doomed objects from the lists and sets that hold them, one scan per list.
//
// Why: deleting an object removes it from every list that links to it, and a list has no index
// from an object to its positions, so each removal scans the list. The Realm book trims its
// sensors with `realm.delete(Array(readings.prefix(excess)))`: k deletions from a list of n
// scanned the list k times (60,000 deletions from 90,000 readings took half a minute). Grouping
// the batch's list links by list makes it one scan per list and one removal per position (a
// leading run, the trim's shape, in one `removeFirst`).
//
// Invariants: only links held by lists and sets are removed here, with their backlink entries
// (tree and row footer), so the per-object deletion that follows finds none of them and still
// handles to-one links, maps and everything else as before. Deleting only removes links, so the
// links found at the start are all there are for these objects in this call.
import StrataStorage

extension ObjectDeletion {
    /// The list or set of one object's property.
    private struct LinkingCollection: Hashable {
        let table: Int
        let column: Int
        let owner: UInt64
    }

    /// Removes every link that a list or set holds to the objects `keys` of table `t` (about to be
    /// deleted in this write), with their backlink entries. Throws `.corruptFile` for a backlink
    /// naming a table or column the file does not have.
    func unlinkFromCollections(target t: Int, keys: [UInt64]) throws {
        let writing = try core.requireWriteThrowing("delete objects")
        var doomed: [LinkingCollection: Set<UInt64>] = [:]
        // How many elements of each collection link to the doomed objects (the backlinks'
        // counts): the scan stops at the last of them.
        var links: [LinkingCollection: Int] = [:]
        var order: [LinkingCollection] = []
        var seen = Set<UInt64>()
        for key in keys where seen.insert(key).inserted {
            for backlink in try core.backlinkStore.backlinks(target: t, targetKey: key) {
                guard backlink.table >= 0, backlink.table < core.snap.metas.count, backlink.column >= 0,
                      backlink.column < core.snap.schemas[backlink.table].allProperties.count else {
                    throw Realm.Error(.corruptFile, "a backlink names table \(backlink.table) column \(backlink.column), which do not exist")
                }
                let kind = core.layout(ofTable: backlink.table).columns[backlink.column].collection
                guard kind == .list || kind == .set else { continue }
                let collection = LinkingCollection(table: backlink.table, column: backlink.column, owner: backlink.key)
                if doomed[collection] == nil { order.append(collection) }
                doomed[collection, default: []].insert(key)
                links[collection, default: 0] += max(Int(backlink.count), 1)
            }
        }
        for collection in order {
            guard let targets = doomed[collection] else { continue }
            let column = core.layout(ofTable: collection.table).columns[collection.column]
            let state = try core.collectionState(table: collection.table, column: column, owner: collection.owner)
            var tree = PositionalTree(root: state.root)
            let expected = links[collection] ?? Int.max
            var positions: [Int] = []
            try tree.forEach(in: writing) { index, element in
                let key = element.count >= 8 ? UInt64(littleEndian: element.loadUnaligned(as: UInt64.self)) : UInt64.max
                if targets.contains(key) { positions.append(index) }
                return positions.count < expected
            }
            // Positions ascend: a last one equal to their count minus one means a leading run.
            if let last = positions.last, last == positions.count - 1 {
                try tree.removeFirst(positions.count, in: writing)
            } else {
                for index in positions.reversed() { try tree.remove(at: index, in: writing) }
            }
            state.root = tree.root
            state.dirty = true
            for key in targets {
                try core.backlinkStore.removeBacklinkEntry(target: t, targetKey: key, source: collection.table, column: collection.column,
                                        sourceKey: collection.owner)
            }
        }
        if !order.isEmpty { core.snap.metasDirty = true }
    }
}
