// StrataFileWriter: objects written by the schema a file stores (or one given), without the app's
// model classes: what `strata import` uses. The counterpart of StrataFile's reading.
//
// Objects are written in two steps, so that links may point anywhere, cycles included:
// `create` stores an object's values with its links empty; `set` then stores its links
// (to-one, and lists, sets and maps of links) once their targets exist, keeping backlinks.
//
// Invariants:
// - The rows, collection trees, primary-key tree, indexes and backlinks written here are the
//   ones the object accessors write for the same values (the same encodings: StoredValueEncoding,
//   RowLayout), so a file written here reads back through model classes and passes
//   `StrataFile.verify()`.
// - Everything happens inside one write transaction: a failure cancels it, and the file keeps
//   its previous version (nothing half imported).
// - A class the file already stores must be given with exactly its stored schema; a new one is
//   appended (tables are only ever appended).
import Foundation
import StrataStorage

/// Writes objects into a Strata file by class name, in one write transaction.
public final class StrataFileWriter {
    public let path: String
    let core: RealmCore

    /// Opens `path` for writing, creating an empty file when there is none.
    public init(path: String, encryptionKey: [UInt8]? = nil) throws(Realm.Error) {
        self.path = path
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
        configuration.encryptionKey = encryptionKey.map { Data($0) }
        configuration.objectTypes = nil
        do {
            core = try RealmCore(configuration: configuration, scheduler: nil, inspecting: true)
        } catch {
            throw RealmCore.realmError(error)
        }
    }

    /// The classes the file stores (including those added in the open write).
    public var schema: [ObjectSchema] { core.snap.schemas }

    public func beginWrite() throws(Realm.Error) { try core.beginWrite() }

    /// Commits everything written since `beginWrite`; on failure nothing of it is kept.
    public func commitWrite() throws(Realm.Error) { _ = try core.commitWrite() }

    public func cancelWrite() { core.cancelWrite() }

    /// Adds the classes of `schemas` the file lacks; one it has must match exactly.
    public func addClasses(_ schemas: [ObjectSchema]) throws(Realm.Error) {
        _ = try core.requireWriteThrowing("add classes")
        for s in schemas {
            if let t = core.snap.tableByName[s.className] {
                guard core.snap.schemas[t] == s else {
                    throw Realm.Error(.schemaMismatch, "class '\(s.className)' is stored with another schema than the one given")
                }
                continue
            }
            let t = core.snap.schemas.count
            core.snap.schemas.append(s)
            core.snap.metas.append(TableMeta(objects: KeyedTree(), primaryKeys: BytesTree(), nextKey: 1))
            core.snap.metas[t].indexes = core.indexes.requiredIndexColumns(table: t).map { IndexTree(column: $0, tree: BytesTree()) }
            core.snap.metas[t].indexesChecked = true
            core.snap.infos.append(nil)
            core.snap.tableByName[s.className] = t
            core.snap.schemaDirty = true
            core.snap.metasDirty = true
        }
    }

    private func table(_ className: String) throws(Realm.Error) -> Int {
        guard let t = core.snap.tableByName[className] else {
            throw Realm.Error(.invalidArgument, "the file has no class '\(className)'")
        }
        return t
    }

    /// Creates an object of `className` from `values` (one per property of its schema, in
    /// order; LinkingObjects and link properties must be `.null`: links are set by `set`).
    /// Returns its object key. `.duplicatePrimaryKey` when its primary key is taken.
    @discardableResult
    public func create(_ className: String, values: [StoredValue]) throws(Realm.Error) -> UInt64 {
        let writing = try core.requireWriteThrowing("create objects")
        let t = try table(className)
        let schema = core.snap.schemas[t]
        guard values.count == schema.allProperties.count else {
            throw Realm.Error(.invalidArgument, "\(values.count) values for the \(schema.allProperties.count) properties of '\(className)'")
        }
        let layout = core.layout(ofTable: t)
        let key = core.snap.metas[t].nextKey
        var row = _RowBuilder(layout: layout, core: core, table: t, key: key)
        let encoding = StoredValueEncoding(core: core)
        for (c, property) in schema.allProperties.enumerated() where property.type != .linkingObjects {
            let column = layout.columns[c]
            let value = values[c]
            let place = "\(className).\(property.name)"
            if property.type == .object {
                guard case .null = value else {
                    throw Realm.Error(.invalidArgument, "\(place): links are set after every object exists (set)")
                }
                if property.collection == .none { row.setNull(column, true) }
                continue
            }
            if property.collection != .none {
                let root = try Realm.Error.wrap { try encoding.collection(value, property, place: place, writing) }
                row.store(root.raw, column)
                continue
            }
            try encoding.store(value, property, column, into: &row, place: place)
        }
        var pkIndexKey: [UInt8]? = nil
        if let pk = schema.allProperties.firstIndex(where: \.isPrimary) {
            let indexKey = row.bytes.withUnsafeBytes { core.primaryKeyIndexKey(row: _RowView(bytes: $0, core: core), column: layout.columns[pk]) }
            let taken = try Realm.Error.wrap {
                try indexKey.withUnsafeBytes { try core.snap.metas[t].primaryKeys.withValue(forKey: $0, in: writing) { _ in true } } ?? false
            }
            if taken {
                throw Realm.Error(.duplicatePrimaryKey, "a '\(className)' with primary key \(schema.allProperties[pk].name) = \(values[pk]) already exists")
            }
            pkIndexKey = indexKey
        }
        core.snap.metas[t].nextKey = key &+ 1
        try Realm.Error.wrap {
            try row.bytes.withUnsafeBytes { _ = try core.snap.metas[t].objects.put(key, $0, in: writing) }
            if try core.indexes.maintainedIndexes(table: t, writing) {
                try row.bytes.withUnsafeBytes { try core.indexes.indexInsert(table: t, key: key, row: $0, writing) }
            }
            if let pkIndexKey {
                try withUnsafeBytes(of: key.littleEndian) { valueBytes in
                    try pkIndexKey.withUnsafeBytes { _ = try core.snap.metas[t].primaryKeys.put($0, valueBytes, in: writing) }
                }
            }
        }
        core.snap.metasDirty = true
        core.changeCounter &+= 1
        return key
    }

    /// The keys of every object of `className`, ascending (the order `strata export` numbers
    /// them in).
    public func objectKeys(_ className: String) throws(Realm.Error) -> [UInt64] {
        let t = try table(className)
        var keys: [UInt64] = []
        try Realm.Error.wrap {
            try core.snap.metas[t].objects.forEach(from: 0, in: try core.pages()) { key, _ in
                keys.append(key)
                return true
            }
        }
        return keys
    }

    /// The key of the object of `className` whose primary key is `value`, nil when none.
    public func objectKey(_ className: String, primaryKey value: StoredValue) throws(Realm.Error) -> UInt64? {
        let writing = try core.requireWriteThrowing("look up objects")
        let t = try table(className)
        let schema = core.snap.schemas[t]
        guard let pk = schema.allProperties.firstIndex(where: \.isPrimary) else {
            throw Realm.Error(.missingPrimaryKey, "'\(className)' has no primary key")
        }
        var indexKey: [UInt8] = [1]
        if case .null = value {
            indexKey = [0]
        } else {
            let property = schema.allProperties[pk]
            indexKey += try StoredValueEncoding(core: core).scalar(value, property.type, place: "\(className).\(property.name)")
            // The stored slot's bytes: an Int's little-endian, which the file's format may order.
            if property.type == .int { core.primaryKeyEncoding.finishIntKey(&indexKey) }
        }
        return try Realm.Error.wrap {
            try indexKey.withUnsafeBytes { k in
                try core.snap.metas[t].primaryKeys.withValue(forKey: k, in: writing) { v in
                    v.count >= 8 ? UInt64(littleEndian: v.loadUnaligned(as: UInt64.self)) : nil
                }
            } ?? nil
        }
    }

    /// Stores properties of object `key` of `className`: `values` maps a property's position to
    /// its value. A link property takes `.link`, `.null`, or a `.list`/`.set`/`.map` of links
    /// (targets must exist); any other single-value property (not the primary key) its value.
    public func set(_ className: String, key: UInt64, _ values: [Int: StoredValue]) throws(Realm.Error) {
        let writing = try core.requireWriteThrowing("set links")
        let t = try table(className)
        let schema = core.snap.schemas[t]
        let layout = core.layout(ofTable: t)
        guard let stored = try Realm.Error.wrap({ try core.snap.metas[t].objects.withValue(forKey: key, in: writing) { Array($0) } }) else {
            throw Realm.Error(.invalidArgument, "'\(className)' has no object \(key)")
        }
        var row = stored.withUnsafeBytes { _RowBuilder(copying: $0, layout: layout, core: core, table: t, key: key) }
        for (c, value) in values.sorted(by: { $0.key < $1.key }) {
            guard c < schema.allProperties.count, schema.allProperties[c].type != .linkingObjects else {
                throw Realm.Error(.invalidArgument, "'\(className)' has no stored property \(c)")
            }
            let property = schema.allProperties[c]
            let place = "\(className).\(property.name)"
            if property.type != .object {
                guard property.collection == .none, !property.isPrimary else {
                    throw Realm.Error(.invalidArgument, "\(place) is set when the object is created")
                }
                try StoredValueEncoding(core: core).store(value, property, layout.columns[c], into: &row, place: place)
                continue
            }
            guard let targetName = property.objectClassName, let target = core.snap.tableByName[targetName] else {
                throw Realm.Error(.corruptFile, "\(place) links to a class the file does not store")
            }
            let column = layout.columns[c]
            func keyOf(_ v: StoredValue) throws(Realm.Error) -> UInt64 {
                guard case .link(let name, let k) = v, name == targetName else {
                    throw Realm.Error(.invalidArgument, "\(place) holds links to '\(targetName)', not \(v)")
                }
                let exists = try Realm.Error.wrap { try core.snap.metas[target].objects.contains(k, in: writing) }
                guard exists else { throw Realm.Error(.invalidArgument, "\(place): '\(targetName)' has no object \(k)") }
                return k
            }
            func link(_ k: UInt64) throws(Realm.Error) {
                try Realm.Error.wrap { try core.backlinkStore.addBacklink(target: target, targetKey: k, source: t, column: c, sourceKey: key) }
            }
            switch (property.collection, value) {
            case (.none, .null):
                row.setNull(column, true)
            case (.none, let v):
                let k = try keyOf(v)
                row.store(k, column)
                try link(k)
            case (.list, .list(let elements)), (.set, .set(let elements)), (.set, .list(let elements)):
                var keys: [UInt64] = []
                for e in elements { keys.append(try keyOf(e)) }
                var encoded = keys.map { k in withUnsafeBytes(of: k.littleEndian) { Array($0) } }
                if property.collection == .set { encoded = StoredValueEncoding.setOrder(encoded) }
                var tree = PositionalTree()
                for bytes in encoded {
                    try Realm.Error.wrap { try bytes.withUnsafeBytes { try tree.append($0, in: writing) } }
                    try link(bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) })
                }
                row.store(tree.root.raw, column)
            case (.map, .map(let entries)):
                var tree = BytesTree()
                for entry in entries {
                    var bytes: [UInt8] = [0]
                    if case .null = entry.value {} else {
                        let k = try keyOf(entry.value)
                        bytes = [1] + withUnsafeBytes(of: k.littleEndian) { Array($0) }
                        try link(k)
                    }
                    try StoredValueEncoding.putMapEntry(entry.key, bytes, into: &tree, place: place, writing)
                }
                row.store(tree.root.raw, column)
            default:
                throw Realm.Error(.invalidArgument, "\(place) is a \(property.collection) of links, not \(value)")
            }
        }
        try Realm.Error.wrap {
            // Links stored above may have changed this row's own footer (a link to itself).
            try core.adding.syncFooter(&row, writing)
            try row.bytes.withUnsafeBytes { _ = try core.snap.metas[t].objects.put(key, $0, in: writing) }
            if try core.indexes.maintainedIndexes(table: t, writing) {
                try stored.withUnsafeBytes { old in
                    try row.bytes.withUnsafeBytes { new in try core.indexes.indexReplace(table: t, key: key, old: old, new: new, writing) }
                }
            }
        }
        core.snap.metasDirty = true
        core.changeCounter &+= 1
    }

    /// Releases the file (a write still open is cancelled).
    public func close() {
        if core.isInWriteTransaction { core.cancelWrite() }
        core.readTxn?.end()
        core.readTxn = nil
        core.file.close()
    }
}
