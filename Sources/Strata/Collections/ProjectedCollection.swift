// A list or set of objects projected to one property of each (`\Person.friends.projectTo.name`),
// as RealmSwift's `ProjectedCollection`, for `@Projected` properties of a ``Projection``.
//
// Invariants:
// - Live, as the collection it reads: nothing is copied; element i is the property of the
//   collection's element i, and assigning element i writes that property.
// - Its observers are the collection's, watching the projected property (or the key paths given),
//   with the same indices.
import Foundation

/// What `projectTo` gives on a list or set of objects: the collection projected to one property of
/// its elements, named by dynamic member (`person.friends.projectTo.firstName`).
@dynamicMemberLookup
public struct CollectionElementMapper<Element: Object> {
    let source: ProjectedSource<Element>

    /// The collection projected to the property `member` of each element.
    public subscript<V: RealmCollectionValue>(dynamicMember member: KeyPath<Element, V>) -> ProjectedCollection<V> {
        ProjectedCollection(source: source, keyPath: member)
    }
}

extension List where Element: Object {
    /// The list projected to one property of each object (`friends.projectTo.firstName`), for a
    /// `@Projected` property of a ``Projection``.
    public var projectTo: CollectionElementMapper<Element> { CollectionElementMapper(source: ProjectedSource(self)) }
}

extension MutableSet where Element: Object {
    /// The set projected to one property of each object (`friends.projectTo.firstName`), for a
    /// `@Projected` property of a ``Projection``; two objects with the same value give it twice.
    public var projectTo: CollectionElementMapper<Element> { CollectionElementMapper(source: ProjectedSource(self)) }
}

/// The list or set of objects a projected collection reads, type-erased.
struct ProjectedSource<Element: Object> {
    let collection: AnyRealmCollection<Element>

    init<C: RealmCollection>(_ collection: C) where C.Element == Element {
        self.collection = AnyRealmCollection(collection)
    }
}

/// A list or set of objects read as one property of each object; made by `projectTo`
/// (`@Projected(\Person.friends.projectTo.firstName) var friendNames: ProjectedCollection<String>`).
///
/// The collection is live, and assigning an element writes the property of that object (inside a
/// write).
public struct ProjectedCollection<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible, ThreadConfined {
    public typealias Index = Int
    private let count_: () -> Int
    private let get: (Int) -> Element
    private let set: (Int, Element) -> Void
    private let realm_: () -> Realm?
    private let isInvalidated_: () -> Bool
    private let isFrozen_: () -> Bool
    private let freeze_: () -> ProjectedCollection
    private let thaw_: () -> ProjectedCollection?
    private let observe_: ([String]?, DispatchQueue?, @escaping (RealmCollectionChange<ProjectedCollection>) -> Void) -> NotificationToken
    private let handover_: () -> _Handover?

    init<Root: Object>(source: ProjectedSource<Root>, keyPath: KeyPath<Root, Element>) {
        let collection = source.collection
        count_ = { collection.count }
        get = { collection[$0][keyPath: keyPath] }
        set = { index, value in
            guard let writable = keyPath as? ReferenceWritableKeyPath<Root, Element> else {
                Stop.now("Strata: invalidArgument: the projected key path \(keyPath) is not writable")
            }
            collection[index][keyPath: writable] = value
        }
        realm_ = { collection.realm }
        isInvalidated_ = { collection.isInvalidated }
        isFrozen_ = { collection.isFrozen }
        freeze_ = { ProjectedCollection(source: ProjectedSource(collection.freeze()), keyPath: keyPath) }
        thaw_ = { collection.thaw().map { ProjectedCollection(source: ProjectedSource($0), keyPath: keyPath) } }
        observe_ = { keyPaths, queue, block in
            let property = persistedPath(of: keyPath, strict: false)?.map(\.name).joined(separator: ".")
            return collection.observe(keyPaths: keyPaths ?? property.map { [$0] }, on: queue) { change in
                let project = { (c: AnyRealmCollection<Root>) in ProjectedCollection(source: ProjectedSource(c), keyPath: keyPath) }
                switch change {
                case .initial(let c): block(.initial(project(c)))
                case let .update(c, deletions, insertions, modifications):
                    block(.update(project(c), deletions: deletions, insertions: insertions, modifications: modifications))
                case .error(let error): block(.error(error))
                }
            }
        }
        handover_ = {
            guard let inner = collection._strataHandover else { return nil }
            return _Handover(place: .wrapped(inner: inner, resolve: { inner, realm in
                AnyRealmCollection<Root>._strataResolve(inner, in: realm).map {
                    ProjectedCollection(source: ProjectedSource($0), keyPath: keyPath)
                }
            }), identity: inner.identity, core: inner.core)
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count_() }

    /// The projected property of the element at `position`; assigning it writes that property.
    public subscript(position: Int) -> Element {
        get { get(position) }
        nonmutating set { set(position, newValue) }
    }

    /// The realm of the projected collection; nil when it is unmanaged.
    public var realm: Realm? { realm_() }
    /// Whether the projected collection can no longer be read.
    public var isInvalidated: Bool { isInvalidated_() }
    /// Whether this is a frozen snapshot.
    public var isFrozen: Bool { isFrozen_() }
    /// A frozen snapshot (see the collection's `freeze()`).
    public func freeze() -> ProjectedCollection { freeze_() }
    /// The live collection a frozen one was taken from; nil when it no longer exists.
    public func thaw() -> ProjectedCollection? { thaw_() }

    /// Observes the projected collection: the handler receives the changes of the collection it
    /// reads, counting changes of the projected property (or of `keyPaths`) as modifications.
    ///
    /// - Parameters:
    ///   - keyPaths: element properties whose changes count as modifications; `nil` watches the
    ///     projected one.
    ///   - queue: the dispatch queue the handler runs on; `nil` runs it where the realm lives.
    ///   - block: called with each change.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<ProjectedCollection>) -> Void) -> NotificationToken {
        observe_(keyPaths, queue, block)
    }

    public var description: String {
        "ProjectedCollection<\(Element.self)> {\n" + enumerated().map { "\t[\($0.offset)] \($0.element)\n" }.joined() + "}"
    }

    public var _strataHandover: _Handover? { handover_() }
    public static func _strataResolve(_ handover: _Handover, in realm: Realm) -> ProjectedCollection? {
        guard case .wrapped(let inner, let resolve) = handover.place else { return nil }
        return resolve(inner, realm) as? ProjectedCollection
    }
}
