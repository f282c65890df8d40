// `RealmCollection`: what `Results`, `List`, `MutableSet` and `LinkingObjects` share, so that code
// generic over "a Realm collection" compiles as it does with RealmSwift; `RealmCollectionValue`,
// the element types those collections hold; and equality of collections as Realm defines it.
//
// Invariants:
// - Querying, sorting and aggregating a collection of objects go through `Results` drawn from
//   it (CollectionResults.swift), so every collection answers a query exactly as `Results` does.
// - Equality of managed collections is identity of the stored collection, not equal contents
//   (Realm compares the collections behind the values): two accessors of one managed list are
//   equal. Two unmanaged collections are equal when their elements are, as RealmSwift's.
import Foundation

/// A type a Realm collection can hold: the storable scalars, their optionals, objects, enums and
/// ``AnyRealmValue``.
public protocol RealmCollectionValue: _PersistableElement, Hashable, _HasPersistedType {
    /// The element results of objects give for one of their objects: the object itself, or a
    /// projection of it. Only results of objects ask.
    static func _strataFromObject(_ object: Object) -> Self
}

extension RealmCollectionValue {
    public static func _strataFromObject(_ object: Object) -> Self {
        guard let element = object as? Self else {
            Stop.now("Strata: a \(type(of: object)) read as a \(Self.self)")
        }
        return element
    }
}

extension Int: RealmCollectionValue {}
extension Int8: RealmCollectionValue {}
extension Int16: RealmCollectionValue {}
extension Int32: RealmCollectionValue {}
extension Int64: RealmCollectionValue {}
extension Bool: RealmCollectionValue {}
extension Float: RealmCollectionValue {}
extension Double: RealmCollectionValue {}
extension String: RealmCollectionValue {}
extension Data: RealmCollectionValue {}
extension Date: RealmCollectionValue {}
extension UUID: RealmCollectionValue {}
extension ObjectId: RealmCollectionValue {}
extension Decimal128: RealmCollectionValue {}
extension AnyRealmValue: RealmCollectionValue {}
/// What `realm.objects(_:)` can fetch: model classes, and projections of them (RealmSwift's
/// `RealmFetchable`).
public protocol RealmFetchable: RealmCollectionValue {
    /// The model class whose objects are fetched.
    static var _strataFetchedClass: Object.Type { get }
}

extension Object: RealmFetchable {
    public static var _strataFetchedClass: Object.Type { self }
}

extension Object: RealmCollectionValue {
    public static func _strataFromObject(_ object: Object) -> Self { unsafeDowncast(object, to: self) }
}
extension Optional: RealmCollectionValue where Wrapped: RealmCollectionValue {}

/// A collection of a realm: ``Results``, ``List``, ``MutableSet`` or ``LinkingObjects`` (and
/// ``AnyRealmCollection``, which wraps any of them).
///
/// ```swift
/// func names<C: RealmCollection>(_ dogs: C) -> [String] where C.Element == Dog {
///     dogs.sorted(byKeyPath: "name").map(\.name)
/// }
/// names(realm.objects(Dog.self))
/// names(person.dogs)
/// ```
public protocol RealmCollection: RandomAccessCollection, CustomStringConvertible, Equatable, ThreadConfined,
    QueryableCollection
where Index == Int, Element: RealmCollectionValue {
    /// The element type under RealmSwift's name, for generic code over collections
    /// (`C.ElementType`).
    typealias ElementType = Element
    /// The realm of a managed collection; `nil` for an unmanaged one.
    var realm: Realm? { get }
    /// Whether the collection can no longer be read (its owner was deleted).
    var isInvalidated: Bool { get }
    /// Whether this is a frozen snapshot, readable on any thread and never changing.
    var isFrozen: Bool { get }
    /// A frozen snapshot of the collection (see each type's `freeze()`).
    func freeze() -> Self
    /// The live collection a frozen one was taken from, on the calling thread; `nil` when its owner
    /// no longer exists. A live collection returns itself.
    func thaw() -> Self?
    /// Observes the collection (see ``Results/observe(keyPaths:on:_:)``).
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken
}

extension RealmCollection {
    /// Observes the collection from generic code, with the defaults of each type's own
    /// `observe(keyPaths:on:_:)`: every property watched, the handler run where the realm lives.
    ///
    /// - Parameters:
    ///   - keyPaths: the element properties whose changes count as modifications; `nil` watches all.
    ///   - queue: the dispatch queue the handler runs on; `nil` runs it where the realm lives.
    ///   - block: called with each change.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, on: queue, block)
    }

    /// The elements at `indexes`, in index order. An index out of range stops with a `Strata:`
    /// message, as Realm raises.
    ///
    /// - Parameter indexes: positions in the collection.
    public func objects(at indexes: IndexSet) -> [Element] {
        let count = self.count
        if let bad = indexes.first(where: { $0 < 0 || $0 >= count }) {
            Stop.now("Strata: invalidArgument: index \(bad) is out of range 0..<\(count)")
        }
        return indexes.map { self[$0] }
    }
}

// MARK: - Queries on collections of objects

extension RealmCollection where Element: Object {
    /// The objects of this collection as `Results` (itself, for `Results`).
    var queryableResults: Results<Element> {
        if let source = self as? ObjectResultsSource, let results = source.anyObjectResults as? Results<Element> {
            return results
        }
        Stop.now("Strata: invalidArgument: \(type(of: self)) is not a collection Strata can query")
    }

    /// The objects that match a query in Realm's query language, in this collection's order.
    ///
    /// - Parameters:
    ///   - predicateFormat: the query text, with `%@` / `%K` placeholders.
    ///   - args: the values the placeholders stand for.
    /// - Returns: live results; a query that does not parse stops with a `Strata:` message.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        do { return try queryableResults.filtering(predicateFormat, args) } catch let error as Realm.Error {
            Stop.now(error)
        } catch {
            Stop.now("Strata: invalidQuery: \(error)")
        }
    }

    /// The objects that match a type-safe query, in this collection's order.
    ///
    /// - Parameter query: builds the predicate from the element's properties.
    public func `where`(_ query: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        queryableResults.where(query)
    }

    /// The objects sorted by one property.
    ///
    /// - Parameters:
    ///   - keyPath: the property name (through to-one links allowed).
    ///   - ascending: whether smaller values come first.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        queryableResults.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The objects sorted by several keys, most significant first.
    ///
    /// - Parameter descriptors: the sort keys.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        queryableResults.sorted(by: descriptors)
    }

    /// The first object of each distinct combination of the named properties' values.
    ///
    /// - Parameter keyPaths: the property names.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        queryableResults.distinct(by: keyPaths)
    }

    /// The smallest value of a property, or `nil` when no object has one (see ``Results/min(ofProperty:)``).
    ///
    /// - Parameter property: the name of a scalar persisted property.
    public func min<T: _PersistableElement & Comparable>(ofProperty property: String) -> T? {
        if let unmanaged = unmanagedObjects { return unmanaged.extreme(property, smallest: true) }
        return queryableResults.min(ofProperty: property)
    }

    /// The largest value of a property, or `nil` when no object has one.
    ///
    /// - Parameter property: the name of a scalar persisted property.
    public func max<T: _PersistableElement & Comparable>(ofProperty property: String) -> T? {
        if let unmanaged = unmanagedObjects { return unmanaged.extreme(property, smallest: false) }
        return queryableResults.max(ofProperty: property)
    }

    /// The sum of a numeric property; zero when there is no object.
    ///
    /// - Parameter property: the name of a numeric persisted property.
    public func sum<T: _PersistableElement & AdditiveArithmetic>(ofProperty property: String) -> T {
        if let unmanaged = unmanagedObjects { return unmanaged.sum(property) }
        return queryableResults.sum(ofProperty: property)
    }

    /// The mean of a numeric property, or `nil` when no object has a value.
    ///
    /// - Parameter property: the name of a numeric persisted property.
    public func average<T: AddableType>(ofProperty property: String) -> T? {
        if let unmanaged = unmanagedObjects { return unmanaged.average(property) }
        return queryableResults.average(ofProperty: property)
    }

    /// The position of the first object that matches a query, or `nil`.
    ///
    /// - Parameters:
    ///   - predicateFormat: the query text.
    ///   - args: the values its placeholders stand for.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        if let unmanaged = unmanagedObjects { return unmanaged.firstIndex(matching: unmanaged.predicate(predicateFormat, args)) }
        let matching: Results<Element>
        do { matching = try queryableResults.filtering(predicateFormat, args) } catch let error as Realm.Error {
            Stop.now(error)
        } catch {
            Stop.now("Strata: invalidQuery: \(error)")
        }
        let wanted = Set(matching.compactMap { ($0 as Object).storedRow })
        return firstIndex { ($0 as Object).storedRow.map(wanted.contains) ?? false }
    }

    /// The position of the first object that matches a type-safe query, or `nil`.
    ///
    /// - Parameter query: builds the predicate from the element's properties.
    public func index(matching query: (Query<Element>) -> Query<Bool>) -> Int? {
        if let unmanaged = unmanagedObjects { return unmanaged.firstIndex(matching: unmanaged.predicate(query)) }
        let wanted = Set(queryableResults.where(query).compactMap { ($0 as Object).storedRow })
        return firstIndex { ($0 as Object).storedRow.map(wanted.contains) ?? false }
    }
}

/// A collection whose objects can be drawn into `Results` (the type is erased so that generic code
/// over `RealmCollection` can reach it with a dynamic cast).
protocol ObjectResultsSource {
    /// A `Results<Element>` over the collection's objects.
    var anyObjectResults: Any { get }
}

extension Results: ObjectResultsSource { var anyObjectResults: Any { self } }
extension List: ObjectResultsSource where Element: Object { var anyObjectResults: Any { objectResults } }
extension MutableSet: ObjectResultsSource where Element: Object { var anyObjectResults: Any { objectResults } }
extension LinkingObjects: ObjectResultsSource { var anyObjectResults: Any { objectResults } }

// MARK: - Conformances

extension Results: RealmCollection {
    /// Results of objects are invalidated by their realm's `invalidate()`; results of values
    /// with their source collection.
    public var isInvalidated: Bool { valueSource?.isInvalidated() ?? isStale }

    /// The same query on the live realm of the calling thread; live results return themselves.
    public func thaw() -> Results<Element>? {
        guard isFrozen else { return self }
        if let valueSource { return valueSource.thawed().map { Results(values: $0) } }
        guard let live = try? Realm(configuration: core.configuration) else { return nil }
        var thawed = Results(core: live.core, info: info)
        thawed.query = query
        return thawed
    }

    /// Whether both are the same results value (copies of one `Results` are equal, and so are the
    /// results its observer delivers; two calls of `realm.objects(_:)` are not), as Realm compares
    /// results.
    public static func == (lhs: Results<Element>, rhs: Results<Element>) -> Bool { lhs.cache === rhs.cache }
}

extension List: RealmCollection where Element: RealmCollectionValue {}

extension List: Equatable where Element: RealmCollectionValue {
    /// Managed lists are equal when they are the same property of the same object in the same
    /// realm instance (a nested list: the same place in the same stored value); two unmanaged
    /// lists when they hold equal elements in the same order.
    public static func == (lhs: List<Element>, rhs: List<Element>) -> Bool {
        if lhs === rhs { return true }
        switch (lhs.nested?.location, rhs.nested?.location) {
        case let (a?, b?): return a.isSame(as: b)
        case (nil, nil): break
        default: return false
        }
        if lhs.ref == nil && rhs.ref == nil { return lhs.elements == rhs.elements }
        return CollectionRef.same(lhs.ref, rhs.ref)
    }

    /// The live list of a frozen one; `nil` when its owner was deleted since.
    public func thaw() -> List<Element>? {
        if ref == nil && nested == nil { Stop.now(FreezeMisuse.unmanaged(self, "thawed")) }
        guard let ref, ref.core.isFrozen else { return self }
        return ref.thawed().map { List(ref: $0) }
    }
}

extension MutableSet: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    /// The element at a position of the set's iteration order (by stored encoding for a managed set,
    /// insertion order for an unmanaged one). Each access reads the set: iterate for many elements.
    public subscript(position: Int) -> Element {
        let all = elements
        guard position >= 0, position < all.count else {
            Stop.now("Strata: invalidArgument: index \(position) is out of range 0..<\(all.count)")
        }
        return all[position]
    }
}

extension MutableSet: RealmCollection where Element: RealmCollectionValue {
    /// Whether the set's owner was deleted or its realm invalidated; always `false` for an unmanaged set.
    public var isInvalidated: Bool {
        guard let r = ref else { return false }
        return (try? r.core.collectionState(r)) == nil
    }
}

extension MutableSet: Equatable where Element: RealmCollectionValue {
    /// Equal when they are the same stored set, or two unmanaged sets of equal elements
    /// (see `List.==`).
    public static func == (lhs: MutableSet<Element>, rhs: MutableSet<Element>) -> Bool {
        if lhs === rhs { return true }
        if lhs.ref == nil && rhs.ref == nil { return Set(lhs.elements) == Set(rhs.elements) }
        return CollectionRef.same(lhs.ref, rhs.ref)
    }

    /// The live set of a frozen one; `nil` when its owner was deleted since.
    public func thaw() -> MutableSet<Element>? {
        guard let ref else { Stop.now(FreezeMisuse.unmanaged(self, "thawed")) }
        guard ref.core.isFrozen else { return self }
        return ref.thawed().map { MutableSet(ref: $0) }
    }
}

extension LinkingObjects: RealmCollection {
    /// The realm of the object these links point to; `nil` when unmanaged.
    public var realm: Realm? { source.map { Realm(core: $0.core) } }
    /// Whether the object these links point to was deleted or its realm invalidated.
    public var isInvalidated: Bool {
        guard let s = source else { return false }
        guard s.era == s.core.era else { return true }
        do {
            return !(try s.core.snap.metas[s.table].objects.contains(s.key, in: try s.core.pages()))
        } catch {
            return true
        }
    }
    /// Whether these links come from a frozen object.
    public var isFrozen: Bool { source?.core.isFrozen ?? false }

    /// The same links read from a frozen snapshot of the realm.
    public func freeze() -> LinkingObjects<Element> {
        guard let s = source else { return self }
        return LinkingObjects(source: Source(core: s.core.frozenCoreOrStop(holding: s.table, key: s.key), table: s.table, key: s.key, originProperty: s.originProperty))
    }

    /// The live links of frozen ones; `nil` when the object they point to was deleted since.
    public func thaw() -> LinkingObjects<Element>? {
        guard let s = source, s.core.isFrozen else { return self }
        guard let live = try? Realm(configuration: s.core.configuration).core else { return nil }
        let thawed = LinkingObjects(source: Source(core: live, table: s.table, key: s.key, originProperty: s.originProperty))
        return thawed.isInvalidated ? nil : thawed
    }

    /// Observes the links: changes of the set of objects linking here, and of their properties.
    ///
    /// - Parameters:
    ///   - keyPaths: the linking objects' properties whose changes count as modifications; `nil`
    ///     watches all of them.
    ///   - queue: the dispatch queue the handler runs on; `nil` runs it where the realm lives.
    ///   - block: called with each change.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<LinkingObjects<Element>>) -> Void) -> NotificationToken {
        objectResults.observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let results): block(.initial(self.seen(through: results)))
            case .update(let results, let deletions, let insertions, let modifications):
                block(.update(self.seen(through: results), deletions: deletions, insertions: insertions, modifications: modifications))
            case .error(let error): block(.error(error))
            }
        }
    }

    /// These links as the realm of `results` reads them: on an observation's queue, the realm
    /// opened there, so the handler may use what it is given.
    private func seen(through results: Results<Element>) -> LinkingObjects<Element> {
        guard let s = source, let core = results.realm?.core, core !== s.core else { return self }
        return LinkingObjects(source: Source(core: core, table: s.table, key: s.key, originProperty: s.originProperty))
    }

    /// Equal to their own copies (and to what an observer of them delivers on the same realm),
    /// as in Realm: reading the property again gives links that are not `==` to these, like a
    /// new `Results`. Unmanaged (empty) links are all equal.
    public static func == (lhs: LinkingObjects<Element>, rhs: LinkingObjects<Element>) -> Bool {
        switch (lhs.source, rhs.source) {
        case (nil, nil): true
        case let (l?, r?): l === r
        default: false
        }
    }
}

extension CollectionRef {
    /// Whether two references name the same stored collection of the same realm instance.
    static func same(_ a: CollectionRef?, _ b: CollectionRef?) -> Bool {
        guard let a, let b else { return false }
        return a.core === b.core && a.table == b.table && a.column.index == b.column.index && a.owner == b.owner
    }

    /// This collection in the calling thread's live realm; nil when its owner no longer exists.
    func thawed() -> CollectionRef? {
        guard let live = try? Realm(configuration: core.configuration).core else { return nil }
        let ref = CollectionRef(core: live, table: table, column: column, owner: owner)
        guard (try? live.collectionState(table: table, column: column, owner: owner)) != nil else { return nil }
        return ref
    }
}
