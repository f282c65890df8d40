// List: an ordered to-many property (`@Persisted var dogs: List<Dog>`, `List<String>`, …).
//
// Invariants:
// - Unmanaged lists keep a Swift array; managed lists (`ref != nil`) read and write the
//   PositionalTree of their owner's column through the realm (CollectionStore.swift):
//   index access, insert, remove and append are O(log n).
// - A managed list is confined like its object. Out-of-range indices stop the program with a
//   "Strata:" message, as Swift's Array does; mutations outside a write trap likewise
//   (see Object.swift for why accessors cannot throw).
import Foundation

public final class List<Element: _PersistableElement>: RandomAccessCollection, MutableCollection, CustomStringConvertible {
    var storage: [Element] = []
    let ref: CollectionRef?

    /// An empty unmanaged list.
    public init() { ref = nil }

    init(ref: CollectionRef) { self.ref = ref }

    /// The realm of a managed list.
    public var realm: Realm? { ref.map { Realm(core: $0.core) } }
    public var isInvalidated: Bool {
        guard let r = ref else { return false }
        return (try? r.core.collectionState(table: r.table, column: r.column, owner: r.owner)) == nil
    }
    public var isFrozen: Bool { ref?.core.isFrozen ?? false }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public var count: Int {
        guard let r = ref else { return storage.count }
        return r.core.listCount(r)
    }
    public var isEmpty: Bool { count == 0 }

    public subscript(position: Int) -> Element {
        get {
            guard let r = ref else { return storage[position] }
            return r.core.listGet(r, position, as: Element.self)
        }
        set {
            guard let r = ref else { storage[position] = newValue; return }
            r.core.listReplace(r, position, newValue)
        }
    }

    public var first: Element? { isEmpty ? nil : self[0] }
    public var last: Element? {
        let n = count
        return n == 0 ? nil : self[n - 1]
    }

    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    // MARK: Mutation

    public func append(_ element: Element) {
        guard let r = ref else { storage.append(element); return }
        r.core.listInsert(r, element, at: nil)
    }

    public func append<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        guard let r = ref else { storage.append(contentsOf: elements); return }
        r.core.listAppend(r, contentsOf: elements)
    }

    public func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        append(objectsIn: elements)
    }

    public func insert(_ element: Element, at index: Int) {
        guard let r = ref else { storage.insert(element, at: index); return }
        r.core.listInsert(r, element, at: index)
    }

    public func remove(at index: Int) {
        guard let r = ref else { storage.remove(at: index); return }
        r.core.listRemove(r, at: index)
    }

    /// Removes the first element (or the first `n`). Traps when there are fewer.
    public func removeFirst(_ n: Int = 1) {
        guard let r = ref else { storage.removeFirst(n); return }
        if n == 1 {
            r.core.listRemove(r, at: 0)
        } else {
            r.core.listRemoveFirst(r, n)
        }
    }

    /// Removes the last element (or the last `n`). Traps when there are fewer.
    public func removeLast(_ n: Int = 1) {
        guard let r = ref else { storage.removeLast(n); return }
        for _ in 0..<n { r.core.listRemove(r, at: r.core.listCount(r) - 1) }
    }

    public func removeAll() {
        guard let r = ref else { storage.removeAll(); return }
        r.core.listRemoveAll(r)
    }

    public func move(from: Int, to: Int) {
        guard let r = ref else {
            let e = storage.remove(at: from)
            storage.insert(e, at: to)
            return
        }
        r.core.listMove(r, from: from, to: to)
    }

    public func swapAt(_ i: Int, _ j: Int) {
        guard let r = ref else { storage.swapAt(i, j); return }
        r.core.listSwap(r, i, j)
    }

    /// Replaces the element at `index`.
    public func replace(index: Int, object: Element) { self[index] = object }

    // MARK: Frozen

    /// A frozen copy of a managed list; unmanaged lists are returned as is. Inside a write
    /// transaction, or on a storage failure, stops with a `Strata:` message (as Realm).
    public func freeze() -> List<Element> {
        guard let collection = ref else { return self }
        let frozen = collection.core.frozenCoreOrStop()
        return List(ref: CollectionRef(core: frozen, table: collection.table, column: collection.column, owner: collection.owner))
    }

    public var description: String { "List<\(Element.self)>(\(count) elements)" }

    /// The elements as an array (one pass).
    var elements: [Element] {
        guard let r = ref else { return storage }
        var out: [Element] = []
        r.core.listForEach(r) { _, b in
            out.append(Element._strataDecodeElement(_ElementView(bytes: b, core: r.core)))
            return true
        }
        return out
    }
}

extension List where Element: Equatable {
    public func index(of element: Element) -> Int? { elements.firstIndex(of: element) }
    public func contains(_ element: Element) -> Bool { index(of: element) != nil }
}

extension List where Element: Object {
    /// The index of a managed object in the list (matched by identity in the realm).
    public func index(of object: Element) -> Int? {
        guard let ref, let b = object._binding else { return storage.firstIndex { $0 === object } }
        var found: Int?
        ref.core.listForEach(ref) { i, bytes in
            if bytes.count >= 8, UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)) == b.key { found = i; return false }
            return true
        }
        return found
    }
}

extension List: _Persistable {
    public static var _strataShape: _PropertyShape {
        var s = Element._strataShape
        s.collection = .list
        return s
    }
    public static func _strataDefault() -> List<Element> { List() }

    public static func _strataGet(_ obj: Object, _ ordinal: Int) -> List<Element> {
        guard let b = obj._binding else { return List() }
        return List(ref: b.collectionRef(ordinal: ordinal))
    }

    public static func _strataSet(_ obj: Object, _ ordinal: Int, _ value: List<Element>) {
        guard obj._binding != nil else { return }
        let target = _strataGet(obj, ordinal)
        let items = value.elements
        target.removeAll()
        for e in items { target.append(e) }
    }

    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        try row.core.storeCollection(elements, &row, column)
    }

    public var _strataAny: Any? { self }

    public static func _strataFromAny(_ any: Any?) -> List<Element>? {
        if let l = any as? List<Element> { return l }
        guard let a = any as? [Any] else { return nil }
        let l = List<Element>()
        for v in a {
            guard let e = Element._strataFromAny(v) else { return nil }
            l.storage.append(e)
        }
        return l
    }
}
