// Observing a list or dictionary nested in an `AnyRealmValue` (`object.value.listValue?.observe`),
// as RealmSwift allows.
//
// A nested collection is part of the stored value that holds it (NestedCollections.swift), so it
// is observed through that value's root: the object's property, the list element or the map
// entry. Each change the root reports is compared with the collection as the last delivery saw it:
// - a list reports the positions removed (in the old list) and added (in the new one), a position
//   removed and added again as modified;
// - a dictionary reports the keys removed, added and whose value changed, each sorted;
// nested collections among the elements compare by contents. A change that leaves the nested
// collection as it was is not delivered. When the location no longer holds a collection of its
// kind (the value was replaced, the object deleted), one last update reports every element gone.
import Dispatch

enum NestedCollectionObservation {
    /// What a delivery compares: the elements of a list, or the entries of a dictionary.
    enum Contents {
        case list([AnyRealmValue])
        case dictionary([String: AnyRealmValue])
        case gone
    }

    /// Observes the collection at `location`; `deliver` gets the initial contents (`nil` changes)
    /// and each change, with the location as seen where it runs; `failed` gets the error that
    /// ends an observation on a queue whose realm could not be opened.
    static func observe(_ location: NestedCollectionLocation, noun: String, queue: DispatchQueue?,
                        failed: @escaping (Swift.Error) -> Void,
                        deliver: @escaping (NestedCollectionLocation, NestedCollectionChange?) -> Void) -> NotificationToken {
        guard let realm = location.realm else {
            ObservationMisuse.stop(.invalidArgument, "only managed collections can be observed; add the object owning this \(noun) to a realm first")
        }
        if location.isFrozen {
            ObservationMisuse.stop(.invalidState, "a frozen \(noun) cannot be observed: it never changes; thaw it first")
        }
        if let queue, realm.core.confinement != .queue(Confinement.queueIdentity(queue)) {
            let token = NotificationToken(flag: ObserverFlag(), retaining: realm.core)
            let request = NestedObservationRequest(address: location.address, steps: location.steps, noun: noun,
                                                   failed: failed, deliver: deliver)
            Handover.observe(configuration: realm.configuration, queue: queue, token: token,
                             payload: QueueHandoff(value: request)) { realm, payload in
                let r = payload.value
                guard let relocated = r.address.location(in: realm, steps: r.steps) else {
                    return NotificationToken(flag: ObserverFlag())
                }
                return observe(relocated, noun: r.noun, queue: nil, failed: r.failed, deliver: r.deliver)
            } onError: { payload, error in payload.value.failed(error) }
            return token
        }
        let last = Box(contents(at: location))
        let token = location.observeRoot { current in
            let now = contents(at: current)
            guard let change = NestedCollectionChange(from: last.value, to: now) else { return }
            last.value = now
            deliver(current, change)
        }
        realm.core.deliverInitial(flag: token.cancelled) { _ in deliver(location, nil) }
        return token
    }

    static func contents(at location: NestedCollectionLocation) -> Contents {
        switch location.current() {
        case .list(let list)?: .list(list.unmanagedElements)
        case .dictionary(let map)?: .dictionary(map.unmanagedEntries)
        default: .gone
        }
    }

    /// Whether two values hold the same thing, nested collections compared by contents.
    static func same(_ a: AnyRealmValue, _ b: AnyRealmValue) -> Bool {
        switch (a, b) {
        case let (.list(x), .list(y)):
            let (l, r) = (x.unmanagedElements, y.unmanagedElements)
            return l.count == r.count && zip(l, r).allSatisfy(same)
        case let (.dictionary(x), .dictionary(y)):
            let (l, r) = (x.unmanagedEntries, y.unmanagedEntries)
            return l.count == r.count && l.allSatisfy { key, value in r[key].map { same(value, $0) } ?? false }
        default:
            return a == b
        }
    }

    private final class Box<Value> {
        var value: Value
        init(_ value: Value) { self.value = value }
    }
}

/// The change of a nested collection between two deliveries.
struct NestedCollectionChange {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var modifications: [Int] = []
    var deletedKeys: [String] = []
    var insertedKeys: [String] = []
    var modifiedKeys: [String] = []

    /// Nil when nothing changed.
    init?(from old: NestedCollectionObservation.Contents, to new: NestedCollectionObservation.Contents) {
        let same = NestedCollectionObservation.same
        switch (old, new) {
        case let (.list(before), .list(after)):
            // Positions the two lists agree on are unchanged; a position removed and added again
            // at the same place is a modification.
            let difference = after.difference(from: before, by: same)
            var removed = Set<Int>(), added = Set<Int>()
            for change in difference {
                switch change {
                case .remove(let offset, _, _): removed.insert(offset)
                case .insert(let offset, _, _): added.insert(offset)
                }
            }
            let modified = removed.intersection(added)
            deletions = removed.subtracting(modified).sorted()
            insertions = added.subtracting(modified).sorted()
            modifications = modified.sorted()
        case let (.list(before), .gone):
            deletions = Array(before.indices)
        case let (.dictionary(before), .dictionary(after)):
            deletedKeys = before.keys.filter { after[$0] == nil }.sorted()
            insertedKeys = after.keys.filter { before[$0] == nil }.sorted()
            modifiedKeys = after.compactMap { key, value in
                before[key].map { same($0, value) ? nil : key } ?? nil
            }.sorted()
        case let (.dictionary(before), .gone):
            deletedKeys = before.keys.sorted()
        default:
            return nil
        }
        if deletions.isEmpty, insertions.isEmpty, modifications.isEmpty,
           deletedKeys.isEmpty, insertedKeys.isEmpty, modifiedKeys.isEmpty { return nil }
    }
}

/// A nested collection's location without the objects of one realm instance, to find it again in
/// another (an observation handed over to a queue).
struct NestedLocationAddress {
    enum Root {
        case property(info: ClassInfo, table: Int, key: UInt64, ordinal: Int)
        case listElement(table: Int, column: _Column, owner: UInt64, index: Int)
        case mapEntry(table: Int, column: _Column, owner: UInt64, key: String)
        case unknown
    }
    let root: Root

    func location(in realm: Realm, steps: [NestedCollectionLocation.Step]) -> NestedCollectionLocation? {
        let core = realm.core
        switch root {
        case let .property(info, table, key, ordinal):
            let object = core.materializeAny(info: info, table: table, key: key)
            return NestedCollectionLocation(root: .property(object, ordinal: ordinal), steps: steps)
        case let .listElement(table, column, owner, index):
            let list = List<AnyRealmValue>(ref: CollectionRef(core: core, table: table, column: column, owner: owner))
            return NestedCollectionLocation(root: .listElement(list, index: index), steps: steps)
        case let .mapEntry(table, column, owner, key):
            let map = Map<String, AnyRealmValue>(ref: CollectionRef(core: core, table: table, column: column, owner: owner))
            return NestedCollectionLocation(root: .mapEntry(map, key: key), steps: steps)
        case .unknown:
            return nil
        }
    }
}

private struct NestedObservationRequest {
    let address: NestedLocationAddress
    let steps: [NestedCollectionLocation.Step]
    let noun: String
    let failed: (Swift.Error) -> Void
    let deliver: (NestedCollectionLocation, NestedCollectionChange?) -> Void
}

extension NestedCollectionLocation {
    var address: NestedLocationAddress {
        switch root {
        case .property(let object, let ordinal):
            guard let b = object._binding else { return NestedLocationAddress(root: .unknown) }
            return NestedLocationAddress(root: .property(info: b.info, table: b.table, key: b.key, ordinal: ordinal))
        case .listElement(let list, let index):
            guard let ref = list.ref else { return NestedLocationAddress(root: .unknown) }
            return NestedLocationAddress(root: .listElement(table: ref.table, column: ref.column, owner: ref.owner, index: index))
        case .mapEntry(let map, let key):
            guard let ref = map.ref else { return NestedLocationAddress(root: .unknown) }
            return NestedLocationAddress(root: .mapEntry(table: ref.table, column: ref.column, owner: ref.owner, key: key))
        }
    }

    /// Observes the root on this realm's thread; `changed` runs after each change of the root's
    /// value, with this location.
    func observeRoot(_ changed: @escaping (NestedCollectionLocation) -> Void) -> NotificationToken {
        switch root {
        case .property(let object, let ordinal):
            guard let b = object._binding else { return NotificationToken(flag: ObserverFlag()) }
            let name = b.info.schema.allProperties[b.info.column(forOrdinal: ordinal).index].name
            return object.observe(keyPaths: [name]) { (change: ObjectChange<Object>) in
                switch change {
                case .change, .deleted: changed(self)
                case .error: break
                }
            }
        case .listElement(let list, _):
            return list.observe { change in
                if case .update = change { changed(self) }
            }
        case .mapEntry(let map, _):
            return map.observe { change in
                if case .update = change { changed(self) }
            }
        }
    }
}
