// The collections of a migration's old objects: what a `List`, `MutableSet` or `Map` property held
// before the migration, as RealmSwift's dynamic API gives it (`List<MigrationObject>` of old
// objects for links, `List<Int>` for integers of any width, `Map<String, …>`).
//
// Invariant: an old object's collection is read from the tree its captured row names. The
// migration runs in one write transaction, and pages of the last committed version are not reused
// before it commits, so that tree still holds the pre-migration elements whatever the block changes.
// The collection handed out is an unmanaged copy: the old side is read-only.
import Foundation
import StrataStorage

extension MigrationContext {
    /// The elements of the old collection property `p` whose tree starts at `root`, as an
    /// unmanaged collection; a link element reads as the linked object's old view, as a to-one
    /// link of an old object does.
    func oldCollection(_ p: Property, root: PageRef) -> Any? {
        do {
            let tree = OldTree(root: root, pages: try core.pages())
            if p.type == .object { return try oldLinks(p, tree) }
            return try OldCollectionValues(property: p, tree: tree, core: core).collection()
        } catch {
            core.readFailed(error)
        }
    }

    private func oldLinks(_ p: Property, _ tree: OldTree) throws -> Any {
        let target = p.objectClassName ?? ""
        func view(_ bytes: UnsafeRawBufferPointer) -> MigrationObject? {
            guard bytes.count >= 8 else { return nil }
            return oldView(className: target, key: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)))
        }
        switch p.collection {
        case .map:
            let map = Map<String, MigrationObject?>()
            // A map's link is a presence byte, then the key of the linked object.
            for (key, linked) in try tree.entries({ $0.first == 1 ? view(UnsafeRawBufferPointer(rebasing: $0.dropFirst())) : nil }) {
                map[key] = .some(linked)
            }
            return map
        case .list, .set, .none:
            return unmanagedCollection(try tree.elements(view), p.collection)
        }
    }
}

/// An unmanaged set (for `.set`) or list of `elements`.
private func unmanagedCollection<E: RealmCollectionValue & _PersistableElement>(_ elements: [E], _ kind: CollectionKind) -> Any {
    if kind == .set {
        let set = MutableSet<E>()
        set.insert(objectsIn: elements)
        return set
    }
    let list = List<E>()
    list.append(objectsIn: elements)
    return list
}

/// The tree of an old collection, read element by element.
private struct OldTree {
    let root: PageRef
    let pages: any PageReading

    /// The elements of a list or set, in stored order; those `decode` gives nil for are left out.
    func elements<E>(_ decode: (UnsafeRawBufferPointer) -> E?) throws -> [E] {
        guard !root.isNull else { return [] }
        var elements: [E] = []
        try PositionalTree(root: root).forEach(from: 0, in: pages) { _, bytes in
            if let element = decode(bytes) { elements.append(element) }
            return true
        }
        return elements
    }

    /// The entries of a map, by key.
    func entries<E>(_ decode: (UnsafeRawBufferPointer) -> E) throws -> [(key: String, value: E)] {
        guard !root.isNull else { return [] }
        var entries: [(key: String, value: E)] = []
        try BytesTree(root: root).forEach(from: nil, in: pages) { key, value in
            entries.append((String(decoding: key, as: UTF8.self), decode(value)))
            return true
        }
        return entries
    }
}

/// Reads an old collection of values by its property's type.
private struct OldCollectionValues {
    let property: Property
    let tree: OldTree
    let core: RealmCore

    func collection() throws -> Any? {
        let optional = property.isOptional
        switch property.type {
        case .int: return try optional ? make(Int?.self) : make(Int.self)
        case .bool: return try optional ? make(Bool?.self) : make(Bool.self)
        case .float: return try optional ? make(Float?.self) : make(Float.self)
        case .double: return try optional ? make(Double?.self) : make(Double.self)
        case .string: return try optional ? make(String?.self) : make(String.self)
        case .data: return try optional ? make(Data?.self) : make(Data.self)
        case .date: return try optional ? make(Date?.self) : make(Date.self)
        case .decimal128: return try optional ? make(Decimal128?.self) : make(Decimal128.self)
        case .objectId: return try optional ? make(ObjectId?.self) : make(ObjectId.self)
        case .uuid: return try optional ? make(UUID?.self) : make(UUID.self)
        case .any: return try make(AnyRealmValue.self)
        case .object, .linkingObjects: return nil
        }
    }

    private func make<E: RealmCollectionValue & _PersistableElement>(_: E.Type) throws -> Any {
        let decode = { (bytes: UnsafeRawBufferPointer) -> E in E._strataDecodeElement(_ElementView(bytes: bytes, core: core)) }
        switch property.collection {
        case .map:
            let map = Map<String, E>()
            for (key, value) in try tree.entries(decode) { map[key] = value }
            return map
        case .list, .set, .none:
            return unmanagedCollection(try tree.elements(decode), property.collection)
        }
    }
}
