// `List.observe`, `MutableSet.observe` and `Map.observe`: notifications of collection
// properties (the observers are in Notifications/OwnedCollectionObserver.swift; when and where
// handlers run is described in Notifications/NotificationScheduling.swift).
//
// Invariants: a handler receives the collection as seen by the realm it runs on (the observing
// queue's realm with `on:`); observing an unmanaged or frozen collection, key paths on a
// collection of values, or an unknown key path stops with a `Strata:` message (ObservationMisuse
// in ChangeTypes.swift), as Realm raises.
import Dispatch

/// What a ``Map`` observer receives: the keys that changed, as in Realm.
///
/// Deletions are keys that were removed, insertions keys that were added, and modifications keys
/// whose value changed (for a map of objects, also a watched property of the object a key links to).
public enum RealmMapChange<Collection: RealmKeyedCollection> {
    /// The first delivery: the map as it is when observation starts.
    case initial(Collection)
    /// A later delivery after commits that changed the map; several commits may come as one update.
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
    /// Observation could not start (an unmanaged or frozen map, or an unknown key path); nothing
    /// follows it.
    case error(Swift.Error)
}

/// A collection with keys and values, such as ``Map``; ``RealmMapChange`` is generic over it, and
/// generic code over it reads, writes, freezes and sorts as RealmSwift's protocol does.
public protocol RealmKeyedCollection: QueryMapType, Sequence, ThreadConfined, CustomStringConvertible
    where Value: RealmCollectionValue {
    /// The type of the keys.
    associatedtype Key: _MapKey
    /// The realm of a managed collection; nil when unmanaged.
    var realm: Realm? { get }
    /// Whether the collection can no longer be read (its object or realm is gone).
    var isInvalidated: Bool { get }
    /// Whether the collection is frozen (immutable, readable from any thread).
    var isFrozen: Bool { get }
    /// The number of entries.
    var count: Int { get }
    /// The keys, in the collection's order.
    var keys: [Key] { get }
    /// The values, in the order of `keys`.
    var values: [Value] { get }
    /// The value for `key` (nil when absent); setting nil removes the key.
    subscript(key: Key) -> Value? { get set }
    /// Sets the value for `key`, adding the key if it is absent.
    func updateValue(_ value: Value, forKey key: Key)
    /// Removes `key` and its value.
    func removeObject(for key: Key)
    /// Removes every entry.
    func removeAll()
    /// Whether an entry satisfies `predicate`.
    func contains(where predicate: (_ key: Key, _ value: Value) throws -> Bool) rethrows -> Bool
    /// A frozen copy.
    func freeze() -> Self
    /// The live version of a frozen collection; nil when its object was deleted.
    func thaw() -> Self?
}

extension Map: RealmKeyedCollection where Value: RealmCollectionValue {}

extension List {
    /// Observes this managed list: the handler receives `.initial(list)`, then
    /// `.update(list, deletions:insertions:modifications:)` after commits that changed it.
    ///
    /// Several commits may come as one update. Deletions and modifications are indices in the old
    /// list, insertions indices in the new one; a moved element is a deletion plus an insertion. When the
    /// owning object is deleted, one last update reports every element deleted. Observing an
    /// unmanaged or frozen list, or an unknown key path, stops with a `Strata:` message.
    ///
    /// ```swift
    /// let token = person.dogs.observe { change in
    ///     switch change {
    ///     case .initial(let dogs): print("\(dogs.count) dogs")
    ///     case .update(_, let deletions, let insertions, let modifications):
    ///         print(deletions, insertions, modifications)
    ///     case .error(let error): print(error)
    ///     }
    /// }
    /// // keep `token` for as long as notifications are wanted; `token.invalidate()` stops them
    /// ```
    ///
    /// - Parameters:
    ///   - keyPaths: for a list of objects, the element properties (`"name"`, `"owner.name"`) whose
    ///     changes count as modifications; `nil` watches all of them.
    ///   - queue: the dispatch queue the handler runs on, with a list confined to that queue.
    ///     With `nil` it runs where the realm lives: on a thread-confined realm synchronously at
    ///     the end of a write, in `refresh()` and when a write begins (there is no run loop); on
    ///     a queue-confined realm asynchronously on its queue.
    ///   - block: called with each change.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<List<Element>>) -> Void) -> NotificationToken {
        if ref == nil, let location = nested?.location {
            return NestedCollectionObservation.observe(location, noun: "list", queue: queue,
                                                       failed: { block(.error($0)) }) { location, change in
                let list = List(nested: .live(location))
                guard let change else { return block(.initial(list)) }
                block(.update(list, deletions: change.deletions, insertions: change.insertions, modifications: change.modifications))
            }
        }
        return OwnedCollectionObservation.observe(ref: ref, noun: "list", keyPaths: keyPaths, queue: queue) { event, ref in
            let list = ref.map { List(ref: $0) } ?? List()
            switch event {
            case .initial: block(.initial(list))
            case .update(let c):
                block(.update(list, deletions: c.deletions, insertions: c.insertions, modifications: c.modifications))
            case .mapUpdate: break  // only maps report keys
            case .error(let e): block(.error(e))
            }
        }
    }
}

extension MutableSet {
    /// Observes this managed set, like ``List/observe(keyPaths:on:_:)``.
    ///
    /// Indices are positions in the set's iteration order (by element encoding), so an insertion's
    /// index is where the new element sorts.
    ///
    /// - Parameters:
    ///   - keyPaths: for a set of objects, the element properties whose changes count as
    ///     modifications; `nil` watches all of them.
    ///   - queue: the dispatch queue the handler runs on; `nil` runs it where the realm lives, as for a list.
    ///   - block: called with each change.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<MutableSet<Element>>) -> Void) -> NotificationToken {
        OwnedCollectionObservation.observe(ref: ref, noun: "set", keyPaths: keyPaths, queue: queue) { event, ref in
            let set = ref.map { MutableSet(ref: $0) } ?? MutableSet()
            switch event {
            case .initial: block(.initial(set))
            case .update(let c):
                block(.update(set, deletions: c.deletions, insertions: c.insertions, modifications: c.modifications))
            case .mapUpdate: break
            case .error(let e): block(.error(e))
            }
        }
    }
}

extension Map where Value: RealmCollectionValue {
    /// Observes this managed map: the handler receives `.initial(map)`, then
    /// `.update(map, deletions:insertions:modifications:)` with the keys removed, added and changed.
    ///
    /// When the owning object is deleted, one last update reports every key deleted.
    ///
    /// ```swift
    /// let token = player.scores.observe { change in
    ///     if case .update(_, _, let added, let changed) = change { print(added, changed) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - keyPaths: for a map of objects, the properties whose changes count as modifications;
    ///     `nil` watches all of them.
    ///   - queue: the dispatch queue the handler runs on; `nil` runs it where the realm lives, as for a list.
    ///   - block: called with each change.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void) -> NotificationToken {
        if ref == nil, let location = nested?.location {
            return NestedCollectionObservation.observe(location, noun: "map", queue: queue,
                                                       failed: { block(.error($0)) }) { location, change in
                let map = Map(nested: .live(location))
                guard let change else { return block(.initial(map)) }
                block(.update(map, deletions: change.deletedKeys.map(Key.init(_strataKeyString:)),
                              insertions: change.insertedKeys.map(Key.init(_strataKeyString:)),
                              modifications: change.modifiedKeys.map(Key.init(_strataKeyString:))))
            }
        }
        return OwnedCollectionObservation.observe(ref: ref, noun: "map", keyPaths: keyPaths, queue: queue) { event, ref in
            let map = ref.map { Map(ref: $0) } ?? Map()
            switch event {
            case .initial: block(.initial(map))
            case .mapUpdate(let d, let i, let m):
                block(.update(map, deletions: d.map(Key.init(_strataKeyString:)), insertions: i.map(Key.init(_strataKeyString:)),
                              modifications: m.map(Key.init(_strataKeyString:))))
            case .update: break  // maps report keys
            case .error(let e): block(.error(e))
            }
        }
    }
}
