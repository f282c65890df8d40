// MutableSet: an unordered to-many property without duplicates (`@Persisted var tags: MutableSet<String>`).
//
// Invariants:
// - Stored like a List (a PositionalTree of element encodings, links as 8-byte keys with
//   backlinks), but kept sorted by encoding bytes and without duplicate encodings, so insert,
//   contains and remove are binary searches: O(log² n) page visits instead of a scan.
//   Iteration order is that byte order (Realm leaves set order unspecified). Equality is by
//   encoding: 0.0 and -0.0 are two elements, NaN is one.
// - Managed sets are confined like their object; mutations outside a write trap ("Strata:").
import Foundation

/// An unordered to-many property without duplicates: object links or plain values.
///
/// A set created with `MutableSet()` is *unmanaged* and keeps its elements in memory; once its
/// owner is added to a realm, the property reads and writes the realm. Elements are equal when
/// their stored encodings are equal (so `0.0` and `-0.0` are two elements and every NaN is one),
/// and iteration follows that encoding order, not insertion order. A managed set is confined to
/// its realm's thread, and a change outside a write transaction stops the program with a `Strata:`
/// message.
///
/// ```swift
/// final class Article: Object {
///     @Persisted var title = ""
///     @Persisted var tags: MutableSet<String>
/// }
///
/// try realm.write {
///     article.tags.insert("swift")
///     article.tags.formUnion(["database", "linux"])
/// }
/// let tagged = article.tags.contains("swift")
/// ```
public final class MutableSet<Element: _PersistableElement & Hashable>: Sequence, CustomStringConvertible {
    var storage: [Element] = []
    /// Set once: at creation for an accessor, or by `add` adopting an unmanaged collection.
    var ref: CollectionRef?

    /// An empty unmanaged set.
    public init() { ref = nil }
    init(ref: CollectionRef) { self.ref = ref }

    /// The realm of a managed set; `nil` for an unmanaged one.
    public var realm: Realm? { ref.map { Realm(core: $0.core) } }
    /// Whether this is a frozen set (from ``freeze()``), which never changes and is readable on any
    /// thread.
    public var isFrozen: Bool { ref?.core.isFrozen ?? false }

    var elements: [Element] {
        guard let r = ref else { return storage }
        var out: [Element] = []
        let dynamic = DynamicElement(Element.self)
        r.core.lists.listForEach(r) { _, b in
            out.append(r.decodeElement(b, as: Element.self, dynamic: dynamic))
            return true
        }
        return out
    }

    /// The number of elements.
    public var count: Int {
        guard let r = ref else { return storage.count }
        return r.core.lists.listCount(r)
    }
    /// Whether the set has no element.
    public var isEmpty: Bool { count == 0 }

    /// Whether the set holds `element`; a managed set finds it by binary search.
    ///
    /// - Parameter element: the value or object to look for.
    public func contains(_ element: Element) -> Bool {
        guard let r = ref else { return storage.contains(element) }
        return r.core.lists.setIndex(r, element) != nil
    }

    /// Adds an element unless the set already holds it.
    ///
    /// - Parameter element: the value or object to add; an unmanaged object is added to the realm.
    public func insert(_ element: Element) {
        guard let r = ref else {
            if !storage.contains(element) { storage.append(element) }
            return
        }
        r.core.lists.setInsert(r, element)
    }

    /// Adds each element of a sequence that the set does not hold yet.
    ///
    /// - Parameter elements: the values or objects to add.
    public func insert<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        for e in elements { insert(e) }
    }

    /// Removes an element if the set holds it. A removed object stays in the realm unless its class
    /// is embedded.
    ///
    /// - Parameter element: the value or object to remove.
    public func remove(_ element: Element) {
        guard let r = ref else { storage.removeAll { $0 == element }; return }
        if let i = r.core.lists.setIndex(r, element) { r.core.lists.listRemove(r, at: i) }
    }

    /// Removes every element. The objects a set links to stay in the realm, except embedded ones.
    public func removeAll() {
        guard let r = ref else { storage.removeAll(); return }
        r.core.lists.listRemoveAll(r)
    }

    /// Adds the elements of `other` that the set does not hold yet.
    ///
    /// - Parameter other: the elements to add.
    public func formUnion<S: Sequence>(_ other: S) where S.Element == Element { insert(objectsIn: other) }

    /// Removes the elements that `other` contains.
    ///
    /// - Parameter other: the elements to remove.
    public func subtract<S: Sequence>(_ other: S) where S.Element == Element {
        for e in other { remove(e) }
    }

    /// Keeps only the elements that `other` also contains.
    ///
    /// - Parameter other: the elements to keep.
    public func formIntersection<S: Sequence>(_ other: S) where S.Element == Element {
        let keep = Set(other)
        for e in elements where !keep.contains(e) { remove(e) }
    }

    /// Whether the set and `other` have at least one element in common.
    ///
    /// - Parameter other: the elements to compare with.
    public func intersects<S: Sequence>(_ other: S) -> Bool where S.Element == Element {
        let mine = Set(elements)
        return other.contains { mine.contains($0) }
    }

    /// Whether every element of the set is in `other`.
    ///
    /// - Parameter other: the elements to compare with.
    public func isSubset<S: Sequence>(of other: S) -> Bool where S.Element == Element {
        Set(elements).isSubset(of: Set(other))
    }

    public func makeIterator() -> IndexingIterator<[Element]> { elements.makeIterator() }

    /// A frozen copy of a managed set. Inside a write transaction, the copy holds what the
    /// write found. An unmanaged set, a collection of an object the write created, or a storage
    /// failure stops with a `Strata:` message, as RealmSwift raises.
    public func freeze() -> MutableSet<Element> {
        guard let collection = ref else { Stop.now(FreezeMisuse.unmanaged(self, "frozen")) }
        return MutableSet(ref: CollectionRef(core: collection.core.frozenCoreOrStop(holding: collection.table, key: collection.owner), table: collection.table, column: collection.column, owner: collection.owner))
    }

    /// The elements in RealmSwift's format (`MutableSet<Dog> <0x…> (\n\t[0] Dog {…}\n)`).
    public var description: String { description(depth: RealmDescription.maxDepth) }
}

extension MutableSet: _Persistable {
    public static var _strataShape: _PropertyShape {
        var s = Element._strataShape
        s.collection = .set
        return s
    }
    public static func _strataDefault() -> MutableSet<Element> { MutableSet() }
    /// For a set of objects: a set holding one probe of the element class, so that a key path
    /// read through an element (`\.dogs[0].name`) goes on to name the element's property.
    public static func _strataProbeValue() -> MutableSet<Element>? {
        guard let element = KeyPathProbe.probeValue(Element.self) else { return nil }
        let set = MutableSet()
        set.storage.append(element)
        return set
    }
    public static func _strataGet(_ obj: Object, _ ordinal: Int) -> MutableSet<Element> {
        guard let b = obj._binding else { return MutableSet() }
        return MutableSet(ref: b.collectionRef(ordinal: ordinal))
    }
    public static func _strataSet(_ obj: Object, _ ordinal: Int, _ value: MutableSet<Element>) {
        let target = _strataGet(obj, ordinal)
        let items = value.elements
        target.removeAll()
        target.insert(objectsIn: items)
    }
    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        try row.core.storeCollection(elements, &row, column, sortedSet: true)
    }
    public var _strataAny: Any? { self }
    public static func _strataFromAny(_ any: Any?) -> MutableSet<Element>? {
        // nil (or NSNull) for a set is no elements, as for a list.
        if isNoValue(any) { return MutableSet() }
        // Any set is copied (below), as any list is (List._strataFromAny).
        // An array, or any collection of the elements (results, a list, links…).
        guard !(any is String), !(any is Data), let a = any as? any Sequence else { return nil }
        let s = MutableSet<Element>()
        for v in a {
            guard let e = Element._strataFromAnyOrStoredForm(v) else { return nil }
            s.insert(e)
        }
        return s
    }
}

extension Object: Hashable {
    /// RealmSwift's equality: a managed object of a class with a primary key, or of a frozen
    /// realm, equals every accessor of the same stored object; any other object equals only
    /// itself (two accessors of one row of a class without a primary key are not `==`, as in
    /// RealmSwift). `isSameObject(as:)` asks whether two accessors read the same stored object.
    public static func == (lhs: Object, rhs: Object) -> Bool {
        if lhs === rhs { return true }
        guard lhs.comparesByStoredObject else { return false }
        return lhs.isSameObject(as: rhs)
    }

    /// Whether `==` compares this object by the stored object it reads (see `==`).
    private var comparesByStoredObject: Bool {
        guard let binding = _binding else { return false }
        return binding.info.primaryKeyColumn != nil || binding.core.isFrozen
    }

    /// Whether `object` is an equal object (see `==`): RealmSwift's `isEqual(_:)`.
    ///
    /// - Parameter object: any value.
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Object else { return false }
        return self == other
    }
    /// The object's hash value, as `NSObject.hash` (equal objects have equal hashes).
    public var hash: Int { hashValue }

    public func hash(into hasher: inout Hasher) {
        if comparesByStoredObject, let b = _binding {
            hasher.combine(b.key)
            hasher.combine(b.table)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}
