// Positional collections (List, MutableSet): a PositionalTree of element encodings per
// collection, opened through the per-snapshot cache (CollectionCache.swift).
//
// Invariants:
// - During a write, an edited collection's root lives in `openCollections` (dirty) until the
//   commit writes it into the owner's row (CollectionStore.swift, `flushCollections`).
// - A list keeps its elements in insertion order; a set keeps them sorted by their encoding
//   (`compareEncodings`), each once, so probes are binary searches.
// - Adding a link element records its backlink, removing one removes it; removing an element of
//   an embedded class deletes that object.
// - Reads that cannot throw stop on a storage failure (`readFailed`); edits run inside
//   `deferringFailure`, so a failure fails the write (WriteSession.swift).
import Foundation
import StrataStorage

/// The lists and sets of the core's snapshot (see the file header). A view of the core: the
/// open collection states are the core's `openCollections`.
struct ListStore {
    /// Strong, not `unowned(unsafe)`: each use of an unowned reference is retained and released
    /// again (measured: bulk inserts took 12% more CPU), while a strong one read from the view
    /// is borrowed; a view is made by its core for one call and never kept.
    let core: RealmCore
}

extension ListStore {
    /// The frame every edit of a positional collection shares: the write check, the open
    /// collection state and its tree; after an edit (`body` returns true) the tree's new root
    /// goes back into the state, marked dirty, and one change is counted. A failure is recorded
    /// and fails the write (WriteSession.swift).
    @inline(__always)
    private func editTree(_ collection: CollectionRef, _ what: @autoclosure () -> String,
                          _ body: (_ tree: inout PositionalTree, _ state: CollectionState, _ writing: WriteTransaction) throws -> Bool) {
        guard let writing = core.requireWrite(what()) else { return }
        do {
            let state = try core.collectionState(collection)
            var tree = PositionalTree(root: state.root)
            guard try body(&tree, state, writing) else { return }
            state.root = tree.root
            state.dirty = true
            core.changeCounter &+= 1
        } catch {
            // A failed edit may have changed the tree part-way: no cached cursor or result
            // may outlive it.
            core.changeCounter &+= 1
            core.record(error)
        }
    }

    /// The number of elements of `tree` (an empty tree has no root page to read).
    @inline(__always)
    private func elementCount(_ tree: PositionalTree, in writing: WriteTransaction) throws -> Int {
        tree.isEmpty ? 0 : try tree.count(in: writing)
    }

    func listCount(_ collection: CollectionRef) -> Int {
        core.checkThread()
        do {
            let state = try core.collectionState(collection)
            if state.root.isNull { return 0 }
            return try PositionalTree(root: state.root).count(in: try core.pages())
        } catch {
            core.readFailed(error)
        }
    }

    func listGet<E: _PersistableElement>(_ collection: CollectionRef, _ index: Int, as: E.Type) -> E {
        core.checkThread()
        do {
            let state = try core.collectionState(collection)
            let snapshotPages = try core.pages()
            let tree = PositionalTree(root: state.root)
            // The range is checked by the tree's own descent; the count is read only to word
            // the trap of an index out of range (a separate count read cost a page lookup).
            if index >= 0, !state.root.isNull {
                do {
                    // Reads in index order (iteration, Array(list.prefix(n))) stay in one leaf
                    // through the cursor instead of descending per element.
                    var cursor = state.cursorStamp == core.changeCounter ? state.cursor : nil
                    defer {
                        state.cursor = cursor
                        state.cursorStamp = core.changeCounter
                    }
                    return try tree.withElement(at: index, in: snapshotPages, cursor: &cursor) { collection.decodeElement($0, as: E.self) }
                } catch let error as StorageError where error.code == .invalidArgument {
                    if index < (try tree.count(in: snapshotPages)) { throw error }
                }
            }
            let elementCount = state.root.isNull ? 0 : try tree.count(in: snapshotPages)
            core.misuse(.invalidArgument, "index \(index) is out of range 0..<\(elementCount)")
        } catch {
            core.readFailed(error)
        }
    }

    /// Inserts at `index` (nil: append).
    func listInsert<E: _PersistableElement>(_ collection: CollectionRef, _ element: E, at index: Int?) {
        editTree(collection, "modifying a list") { tree, _, writing in
            if let index {
                let count = try elementCount(tree, in: writing)
                guard index >= 0, index <= count else { core.misuse(.invalidArgument, "insertion index \(index) is out of range 0...\(count)") }
                try core.withEncodedElement(element, for: collection) { try tree.insert($0, at: index, in: writing) }
            } else {
                try core.withEncodedElement(element, for: collection) { try tree.append($0, in: writing) }
            }
            return true
        }
    }

    /// Appends every element of `elements` with one write check and one state lookup (the
    /// harness appends its readings with `append(objectsIn:)`).
    /// Not written with `editTree`: this generic body inside its closure was not specialised for
    /// the caller's sequence, and the runtime type checks it then made cost the sensors' one-reading
    /// write ~2.5% of its CPU time.
    func listAppend<S: Sequence>(_ collection: CollectionRef, contentsOf elements: S) where S.Element: _PersistableElement {
        guard let writing = core.requireWrite("modifying a list") else { return }
        do {
            let state = try core.collectionState(collection)
            var tree = PositionalTree(root: state.root)
            // Lists and sets of objects: the link's target table is looked up once (after the
            // first element is added, which may create that table), not per element.
            let links = collection.column.type == .object && collection.column.collection != .map
            var targetTable: Int? = nil
            let items = Array(elements)
            // New objects of a plain class (the harness's readings): their rows, backlinks and
            // list entries each go in one sorted batch (BatchLinks.swift).
            if links, items.count > 1, let objects = items as? [Object],
               let (keys, inlined) = try core.backlinkStore.addPlainObjects(objects, viaLink: true, linkedFrom: (collection.table, collection.column.index, collection.owner)) {
                if !inlined, let targetTableIndex = core.linkTargetTable(table: collection.table, column: collection.column.index) {
                    try core.backlinkStore.addFreshBacklinks(target: targetTableIndex, targetKeys: keys, source: collection.table, column: collection.column.index, sourceKey: collection.owner)
                }
                try tree.appendUInt64s(keys, in: writing)
                state.root = tree.root
                state.dirty = true
                core.changeCounter &+= 1
                return
            }
            // The state follows the tree after each element, so a failure part-way leaves it
            // describing what was appended (the pending error then cancels the commit).
            for item in items {
                if links, let object = item as? Object {
                    // As withEncodedElement: a new object has no backlink entry to read yet.
                    let fresh = core.write.updatePolicy == .error && object._binding == nil
                    let (key, inlined) = try core.adding.keyForLinking(object, from: collection.table, column: collection.column.index, sourceKey: collection.owner)
                    if targetTable == nil { targetTable = core.linkTargetTable(table: collection.table, column: collection.column.index) }
                    if !inlined, let targetTableIndex = targetTable {
                        try core.backlinkStore.addBacklink(target: targetTableIndex, targetKey: key, source: collection.table, column: collection.column.index, sourceKey: collection.owner, fresh: fresh)
                    }
                    try tree.appendUInt64(key, in: writing)
                } else {
                    try core.withEncodedElement(item, for: collection) { try tree.append($0, in: writing) }
                }
                state.root = tree.root
                state.dirty = true
            }
            core.changeCounter &+= 1
        } catch {
            core.record(error)
        }
    }

    func listReplace<E: _PersistableElement>(_ collection: CollectionRef, _ index: Int, _ element: E) {
        editTree(collection, "modifying a list") { tree, _, writing in
            let count = try elementCount(tree, in: writing)
            guard index >= 0, index < count else { core.misuse(.invalidArgument, "index \(index) is out of range 0..<\(count)") }
            let bytes = try core.encodeElement(element, for: collection)
            try tree.withElement(at: index, in: writing) { try core.releaseElement($0, for: collection) }
            try bytes.withUnsafeBytes { try tree.replace(at: index, with: $0, in: writing) }
            return true
        }
    }

    func listRemove(_ collection: CollectionRef, at index: Int) {
        editTree(collection, "modifying a list") { tree, state, writing in
            let count = try elementCount(tree, in: writing)
            guard index >= 0, index < count else { core.misuse(.invalidArgument, "index \(index) is out of range 0..<\(count)") }
            guard collection.column.type == .object else {
                try tree.remove(at: index, in: writing)
                return true
            }
            // A list or set element of a link column is the 8-byte key (read by the removal itself).
            var key: UInt64?
            try tree.remove(at: index, in: writing) { key = $0.count >= 8 ? UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) : nil }
            // The state follows the tree before the link is released, so a failure there leaves
            // it describing the removal (the pending error then cancels the commit).
            state.root = tree.root
            state.dirty = true
            if let key { try core.releaseLink(key, for: collection) }
            return true
        }
    }

    /// Removes the first `count` elements in one pass: one state lookup and one count check for
    /// all of them (the sensors pattern trims the oldest readings this way), then the backlinks
    /// of removed links. Traps, removing nothing, when the list is shorter.
    func listRemoveFirst(_ collection: CollectionRef, _ count: Int) {
        editTree(collection, "modifying a list") { tree, state, writing in
            let available = try elementCount(tree, in: writing)
            guard count >= 0, count <= available else { core.misuse(.invalidArgument, "removeFirst(\(count)) on a list of \(available) elements") }
            if count == 0 { return false }
            guard collection.column.type == .object, let targetTableIndex = core.linkTargetTable(table: collection.table, column: collection.column.index) else {
                try tree.removeFirst(count, in: writing)
                return true
            }
            // Links: the batch removal hands over each removed key (no separate scan; whole
            // leaves dropped), then the backlinks go in one sorted pass, with the target table
            // looked up once for all (as releaseLink does).
            var keys: [UInt64] = []
            keys.reserveCapacity(count)
            try tree.removeFirst(count, in: writing) { removed in
                if removed.count >= 8 { keys.append(UInt64(littleEndian: removed.loadUnaligned(as: UInt64.self))) }
            }
            // As in listRemove: the state follows the tree before the backlinks go.
            state.root = tree.root
            state.dirty = true
            if core.snap.schemas[targetTableIndex].isEmbedded {
                for objectKey in keys {
                    try core.backlinkStore.removeBacklink(target: targetTableIndex, targetKey: objectKey, source: collection.table, column: collection.column.index, sourceKey: collection.owner)
                    try core.deletion.deleteObject(table: targetTableIndex, key: objectKey)
                }
            } else {
                try core.backlinkStore.removeBacklinks(target: targetTableIndex, targetKeys: keys, source: collection.table, column: collection.column.index, sourceKey: collection.owner)
            }
            return true
        }
    }

    func listRemoveAll(_ collection: CollectionRef) {
        guard let writing = core.requireWrite("modifying a list") else { return }
        do {
            let state = try core.collectionState(collection)
            guard !state.root.isNull else { return }
            let prop = core.snap.schemas[collection.table].allProperties[collection.column.index]
            try core.destroyCollection(root: state.root, kind: collection.column.collection, ownerTable: collection.table, column: collection.column.index, owner: collection.owner, property: prop)
            _ = writing
            state.root = .null
            state.dirty = true
            core.changeCounter &+= 1
        } catch {
            core.record(error)
        }
    }

    func listMove(_ collection: CollectionRef, from: Int, to: Int) {
        editTree(collection, "modifying a list") { tree, _, writing in
            let count = try elementCount(tree, in: writing)
            guard from >= 0, from < count, to >= 0, to < count else { core.misuse(.invalidArgument, "move(from: \(from), to: \(to)) is out of range 0..<\(count)") }
            if from == to { return false }
            let bytes = try tree.withElement(at: from, in: writing) { Array($0) }
            try tree.remove(at: from, in: writing)
            try bytes.withUnsafeBytes { try tree.insert($0, at: to, in: writing) }
            return true
        }
    }

    func listSwap(_ collection: CollectionRef, _ i: Int, _ j: Int) {
        editTree(collection, "modifying a list") { tree, _, writing in
            let count = try elementCount(tree, in: writing)
            guard i >= 0, i < count, j >= 0, j < count else { core.misuse(.invalidArgument, "swapAt(\(i), \(j)) is out of range 0..<\(count)") }
            if i == j { return false }
            let a = try tree.withElement(at: i, in: writing) { Array($0) }
            let b = try tree.withElement(at: j, in: writing) { Array($0) }
            try b.withUnsafeBytes { try tree.replace(at: i, with: $0, in: writing) }
            try a.withUnsafeBytes { try tree.replace(at: j, with: $0, in: writing) }
            return true
        }
    }

    /// All elements' raw bytes (for scans: contains, index(of:), aggregates, sets).
    func listForEach(_ collection: CollectionRef, _ body: (Int, UnsafeRawBufferPointer) throws -> Bool) {
        core.checkThread()
        do {
            let state = try core.collectionState(collection)
            guard !state.root.isNull else { return }
            try PositionalTree(root: state.root).forEach(from: 0, in: try core.pages(), body)
        } catch {
            core.readFailed(error)
        }
    }

    // MARK: - Sets: elements kept sorted by their encoding, so probes are binary searches

    /// Byte-wise order of two element encodings (a shorter prefix first).
    static func compareEncodings(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let commonLength = Swift.min(a.count, b.count)
        if commonLength > 0, let pa = a.baseAddress, let pb = b.baseAddress {
            let order = memcmp(pa, pb, commonLength)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    /// Where `probe` is (or would go) among the `elementCount` sorted encodings of a set tree. O(log² n)
    /// page visits: log n probes of an O(log n) positional lookup.
    private func setSearch(_ tree: PositionalTree, count elementCount: Int, _ probe: UnsafeRawBufferPointer,
                           in snapshotPages: any PageReading) throws -> (index: Int, found: Bool) {
        var lo = 0, hi = elementCount
        while lo < hi {
            let mid = (lo + hi) / 2
            let order = try tree.withElement(at: mid, in: snapshotPages) { Self.compareEncodings($0, probe) }
            if order == 0 { return (mid, true) }
            if order < 0 { lo = mid + 1 } else { hi = mid }
        }
        return (lo, false)
    }

    /// The encoding of `element` when it can be made without adding anything; nil for an
    /// unmanaged object (new, so in no set) or an object of another realm (encodeElement throws).
    private func probeEncoding<E: _PersistableElement>(_ element: E, for collection: CollectionRef) throws -> [UInt8]? {
        // An object is never an element of a collection of values (a dynamic view of one).
        if element is Object, collection.column.type != .object { return nil }
        if collection.column.type == .object {
            guard let object = element as? Object, let b = object._binding, b.core === core else { return nil }
            return withUnsafeBytes(of: b.key.littleEndian) { Array($0) }
        }
        var buf = _ElementBuffer(core: core, ownerTable: collection.table, ownerKey: collection.owner, ownerColumn: collection.column.index)
        try element._strataEncodeElement(&buf)
        return buf.bytes
    }

    /// The position of `element` in the set, nil when absent.
    func setIndex<E: _PersistableElement>(_ collection: CollectionRef, _ element: E) -> Int? {
        core.checkThread()
        do {
            let state = try core.collectionState(collection)
            guard !state.root.isNull, let probe = try probeEncoding(element, for: collection) else { return nil }
            let snapshotPages = try core.pages()
            let tree = PositionalTree(root: state.root)
            let elementCount = try tree.count(in: snapshotPages)
            let (i, found) = try probe.withUnsafeBytes { try setSearch(tree, count: elementCount, $0, in: snapshotPages) }
            return found ? i : nil
        } catch {
            core.readFailed(error)
        }
    }

    /// Inserts `element` at its sorted place unless present.
    func setInsert<E: _PersistableElement>(_ collection: CollectionRef, _ element: E) {
        editTree(collection, "modifying a set") { tree, _, writing in
            let count = try elementCount(tree, in: writing)
            if let probe = try probeEncoding(element, for: collection),
               try probe.withUnsafeBytes({ try setSearch(tree, count: count, $0, in: writing) }).found {
                return false
            }
            let bytes = try core.encodeElement(element, for: collection)
            let (at, found) = try bytes.withUnsafeBytes { try setSearch(tree, count: count, $0, in: writing) }
            if found {
                // An unmanaged object that an upsert resolved to one already in the set: undo
                // the backlink encodeElement recorded.
                try bytes.withUnsafeBytes { try core.releaseElement($0, for: collection) }
                return false
            }
            try bytes.withUnsafeBytes { try tree.insert($0, at: at, in: writing) }
            return true
        }
    }
}
