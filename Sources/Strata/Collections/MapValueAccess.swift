// RealmSwift's remaining `Map` API: `updateValue(_:forKey:)`, `thaw()`, key-value coding
// (`value(forKey:)` is the value stored under that key, as for a dictionary), `object(forKey:)`,
// and the values sorted or made distinct as live `Results`.
//
// Invariants:
// - `setValue(nil, forKey:)` removes the key, as a dictionary's key-value coding does. A value of
//   the wrong type fails the write of a managed map (`.invalidArgument`, thrown by the enclosing
//   `write`, as the other accessors defer failures) and stops with a `Strata:` message on an
//   unmanaged one, as `Object.setValue(_:forKey:)` does.
// - Results of a map's values follow the map (ValueResults.swift); their order is the map's
//   iteration order before any sort.
import Foundation

extension Map {
    /// Sets the value for `key` (as `map[key] = value`).
    ///
    /// - Parameters:
    ///   - value: the new value.
    ///   - key: the key.
    public func updateValue(_ value: Value, forKey key: Key) { self[key] = value }

    /// The live map of a frozen one; `nil` when its owner was deleted since. A live map returns
    /// itself; an unmanaged one stops with a `Strata:` message, as RealmSwift raises.
    public func thaw() -> Map<Key, Value>? {
        if ref == nil && nested == nil { Stop.now(FreezeMisuse.unmanaged(self, "thawed")) }
        guard let ref, ref.core.isFrozen else { return self }
        return ref.thawed().map { Map(ref: $0) }
    }

    /// The value stored under the key `key` (nil when there is none), as key-value coding on a
    /// dictionary reads it.
    ///
    /// - Parameter key: the key, as a string.
    public func value(forKey key: String) -> AnyObject? {
        guard let k = mapKey(key), let value = self[k] else { return nil }
        return Map.bridged(value)
    }

    /// The value under the first key of a dotted path, then the rest of the path read on it
    /// (`"dog.name"`: the `name` of the object stored under `"dog"`).
    ///
    /// - Parameter keyPath: a key, then optionally property names separated by dots.
    public func value(forKeyPath keyPath: String) -> AnyObject? {
        var parts = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
        guard !parts.isEmpty else { return nil }
        let first = parts.removeFirst()
        guard let k = mapKey(first), let value = self[k] else { return nil }
        guard let rest = parts.first else { return Map.bridged(value) }
        var current: Any? = Map.unwrapped(value)
        for name in rest.split(separator: ".") {
            guard let object = current as? Object else { return nil }
            current = object.value(forKey: String(name))
        }
        return current.map { Map.bridged($0) }
    }

    /// Stores `value` under the key `key`; nil removes the key.
    ///
    /// - Parameters:
    ///   - value: the new value, of the map's value type (or nil).
    ///   - key: the key, as a string.
    public func setValue(_ value: Any?, forKey key: String) {
        if let core = ref?.core {
            core.deferringFailure("set '\(key)' of a map") { try assign(value, forKey: key) }
            return
        }
        do { try assign(value, forKey: key) } catch {
            Stop.now(error)
        }
    }

    private func assign(_ value: Any?, forKey key: String) throws(Realm.Error) {
        guard let k = mapKey(key) else {
            throw Realm.Error(.invalidArgument, "'\(key)' is not a valid key of \(type(of: self))")
        }
        if value == nil || value is NSNull || (value as? _BoxedOptional)?._isNil == true {
            self[k] = nil
            return
        }
        guard let v = Value._strataFromAnyOrStoredForm(value) else {
            throw Realm.Error(.invalidArgument, "\(String(describing: value!)) is not a valid \(Value.self) for key '\(key)'")
        }
        self[k] = v
    }

    /// Whether some entry satisfies `predicate`.
    ///
    /// - Parameter predicate: called with each key and value.
    public func contains(where predicate: (_ key: Key, _ value: Value) throws -> Bool) rethrows -> Bool {
        try entries.contains { try predicate($0.key, $0.value) }
    }

    /// Whether the map holds `entry`: its key, with an equal value (for an object, the same
    /// stored object, whatever `==` says for its class).
    ///
    /// - Parameter entry: a key and a value, as the map's iteration gives them.
    public func contains(_ entry: (key: Key, value: Value)) -> Bool where Value: Equatable {
        self[entry.key].map { stored in
            if let object = stored as Any as? Object, let other = entry.value as Any as? Object {
                return object.isSameObject(as: other)
            }
            return stored == entry.value
        } ?? false
    }

    /// The value for a key given as an object (a string key boxed as `AnyObject`).
    ///
    /// - Parameter key: the key.
    public func object(forKey key: AnyObject) -> AnyObject? {
        guard let k = mapKey(key as Any), let value = self[k] else { return nil }
        return Map.bridged(value)
    }

    /// The map key a key-value coding key stands for (keys are strings).
    private func mapKey(_ key: Any) -> Key? {
        if let k = key as? Key { return k }
        return (key as? String).map { Key(_strataKeyString: $0) }
    }

    private static func unwrapped(_ value: Any) -> Any? {
        if let optional = value as? _BoxedOptional, optional._isNil { return nil }
        return (value as? any _PersistableElement)?._strataAny ?? value
    }

    static func bridged(_ value: Any) -> AnyObject {
        (unwrapped(value) ?? NSNull()) as AnyObject
    }
}

extension Map: Equatable where Value: Hashable {
    /// Equal when they are the same stored map, or two unmanaged maps of equal entries
    /// (as lists and sets compare).
    public static func == (lhs: Map<Key, Value>, rhs: Map<Key, Value>) -> Bool {
        if lhs === rhs { return true }
        switch (lhs.nested?.location, rhs.nested?.location) {
        case let (a?, b?): return a.isSame(as: b)
        case (nil, nil): break
        default: return false
        }
        if lhs.ref == nil && rhs.ref == nil {
            return Dictionary(uniqueKeysWithValues: lhs.entries.map { ($0.key, $0.value) })
                == Dictionary(uniqueKeysWithValues: rhs.entries.map { ($0.key, $0.value) })
        }
        return CollectionRef.same(lhs.ref, rhs.ref)
    }

    /// Whether `object` is a map equal to this one (see `==`).
    ///
    /// - Parameter object: another value.
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Map<Key, Value> else { return false }
        return self == other
    }
}

extension Map where Value: RealmCollectionValue, Value.PersistedType: SortableType {
    /// The map's values sorted by themselves, as live results.
    ///
    /// - Parameter ascending: whether smaller values come first (nil first when ascending).
    public func sorted(ascending: Bool = true) -> Results<Value> {
        Results(values: ValueResultsSource.make(map: self, steps: [.sort(ascending: ascending)]))
    }

    /// The map's distinct values, each where it first occurs, as live results.
    public func distinct() -> Results<Value> {
        Results(values: ValueResultsSource.make(map: self, steps: [.distinct]))
    }
}

extension ValueResultsSource {
    /// The values of `map` after `steps`.
    static func make<Key>(map: Map<Key, Element>, steps: [ValueResultsStep]) -> ValueResultsSource<Element> {
        ValueResultsSource(
            current: { apply(steps, to: map.values) },
            realm: { map.realm },
            isInvalidated: { map.isInvalidated },
            isFrozen: map.isFrozen,
            frozen: { make(map: map.freeze(), steps: steps) },
            thawed: { map.thaw().map { make(map: $0, steps: steps) } },
            observe: { queue, handler in
                map.observe(keyPaths: nil, on: queue) { change in
                    switch change {
                    case .initial(let m): handler(.success(make(map: m, steps: steps)), true)
                    case .update(let m, _, _, _): handler(.success(make(map: m, steps: steps)), false)
                    case .error(let error): handler(.failure(error), false)
                    }
                }
            })
    }
}
