// The parts of `Query<T>` that depend on how values are stored: a property seen as its stored
// form (`persistableValue`, an enum's `rawValue`), aggregates of a numeric property reached
// through a collection (`$0.dogs.age.max`), and the elements of the nested collections a mixed
// value holds (`$0.anyCol[0]["key"]`, `$0.anyCol.any`).
//
// Seeing a value as its stored form changes only the Swift type the builder offers operators
// for: the expression, and so the query, stays the same.
import Foundation

extension Query {
    /// The same expression, seen as a value of another Swift type (one stored alike).
    func retyped<V>() -> Query<V> {
        switch node {
        case .expression(let expression): Query<V>(.expression(expression), quantifier: quantifier, collection: collection, text: text)
        case .predicate(let predicate): Query<V>(.predicate(predicate), quantifier: quantifier, collection: collection, text: text)
        case .failure(let error): Query<V>(.failure(error), quantifier: quantifier, collection: collection, text: text)
        }
    }
}

extension Query where T: _HasPersistedType {
    /// The property as its stored value, to compare it in ways its own type does not offer (ranges
    /// and string operators on a custom-persisted type), or to find stored values the type
    /// cannot convert.
    public var persistableValue: Query<T.PersistedType> { retyped() }
}

extension Query where T: RealmCollection, T.Element.PersistedType: RealmCollectionValue {
    /// The collection's elements as their stored values.
    public var persistableValue: Query<AnyRealmCollection<T.Element.PersistedType>> { retyped() }
}

extension Query where T: RealmKeyedCollection, T.Key: _MapKey, T.Value.PersistedType: _PersistableElement {
    /// The map's values as their stored values.
    public var persistableValue: Query<Map<T.Key, T.Value.PersistedType>> { retyped() }
}

extension Query where T: PersistableEnum {
    /// The enum property as its raw value, to use the raw type's operators.
    public var rawValue: Query<T.RawValue> { retyped() }
}

extension Query where T: OptionalProtocol, T.Wrapped: PersistableEnum {
    /// The optional enum property as its raw value (nil stays nil).
    public var rawValue: Query<T.Wrapped.RawValue?> { retyped() }
}

extension Query where T: RealmCollection, T.Element: PersistableEnum, T.Element.RawValue: RealmCollectionValue {
    /// The collection's enum elements as their raw values.
    public var rawValue: Query<AnyRealmCollection<T.Element.RawValue>> { retyped() }
}

extension Query where T: RealmCollection, T.Element: OptionalProtocol, T.Element.Wrapped: PersistableEnum,
                      T.Element.Wrapped.RawValue: _RealmCollectionValueInsideOptional {
    /// The collection's optional enum elements as their raw values.
    public var rawValue: Query<AnyRealmCollection<T.Element.Wrapped.RawValue?>> { retyped() }
}

extension Query where T: RealmKeyedCollection, T.Key: _MapKey, T.Value: PersistableEnum,
                      T.Value.RawValue: RealmCollectionValue {
    /// The map's enum values as their raw values.
    public var rawValue: Query<Map<T.Key, T.Value.RawValue>> { retyped() }
}

extension Query where T: RealmKeyedCollection, T.Key: _MapKey, T.Value: OptionalProtocol, T.Value.Wrapped: PersistableEnum,
                      T.Value.Wrapped.RawValue: _RealmCollectionValueInsideOptional {
    /// The map's optional enum values as their raw values.
    public var rawValue: Query<Map<T.Key, T.Value.Wrapped.RawValue?>> { retyped() }
}

extension Query where T: _HasPersistedType, T.PersistedType: _QueryNumeric {
    /// The smallest value of a property reached through a collection (`$0.dogs.age.min`, which is
    /// `dogs.@min.age`).
    public var min: Query<T> { throughCollection(.min) }
    /// The largest value of a property reached through a collection.
    public var max: Query<T> { throughCollection(.max) }
    /// The mean of a property reached through a collection.
    public var avg: Query<T> { throughCollection(.avg) }
    /// The sum of a property reached through a collection.
    public var sum: Query<T> { throughCollection(.sum) }

    /// An aggregate of the values a path through a collection reaches; of a single value (no
    /// collection on the path, as `$0.age.avg`) it is refused, as in RealmSwift.
    private func throughCollection(_ function: QueryAggregate) -> Query<T> {
        if collection == nil, case .expression(.keyPath(let path)) = node,
           !path.components.contains(where: { QueryKeyPath.mapComponent($0) != nil }) {
            return Query(.failure(QueryError(.unsupported, "@\(function.rawValue) of '\(path)' needs a collection on the key path; '\(path)' is a single value")))
        }
        return aggregate(function, throughCollection: true)
    }
}

extension Query where T == AnyRealmValue {
    /// The element at `position` of the list the mixed value holds (nil when it holds no list or
    /// the list is shorter).
    public subscript(position: Int) -> Query<AnyRealmValue> {
        appending(QueryKeyPath.indexComponent(position), "[\(position)]").written(text?.subscripted(.index(position)))
    }

    /// The value for `key` in the dictionary the mixed value holds (nil when it holds none).
    public subscript(key: String) -> Query<AnyRealmValue> {
        appending(QueryKeyPath.subscriptComponent(key), "['\(key)']").written(text?.subscripted(.key(key)))
    }

    /// Every element of the list, or every value of the dictionary, the mixed value holds; a
    /// comparison then means ANY of them.
    public var any: Query<AnyRealmValue> {
        appending(QueryKeyPath.everyElementComponent, "[*]").written(text?.subscripted(.everyElement))
    }
}
