// Map: a String-keyed dictionary property (`@Persisted var scores: Map<String, Int>`).
//
// Invariants:
// - A managed map is a BytesTree from the key's UTF-8 bytes (memcmp order: keys iterate sorted)
//   to the value's element encoding; links are stored as optional values ([1] + 8-byte key, or
//   [0] for nil) with one backlink each.
// - Setting a key to nil removes it (Realm's behaviour for `map[key] = nil`).
import Foundation
import StrataStorage

/// Key types of `Map` (Realm allows String keys).
public protocol _MapKey: Hashable, Comparable {
    var _strataKeyString: String { get }
    init(_strataKeyString: String)
}

extension String: _MapKey {
    public var _strataKeyString: String { self }
    public init(_strataKeyString: String) { self = _strataKeyString }
}

/// A dictionary property with `String` keys: plain values or object links.
///
/// A map created with `Map()` is *unmanaged* and keeps its entries in memory; once its owner is
/// added to a realm, the property reads and writes the realm. A managed map iterates its entries in
/// key order (by the keys' UTF-8 bytes); an unmanaged one in no particular order. Assigning `nil`
/// to a key removes the entry. A managed map is confined to its realm's thread, and a change
/// outside a write transaction stops the program with a `Strata:` message.
///
/// ```swift
/// final class Player: Object {
///     @Persisted var name = ""
///     @Persisted var scores: Map<String, Int>
/// }
///
/// try realm.write {
///     player.scores["level1"] = 120
///     player.scores["level2"] = nil   // removes the key
/// }
/// for (level, score) in player.scores { print(level, score) }
/// ```
public final class Map<Key: _MapKey, Value: _PersistableElement>: Sequence, CustomStringConvertible {
    /// The entries of an unmanaged map.
    var unmanagedEntries: [Key: Value] = [:]
    /// Set once: at creation for an accessor, or by `add` adopting an unmanaged collection.
    var ref: CollectionRef?
    /// Set for a `Map<String, AnyRealmValue>` nested in a stored value (NestedCollections.swift).
    var nested: NestedBacking?
    /// Only on a key-path probe's value (`_strataProbeValue()`): what every key reads.
    var probeValue: Value?

    /// An empty unmanaged map.
    public init() { ref = nil }
    init(ref: CollectionRef) { self.ref = ref }
    init(nested: NestedBacking) { self.nested = nested }

    /// The entries of a map without a collection tree (`ref == nil`): its own, or those of the
    /// stored value it is nested in, changed by rewriting that value.
    var storage: [Key: Value] {
        get {
            guard let location = nested?.location else { return unmanagedEntries }
            return location.dictionaryEntries() as? [Key: Value] ?? [:]
        }
        set {
            guard let nested else { unmanagedEntries = newValue; return }
            guard let location = nested.location else { Stop.now(NestedCollectionLocation.copyMessage) }
            location.replace(with: .fromDictionary(newValue as? [String: AnyRealmValue] ?? [:]))
        }
        _modify {
            guard nested != nil else {
                yield &unmanagedEntries
                return
            }
            var entries = storage
            yield &entries
            storage = entries
        }
    }

    /// The realm of a managed map; `nil` for an unmanaged one.
    public var realm: Realm? { ref.map { Realm(core: $0.core) } ?? nested?.location?.realm }
    /// Whether this is a frozen map (from ``freeze()``), which never changes and is readable on any
    /// thread.
    public var isFrozen: Bool { ref?.core.isFrozen ?? nested?.location?.isFrozen ?? false }
    /// Whether the map can no longer be read: its owner was deleted or its realm invalidated.
    ///
    /// Always `false` for an unmanaged map.
    public var isInvalidated: Bool {
        guard let r = ref else { return nested?.location?.isInvalidated ?? false }
        return (try? r.core.collectionState(r)) == nil
    }

    /// The number of entries.
    public var count: Int {
        guard let collection = ref else { return storage.count }
        return collection.core.maps.mapCount(collection)
    }
    /// Whether the map has no entry.
    public var isEmpty: Bool { count == 0 }

    /// The value stored for a key, or `nil` when there is none; assigning `nil` removes the key.
    ///
    /// - Parameter key: the entry's key.
    public subscript(key: Key) -> Value? {
        get {
            guard let collection = ref else { return probeValue ?? storage[key] }
            return collection.core.maps.mapGet(collection, key._strataKeyString, as: Value.self)
                .map { NestedAttachment.mapValue($0, of: self, forKey: key._strataKeyString) }
        }
        set {
            guard let collection = ref else { storage[key] = newValue; return }
            if let value = newValue { collection.core.maps.mapSet(collection, key._strataKeyString, value) } else { collection.core.maps.mapRemove(collection, key._strataKeyString) }
        }
    }

    /// Removes the entry for a key, if any. A linked object stays in the realm unless its class is
    /// embedded.
    ///
    /// - Parameter key: the entry's key.
    public func removeObject(for key: Key) { self[key] = nil }

    /// Removes every entry. The objects a map links to stay in the realm, except embedded ones.
    public func removeAll() {
        guard let collection = ref else { storage.removeAll(); return }
        collection.core.lists.listRemoveAll(collection)
    }

    /// The entries as an array, in key order for a managed or nested map (one read of the realm).
    public var entries: [(key: Key, value: Value)] {
        guard let collection = ref else {
            let entries = storage.map { ($0.key, $0.value) }
            // A stored (nested) map iterates in key order, as a managed map does.
            guard nested != nil else { return entries }
            return entries.sorted { $0.0._strataKeyString.utf8.lexicographicallyPrecedes($1.0._strataKeyString.utf8) }
        }
        return collection.core.maps.mapEntries(collection, as: Value.self).map {
            (Key(_strataKeyString: $0.0), NestedAttachment.mapValue($0.1, of: self, forKey: $0.0))
        }
    }
    /// The keys, in the order of ``entries``.
    public var keys: [Key] { entries.map(\.key) }
    /// The values, in the order of ``entries``.
    public var values: [Value] { entries.map(\.value) }

    public func makeIterator() -> IndexingIterator<[(key: Key, value: Value)]> { entries.makeIterator() }

    /// A frozen copy of a managed map. Inside a write transaction, the copy holds what the
    /// write found. An unmanaged map, a collection of an object the write created, or a storage
    /// failure stops with a `Strata:` message, as RealmSwift raises.
    public func freeze() -> Map<Key, Value> {
        guard let collection = ref else {
            // A map nested in a stored value is frozen with the object that holds it.
            if nested != nil { return self }
            Stop.now(FreezeMisuse.unmanaged(self, "frozen"))
        }
        return Map(ref: CollectionRef(core: collection.core.frozenCoreOrStop(holding: collection.table, key: collection.owner), table: collection.table, column: collection.column, owner: collection.owner))
    }

    /// The entries in RealmSwift's format (`Map<string, Dog> <0x…> (\n[key]: Dog {…}\n)`).
    public var description: String { description(depth: RealmDescription.maxDepth) }
}

extension Map: _Persistable {
    public static var _strataShape: _PropertyShape {
        var shape = Value._strataShape
        shape.collection = .map
        return shape
    }
    public static func _strataDefault() -> Map<Key, Value> { Map() }
    /// For a map of objects: a map whose every key gives a probe of the value class, so that a
    /// key path read through a value (`\.dogs["a"]??.name`) goes on to name its property.
    public static func _strataProbeValue() -> Map<Key, Value>? {
        guard let value = KeyPathProbe.probeValue(Value.self) else { return nil }
        let map = Map()
        map.probeValue = value
        return map
    }
    public static func _strataGet(_ obj: Object, _ ordinal: Int) -> Map<Key, Value> {
        guard let b = obj._binding else { return Map() }
        return Map(ref: b.collectionRef(ordinal: ordinal))
    }
    public static func _strataSet(_ obj: Object, _ ordinal: Int, _ value: Map<Key, Value>) {
        let target = _strataGet(obj, ordinal)
        let items = value.entries
        target.removeAll()
        for (key, value) in items { target[key] = value }
    }
    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        try row.core.maps.storeMap(entries.map { ($0.key._strataKeyString, $0.value) }, &row, column)
    }
    public var _strataAny: Any? { self }
    public static func _strataFromAny(_ any: Any?) -> Map<Key, Value>? {
        // nil (or NSNull) for a map is no entries, as for a list.
        if isNoValue(any) { return Map() }
        // Any map is copied, as any list is (List._strataFromAny): its entries, each converted as
        // a value of this map (which may be of another value type: `Map<String, Dog>` for a
        // `Map<String, Dog?>`).
        if let other = any as? MapEntriesSource {
            let map = Map<Key, Value>()
            for (keyString, value) in other.anyEntries {
                guard let element = Value._strataFromAnyOrStoredForm(value) else { return nil }
                map.storage[Key(_strataKeyString: keyString)] = element
            }
            return map
        }
        guard let dictionary = any as? [String: Any] else { return nil }
        let map = Map<Key, Value>()
        for (keyString, value) in dictionary {
            guard let element = Value._strataFromAnyOrStoredForm(value) else { return nil }
            map.storage[Key(_strataKeyString: keyString)] = element
        }
        return map
    }
}

/// The stored maps of the core's snapshot: reads and edits of a map's tree. A view of the core:
/// the open map states are the core's `openCollections`.
struct MapStore {
    /// Strong, not `unowned(unsafe)`: each use of an unowned reference is retained and released
    /// again (measured: bulk inserts took 12% more CPU), while a strong one read from the view
    /// is borrowed; a view is made by its core for one call and never kept.
    let core: RealmCore
}

extension MapStore {
    func mapTree(_ collection: CollectionRef) throws -> (CollectionState, BytesTree) {
        let state = try core.collectionState(collection)
        return (state, BytesTree(root: state.root))
    }

    /// Encodes a map value; links are stored optional-style ([1] + key) with a backlink.
    private func encodeMapValue<V: _PersistableElement>(_ value: V, for collection: CollectionRef) throws -> [UInt8] {
        var bytes = try core.encodeElement(value, for: collection)
        if collection.column.type == .object && !V._strataShape.isOptional { bytes.insert(1, at: 0) }
        return bytes
    }

    private func releaseMapValue(_ bytes: UnsafeRawBufferPointer, for collection: CollectionRef) throws {
        guard collection.column.type == .object, bytes.count == 9, bytes[0] == 1 else { return }
        try core.releaseElement(UnsafeRawBufferPointer(rebasing: bytes[1...]), for: collection)
    }

    func mapCount(_ collection: CollectionRef) -> Int {
        core.checkThread()
        do {
            let (_, tree) = try mapTree(collection)
            return tree.isEmpty ? 0 : try tree.count(in: try core.pages())
        } catch {
            core.readFailed(error)
        }
    }

    func mapGet<V: _PersistableElement>(_ collection: CollectionRef, _ key: String, as: V.Type) -> V? {
        core.checkThread()
        do {
            let (_, tree) = try mapTree(collection)
            let snapshotPages = try core.pages()
            return try Array(key.utf8).withUnsafeBytes { keyBytes in
                try tree.withValue(forKey: keyBytes, in: snapshotPages) { value -> V in
                    if collection.column.type == .object && !V._strataShape.isOptional {
                        return collection.decodeElement(UnsafeRawBufferPointer(rebasing: value.dropFirst()), as: V.self)
                    }
                    return collection.decodeElement(value, as: V.self)
                }
            }
        } catch {
            core.readFailed(error)
        }
    }

    func mapSet<V: _PersistableElement>(_ collection: CollectionRef, _ key: String, _ value: V) {
        guard let writing = core.requireWrite("modifying a map") else { return }
        do {
            guard key.utf8.count <= BytesTree.maxKeySize else {
                throw Realm.Error(.valueTooLarge, "map key of \(key.utf8.count) bytes exceeds \(BytesTree.maxKeySize)")
            }
            var (state, tree) = try mapTree(collection)
            let bytes = try encodeMapValue(value, for: collection)
            try Array(key.utf8).withUnsafeBytes { keyBytes in
                _ = try tree.withValue(forKey: keyBytes, in: writing) { try releaseMapValue($0, for: collection) }
                try bytes.withUnsafeBytes { _ = try tree.put(keyBytes, $0, in: writing) }
            }
            state.root = tree.root
            state.dirty = true
            core.changeCounter &+= 1
        } catch {
            core.record(error)
        }
    }

    func mapRemove(_ collection: CollectionRef, _ key: String) {
        guard let writing = core.requireWrite("modifying a map") else { return }
        do {
            var (state, tree) = try mapTree(collection)
            try Array(key.utf8).withUnsafeBytes { keyBytes in
                _ = try tree.withValue(forKey: keyBytes, in: writing) { try releaseMapValue($0, for: collection) }
                _ = try tree.remove(keyBytes, in: writing)
            }
            state.root = tree.root
            state.dirty = true
            core.changeCounter &+= 1
        } catch {
            core.record(error)
        }
    }

    func mapEntries<V: _PersistableElement>(_ collection: CollectionRef, as: V.Type) -> [(String, V)] {
        core.checkThread()
        var out: [(String, V)] = []
        do {
            let (_, tree) = try mapTree(collection)
            guard !tree.isEmpty else { return [] }
            try tree.forEach(from: nil, in: try core.pages()) { keyBytes, v in
                let value: V
                if collection.column.type == .object && !V._strataShape.isOptional {
                    value = collection.decodeElement(UnsafeRawBufferPointer(rebasing: v.dropFirst()), as: V.self)
                } else {
                    value = collection.decodeElement(v, as: V.self)
                }
                out.append((String(decoding: keyBytes, as: UTF8.self), value))
                return true
            }
        } catch {
            core.readFailed(error)
        }
        return out
    }

    func storeMap<V: _PersistableElement>(_ entries: [(String, V)], _ row: inout _RowBuilder, _ column: _Column) throws {
        guard let writing = core.writeTxn else { throw Realm.Error(.notInWriteTransaction, "collections change only inside a write transaction") }
        if !row.isNew {
            let key = CollectionKey(table: row.table, column: column.index, owner: row.key)
            let oldRoot = core.openCollections[key]?.root ?? PageRef(row.currentLoad(column, as: UInt32.self))
            let property = core.snap.schemas[row.table].allProperties[column.index]
            try core.destroyCollection(root: oldRoot, kind: .map, ownerTable: row.table, column: column.index, owner: row.key, property: property)
            core.openCollections.remove(key)
        }
        let collection = CollectionRef(core: core, table: row.table, column: column, owner: row.key)
        var tree = BytesTree()
        for (key, value) in entries {
            guard key.utf8.count <= BytesTree.maxKeySize else {
                throw Realm.Error(.valueTooLarge, "map key of \(key.utf8.count) bytes exceeds \(BytesTree.maxKeySize)")
            }
            let bytes = try encodeMapValue(value, for: collection)
            try Array(key.utf8).withUnsafeBytes { keyBytes in try bytes.withUnsafeBytes { _ = try tree.put(keyBytes, $0, in: writing) } }
        }
        row.store(tree.root.raw, column)
    }
}

/// A map of any key and value types, read as its entries (key strings and values as `Any?`).
protocol MapEntriesSource {
    var anyEntries: [(String, Any?)] { get }
}

extension Map: MapEntriesSource {
    var anyEntries: [(String, Any?)] { entries.map { ($0.key._strataKeyString, $0.value._strataAny) } }
}
