// `List.observe`, `MutableSet.observe` and `Map.observe`: notifications of collection
// properties (the observers are in Notifications/OwnedCollectionObserver.swift; when and where
// handlers run is described in Notifications/ObserverHub.swift).
//
// Invariants: a handler receives the collection as seen by the realm it runs on (the observing
// queue's realm with `on:`); an unmanaged or frozen collection, key paths on a collection of
// values, or an unknown key path deliver `.error` once and nothing else.
import Dispatch

/// What a `Map` observer receives: changed KEYS, as in Realm (`RealmMapChange`). Deletions are
/// keys that were removed, insertions keys that were added, modifications keys whose value
/// changed (for maps of objects: also a watched property of the object the key points to).
public enum RealmMapChange<Collection: RealmKeyedCollection> {
    case initial(Collection)
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
    case error(Swift.Error)
}

/// A keyed collection (Realm's protocol of the same name): `Map`.
public protocol RealmKeyedCollection {
    associatedtype Key
    associatedtype Value
}

extension Map: RealmKeyedCollection {}

extension List {
    /// Observes this managed list: `.initial(list)`, then `.update(list, deletions:insertions:
    /// modifications:)` after commits that changed it (several commits may coalesce). Indices
    /// follow `RealmCollectionChange`: deletions in the old list, insertions and modifications
    /// in the new one; a moved element is a deletion plus an insertion. For lists of objects,
    /// `keyPaths` (properties of the element class: "name", "owner.name") limit which changes of
    /// the elements count as modifications; nil watches all their properties. With `queue`, the
    /// block runs there with a list confined to that queue. When the owning object is deleted,
    /// one last update reports every element deleted.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<List<Element>>) -> Void) -> NotificationToken {
        OwnedCollectionObservation.observe(ref: ref, noun: "list", keyPaths: keyPaths, queue: queue) { event, ref in
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
    /// Observes this managed set, like `List.observe`: indices are positions in the set's
    /// iteration order (Strata keeps sets ordered by element encoding, so an insertion's index
    /// is where the new element sorts).
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

extension Map {
    /// Observes this managed map: `.initial(map)`, then `.update(map, deletions:insertions:
    /// modifications:)` with the keys removed, added and changed (`RealmMapChange`, as in Realm).
    /// `keyPaths` and `queue` as for `List.observe`. When the owning object is deleted, one
    /// last update reports every key deleted.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void) -> NotificationToken {
        OwnedCollectionObservation.observe(ref: ref, noun: "map", keyPaths: keyPaths, queue: queue) { event, ref in
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
