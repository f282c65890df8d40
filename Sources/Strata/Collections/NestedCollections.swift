// Collections nested in an `AnyRealmValue` (`.list`, `.dictionary`), live on a managed object.
//
// A nested collection is stored inside the value that holds it (AnyRealmValue.swift), not as a
// collection tree of its own. Read from a managed object, it is a view of a location: the stored
// value at a root (an object's property, an element of a managed list, an entry of a managed map)
// and the path of positions and keys from there. Every read decodes the root's current value and
// follows the path; every change rebuilds the root's value with the change at the path and stores
// it through the root's own setter, so write transactions, notifications and misuse checks are
// those of the property, list or map at the root. A change costs a rewrite of the whole root value:
// nested collections suit documents of modest size, not large growing collections.
//
// Invariants:
// - A view holds no elements: what it reads is always the stored value, so two views of one
//   location never disagree.
// - A nested collection read where no location is known (an element of a set, results of values)
//   is a copy, and changing it stops with a `Strata:` message rather than losing the change.
// - A location whose path no longer leads to a collection of its kind (the value was replaced, an
//   element removed) is invalidated: reading or changing it stops with a `Strata:` message.

/// How a `List<AnyRealmValue>` or `Map<String, AnyRealmValue>` nested in a stored value is backed.
enum NestedBacking {
    /// A live view of the collection at a location of a managed realm.
    case live(NestedCollectionLocation)
    /// A copy, read where no location is known: changing it stops.
    case storedCopy

    var location: NestedCollectionLocation? {
        if case .live(let location) = self { location } else { nil }
    }
}

/// Where a nested collection lives: a stored value and the path inside it.
final class NestedCollectionLocation {
    enum Root {
        /// An `AnyRealmValue` property of a managed object.
        case property(Object, ordinal: Int)
        /// An element of a managed `List<AnyRealmValue>`.
        case listElement(List<AnyRealmValue>, index: Int)
        /// An entry of a managed `Map<String, AnyRealmValue>`.
        case mapEntry(Map<String, AnyRealmValue>, key: String)
    }

    enum Step: Equatable {
        case index(Int)
        case key(String)
    }

    let root: Root
    let steps: [Step]

    init(root: Root, steps: [Step] = []) {
        self.root = root
        self.steps = steps
    }

    func appending(_ step: Step) -> NestedCollectionLocation {
        NestedCollectionLocation(root: root, steps: steps + [step])
    }

    static let copyMessage = "Strata: invalidState: this nested collection was read as a copy (from a set or from results of values); change it through the property, list or map that holds it"

    private var goneMessage: String {
        "Strata: objectInvalidated: the nested collection no longer exists (the value holding it was replaced or removed)"
    }

    // MARK: Reading

    /// The realm core of the root; nil while the root is not managed.
    private var core: RealmCore? {
        switch root {
        case .property(let object, _): object._binding?.core
        case .listElement(let list, _): list.ref?.core
        case .mapEntry(let map, _): map.ref?.core
        }
    }

    var realm: Realm? { core.map { Realm(core: $0) } }
    var isFrozen: Bool { core?.isFrozen ?? false }

    /// The root's stored value with nested collections as copies; nil when the root is gone.
    private func rootValue() -> AnyRealmValue? {
        switch root {
        case .property(let object, let ordinal):
            guard !object.isInvalidated else { return nil }
            return AnyRealmValue.storedValue(object, ordinal)
        case .listElement(let list, let index):
            guard let ref = list.ref, !list.isInvalidated, index < ref.core.lists.listCount(ref) else { return nil }
            return ref.core.lists.listGet(ref, index, as: AnyRealmValue.self)
        case .mapEntry(let map, let key):
            guard let ref = map.ref, !map.isInvalidated else { return nil }
            return ref.core.maps.mapGet(ref, key, as: AnyRealmValue.self)
        }
    }

    /// The value at this location (nested collections as copies); nil when the path is broken.
    func current() -> AnyRealmValue? {
        guard var value = rootValue() else { return nil }
        for step in steps {
            switch (step, value) {
            case let (.index(i), .list(list)):
                guard list.unmanagedElements.indices.contains(i) else { return nil }
                value = list.unmanagedElements[i]
            case let (.key(key), .dictionary(map)):
                guard let next = map.unmanagedEntries[key] else { return nil }
                value = next
            default:
                return nil
            }
        }
        return value
    }

    var isInvalidated: Bool {
        switch current() {
        case .list?, .dictionary?: false
        default: true
        }
    }

    /// The elements of the list here, nested collections among them as views.
    func listElements() -> [AnyRealmValue] {
        guard case .list(let list)? = current() else { Stop.now(goneMessage) }
        return list.unmanagedElements.enumerated().map { $1.attached(to: appending(.index($0))) }
    }

    /// The entries of the dictionary here, nested collections among them as views.
    func dictionaryEntries() -> [String: AnyRealmValue] {
        guard case .dictionary(let map)? = current() else { Stop.now(goneMessage) }
        var entries: [String: AnyRealmValue] = [:]
        for (key, value) in map.unmanagedEntries { entries[key] = value.attached(to: appending(.key(key))) }
        return entries
    }

    // MARK: Writing

    /// Stores `newValue` at this location by rewriting the root's value. The new value is read in
    /// full first, so views it holds (of this very root, too) are read before anything changes.
    func replace(with newValue: AnyRealmValue) {
        let detached = newValue.detached()
        guard let rootValue = rootValue(), let updated = Self.replacing(rootValue, steps[...], with: detached) else {
            Stop.now(goneMessage)
        }
        switch root {
        case .property(let object, let ordinal): AnyRealmValue._strataSet(object, ordinal, updated)
        case .listElement(let list, let index): list[index] = updated
        case .mapEntry(let map, let key): map[key] = updated
        }
    }

    private static func replacing(_ value: AnyRealmValue, _ path: ArraySlice<Step>, with newValue: AnyRealmValue) -> AnyRealmValue? {
        guard let step = path.first else { return newValue }
        switch (step, value) {
        case let (.index(i), .list(list)):
            var elements = list.unmanagedElements
            guard elements.indices.contains(i), let inner = replacing(elements[i], path.dropFirst(), with: newValue) else { return nil }
            elements[i] = inner
            return .fromArray(elements)
        case let (.key(key), .dictionary(map)):
            var entries = map.unmanagedEntries
            guard let old = entries[key], let inner = replacing(old, path.dropFirst(), with: newValue) else { return nil }
            entries[key] = inner
            return .fromDictionary(entries)
        default:
            return nil
        }
    }

    // MARK: Identity

    /// Whether both name the same place: the same root (same stored object, property, list or map)
    /// and the same path.
    func isSame(as other: NestedCollectionLocation) -> Bool {
        guard steps == other.steps else { return false }
        switch (root, other.root) {
        case let (.property(a, i), .property(b, j)): return i == j && a.isSameObject(as: b)
        case let (.listElement(a, i), .listElement(b, j)): return i == j && a == b
        case let (.mapEntry(a, k), .mapEntry(b, l)): return k == l && a == b
        default: return false
        }
    }
}

extension AnyRealmValue {
    /// This value with its nested collection, if it holds one, a live view of `location`.
    func attached(to location: @autoclosure () -> NestedCollectionLocation) -> AnyRealmValue {
        switch self {
        case .list: .list(List(nested: .live(location())))
        case .dictionary: .dictionary(Map(nested: .live(location())))
        default: self
        }
    }

    /// A decoded value's collection marked as a copy (see `NestedBacking.storedCopy`).
    func asStoredCopy() -> AnyRealmValue {
        switch self {
        case .list(let list): list.nested = .storedCopy
        case .dictionary(let map): map.nested = .storedCopy
        default: break
        }
        return self
    }

    /// This value with every nested collection read into an unmanaged copy.
    func detached() -> AnyRealmValue {
        switch self {
        case .list(let list): .fromArray(list.elements.map { $0.detached() })
        case .dictionary(let map):
            .fromDictionary(Dictionary(uniqueKeysWithValues: map.entries.map { ($0.key, $0.value.detached()) }))
        default: self
        }
    }
}

extension List where Element == AnyRealmValue {
    /// The element at `index` of a managed list, a nested collection in it a view of that element.
    func attachedElement(_ element: AnyRealmValue, at index: Int) -> AnyRealmValue {
        element.attached(to: NestedCollectionLocation(root: .listElement(self, index: index)))
    }
}

extension Map where Key == String, Value == AnyRealmValue {
    /// The value of a managed map's entry, a nested collection in it a view of that entry.
    func attachedValue(_ value: AnyRealmValue, forKey key: String) -> AnyRealmValue {
        value.attached(to: NestedCollectionLocation(root: .mapEntry(self, key: key)))
    }
}

/// Attaching a generic collection's element: a no-op unless the element type is `AnyRealmValue`
/// (a check the compiler folds away in specialised code).
enum NestedAttachment {
    @inline(__always)
    static func listElement<E>(_ element: E, of list: List<E>, at index: Int) -> E {
        guard E.self == AnyRealmValue.self else { return element }
        return attachingListElement(element, of: list, at: index)
    }

    private static func attachingListElement<E>(_ element: E, of list: List<E>, at index: Int) -> E {
        guard let value = element as? AnyRealmValue, let owner = list as? List<AnyRealmValue> else { return element }
        switch value {
        case .list, .dictionary: return owner.attachedElement(value, at: index) as? E ?? element
        default: return element
        }
    }

    @inline(__always)
    static func mapValue<K, V>(_ value: V, of map: Map<K, V>, forKey key: String) -> V {
        guard V.self == AnyRealmValue.self else { return value }
        return attachingMapValue(value, of: map, forKey: key)
    }

    private static func attachingMapValue<K, V>(_ value: V, of map: Map<K, V>, forKey key: String) -> V {
        guard let stored = value as? AnyRealmValue, let owner = map as? Map<String, AnyRealmValue> else { return value }
        switch stored {
        case .list, .dictionary: return owner.attachedValue(stored, forKey: key) as? V ?? value
        default: return value
        }
    }
}
