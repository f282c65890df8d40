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
            let pages = try core.pages()
            if p.type == .object { return try oldLinks(p, root: root, pages) }
            return try OldCollectionValues(property: p, root: root, core: core, pages: pages).collection()
        } catch {
            core.readFailed(error)
        }
    }

    private func oldLinks(_ p: Property, root: PageRef, _ pages: some PageReading) throws -> Any {
        let target = p.objectClassName ?? ""
        func view(_ bytes: UnsafeRawBufferPointer) -> MigrationObject? {
            guard bytes.count >= 8 else { return nil }
            return oldView(className: target, key: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)))
        }
        switch p.collection {
        case .map:
            let map = Map<String, MigrationObject?>()
            if !root.isNull {
                try BytesTree(root: root).forEach(from: nil, in: pages) { key, value in
                    // A presence byte, then the key of the linked object.
                    let linked = value.first == 1 ? view(UnsafeRawBufferPointer(rebasing: value.dropFirst())) : nil
                    map[String(decoding: key, as: UTF8.self)] = .some(linked)
                    return true
                }
            }
            return map
        case .set:
            let set = MutableSet<MigrationObject>()
            for element in try positional(root, pages, view) { set.insert(element) }
            return set
        case .list, .none:
            let list = List<MigrationObject>()
            list.append(objectsIn: try positional(root, pages, view))
            return list
        }
    }

    private func positional<E>(_ root: PageRef, _ pages: some PageReading,
                               _ decode: (UnsafeRawBufferPointer) -> E?) throws -> [E] {
        guard !root.isNull else { return [] }
        var elements: [E] = []
        try PositionalTree(root: root).forEach(from: 0, in: pages) { _, bytes in
            if let element = decode(bytes) { elements.append(element) }
            return true
        }
        return elements
    }
}

/// Reads an old collection of values by its property's type.
private struct OldCollectionValues {
    let property: Property
    let root: PageRef
    let core: RealmCore
    let pages: any PageReading

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

    private func decode<E: _PersistableElement>(_ bytes: UnsafeRawBufferPointer, as: E.Type) -> E {
        E._strataDecodeElement(_ElementView(bytes: bytes, core: core))
    }

    private func make<E: RealmCollectionValue & _PersistableElement>(_: E.Type) throws -> Any {
        switch property.collection {
        case .map:
            let map = Map<String, E>()
            if !root.isNull {
                try BytesTree(root: root).forEach(from: nil, in: pages) { key, value in
                    map[String(decoding: key, as: UTF8.self)] = decode(value, as: E.self)
                    return true
                }
            }
            return map
        case .set:
            let set = MutableSet<E>()
            set.insert(objectsIn: try elements(E.self))
            return set
        case .list, .none:
            let list = List<E>()
            list.append(objectsIn: try elements(E.self))
            return list
        }
    }

    private func elements<E: _PersistableElement>(_: E.Type) throws -> [E] {
        guard !root.isNull else { return [] }
        var elements: [E] = []
        try PositionalTree(root: root).forEach(from: 0, in: pages) { _, bytes in
            elements.append(decode(bytes, as: E.self))
            return true
        }
        return elements
    }
}
