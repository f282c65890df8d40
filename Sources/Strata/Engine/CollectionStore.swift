// Collection trees of objects (List, MutableSet: PositionalTree; Map: BytesTree): opening them
// through the per-snapshot cache, list operations, flushing roots at commit, freeing on delete.
//
// Invariants:
// - During a write, the current root of an open collection lives in `collections` (dirty);
//   the owner's row is rewritten once, at commit (`flushCollections`), not per change.
// - A collection of links stores 8-byte little-endian object keys; each element has a backlink
//   count (Backlinks.swift). Removing an element of an embedded class deletes that object.
// - `lastCollection` (RealmCore) is always an entry of `collections` or nil: any change to the
//   dictionary clears it, and frozen cores never set it.
import Foundation
import StrataStorage

/// A managed collection: which object and column it belongs to.
struct CollectionRef {
    let core: RealmCore
    let table: Int
    let column: _Column
    let owner: UInt64
}

extension ObjectBinding {
    /// The collection stored in the property with `ordinal` of this managed object.
    func collectionRef(ordinal: Int) -> CollectionRef {
        CollectionRef(core: core, table: table, column: info.column(forOrdinal: ordinal), owner: key)
    }
}

extension RealmCore {
    func collectionState(table: Int, column c: _Column, owner: UInt64) throws -> CollectionState {
        let k = CollectionKey(table: Int32(truncatingIfNeeded: table), column: Int32(truncatingIfNeeded: c.index), owner: owner)
        if let last = lastCollection, last.key == k { return last.state }
        if let s = collections[k] {
            if !isFrozen { lastCollection = (k, s) }
            return s
        }
        let p = try pages()
        guard table < snap.metas.count, let root = try snap.metas[table].objects.withValue(forKey: owner, in: p, {
            PageRef(_RowView(bytes: $0, core: self).load(c, as: UInt32.self))
        }) else {
            throw Realm.Error(.objectInvalidated, "the object owning this collection was deleted or invalidated")
        }
        let s = CollectionState(root: root, table: table, column: c.index, owner: owner)
        // Frozen cores are read from several threads at once: they never cache (no mutation).
        if !isFrozen {
            collections[k] = s
            lastCollection = (k, s)
        }
        return s
    }

    func flushCollections(_ w: WriteTransaction) throws {
        for s in collections.values where s.dirty {
            let c = layout(ofTable: s.table).columns[s.column]
            guard var row = try snap.metas[s.table].objects.withValue(forKey: s.owner, in: w, { Array($0) }) else { continue }
            guard c.offset + 4 <= row.count else { continue }
            row.withUnsafeMutableBytes { $0.storeBytes(of: s.root.raw.littleEndian, toByteOffset: c.offset, as: UInt32.self) }
            try row.withUnsafeBytes { _ = try snap.metas[s.table].objects.put(s.owner, $0, in: w) }
            s.dirty = false
            snap.metasDirty = true
        }
    }

    /// Frees a collection tree, dropping the backlinks of its links (and deleting embedded targets).
    func destroyCollection(root: PageRef, kind: CollectionKind, ownerTable: Int, column: Int, owner: UInt64, property: Property) throws {
        guard !root.isNull, let w = writeTxn else { return }
        if property.type == .object, let tt = targetTable(of: property) {
            var keys: [UInt64] = []
            if kind == .map {
                try BytesTree(root: root).forEach(from: nil, in: w) { _, v in
                    if v.count == 9, v[0] == 1 { keys.append(UInt64(littleEndian: UnsafeRawBufferPointer(rebasing: v[1...]).loadUnaligned(as: UInt64.self))) }
                    return true
                }
            } else {
                try PositionalTree(root: root).forEach(from: 0, in: w) { _, e in
                    if e.count >= 8 { keys.append(UInt64(littleEndian: e.loadUnaligned(as: UInt64.self))) }
                    return true
                }
            }
            let embedded = snap.schemas[tt].isEmbedded
            for k in Set(keys) {
                try removeBacklinkEntry(target: tt, targetKey: k, source: ownerTable, column: column, sourceKey: owner)
                if embedded { try deleteObject(table: tt, key: k) }
            }
        }
        if kind == .map {
            var t = BytesTree(root: root)
            try t.destroy(in: w)
        } else {
            var t = PositionalTree(root: root)
            try t.destroy(in: w)
        }
    }

    // MARK: - Positional collections (List, MutableSet)

    /// Encodes `element` for the collection `r` (adding an unmanaged linked object), records its
    /// backlink and calls `body` with the encoding (valid only inside `body`). The hot path of
    /// appends: a link is encoded on the stack, other values in `elementScratch` (no allocation).
    @inline(__always)
    func withEncodedElement<E: _PersistableElement, R>(_ element: E, for r: CollectionRef,
                                                       _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        // Lists and sets of objects hold non-optional objects (validated by ClassInfo); map values
        // may be optional and take the general path below.
        if r.column.type == .object, r.column.collection != .map, let o = element as? Object {
            // An object created by this very append has no backlink entry yet: skip reading it.
            // (With an upsert policy an unmanaged object may resolve to an existing one: no skip.)
            let fresh = updatePolicy == .error && o._binding == nil
            // A new object gets this link's backlink in its row (InlineBacklinks.swift).
            let (key, inlined) = try keyForLinking(o, from: r.table, column: r.column.index, sourceKey: r.owner)
            if !inlined, let tt = linkTargetTable(table: r.table, column: r.column.index) {
                try addBacklink(target: tt, targetKey: key, source: r.table, column: r.column.index, sourceKey: r.owner, fresh: fresh)
            }
            return try withUnsafeBytes(of: key.littleEndian, body)
        }
        var buf = _ElementBuffer(core: self, ownerTable: r.table, ownerKey: r.owner, ownerColumn: r.column.index)
        buf.bytes = elementScratch
        elementScratch = []
        buf.bytes.removeAll(keepingCapacity: true)
        try encodeElement(element, for: r, into: &buf)
        defer { elementScratch = buf.bytes }
        return try buf.bytes.withUnsafeBytes(body)
    }

    /// Encodes `element` for the collection `r` (adding an unmanaged linked object) and records its
    /// backlink. Returns the encoded bytes.
    func encodeElement<E: _PersistableElement>(_ element: E, for r: CollectionRef) throws -> [UInt8] {
        var buf = _ElementBuffer(core: self, ownerTable: r.table, ownerKey: r.owner, ownerColumn: r.column.index)
        try encodeElement(element, for: r, into: &buf)
        return buf.bytes
    }

    private func encodeElement<E: _PersistableElement>(_ element: E, for r: CollectionRef, into buf: inout _ElementBuffer) throws {
        // An object created by this very append has no backlink entry yet: skip reading it.
        // (With an upsert policy an unmanaged object may resolve to an existing one: no skip.)
        let fresh = r.column.type == .object && updatePolicy == .error && (element as? Object)?._binding == nil
        try element._strataEncodeElement(&buf)
        // Links are 8 bytes, or [1] + 8 bytes when the element type is optional (map values).
        let keyOffset = buf.bytes.count == 8 ? 0 : (buf.bytes.count == 9 && buf.bytes[0] == 1 ? 1 : -1)
        if r.column.type == .object, keyOffset >= 0, let tt = linkTargetTable(table: r.table, column: r.column.index) {
            let key = buf.bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: keyOffset, as: UInt64.self)) }
            try addBacklink(target: tt, targetKey: key, source: r.table, column: r.column.index, sourceKey: r.owner, fresh: fresh)
        }
    }

    /// The table that column `c` of table `t` links to (nil: not a link, or no table yet). Through
    /// the bound class's linked type when there is one (an identifier lookup), else by class name.
    @inline(__always)
    func linkTargetTable(table t: Int, column c: Int) -> Int? {
        if t < snap.infos.count, let info = snap.infos[t], c < info.linkedTypes.count, let lt = info.linkedTypes[c],
           let tt = snap.tableByClass[ObjectIdentifier(lt)] {
            return tt
        }
        return targetTable(of: snap.schemas[t].properties[c])
    }

    /// Undoes `encodeElement`'s backlink for an element leaving the collection.
    func releaseElement(_ bytes: UnsafeRawBufferPointer, for r: CollectionRef) throws {
        guard r.column.type == .object, bytes.count >= 8,
              let tt = linkTargetTable(table: r.table, column: r.column.index) else { return }
        let key = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        try removeBacklink(target: tt, targetKey: key, source: r.table, column: r.column.index, sourceKey: r.owner)
        if snap.schemas[tt].isEmbedded { try deleteObject(table: tt, key: key) }
    }

    /// `releaseElement` for a link element given as its object key.
    func releaseLink(_ key: UInt64, for r: CollectionRef) throws {
        guard r.column.type == .object, let tt = linkTargetTable(table: r.table, column: r.column.index) else { return }
        try removeBacklink(target: tt, targetKey: key, source: r.table, column: r.column.index, sourceKey: r.owner)
        if snap.schemas[tt].isEmbedded { try deleteObject(table: tt, key: key) }
    }

    func listCount(_ r: CollectionRef) -> Int {
        checkThread()
        do {
            let s = try collectionState(table: r.table, column: r.column, owner: r.owner)
            if s.root.isNull { return 0 }
            return try PositionalTree(root: s.root).count(in: try pages())
        } catch {
            readFailed(error)
        }
    }

    func listGet<E: _PersistableElement>(_ r: CollectionRef, _ index: Int, as: E.Type) -> E {
        checkThread()
        do {
            let s = try collectionState(table: r.table, column: r.column, owner: r.owner)
            let p = try pages()
            let tree = PositionalTree(root: s.root)
            // The range is checked by the tree's own descent; the count is read only to word
            // the trap of an index out of range (a separate count read cost a page lookup).
            if index >= 0, !s.root.isNull {
                do {
                    // Reads in index order (iteration, Array(list.prefix(n))) stay in one leaf
                    // through the cursor instead of descending per element.
                    var cursor = s.cursorStamp == changeCounter ? s.cursor : nil
                    defer {
                        s.cursor = cursor
                        s.cursorStamp = changeCounter
                    }
                    return try tree.withElement(at: index, in: p, cursor: &cursor) { E._strataDecodeElement(_ElementView(bytes: $0, core: self)) }
                } catch let e as StorageError where e.code == .invalidArgument {
                    if index < (try tree.count(in: p)) { throw e }
                }
            }
            let n = s.root.isNull ? 0 : try tree.count(in: p)
            misuse(.invalidArgument, "index \(index) is out of range 0..<\(n)")
        } catch {
            readFailed(error)
        }
    }

    /// Inserts at `index` (nil: append).
    func listInsert<E: _PersistableElement>(_ r: CollectionRef, _ element: E, at index: Int?) {
        let w = requireWrite("modifying a list")
        do {
            let s = try collectionState(table: r.table, column: r.column, owner: r.owner)
            var tree = PositionalTree(root: s.root)
            if let index {
                let n = tree.isEmpty ? 0 : try tree.count(in: w)
                guard index >= 0, index <= n else { misuse(.invalidArgument, "insertion index \(index) is out of range 0...\(n)") }
                try withEncodedElement(element, for: r) { try tree.insert($0, at: index, in: w) }
            } else {
                try withEncodedElement(element, for: r) { try tree.append($0, in: w) }
            }
            s.root = tree.root
            s.dirty = true
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    /// Appends every element of `elements` with one write check and one state lookup (the
    /// harness appends its readings with `append(objectsIn:)`).
    func listAppend<S: Sequence>(_ r: CollectionRef, contentsOf elements: S) where S.Element: _PersistableElement {
        let w = requireWrite("modifying a list")
        do {
            let s = try collectionState(table: r.table, column: r.column, owner: r.owner)
            var tree = PositionalTree(root: s.root)
            // Lists and sets of objects: the link's target table is looked up once (after the
            // first element is added, which may create that table), not per element.
            let links = r.column.type == .object && r.column.collection != .map
            var targetTable: Int? = nil
            let items = Array(elements)
            // New objects of a plain class (the harness's readings): their rows, backlinks and
            // list entries each go in one sorted batch (BatchLinks.swift).
            if links, items.count > 1, let objects = items as? [Object],
               let (keys, inlined) = try addPlainObjects(objects, viaLink: true, linkedFrom: (r.table, r.column.index, r.owner)) {
                if !inlined, let tt = linkTargetTable(table: r.table, column: r.column.index) {
                    try addFreshBacklinks(target: tt, targetKeys: keys, source: r.table, column: r.column.index, sourceKey: r.owner)
                }
                try tree.appendUInt64s(keys, in: w)
                s.root = tree.root
                s.dirty = true
                changeCounter &+= 1
                return
            }
            // The state follows the tree after each element, so a failure part-way leaves it
            // describing what was appended (the pending error then cancels the commit).
            for e in items {
                if links, let o = e as? Object {
                    // As withEncodedElement: a new object has no backlink entry to read yet.
                    let fresh = updatePolicy == .error && o._binding == nil
                    let (key, inlined) = try keyForLinking(o, from: r.table, column: r.column.index, sourceKey: r.owner)
                    if targetTable == nil { targetTable = linkTargetTable(table: r.table, column: r.column.index) }
                    if !inlined, let tt = targetTable {
                        try addBacklink(target: tt, targetKey: key, source: r.table, column: r.column.index, sourceKey: r.owner, fresh: fresh)
                    }
                    try tree.appendUInt64(key, in: w)
                } else {
                    try withEncodedElement(e, for: r) { try tree.append($0, in: w) }
                }
                s.root = tree.root
                s.dirty = true
            }
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    func listReplace<E: _PersistableElement>(_ r: CollectionRef, _ index: Int, _ element: E) {
        let w = requireWrite("modifying a list")
        do {
            let s = try collectionState(table: r.table, column: r.column, owner: r.owner)
            var tree = PositionalTree(root: s.root)
            let n = tree.isEmpty ? 0 : try tree.count(in: w)
            guard index >= 0, index < n else { misuse(.invalidArgument, "index \(index) is out of range 0..<\(n)") }
            let bytes = try encodeElement(element, for: r)
            try tree.withElement(at: index, in: w) { try releaseElement($0, for: r) }
            try bytes.withUnsafeBytes { try tree.replace(at: index, with: $0, in: w) }
            s.root = tree.root
            s.dirty = true
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    func listRemove(_ r: CollectionRef, at index: Int) {
        let w = requireWrite("modifying a list")
        do {
            let s = try collectionState(table: r.table, column: r.column, owner: r.owner)
            var tree = PositionalTree(root: s.root)
            let n = tree.isEmpty ? 0 : try tree.count(in: w)
            guard index >= 0, index < n else { misuse(.invalidArgument, "index \(index) is out of range 0..<\(n)") }
            if r.column.type == .object {
                // A list or set element of a link column is the 8-byte key (read by the removal itself).
                var key: UInt64?
                try tree.remove(at: index, in: w) { key = $0.count >= 8 ? UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) : nil }
                s.root = tree.root
                s.dirty = true
                if let key { try releaseLink(key, for: r) }
            } else {
                try tree.remove(at: index, in: w)
                s.root = tree.root
                s.dirty = true
            }
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    /// Removes the first `count` elements in one pass: one state lookup and one count check for
    /// all of them (the sensors pattern trims the oldest readings this way), then the backlinks
    /// of removed links. Traps, removing nothing, when the list is shorter.
    func listRemoveFirst(_ r: CollectionRef, _ count: Int) {
        let w = requireWrite("modifying a list")
        do {
            let s = try collectionState(table: r.table, column: r.column, owner: r.owner)
            var tree = PositionalTree(root: s.root)
            let n = tree.isEmpty ? 0 : try tree.count(in: w)
            guard count >= 0, count <= n else { misuse(.invalidArgument, "removeFirst(\(count)) on a list of \(n) elements") }
            if count == 0 { return }
            guard r.column.type == .object, let tt = linkTargetTable(table: r.table, column: r.column.index) else {
                try tree.removeFirst(count, in: w)
                s.root = tree.root
                s.dirty = true
                changeCounter &+= 1
                return
            }
            // Links: the batch removal hands over each removed key (no separate scan; whole
            // leaves dropped), then the backlinks go in one sorted pass, with the target table
            // looked up once for all (as releaseLink does).
            var keys: [UInt64] = []
            keys.reserveCapacity(count)
            try tree.removeFirst(count, in: w) { e in
                if e.count >= 8 { keys.append(UInt64(littleEndian: e.loadUnaligned(as: UInt64.self))) }
            }
            s.root = tree.root
            s.dirty = true
            changeCounter &+= 1
            if snap.schemas[tt].isEmbedded {
                for k in keys {
                    try removeBacklink(target: tt, targetKey: k, source: r.table, column: r.column.index, sourceKey: r.owner)
                    try deleteObject(table: tt, key: k)
                }
            } else {
                try removeBacklinks(target: tt, targetKeys: keys, source: r.table, column: r.column.index, sourceKey: r.owner)
            }
        } catch {
            record(error)
        }
    }

    func listRemoveAll(_ r: CollectionRef) {
        let w = requireWrite("modifying a list")
        do {
            let s = try collectionState(table: r.table, column: r.column, owner: r.owner)
            guard !s.root.isNull else { return }
            let prop = snap.schemas[r.table].properties[r.column.index]
            try destroyCollection(root: s.root, kind: r.column.collection, ownerTable: r.table, column: r.column.index, owner: r.owner, property: prop)
            _ = w
            s.root = .null
            s.dirty = true
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    func listMove(_ r: CollectionRef, from: Int, to: Int) {
        let w = requireWrite("modifying a list")
        do {
            let s = try collectionState(table: r.table, column: r.column, owner: r.owner)
            var tree = PositionalTree(root: s.root)
            let n = tree.isEmpty ? 0 : try tree.count(in: w)
            guard from >= 0, from < n, to >= 0, to < n else { misuse(.invalidArgument, "move(from: \(from), to: \(to)) is out of range 0..<\(n)") }
            if from == to { return }
            let bytes = try tree.withElement(at: from, in: w) { Array($0) }
            try tree.remove(at: from, in: w)
            try bytes.withUnsafeBytes { try tree.insert($0, at: to, in: w) }
            s.root = tree.root
            s.dirty = true
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    func listSwap(_ r: CollectionRef, _ i: Int, _ j: Int) {
        let w = requireWrite("modifying a list")
        do {
            let s = try collectionState(table: r.table, column: r.column, owner: r.owner)
            var tree = PositionalTree(root: s.root)
            let n = tree.isEmpty ? 0 : try tree.count(in: w)
            guard i >= 0, i < n, j >= 0, j < n else { misuse(.invalidArgument, "swapAt(\(i), \(j)) is out of range 0..<\(n)") }
            if i == j { return }
            let a = try tree.withElement(at: i, in: w) { Array($0) }
            let b = try tree.withElement(at: j, in: w) { Array($0) }
            try b.withUnsafeBytes { try tree.replace(at: i, with: $0, in: w) }
            try a.withUnsafeBytes { try tree.replace(at: j, with: $0, in: w) }
            s.root = tree.root
            s.dirty = true
            changeCounter &+= 1
        } catch {
            record(error)
        }
    }

    /// All elements' raw bytes (for scans: contains, index(of:), aggregates, sets).
    func listForEach(_ r: CollectionRef, _ body: (Int, UnsafeRawBufferPointer) throws -> Bool) {
        checkThread()
        do {
            let s = try collectionState(table: r.table, column: r.column, owner: r.owner)
            guard !s.root.isNull else { return }
            try PositionalTree(root: s.root).forEach(from: 0, in: try pages(), body)
        } catch {
            readFailed(error)
        }
    }

    // MARK: - Sets: elements kept sorted by their encoding, so probes are binary searches

    /// Byte-wise order of two element encodings (a shorter prefix first).
    static func compareEncodings(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let n = Swift.min(a.count, b.count)
        if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
            let c = memcmp(pa, pb, n)
            if c != 0 { return Int(c) }
        }
        return a.count - b.count
    }

    /// Where `probe` is (or would go) among the `n` sorted encodings of a set tree. O(log² n)
    /// page visits: log n probes of an O(log n) positional lookup.
    private func setSearch(_ tree: PositionalTree, count n: Int, _ probe: UnsafeRawBufferPointer,
                           in p: any PageReading) throws -> (index: Int, found: Bool) {
        var lo = 0, hi = n
        while lo < hi {
            let mid = (lo + hi) / 2
            let c = try tree.withElement(at: mid, in: p) { Self.compareEncodings($0, probe) }
            if c == 0 { return (mid, true) }
            if c < 0 { lo = mid + 1 } else { hi = mid }
        }
        return (lo, false)
    }

    /// The encoding of `element` when it can be made without adding anything; nil for an
    /// unmanaged object (new, so in no set) or an object of another realm (encodeElement throws).
    private func probeEncoding<E: _PersistableElement>(_ element: E, for r: CollectionRef) throws -> [UInt8]? {
        if r.column.type == .object {
            guard let o = element as? Object, let b = o._binding, b.core === self else { return nil }
            return withUnsafeBytes(of: b.key.littleEndian) { Array($0) }
        }
        var buf = _ElementBuffer(core: self, ownerTable: r.table, ownerKey: r.owner, ownerColumn: r.column.index)
        try element._strataEncodeElement(&buf)
        return buf.bytes
    }

    /// The position of `element` in the set, nil when absent.
    func setIndex<E: _PersistableElement>(_ r: CollectionRef, _ element: E) -> Int? {
        checkThread()
        do {
            let s = try collectionState(table: r.table, column: r.column, owner: r.owner)
            guard !s.root.isNull, let probe = try probeEncoding(element, for: r) else { return nil }
            let p = try pages()
            let tree = PositionalTree(root: s.root)
            let n = try tree.count(in: p)
            let (i, found) = try probe.withUnsafeBytes { try setSearch(tree, count: n, $0, in: p) }
            return found ? i : nil
        } catch {
            readFailed(error)
        }
    }

    /// Inserts `element` at its sorted place unless present.
    func setInsert<E: _PersistableElement>(_ r: CollectionRef, _ element: E) {
        let w = requireWrite("modifying a set")
        do {
            let s = try collectionState(table: r.table, column: r.column, owner: r.owner)
            var tree = PositionalTree(root: s.root)
            let n = tree.isEmpty ? 0 : try tree.count(in: w)
            if let probe = try probeEncoding(element, for: r),
               try probe.withUnsafeBytes({ try setSearch(tree, count: n, $0, in: w) }).found {
                return
            }
            let bytes = try encodeElement(element, for: r)
            let (at, found) = try bytes.withUnsafeBytes { try setSearch(tree, count: n, $0, in: w) }
            if found {
                // An unmanaged object that an upsert resolved to one already in the set: undo
                // the backlink encodeElement recorded.
                try bytes.withUnsafeBytes { try releaseElement($0, for: r) }
                return
            }
            try bytes.withUnsafeBytes { try tree.insert($0, at: at, in: w) }
            s.root = tree.root
            s.dirty = true
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
        guard let w = writeTxn else { throw Realm.Error(.notInWriteTransaction, "collections change only inside a write transaction") }
        if !row.isNew {
            let k = CollectionKey(table: Int32(row.table), column: Int32(column.index), owner: row.key)
            let old = collections[k]?.root ?? PageRef(row.currentLoad(column, as: UInt32.self))
            let prop = snap.schemas[row.table].properties[column.index]
            try destroyCollection(root: old, kind: column.collection, ownerTable: row.table, column: column.index, owner: row.key, property: prop)
            collections[k] = nil
        }
        let r = CollectionRef(core: self, table: row.table, column: column, owner: row.key)
        var tree = PositionalTree()
        if sortedSet {
            var encoded = try elements.map { try encodeElement($0, for: r) }
            encoded.sort { a, b in a.withUnsafeBytes { pa in b.withUnsafeBytes { Self.compareEncodings(pa, $0) < 0 } } }
            var previous: [UInt8]? = nil
            for bytes in encoded {
                if bytes == previous {
                    try bytes.withUnsafeBytes { try releaseElement($0, for: r) }
                    continue
                }
                try bytes.withUnsafeBytes { try tree.append($0, in: w) }
                previous = bytes
            }
        } else {
            for e in elements {
                try withEncodedElement(e, for: r) { try tree.append($0, in: w) }
            }
        }
        row.store(tree.root.raw, column)
    }
}
