// Collection trees of objects (List, MutableSet: PositionalTree; Map: BytesTree): opening them
// through the per-snapshot cache, list operations, flushing roots at commit, freeing on delete.
//
// Invariants:
// - During a write, the current root of an open collection lives in `openCollections` (dirty;
//   CollectionCache.swift); the owner's row is rewritten once, at commit (`flushCollections`).
// - A collection of links stores 8-byte little-endian object keys; each element has a backlink
//   count (Backlinks.swift). Removing an element of an embedded class deletes that object.
import Foundation
import StrataStorage

/// A managed collection: which object and column it belongs to.
struct CollectionRef {
    let core: RealmCore
    let table: Int
    let column: _Column
    let owner: UInt64
    /// The realm's `era` when the collection was handed out (see `ObjectBinding.era`).
    let era: UInt32

    /// `era`: the owner's (`ObjectBinding.era`); by default the realm's current one.
    init(core: RealmCore, table: Int, column: _Column, owner: UInt64, era: UInt32? = nil) {
        self.core = core
        self.table = table
        self.column = column
        self.owner = owner
        self.era = era ?? core.era
    }
}

extension ObjectBinding {
    /// The collection stored in the property with `ordinal` of this managed object.
    func collectionRef(ordinal: Int) -> CollectionRef {
        CollectionRef(core: core, table: table, column: info.column(forOrdinal: ordinal), owner: key, era: era)
    }
}

extension RealmCore {
    /// The state of the collection `ref` names; throws `.objectInvalidated` when its owner was
    /// deleted or the realm invalidated since the collection was handed out.
    func collectionState(_ ref: CollectionRef) throws -> CollectionState {
        guard ref.era == era else {
            throw Realm.Error(.objectInvalidated, "this collection was invalidated with its realm ('\(fileIdentity)')")
        }
        return try collectionState(table: ref.table, column: ref.column, owner: ref.owner)
    }

    func collectionState(table: Int, column: _Column, owner: UInt64) throws -> CollectionState {
        let key = CollectionKey(table: table, column: column.index, owner: owner)
        // Frozen cores are read from several threads at once: they never cache (no mutation).
        if isFrozen {
            if let open = openCollections[key] { return open }
        } else if let open = openCollections.state(for: key, remember: true) {
            return open
        }
        let snapshotPages = try pages()
        guard table < snap.metas.count, let root = try snap.metas[table].objects.withValue(forKey: owner, in: snapshotPages, {
            PageRef(_RowView(bytes: $0, core: self).load(column, as: UInt32.self))
        }) else {
            throw Realm.Error(.objectInvalidated, "the object owning this collection was deleted or invalidated")
        }
        let state = CollectionState(root: root, table: table, column: column.index, owner: owner)
        if !isFrozen { openCollections.insert(state, for: key) }
        return state
    }

    func flushCollections(_ writing: WriteTransaction) throws {
        for state in openCollections.dirtyStates {
            let column = layout(ofTable: state.table).columns[state.column]
            guard var row = try snap.metas[state.table].objects.withValue(forKey: state.owner, in: writing, { Array($0) }) else { continue }
            guard column.offset + 4 <= row.count else { continue }
            row.withUnsafeMutableBytes { $0.storeBytes(of: state.root.raw.littleEndian, toByteOffset: column.offset, as: UInt32.self) }
            try row.withUnsafeBytes { _ = try snap.metas[state.table].objects.put(state.owner, $0, in: writing) }
            state.dirty = false
            snap.metasDirty = true
        }
    }

    /// Frees a collection tree, dropping the backlinks of its links (and deleting embedded targets).
    /// `keeping`: linked objects that stay linked from this collection's owner and column (a
    /// list of embedded objects updated in place, EmbeddedInPlaceUpdate.swift).
    func destroyCollection(root: PageRef, kind: CollectionKind, ownerTable: Int, column: Int, owner: UInt64, property: Property,
                           keeping: Set<UInt64> = []) throws {
        guard !root.isNull, let writing = writeTxn else { return }
        if property.type == .object, let targetTableIndex = targetTable(of: property) {
            let embedded = snap.schemas[targetTableIndex].isEmbedded
            for objectKey in try linkedKeys(inCollection: root, kind: kind, writing) where !keeping.contains(objectKey) {
                try removeBacklinkEntry(target: targetTableIndex, targetKey: objectKey, source: ownerTable, column: column, sourceKey: owner)
                if embedded { try deleteObject(table: targetTableIndex, key: objectKey) }
            }
        }
        if kind == .map {
            var t = BytesTree(root: root)
            try t.destroy(in: writing)
        } else {
            var t = PositionalTree(root: root)
            try t.destroy(in: writing)
        }
    }

    /// The distinct object keys a collection tree of links holds (a map's non-null values).
    func linkedKeys(inCollection root: PageRef, kind: CollectionKind, _ pages: some PageReading) throws -> Set<UInt64> {
        var keys = Set<UInt64>()
        if kind == .map {
            try BytesTree(root: root).forEach(from: nil, in: pages) { _, value in
                if value.count == 9, value[0] == 1 { keys.insert(UInt64(littleEndian: UnsafeRawBufferPointer(rebasing: value[1...]).loadUnaligned(as: UInt64.self))) }
                return true
            }
        } else {
            try PositionalTree(root: root).forEach(from: 0, in: pages) { _, e in
                if e.count >= 8 { keys.insert(UInt64(littleEndian: e.loadUnaligned(as: UInt64.self))) }
                return true
            }
        }
        return keys
    }

    // MARK: - Positional collections (List, MutableSet)

    /// Encodes `element` for the collection `r` (adding an unmanaged linked object), records its
    /// backlink and calls `body` with the encoding (valid only inside `body`). The hot path of
    /// appends: a link is encoded on the stack, other values in `addPath.elementBytes` (no allocation).
    @inline(__always)
    func withEncodedElement<E: _PersistableElement, R>(_ element: E, for collection: CollectionRef,
                                                       _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        if E.self == DynamicObject.self || E.self == DynamicObject?.self { try checkDynamicElement(element, for: collection) }
        // Lists and sets of objects hold non-optional objects (validated by ClassInfo); map values
        // may be optional and take the general path below.
        if collection.column.type == .object, collection.column.collection != .map, let object = element as? Object {
            // An object created by this very append has no backlink entry yet: skip reading it.
            // (With an upsert policy an unmanaged object may resolve to an existing one: no skip.)
            let fresh = write.updatePolicy == .error && object._binding == nil
            // A new object gets this link's backlink in its row (InlineBacklinks.swift).
            let (key, inlined) = try keyForLinking(object, from: collection.table, column: collection.column.index, sourceKey: collection.owner)
            if !inlined, let targetTableIndex = linkTargetTable(table: collection.table, column: collection.column.index) {
                try addBacklink(target: targetTableIndex, targetKey: key, source: collection.table, column: collection.column.index, sourceKey: collection.owner, fresh: fresh)
            }
            return try withUnsafeBytes(of: key.littleEndian, body)
        }
        var buf = _ElementBuffer(core: self, ownerTable: collection.table, ownerKey: collection.owner, ownerColumn: collection.column.index)
        buf.bytes = addPath.elementBytes
        addPath.elementBytes = []
        buf.bytes.removeAll(keepingCapacity: true)
        try encodeElement(element, for: collection, into: &buf)
        defer { addPath.elementBytes = buf.bytes }
        return try buf.bytes.withUnsafeBytes(body)
    }

    /// Encodes `element` for the collection `r` (adding an unmanaged linked object) and records its
    /// backlink. Returns the encoded bytes.
    func encodeElement<E: _PersistableElement>(_ element: E, for collection: CollectionRef) throws -> [UInt8] {
        var buf = _ElementBuffer(core: self, ownerTable: collection.table, ownerKey: collection.owner, ownerColumn: collection.column.index)
        try encodeElement(element, for: collection, into: &buf)
        return buf.bytes
    }

    private func encodeElement<E: _PersistableElement>(_ element: E, for collection: CollectionRef, into buf: inout _ElementBuffer) throws {
        if E.self == DynamicObject.self || E.self == DynamicObject?.self { try checkDynamicElement(element, for: collection) }
        // An object created by this very append has no backlink entry yet: skip reading it.
        // (With an upsert policy an unmanaged object may resolve to an existing one: no skip.)
        let fresh = collection.column.type == .object && write.updatePolicy == .error && (element as? Object)?._binding == nil
        try element._strataEncodeElement(&buf)
        // Links are 8 bytes, or [1] + 8 bytes when the element type is optional (map values).
        let keyOffset = buf.bytes.count == 8 ? 0 : (buf.bytes.count == 9 && buf.bytes[0] == 1 ? 1 : -1)
        if collection.column.type == .object, keyOffset >= 0, let targetTableIndex = linkTargetTable(table: collection.table, column: collection.column.index) {
            let key = buf.bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: keyOffset, as: UInt64.self)) }
            try addBacklink(target: targetTableIndex, targetKey: key, source: collection.table, column: collection.column.index, sourceKey: collection.owner, fresh: fresh)
        }
    }

    /// The table that column `c` of table `t` links to (nil: not a link, or no table yet). Through
    /// the bound class's linked type when there is one (an identifier lookup), else by class name.
    @inline(__always)
    func linkTargetTable(table t: Int, column c: Int) -> Int? {
        if t < snap.infos.count, let info = snap.infos[t], c < info.linkedTypes.count, let lt = info.linkedTypes[c],
           let targetTableIndex = snap.tableByClass[ObjectIdentifier(lt)] {
            return targetTableIndex
        }
        return targetTable(of: snap.schemas[t].allProperties[c])
    }

    /// Undoes `encodeElement`'s backlink for an element leaving the collection.
    func releaseElement(_ bytes: UnsafeRawBufferPointer, for collection: CollectionRef) throws {
        guard collection.column.type == .object, bytes.count >= 8,
              let targetTableIndex = linkTargetTable(table: collection.table, column: collection.column.index) else { return }
        let key = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        try removeBacklink(target: targetTableIndex, targetKey: key, source: collection.table, column: collection.column.index, sourceKey: collection.owner)
        if snap.schemas[targetTableIndex].isEmbedded { try deleteObject(table: targetTableIndex, key: key) }
    }

    /// `releaseElement` for a link element given as its object key.
    func releaseLink(_ key: UInt64, for collection: CollectionRef) throws {
        guard collection.column.type == .object, let targetTableIndex = linkTargetTable(table: collection.table, column: collection.column.index) else { return }
        try removeBacklink(target: targetTableIndex, targetKey: key, source: collection.table, column: collection.column.index, sourceKey: collection.owner)
        if snap.schemas[targetTableIndex].isEmbedded { try deleteObject(table: targetTableIndex, key: key) }
    }

    func listCount(_ collection: CollectionRef) -> Int {
        checkThread()
        do {
            let state = try collectionState(collection)
            if state.root.isNull { return 0 }
            return try PositionalTree(root: state.root).count(in: try pages())
        } catch {
            readFailed(error)
        }
    }

    func listGet<E: _PersistableElement>(_ collection: CollectionRef, _ index: Int, as: E.Type) -> E {
        checkThread()
        do {
            let state = try collectionState(collection)
            let snapshotPages = try pages()
            let tree = PositionalTree(root: state.root)
            // The range is checked by the tree's own descent; the count is read only to word
            // the trap of an index out of range (a separate count read cost a page lookup).
            if index >= 0, !state.root.isNull {
                do {
                    // Reads in index order (iteration, Array(list.prefix(n))) stay in one leaf
                    // through the cursor instead of descending per element.
                    var cursor = state.cursorStamp == changeCounter ? state.cursor : nil
                    defer {
                        state.cursor = cursor
                        state.cursorStamp = changeCounter
                    }
                    return try tree.withElement(at: index, in: snapshotPages, cursor: &cursor) { decodeElement($0, of: collection, as: E.self) }
                } catch let error as StorageError where error.code == .invalidArgument {
                    if index < (try tree.count(in: snapshotPages)) { throw error }
                }
            }
            let elementCount = state.root.isNull ? 0 : try tree.count(in: snapshotPages)
            misuse(.invalidArgument, "index \(index) is out of range 0..<\(elementCount)")
        } catch {
            readFailed(error)
        }
    }

    /// Inserts at `index` (nil: append).
    func listInsert<E: _PersistableElement>(_ collection: CollectionRef, _ element: E, at index: Int?) {
        guard let writing = requireWrite("modifying a list") else { return }
        do {
            let state = try collectionState(collection)
            var tree = PositionalTree(root: state.root)
            if let index {
                let elementCount = tree.isEmpty ? 0 : try tree.count(in: writing)
                guard index >= 0, index <= elementCount else { misuse(.invalidArgument, "insertion index \(index) is out of range 0...\(elementCount)") }
                try withEncodedElement(element, for: collection) { try tree.insert($0, at: index, in: writing) }
            } else {
                try withEncodedElement(element, for: collection) { try tree.append($0, in: writing) }
            }
            state.root = tree.root
            state.dirty = true
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    /// Appends every element of `elements` with one write check and one state lookup (the
    /// harness appends its readings with `append(objectsIn:)`).
    func listAppend<S: Sequence>(_ collection: CollectionRef, contentsOf elements: S) where S.Element: _PersistableElement {
        guard let writing = requireWrite("modifying a list") else { return }
        do {
            let state = try collectionState(collection)
            var tree = PositionalTree(root: state.root)
            // Lists and sets of objects: the link's target table is looked up once (after the
            // first element is added, which may create that table), not per element.
            let links = collection.column.type == .object && collection.column.collection != .map
            var targetTable: Int? = nil
            let items = Array(elements)
            // New objects of a plain class (the harness's readings): their rows, backlinks and
            // list entries each go in one sorted batch (BatchLinks.swift).
            if links, items.count > 1, let objects = items as? [Object],
               let (keys, inlined) = try addPlainObjects(objects, viaLink: true, linkedFrom: (collection.table, collection.column.index, collection.owner)) {
                if !inlined, let targetTableIndex = linkTargetTable(table: collection.table, column: collection.column.index) {
                    try addFreshBacklinks(target: targetTableIndex, targetKeys: keys, source: collection.table, column: collection.column.index, sourceKey: collection.owner)
                }
                try tree.appendUInt64s(keys, in: writing)
                state.root = tree.root
                state.dirty = true
                changeCounter &+= 1
                return
            }
            // The state follows the tree after each element, so a failure part-way leaves it
            // describing what was appended (the pending error then cancels the commit).
            for item in items {
                if links, let object = item as? Object {
                    // As withEncodedElement: a new object has no backlink entry to read yet.
                    let fresh = write.updatePolicy == .error && object._binding == nil
                    let (key, inlined) = try keyForLinking(object, from: collection.table, column: collection.column.index, sourceKey: collection.owner)
                    if targetTable == nil { targetTable = linkTargetTable(table: collection.table, column: collection.column.index) }
                    if !inlined, let targetTableIndex = targetTable {
                        try addBacklink(target: targetTableIndex, targetKey: key, source: collection.table, column: collection.column.index, sourceKey: collection.owner, fresh: fresh)
                    }
                    try tree.appendUInt64(key, in: writing)
                } else {
                    try withEncodedElement(item, for: collection) { try tree.append($0, in: writing) }
                }
                state.root = tree.root
                state.dirty = true
            }
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    func listReplace<E: _PersistableElement>(_ collection: CollectionRef, _ index: Int, _ element: E) {
        guard let writing = requireWrite("modifying a list") else { return }
        do {
            let state = try collectionState(collection)
            var tree = PositionalTree(root: state.root)
            let elementCount = tree.isEmpty ? 0 : try tree.count(in: writing)
            guard index >= 0, index < elementCount else { misuse(.invalidArgument, "index \(index) is out of range 0..<\(elementCount)") }
            let bytes = try encodeElement(element, for: collection)
            try tree.withElement(at: index, in: writing) { try releaseElement($0, for: collection) }
            try bytes.withUnsafeBytes { try tree.replace(at: index, with: $0, in: writing) }
            state.root = tree.root
            state.dirty = true
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    func listRemove(_ collection: CollectionRef, at index: Int) {
        guard let writing = requireWrite("modifying a list") else { return }
        do {
            let state = try collectionState(collection)
            var tree = PositionalTree(root: state.root)
            let elementCount = tree.isEmpty ? 0 : try tree.count(in: writing)
            guard index >= 0, index < elementCount else { misuse(.invalidArgument, "index \(index) is out of range 0..<\(elementCount)") }
            if collection.column.type == .object {
                // A list or set element of a link column is the 8-byte key (read by the removal itself).
                var key: UInt64?
                try tree.remove(at: index, in: writing) { key = $0.count >= 8 ? UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) : nil }
                state.root = tree.root
                state.dirty = true
                if let key { try releaseLink(key, for: collection) }
            } else {
                try tree.remove(at: index, in: writing)
                state.root = tree.root
                state.dirty = true
            }
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    /// Removes the first `count` elements in one pass: one state lookup and one count check for
    /// all of them (the sensors pattern trims the oldest readings this way), then the backlinks
    /// of removed links. Traps, removing nothing, when the list is shorter.
    func listRemoveFirst(_ collection: CollectionRef, _ count: Int) {
        guard let writing = requireWrite("modifying a list") else { return }
        do {
            let state = try collectionState(collection)
            var tree = PositionalTree(root: state.root)
            let elementCount = tree.isEmpty ? 0 : try tree.count(in: writing)
            guard count >= 0, count <= elementCount else { misuse(.invalidArgument, "removeFirst(\(count)) on a list of \(elementCount) elements") }
            if count == 0 { return }
            guard collection.column.type == .object, let targetTableIndex = linkTargetTable(table: collection.table, column: collection.column.index) else {
                try tree.removeFirst(count, in: writing)
                state.root = tree.root
                state.dirty = true
                changeCounter &+= 1
                return
            }
            // Links: the batch removal hands over each removed key (no separate scan; whole
            // leaves dropped), then the backlinks go in one sorted pass, with the target table
            // looked up once for all (as releaseLink does).
            var keys: [UInt64] = []
            keys.reserveCapacity(count)
            try tree.removeFirst(count, in: writing) { removed in
                if removed.count >= 8 { keys.append(UInt64(littleEndian: removed.loadUnaligned(as: UInt64.self))) }
            }
            state.root = tree.root
            state.dirty = true
            changeCounter &+= 1
            if snap.schemas[targetTableIndex].isEmbedded {
                for objectKey in keys {
                    try removeBacklink(target: targetTableIndex, targetKey: objectKey, source: collection.table, column: collection.column.index, sourceKey: collection.owner)
                    try deleteObject(table: targetTableIndex, key: objectKey)
                }
            } else {
                try removeBacklinks(target: targetTableIndex, targetKeys: keys, source: collection.table, column: collection.column.index, sourceKey: collection.owner)
            }
        } catch {
            record(error)
        }
    }

    func listRemoveAll(_ collection: CollectionRef) {
        guard let writing = requireWrite("modifying a list") else { return }
        do {
            let state = try collectionState(collection)
            guard !state.root.isNull else { return }
            let prop = snap.schemas[collection.table].allProperties[collection.column.index]
            try destroyCollection(root: state.root, kind: collection.column.collection, ownerTable: collection.table, column: collection.column.index, owner: collection.owner, property: prop)
            _ = writing
            state.root = .null
            state.dirty = true
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    func listMove(_ collection: CollectionRef, from: Int, to: Int) {
        guard let writing = requireWrite("modifying a list") else { return }
        do {
            let state = try collectionState(collection)
            var tree = PositionalTree(root: state.root)
            let elementCount = tree.isEmpty ? 0 : try tree.count(in: writing)
            guard from >= 0, from < elementCount, to >= 0, to < elementCount else { misuse(.invalidArgument, "move(from: \(from), to: \(to)) is out of range 0..<\(elementCount)") }
            if from == to { return }
            let bytes = try tree.withElement(at: from, in: writing) { Array($0) }
            try tree.remove(at: from, in: writing)
            try bytes.withUnsafeBytes { try tree.insert($0, at: to, in: writing) }
            state.root = tree.root
            state.dirty = true
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    func listSwap(_ collection: CollectionRef, _ i: Int, _ j: Int) {
        guard let writing = requireWrite("modifying a list") else { return }
        do {
            let state = try collectionState(collection)
            var tree = PositionalTree(root: state.root)
            let elementCount = tree.isEmpty ? 0 : try tree.count(in: writing)
            guard i >= 0, i < elementCount, j >= 0, j < elementCount else { misuse(.invalidArgument, "swapAt(\(i), \(j)) is out of range 0..<\(elementCount)") }
            if i == j { return }
            let a = try tree.withElement(at: i, in: writing) { Array($0) }
            let b = try tree.withElement(at: j, in: writing) { Array($0) }
            try b.withUnsafeBytes { try tree.replace(at: i, with: $0, in: writing) }
            try a.withUnsafeBytes { try tree.replace(at: j, with: $0, in: writing) }
            state.root = tree.root
            state.dirty = true
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    /// All elements' raw bytes (for scans: contains, index(of:), aggregates, sets).
    func listForEach(_ collection: CollectionRef, _ body: (Int, UnsafeRawBufferPointer) throws -> Bool) {
        checkThread()
        do {
            let state = try collectionState(collection)
            guard !state.root.isNull else { return }
            try PositionalTree(root: state.root).forEach(from: 0, in: try pages(), body)
        } catch {
            readFailed(error)
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
            guard let object = element as? Object, let b = object._binding, b.core === self else { return nil }
            return withUnsafeBytes(of: b.key.littleEndian) { Array($0) }
        }
        var buf = _ElementBuffer(core: self, ownerTable: collection.table, ownerKey: collection.owner, ownerColumn: collection.column.index)
        try element._strataEncodeElement(&buf)
        return buf.bytes
    }

    /// The position of `element` in the set, nil when absent.
    func setIndex<E: _PersistableElement>(_ collection: CollectionRef, _ element: E) -> Int? {
        checkThread()
        do {
            let state = try collectionState(collection)
            guard !state.root.isNull, let probe = try probeEncoding(element, for: collection) else { return nil }
            let snapshotPages = try pages()
            let tree = PositionalTree(root: state.root)
            let elementCount = try tree.count(in: snapshotPages)
            let (i, found) = try probe.withUnsafeBytes { try setSearch(tree, count: elementCount, $0, in: snapshotPages) }
            return found ? i : nil
        } catch {
            readFailed(error)
        }
    }

    /// Inserts `element` at its sorted place unless present.
    func setInsert<E: _PersistableElement>(_ collection: CollectionRef, _ element: E) {
        guard let writing = requireWrite("modifying a set") else { return }
        do {
            let state = try collectionState(collection)
            var tree = PositionalTree(root: state.root)
            let elementCount = tree.isEmpty ? 0 : try tree.count(in: writing)
            if let probe = try probeEncoding(element, for: collection),
               try probe.withUnsafeBytes({ try setSearch(tree, count: elementCount, $0, in: writing) }).found {
                return
            }
            let bytes = try encodeElement(element, for: collection)
            let (at, found) = try bytes.withUnsafeBytes { try setSearch(tree, count: elementCount, $0, in: writing) }
            if found {
                // An unmanaged object that an upsert resolved to one already in the set: undo
                // the backlink encodeElement recorded.
                try bytes.withUnsafeBytes { try releaseElement($0, for: collection) }
                return
            }
            try bytes.withUnsafeBytes { try tree.insert($0, at: at, in: writing) }
            state.root = tree.root
            state.dirty = true
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    /// Writes a whole unmanaged collection into a new tree (used when adding an object or
    /// assigning a collection property); releases the previous tree of an existing row.
    /// `sortedSet`: store the distinct encodings in byte order (MutableSet's invariant).
    func storeCollection<E: _PersistableElement>(_ elements: [E], _ row: inout _RowBuilder, _ column: _Column,
                                                 sortedSet: Bool = false) throws {
        guard let writing = writeTxn else { throw Realm.Error(.notInWriteTransaction, "collections change only inside a write transaction") }
        if !sortedSet, updatesEmbeddedListInPlace(row, column) {
            try storeEmbeddedListInPlace(elements, &row, column, writing)
            return
        }
        if !row.isNew {
            let key = CollectionKey(table: row.table, column: column.index, owner: row.key)
            let oldRoot = openCollections[key]?.root ?? PageRef(row.currentLoad(column, as: UInt32.self))
            let property = snap.schemas[row.table].allProperties[column.index]
            try destroyCollection(root: oldRoot, kind: column.collection, ownerTable: row.table, column: column.index, owner: row.key, property: property)
            openCollections.remove(key)
        }
        let collection = CollectionRef(core: self, table: row.table, column: column, owner: row.key)
        var tree = PositionalTree()
        if sortedSet {
            var encoded = try elements.map { try encodeElement($0, for: collection) }
            encoded.sort { a, b in a.withUnsafeBytes { pa in b.withUnsafeBytes { Self.compareEncodings(pa, $0) < 0 } } }
            var previous: [UInt8]? = nil
            for bytes in encoded {
                if bytes == previous {
                    try bytes.withUnsafeBytes { try releaseElement($0, for: collection) }
                    continue
                }
                try bytes.withUnsafeBytes { try tree.append($0, in: writing) }
                previous = bytes
            }
        } else {
            for element in elements {
                try withEncodedElement(element, for: collection) { try tree.append($0, in: writing) }
            }
        }
        row.store(tree.root.raw, column)
    }
}
