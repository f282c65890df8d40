// Fingerprints: the bytes of the properties an observer watches, read from one version, so two
// versions of an object can be compared without a change log (works across processes too).
//
// What is watched:
// - No key paths: the object's whole row (every stored property; a list/set/map column is its
//   tree root, which a commit that changes the collection replaces) plus the rows of the objects
//   reachable from it through links, up to three links away (LinkedRowFingerprint.swift), so a
//   renamed dog of a person's list changes the person, as Realm reports it.
// - Key paths ("name", "owner.name"): for each, the first component's column (null bit, fixed
//   slot, variable bytes); when it is a to-one link and the path goes on, the rest of the path is
//   fingerprinted on the linked object. Through a to-many link (List, MutableSet or Map of
//   objects: "dogs.name") the collection's root is watched (membership and order) and the rest
//   of the path is fingerprinted on every element's target, in collection order. Through linking
//   objects ("owners", "owners.name") the keys of the objects linking here are watched (who
//   links, and how often), and the rest of the path on each of them.
//
// Invariants: a fingerprint is read-only (it never begins a write); unknown property names are
// rejected when the observer is registered (`.invalidArgument`), not here.
import StrataStorage

/// A parsed key-path filter of one observer.
struct WatchedPaths {
    /// nil: everything (see the file header).
    let paths: [[String]]?

    init(_ keyPaths: [String]?) {
        paths = keyPaths.map { $0.map { $0.split(separator: ".").map(String.init) } }
    }

    /// Throws `.invalidArgument` naming the first component that is not a property.
    func validate(table: Int, core: RealmCore) throws(Realm.Error) {
        guard let paths else { return }
        for path in paths {
            let failure = SchemaKeyPath.firstFailure(
                path, from: core.snap.schemas[table],
                // A linked class without a table yet is known to the process by its discovery.
                schemaNamed: { name in
                    core.snap.tableByName[name].map { core.snap.schemas[$0] } ?? ClassInfo.registered(named: name)?.schema
                },
                goesThrough: { $0.type == .object || $0.type == .linkingObjects },
                endsOn: { _ in true })
            let dotted = path.joined(separator: ".")
            switch failure {
            case nil: continue
            case let .noProperty(className, name):
                throw Realm.Error(.invalidArgument, "key path '\(dotted)': " + RealmSwiftMessages.propertyNotFound(name, className: className))
            case let .cannotContinue(_, p), let .cannotEnd(_, p):
                throw Realm.Error(.invalidArgument, "key path '\(dotted)' goes on after '\(p.name)', which is neither a link nor linking objects")
            }
        }
    }

    /// Whether property `name` of the observed object is watched (object observers).
    func watches(_ name: String) -> Bool {
        guard let paths else { return true }
        return paths.contains { $0.first == name }
    }
}

/// Fingerprints of rows for observers (see the file header). A read-only view of the core: it
/// holds no state, and reads the core's current snapshot.
struct RowFingerprints {
    /// Strong, not `unowned(unsafe)`: each use of an unowned reference is retained and released
    /// again (measured: bulk inserts took 12% more CPU), while a strong one read from the view
    /// is borrowed; a view is made by its core for one call and never kept.
    let core: RealmCore
}

extension RowFingerprints {
    /// The fingerprint of object `key` of table `table` in the current snapshot; nil when the
    /// object does not exist.
    func fingerprint(table: Int, key: UInt64, watching w: WatchedPaths, pages p: some PageReading) throws -> [UInt8]? {
        var out: [UInt8] = []
        if w.paths == nil { return try appendWholeGraph(table: table, key: key, pages: p, into: &out) ? out : nil }
        guard try appendFingerprint(table: table, key: key, paths: w.paths, depth: 0, pages: p, into: &out) else { return nil }
        return out
    }

    /// The bytes of each property of the object (for object observers), nil when it is gone.
    func columnBytes(table: Int, key: UInt64, pages p: some PageReading) throws -> [[UInt8]]? {
        let layout = core.layout(ofTable: table)
        return try core.snap.metas[table].objects.withValue(forKey: key, in: p) { row in
            layout.columns.map { Self.bytes(of: $0, in: row) }
        }
    }

    /// Per property of the object (object observers): its column bytes, plus, for key paths
    /// that go on through it ("owner.name", "dogs.name", "owners.name") or name linking objects
    /// ("owners"), the fingerprint of the rest of the path on the linked or linking objects, so
    /// a change there reports the property the path starts with.
    /// nil when the object is gone.
    func propertyPrints(table: Int, key: UInt64, watching w: WatchedPaths, pages p: some PageReading) throws -> [[UInt8]]? {
        guard var columns = try columnBytes(table: table, key: key, pages: p) else { return nil }
        guard let paths = w.paths else { return columns }
        let props = core.snap.schemas[table].allProperties
        for (first, rests) in Self.groupedByFirst(paths) {
            guard let c = props.firstIndex(where: { $0.name == first }), c < columns.count else { continue }
            // Linking objects have no column: what is watched of them is read from the backlinks.
            guard !rests.isEmpty || props[c].type == .linkingObjects else { continue }
            var sub: [UInt8] = []
            _ = try appendFingerprint(table: table, key: key, paths: rests.isEmpty ? [[first]] : rests.map { [first] + $0 },
                                      depth: 0, pages: p, into: &sub)
            columns[c] += sub
        }
        return columns
    }

    private func appendFingerprint(table: Int, key: UInt64, paths: [[String]]?, depth: Int,
                                   pages p: some PageReading, into out: inout [UInt8]) throws -> Bool {
        guard table < core.snap.metas.count else { return false }
        let layout = core.layout(ofTable: table)
        let props = core.snap.schemas[table].allProperties
        var follow: [(table: Int, key: UInt64, rest: [[String]]?)] = []
        var followMany: [(table: Int, root: PageRef, kind: CollectionKind, rest: [[String]])] = []
        var followBack: [(property: Property, rest: [[String]])] = []
        let found: Bool? = try core.snap.metas[table].objects.withValue(forKey: key, in: p) { row in
            if let paths {
                for (first, rests) in Self.groupedByFirst(paths) {
                    guard let c = props.firstIndex(where: { $0.name == first }) else { continue }
                    if props[c].type == .linkingObjects {
                        followBack.append((props[c], rests))
                        continue
                    }
                    let column = layout.columns[c]
                    out.append(contentsOf: Self.bytes(of: column, in: row))
                    guard !rests.isEmpty else { continue }
                    if let link = linkTarget(of: column, property: props[c], in: row) {
                        follow.append((link.table, link.key, rests))
                    } else if let many = linkCollection(of: column, property: props[c], in: row) {
                        followMany.append((many.table, many.root, column.collection, rests))
                    }
                }
            } else {
                // Without the backlink footer (InlineBacklinks.swift): being linked from
                // somewhere is not a change of the object's properties.
                let footer = RowFooter.length(row) ?? 0
                out.append(contentsOf: row[0 ..< row.count - footer])
            }
            return true
        }
        guard found == true else { return false }
        for f in follow {
            out.append(0xFF)  // separator: a vanished target differs from an empty one
            _ = try appendFingerprint(table: f.table, key: f.key, paths: f.rest, depth: depth + 1, pages: p, into: &out)
        }
        // Key paths through to-many links ("dogs.name"): every element's target, in order, so a
        // renamed dog of the list changes the owner's fingerprint (the list's root did not move).
        for m in followMany {
            for target in try linkKeys(root: m.root, kind: m.kind, pages: p) {
                out.append(0xFE)
                _ = try appendFingerprint(table: m.table, key: target, paths: m.rest, depth: depth + 1, pages: p, into: &out)
            }
        }
        // Key paths through linking objects ("owners", "owners.name"): the objects linking here,
        // each with its number of links, then the rest of the path on each.
        for b in followBack {
            guard let origin = linkingOrigin(of: b.property) else { continue }
            for link in try core.backlinkStore.backlinks(target: table, targetKey: key, source: origin.table, column: origin.column)
                .sorted(by: { $0.key < $1.key }) {
                out.append(0xFD)
                withUnsafeBytes(of: link.key.littleEndian) { out.append(contentsOf: $0) }
                withUnsafeBytes(of: link.count.littleEndian) { out.append(contentsOf: $0) }
                if !b.rest.isEmpty {
                    _ = try appendFingerprint(table: origin.table, key: link.key, paths: b.rest, depth: depth + 1, pages: p, into: &out)
                }
            }
        }
        return true
    }

    /// The table and column of the link property a linking-objects property follows back; nil
    /// when no object of the origin class was ever stored.
    private func linkingOrigin(of property: Property) -> (table: Int, column: Int)? {
        guard let className = property.objectClassName, let name = property.linkOriginPropertyName,
              let t = core.snap.tableByName[className],
              let c = core.snap.schemas[t].allProperties.firstIndex(where: { $0.name == name }) else { return nil }
        return (t, c)
    }

    /// Paths grouped by their first component (in first-seen order), with the rest of each path;
    /// a path of one component contributes no rest.
    static func groupedByFirst(_ paths: [[String]]) -> [(first: String, rests: [[String]])] {
        var out: [(first: String, rests: [[String]])] = []
        for path in paths {
            guard let first = path.first else { continue }
            let rest = Array(path.dropFirst())
            if let i = out.firstIndex(where: { $0.first == first }) {
                if !rest.isEmpty { out[i].rests.append(rest) }
            } else {
                out.append((first, rest.isEmpty ? [] : [rest]))
            }
        }
        return out
    }

    /// The object keys held by a collection of links (List/MutableSet: 8-byte keys; Map:
    /// [1] + key, or [0] for nil), in collection order.
    func linkKeys(root: PageRef, kind: CollectionKind, pages p: some PageReading) throws -> [UInt64] {
        guard !root.isNull else { return [] }
        var keys: [UInt64] = []
        if kind == .map {
            try BytesTree(root: root).forEach(from: nil, in: p) { _, v in
                if v.count == 9, v[0] == 1 { keys.append(UInt64(littleEndian: v.loadUnaligned(fromByteOffset: 1, as: UInt64.self))) }
                return true
            }
        } else {
            try PositionalTree(root: root).forEach(from: 0, in: p) { _, v in
                if v.count >= 8 { keys.append(UInt64(littleEndian: v.loadUnaligned(as: UInt64.self))) }
                return true
            }
        }
        return keys
    }

    /// The tree root and target table of a List/MutableSet/Map-of-links column.
    func linkCollection(of column: _Column, property: Property, in row: UnsafeRawBufferPointer) -> (table: Int, root: PageRef)? {
        guard column.type == .object, column.collection != .none, let name = property.objectClassName,
              let t = core.snap.tableByName[name], column.offset + 4 <= row.count else { return nil }
        return (t, PageRef(UInt32(littleEndian: row.loadUnaligned(fromByteOffset: column.offset, as: UInt32.self))))
    }

    /// The target of a non-null to-one link column.
    func linkTarget(of column: _Column, property: Property, in row: UnsafeRawBufferPointer) -> (table: Int, key: UInt64)? {
        guard column.type == .object, column.collection == .none, let name = property.objectClassName,
              let t = core.snap.tableByName[name], !Self.isNull(column, row) else { return nil }
        guard column.offset + 8 <= row.count else { return nil }
        return (t, UInt64(littleEndian: row.loadUnaligned(fromByteOffset: column.offset, as: UInt64.self)))
    }

    static func isNull(_ c: _Column, _ row: UnsafeRawBufferPointer) -> Bool {
        let byte = c.index / 8
        return byte < row.count && row[byte] & (1 << UInt8(c.index % 8)) != 0
    }

    /// Null bit + fixed slot + variable bytes of one column (bounds-checked: disk contents).
    static func bytes(of c: _Column, in row: UnsafeRawBufferPointer) -> [UInt8] {
        var out: [UInt8] = [isNull(c, row) ? 1 : 0]
        let width = _Column.width(type: c.type, collection: c.collection)
        guard width > 0, c.offset + width <= row.count else { return out }
        if c.isVariable {
            // The slot's offset moves when the row is rebuilt; only length and contents matter.
            let off = Int(UInt32(littleEndian: row.loadUnaligned(fromByteOffset: c.offset, as: UInt32.self)))
            let len = Int(UInt32(littleEndian: row.loadUnaligned(fromByteOffset: c.offset + 4, as: UInt32.self)))
            withUnsafeBytes(of: UInt32(len).littleEndian) { out.append(contentsOf: $0) }
            if len > 0, off >= 0, off + len <= row.count { out.append(contentsOf: row[off ..< off + len]) }
        } else {
            out.append(contentsOf: row[c.offset ..< c.offset + width])
        }
        return out
    }
}
