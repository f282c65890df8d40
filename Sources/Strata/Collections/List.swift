// List: an ordered to-many property (`@Persisted var dogs: List<Dog>`, `List<String>`, …).
//
// Invariants:
// - Unmanaged lists keep a Swift array; managed lists (`ref != nil`) read and write the
//   PositionalTree of their owner's column through the realm (ListStore.swift):
//   index access, insert, remove and append are O(log n).
// - A managed list is confined like its object. Out-of-range indices stop the program with a
//   "Strata:" message, as Swift's Array does; mutations outside a write trap likewise
//   (see Object.swift for why accessors cannot throw).
import Foundation

/// An ordered, indexable to-many property of an ``Object``: object links or plain values.
///
/// A list created with `List()` is *unmanaged* and keeps its elements in memory; once its owner
/// is added to a realm, the property reads and writes the realm directly, so changes are visible
/// to every reader of a later snapshot. A managed list is confined to its realm's thread, and it
/// can be changed only inside a write transaction: a change outside one, or an index out of range,
/// stops the program with a `Strata:` message, as `Array` does for a bad index.
///
/// ```swift
/// final class Person: Object {
///     @Persisted var name = ""
///     @Persisted var dogs: List<Dog>
/// }
///
/// try realm.write {
///     person.dogs.append(rex)
///     person.dogs.move(from: 0, to: person.dogs.count - 1)
/// }
/// let young = person.dogs.where { $0.age < 2 }
/// ```
public final class List<Element: _PersistableElement>: RandomAccessCollection, MutableCollection, CustomStringConvertible {
    /// The elements of an unmanaged list.
    var unmanagedElements: [Element] = []
    /// Set once: at creation for an accessor, or by `add` adopting an unmanaged collection.
    var ref: CollectionRef?
    /// Set for a `List<AnyRealmValue>` nested in a stored value (NestedCollections.swift).
    var nested: NestedBacking?

    /// An empty unmanaged list.
    public init() { ref = nil }

    init(ref: CollectionRef) { self.ref = ref }

    init(nested: NestedBacking) { self.nested = nested }

    /// The elements of a list without a collection tree (`ref == nil`): its own, or those of the
    /// stored value it is nested in, changed by rewriting that value.
    var storage: [Element] {
        get {
            guard let location = nested?.location else { return unmanagedElements }
            return location.listElements() as? [Element] ?? []
        }
        set {
            guard let nested else { unmanagedElements = newValue; return }
            guard let location = nested.location else { Stop.now(NestedCollectionLocation.copyMessage) }
            location.replace(with: .fromArray(newValue as? [AnyRealmValue] ?? []))
        }
        _modify {
            guard nested != nil else {
                yield &unmanagedElements
                return
            }
            var elements = storage
            yield &elements
            storage = elements
        }
    }

    /// The realm of a managed list.
    public var realm: Realm? { ref.map { Realm(core: $0.core) } ?? nested?.location?.realm }
    /// Whether the list can no longer be read: its owner was deleted or its realm invalidated.
    ///
    /// Always `false` for an unmanaged list.
    public var isInvalidated: Bool {
        guard let r = ref else { return nested?.location?.isInvalidated ?? false }
        return (try? r.core.collectionState(r)) == nil
    }
    /// Whether this is a frozen list (from ``freeze()``), which never changes and is readable on
    /// any thread.
    public var isFrozen: Bool { ref?.core.isFrozen ?? nested?.location?.isFrozen ?? false }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    /// The number of elements.
    public var count: Int {
        guard let r = ref else { return storage.count }
        return r.core.lists.listCount(r)
    }
    /// Whether the list has no element.
    public var isEmpty: Bool { count == 0 }

    public subscript(position: Int) -> Element {
        get {
            guard let r = ref else {
                let elements = storage
                return elements[Self.checked(position, in: elements)]
            }
            return NestedAttachment.listElement(r.core.lists.listGet(r, position, as: Element.self), of: self, at: position)
        }
        set {
            guard let r = ref else { withUnmanagedElements { $0[Self.checked(position, in: $0)] = newValue }; return }
            r.core.lists.listReplace(r, position, newValue)
        }
    }

    /// The first element, or `nil` when the list is empty.
    public var first: Element? { isEmpty ? nil : self[0] }
    /// The last element, or `nil` when the list is empty.
    public var last: Element? {
        let n = count
        return n == 0 ? nil : self[n - 1]
    }

    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    // MARK: Mutation

    /// Adds an element at the end of the list.
    ///
    /// For a managed list of objects, an unmanaged object is added to the realm with it.
    /// Outside a write transaction the program stops.
    ///
    /// - Parameter element: the value or object to append.
    public func append(_ element: Element) {
        guard let r = ref else { storage.append(element); return }
        r.core.lists.listInsert(r, element, at: nil)
    }

    /// Adds the elements of a sequence at the end of the list, in their order.
    ///
    /// - Parameter elements: the values or objects to append.
    public func append<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        guard let r = ref else { storage.append(contentsOf: elements); return }
        r.core.lists.listAppend(r, contentsOf: elements)
    }

    /// Adds the elements of a sequence at the end of the list; the same as ``append(objectsIn:)``.
    ///
    /// - Parameter elements: the values or objects to append.
    public func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        append(objectsIn: elements)
    }

    /// Inserts an element at a position, moving the following elements up by one.
    ///
    /// - Parameters:
    ///   - element: the value or object to insert.
    ///   - index: a position from `0` through ``count``; any other stops the program.
    public func insert(_ element: Element, at index: Int) {
        guard let r = ref else {
            withUnmanagedElements { elements in
                guard index >= 0, index <= elements.count else {
                    Stop.now("Strata: invalidArgument: insertion index \(index) is out of range 0...\(elements.count)")
                }
                elements.insert(element, at: index)
            }
            return
        }
        r.core.lists.listInsert(r, element, at: index)
    }

    /// Removes the element at a position. A removed object stays in the realm, unless its class is
    /// embedded: an ``EmbeddedObject`` removed from its list is deleted.
    ///
    /// - Parameter index: a position in `0..<count`; any other stops the program.
    public func remove(at index: Int) {
        guard let r = ref else { _ = withUnmanagedElements { $0.remove(at: Self.checked(index, in: $0)) }; return }
        r.core.lists.listRemove(r, at: index)
    }

    /// Removes the first element, or the first `n` elements.
    ///
    /// - Parameter n: how many elements to remove; more than ``count`` stops the program.
    public func removeFirst(_ n: Int = 1) {
        guard let r = ref else { withUnmanagedElements { $0.removeFirst(Self.checkedRemovalCount(n, "removeFirst", of: $0.count)) }; return }
        if n == 1 {
            r.core.lists.listRemove(r, at: 0)
        } else {
            r.core.lists.listRemoveFirst(r, n)
        }
    }

    /// Removes the last element, or the last `n` elements.
    ///
    /// - Parameter n: how many elements to remove; more than ``count`` stops the program.
    public func removeLast(_ n: Int = 1) {
        guard let r = ref else { withUnmanagedElements { $0.removeLast(Self.checkedRemovalCount(n, "removeLast", of: $0.count)) }; return }
        // Checked before the first removal, so that a count too large removes nothing.
        for _ in 0..<Self.checkedRemovalCount(n, "removeLast", of: r.core.lists.listCount(r)) { r.core.lists.listRemove(r, at: r.core.lists.listCount(r) - 1) }
    }

    /// Removes every element. The objects a list links to stay in the realm, except embedded ones,
    /// which are deleted.
    public func removeAll() {
        guard let r = ref else { storage.removeAll(); return }
        r.core.lists.listRemoveAll(r)
    }

    /// Moves the element at one position to another, shifting the elements in between.
    ///
    /// - Parameters:
    ///   - from: the current position of the element.
    ///   - to: its position after the move.
    public func move(from: Int, to: Int) {
        guard let r = ref else {
            withUnmanagedElements { elements in
                guard elements.indices.contains(from), elements.indices.contains(to) else {
                    Stop.now("Strata: invalidArgument: move(from: \(from), to: \(to)) is out of range 0..<\(elements.count)")
                }
                let moved = elements.remove(at: from)
                elements.insert(moved, at: to)
            }
            return
        }
        r.core.lists.listMove(r, from: from, to: to)
    }

    /// Exchanges the elements at two positions.
    ///
    /// - Parameters:
    ///   - i: the position of the first element.
    ///   - j: the position of the second element.
    public func swapAt(_ i: Int, _ j: Int) {
        guard let r = ref else {
            withUnmanagedElements { elements in
                guard elements.indices.contains(i), elements.indices.contains(j) else {
                    Stop.now("Strata: invalidArgument: swapAt(\(i), \(j)) is out of range 0..<\(elements.count)")
                }
                elements.swapAt(i, j)
            }
            return
        }
        r.core.lists.listSwap(r, i, j)
    }

    /// Runs `body` on the unmanaged elements in place: a plain list's own array, or the elements of
    /// the value the list is nested in, decoded once and written back once, however many times
    /// `body` reads them to check a position.
    private func withUnmanagedElements<R>(_ body: (inout [Element]) -> R) -> R { body(&storage) }

    /// `index`, when it is a position of `elements`; otherwise a stop with a `Strata:` message, as a
    /// managed list gives, where Swift's array would trap without one.
    private static func checked(_ index: Int, in elements: [Element]) -> Int {
        guard elements.indices.contains(index) else {
            Stop.now("Strata: invalidArgument: index \(index) is out of range 0..<\(elements.count)")
        }
        return index
    }

    /// `n`, when that many of `count` elements can be removed; otherwise a stop with a `Strata:` message.
    private static func checkedRemovalCount(_ n: Int, _ operation: String, of count: Int) -> Int {
        guard n >= 0, n <= count else {
            Stop.now("Strata: invalidArgument: \(operation)(\(n)) on a list of \(count) elements")
        }
        return n
    }

    /// Replaces the element at a position, as assigning through the subscript does.
    ///
    /// - Parameters:
    ///   - index: a position in `0..<count`.
    ///   - object: the new element.
    public func replace(index: Int, object: Element) { self[index] = object }

    // MARK: Frozen

    /// A frozen copy of a managed list. Inside a write transaction, the copy holds what the
    /// write found. An unmanaged list, a collection of an object the write created, or a storage
    /// failure stops with a `Strata:` message, as RealmSwift raises.
    ///
    /// ```swift
    /// let snapshot = person.dogs.freeze()
    /// Task.detached { print(snapshot.count) }
    /// ```
    public func freeze() -> List<Element> {
        guard let collection = ref else {
            // A list nested in a stored value is frozen with the object that holds it.
            if nested != nil { return self }
            Stop.now(FreezeMisuse.unmanaged(self, "frozen"))
        }
        let frozen = collection.core.frozenCoreOrStop(holding: collection.table, key: collection.owner)
        return List(ref: CollectionRef(core: frozen, table: collection.table, column: collection.column, owner: collection.owner))
    }

    /// The elements in RealmSwift's format (`List<Dog> <0x…> (\n\t[0] Dog {…}\n)`).
    public var description: String { description(depth: RealmDescription.maxDepth) }

    /// Iterates the elements the list held when iteration started, so that appending inside the
    /// loop neither extends nor disturbs it, as with RealmSwift (ListIterator.swift).
    public func makeIterator() -> Iterator { Iterator(self) }

    /// The elements as an array (one pass).
    ///
    /// Written into an array made for the list's count, not appended: this code is generic and
    /// not specialised for the caller's element type, and each `append` looked the array type's
    /// metadata up in the runtime (a seventh of a list traversal's samples). Elements beyond the
    /// count (a damaged count) are kept all the same, after the others.
    var elements: [Element] {
        guard let r = ref else { return storage }
        let dynamic = DynamicElement(Element.self)
        var beyond: [Element] = []
        let out = [Element](unsafeUninitializedCapacity: r.core.lists.listCount(r)) { buffer, initialized in
            r.core.lists.listForEach(r) { i, b in
                let element = NestedAttachment.listElement(r.decodeElement(b, as: Element.self, dynamic: dynamic), of: self, at: i)
                if initialized < buffer.count, let base = buffer.baseAddress {
                    (base + initialized).initialize(to: element)
                    initialized += 1
                } else {
                    beyond.append(element)
                }
                return true
            }
        }
        return beyond.isEmpty ? out : out + beyond
    }
}

extension List where Element: Equatable {
    /// The position of the first element equal to `element`, or `nil` when there is none.
    ///
    /// - Parameter element: the value to look for.
    public func index(of element: Element) -> Int? { elements.firstIndex(of: element) }
    /// Whether the list holds an element equal to `element`.
    ///
    /// - Parameter element: the value to look for.
    public func contains(_ element: Element) -> Bool { index(of: element) != nil }
}

extension List where Element: Object {
    /// The position of the first link to `object`, or `nil` when the list does not link to it.
    ///
    /// A managed list compares the object's identity in the realm, so two accessors of one stored
    /// object match; an unmanaged list compares Swift identity.
    ///
    /// - Parameter object: the object to look for.
    public func index(of object: Element) -> Int? {
        guard let ref, let b = object._binding else { return storage.firstIndex { $0 === object } }
        // A dynamic view of a list of values holds no objects.
        guard ref.column.type == .object else { return nil }
        var found: Int?
        ref.core.lists.listForEach(ref) { i, bytes in
            if bytes.count >= 8, UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)) == b.key { found = i; return false }
            return true
        }
        return found
    }

    /// Whether the list links to `object` (compared by identity in the realm, as `index(of:)` compares).
    ///
    /// - Parameter object: the object to look for.
    public func contains(_ object: Element) -> Bool { index(of: object) != nil }
}

extension List: _Persistable {
    public static var _strataShape: _PropertyShape {
        var s = Element._strataShape
        s.collection = .list
        return s
    }
    public static func _strataDefault() -> List<Element> { List() }

    /// For a list of objects: a list holding one probe of the element class, so that a key path
    /// read through an element (`\.dogs[0].name`) goes on to name the element's property.
    public static func _strataProbeValue() -> List<Element>? {
        guard let element = KeyPathProbe.probeValue(Element.self) else { return nil }
        let list = List()
        list.storage.append(element)
        return list
    }

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
        // nil (NSNull, a boxed nil) for a list is no elements, as RealmSwift's key-value coding sets it.
        if isNoValue(any) { return List() }
        // Any list is copied (below), as RealmSwift copies a list it is given: an unmanaged object
        // given a managed one must not hold, and later change, the stored list, and one given
        // another object's unmanaged list must not share it (adding either would make the
        // other's list managed).
        // Any collection of the elements (results, a set, links…) gives its elements in order.
        if !(any is [Any]), !(any is String), !(any is Data), let sequence = any as? any Sequence {
            let l = List<Element>()
            for v in sequence {
                guard let e = Element._strataFromAnyOrStoredForm(v) else { return nil }
                l.storage.append(e)
            }
            return l
        }
        guard let a = any as? [Any] else { return nil }
        let l = List<Element>()
        for v in a {
            guard let e = Element._strataFromAnyOrStoredForm(v) else { return nil }
            l.storage.append(e)
        }
        return l
    }
}
