// `AnyRealmCollection`: any `RealmCollection` behind one type, as RealmSwift has it (a property
// that may hold a list or results, an array of collections of different kinds).
//
// Invariant: every member forwards to the wrapped collection, read at the time of the call; the
// wrapper keeps no copy of the elements.
import Foundation

/// A type-erased ``RealmCollection``: wraps ``Results``, ``List``, ``MutableSet`` or
/// ``LinkingObjects`` of the same element type.
///
/// ```swift
/// let all = AnyRealmCollection(realm.objects(Dog.self))
/// let mine = AnyRealmCollection(person.dogs)
/// for collection in [all, mine] { print(collection.filter("age > 2").count) }
/// ```
public struct AnyRealmCollection<Element: RealmCollectionValue>: RealmCollection {
    let base: Any
    private let countOf: () -> Int
    private let element: (Int) -> Element
    private let iterated: () -> [Element]
    private let realmOf: () -> Realm?
    private let invalidated: () -> Bool
    private let frozen: () -> Bool
    private let freezeBase: () -> AnyRealmCollection<Element>
    private let thawBase: () -> AnyRealmCollection<Element>?
    private let observeBase: ([String]?, DispatchQueue?, @escaping (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void) -> NotificationToken
    private let equalsBase: (Any) -> Bool
    /// The wrapped collection's handover, and how to rebuild a wrapper from it
    /// (ThreadSafeQueries.swift).
    let handoverBase: () -> _Handover?
    let resolveBase: (_Handover, Realm) -> Any?

    /// Wraps a collection.
    ///
    /// - Parameter base: the collection every member forwards to.
    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        self.base = base
        countOf = { base.count }
        element = { base[$0] }
        iterated = {
            // The wrapped collection's own iteration (a snapshot for lists, results and sets),
            // not positions read one by one while the loop may change the collection.
            var elements: [Element] = []
            var iterator = base.makeIterator()
            while let next = iterator.next() { elements.append(next) }
            return elements
        }
        realmOf = { base.realm }
        invalidated = { base.isInvalidated }
        frozen = { base.isFrozen }
        freezeBase = { AnyRealmCollection(base.freeze()) }
        thawBase = { base.thaw().map { AnyRealmCollection($0) } }
        observeBase = { keyPaths, queue, block in
            base.observe(keyPaths: keyPaths, on: queue) { change in
                switch change {
                case .initial(let c): block(.initial(AnyRealmCollection(c)))
                case .update(let c, let deletions, let insertions, let modifications):
                    block(.update(AnyRealmCollection(c), deletions: deletions, insertions: insertions, modifications: modifications))
                case .error(let error): block(.error(error))
                }
            }
        }
        equalsBase = { other in (other as? C).map { $0 == base } ?? false }
        (handoverBase, resolveBase) = AnyRealmCollection.handover(of: base)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { countOf() }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }
    /// The number of elements of the wrapped collection.
    public var count: Int { countOf() }
    public subscript(position: Int) -> Element { element(position) }

    /// Iterates what the wrapped collection's iteration gives: the elements it held when the loop
    /// started, so deleting or appending inside the loop neither skips nor adds any, as in RealmSwift.
    public func makeIterator() -> IndexingIterator<[Element]> { iterated().makeIterator() }

    /// The wrapped collection's realm.
    public var realm: Realm? { realmOf() }
    /// Whether the wrapped collection can no longer be read.
    public var isInvalidated: Bool { invalidated() }
    /// Whether the wrapped collection is frozen.
    public var isFrozen: Bool { frozen() }
    /// The elements in RealmSwift's format (`AnyRealmCollection<Dog> <0x…> (\n\t[0] Dog {…}\n)`).
    public var description: String { description(depth: RealmDescription.maxDepth) }

    /// A frozen snapshot of the wrapped collection, wrapped.
    public func freeze() -> AnyRealmCollection<Element> { freezeBase() }
    /// The live collection of a frozen one, wrapped; `nil` when it no longer exists.
    public func thaw() -> AnyRealmCollection<Element>? { thawBase() }

    /// Observes the wrapped collection; the handler receives it wrapped.
    ///
    /// - Parameters:
    ///   - keyPaths: the element properties whose changes count as modifications; `nil` watches all.
    ///   - queue: the dispatch queue the handler runs on; `nil` runs it where the realm lives.
    ///   - block: called with each change.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void) -> NotificationToken {
        observeBase(keyPaths, queue, block)
    }

    /// Equal when they wrap equal collections of the same kind.
    public static func == (lhs: AnyRealmCollection<Element>, rhs: AnyRealmCollection<Element>) -> Bool {
        lhs.equalsBase(rhs.base)
    }
}

extension AnyRealmCollection: ObjectResultsSource {
    var anyObjectResults: Any {
        guard let source = base as? ObjectResultsSource else {
            Stop.now("Strata: invalidArgument: a collection of \(Element.self) values cannot be queried")
        }
        return source.anyObjectResults
    }
}
