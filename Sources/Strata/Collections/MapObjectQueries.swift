// Queries, sorts and aggregates over the objects of a `Map<String, Object?>`, as RealmSwift has
// them: `filter`/`where`/`sorted`/`distinct` give `Results<Value>` (optional objects) over the
// map's non-nil values; `min`/`max`/`sum`/`average(of:)` read a property of each value.
//
// Invariants:
// - The results read the map afresh at each evaluation (live, like every `Results`): their
//   objects are the map's non-nil values in key order, each once per key that holds it.
// - Queries need a managed map (Realm raises for an unmanaged one: this stops with a `Strata:`
//   message); the key-path aggregates also read an unmanaged map's values.
import Foundation
import StrataStorage

extension ResultsBase {
    /// The objects a map of links holds, in key order (nil values left out).
    static func mapValues(of collection: CollectionRef) -> ResultsBase {
        ResultsBase { core in
            let ref = CollectionRef(core: core, table: collection.table, column: collection.column, owner: collection.owner)
            let (_, tree) = try core.maps.mapTree(ref)
            var keys: [UInt64] = []
            guard !tree.isEmpty else { return keys }
            try tree.forEach(from: nil, in: try core.pages()) { _, value in
                // A link value is [1] + the 8-byte key, or [0] for nil.
                if value.count >= 9, value[0] == 1 {
                    keys.append(UInt64(littleEndian: UnsafeRawBufferPointer(rebasing: value.dropFirst()).loadUnaligned(as: UInt64.self)))
                }
                return true
            }
            return keys
        }
    }
}

extension Map where Value: _StrataOptional & RealmCollectionValue, Value.Wrapped: Object {
    /// The map's objects as results of its optional value type.
    private func objectResults(_ build: (Results<Value.Wrapped>) throws -> Results<Value.Wrapped>) -> Results<Value> {
        guard let ref else {
            Stop.now("Strata: invalidState: an unmanaged Map cannot be queried or sorted; add its owner to a realm first")
        }
        let objects: Results<Value.Wrapped>
        do {
            objects = try build(Results(core: ref.core, base: .mapValues(of: ref)))
        } catch let error as Realm.Error {
            Stop.now(error)
        } catch {
            Stop.now("Strata: invalidQuery: \(error)")
        }
        var results = Results<Value>(core: objects.core, info: objects.info)
        results.query = objects.query
        return results
    }

    /// The map's objects that match a query in Realm's query language, in key order.
    ///
    /// - Parameters:
    ///   - predicateFormat: the query text, with `%@` / `%K` placeholders.
    ///   - args: the values the placeholders stand for.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Value> {
        objectResults { try $0.filtering(predicateFormat, args) }
    }

    /// The map's objects that match a type-safe query, in key order.
    ///
    /// - Parameter query: builds the predicate from the objects' properties; `$0` is a query of
    ///   the map's (optional) value type, whose members are the object's properties.
    public func `where`(_ query: (Query<Value>) -> Query<Bool>) -> Results<Value> {
        objectResults { objects in objects.where { (object: Query<Value.Wrapped>) in query(object.retyped()) } }
    }

    /// The map's objects sorted by one property.
    ///
    /// - Parameters:
    ///   - keyPath: the property name (through to-one links allowed).
    ///   - ascending: whether smaller values come first.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Value> {
        objectResults { $0.sorted(byKeyPath: keyPath, ascending: ascending) }
    }

    /// The map's objects sorted by one property.
    ///
    /// - Parameters:
    ///   - keyPath: a persisted property of the objects' class.
    ///   - ascending: whether smaller values come first.
    public func sorted<T>(by keyPath: KeyPath<Value.Wrapped, T>, ascending: Bool = true) -> Results<Value> {
        let name = persistedPropertyName(keyPath, throughLinks: true)
        return objectResults { $0.sorted(byKeyPath: name, ascending: ascending) }
    }

    /// The map's objects sorted by several keys, most significant first.
    ///
    /// - Parameter descriptors: the sort keys.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Value> where S.Element == SortDescriptor {
        objectResults { $0.sorted(by: descriptors) }
    }

    /// The first of the map's objects for each distinct combination of the named properties.
    ///
    /// - Parameter keyPaths: the property names.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Value> where S.Element == String {
        objectResults { $0.distinct(by: keyPaths) }
    }

    /// The values of a property over the map's objects (nil values left out).
    private func propertyValues<T>(_ keyPath: KeyPath<Value.Wrapped, T>) -> [T] {
        values.compactMap { $0._strataWrapped?[keyPath: keyPath] }
    }

    /// The smallest value of a property of the map's objects, or `nil` when there is none.
    ///
    /// - Parameter keyPath: a property of the objects' class.
    public func min<T: Comparable>(of keyPath: KeyPath<Value.Wrapped, T>) -> T? { propertyValues(keyPath).min() }

    /// The largest value of a property of the map's objects, or `nil` when there is none.
    ///
    /// - Parameter keyPath: a property of the objects' class.
    public func max<T: Comparable>(of keyPath: KeyPath<Value.Wrapped, T>) -> T? { propertyValues(keyPath).max() }

    /// The sum of a numeric property of the map's objects; zero when there is none.
    ///
    /// Integers are added exactly; a sum that does not fit in `T` stops the program with a
    /// `Strata: valueTooLarge` message.
    ///
    /// - Parameter keyPath: a numeric property of the objects' class.
    public func sum<T: AdditiveArithmetic>(of keyPath: KeyPath<Value.Wrapped, T>) -> T {
        let all = propertyValues(keyPath)
        return ExactSum.totalOrStop(T.self, of: "the sum of \(keyPath)") { all.forEach($0) }
    }

    /// The mean of a numeric property of the map's objects as the property's own type (an
    /// integer mean truncated, as Realm gives it), or `nil` when there is none.
    ///
    /// - Parameter keyPath: a numeric property of the objects' class.
    public func average<T: AddableType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T? {
        let addends = propertyValues(keyPath).compactMap(\._strataAddend)
        guard let first = addends.first else { return nil }
        return T._strataFrom(addends.dropFirst().reduce(first, +).divided(by: addends.count))
    }
}
