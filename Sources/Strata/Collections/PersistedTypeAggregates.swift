// Aggregates of a property of objects for generic code, in RealmSwift's shape: the value type is
// known only as `_HasPersistedType` whose stored form can be added (`AddableType`) or ordered
// (`MinMaxType`), as in `func total<T: _HasPersistedType>(…) where T.PersistedType: AddableType`.
//
// Invariants:
// - These overloads are disfavoured: where the value type is a concrete storable type, the
//   engine's own aggregates (which read the stored rows) are chosen; these serve generic code.
// - They aggregate the stored forms of the values (ValueAggregate), so an enum aggregates its raw
//   values and nil values are skipped, as the engine's aggregates do.
import Foundation

extension RealmCollection where Element: Object {
    /// The values of the property `property` of the objects, as `T` (those that are not left out).
    private func values<T>(ofProperty property: String, as: T.Type) -> [T] {
        compactMap { $0.typedValue(forKey: property) as? T }
    }

    /// The smallest value of a property, or `nil` when no object has one.
    @_disfavoredOverload
    public func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        ValueAggregate.extreme(values(ofProperty: property, as: T.self), smallest: true)
    }

    /// The largest value of a property, or `nil` when no object has one.
    @_disfavoredOverload
    public func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        ValueAggregate.extreme(values(ofProperty: property, as: T.self), smallest: false)
    }

    /// The sum of a property; zero when no object has a value.
    @_disfavoredOverload
    public func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        ValueAggregate.value(ValueAggregate.sum(values(ofProperty: property, as: T.self)).total, as: T.self)
    }

    /// The mean of a property, or `nil` when no object has a value.
    @_disfavoredOverload
    public func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        ValueAggregate.average(values(ofProperty: property, as: T.self))
    }

    /// The smallest value of the property `keyPath` reads, or `nil` when no object has one.
    @_disfavoredOverload
    public func min<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        ValueAggregate.extreme(map { $0[keyPath: keyPath] }, smallest: true)
    }

    /// The largest value of the property `keyPath` reads, or `nil` when no object has one.
    @_disfavoredOverload
    public func max<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        ValueAggregate.extreme(map { $0[keyPath: keyPath] }, smallest: false)
    }

    /// The sum of the property `keyPath` reads; zero when no object has a value.
    @_disfavoredOverload
    public func sum<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T where T.PersistedType: AddableType {
        ValueAggregate.value(ValueAggregate.sum(map { $0[keyPath: keyPath] }).total, as: T.self)
    }

    /// The mean of the property `keyPath` reads, or `nil` when no object has a value.
    @_disfavoredOverload
    public func average<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: AddableType {
        ValueAggregate.average(map { $0[keyPath: keyPath] })
    }
}

extension Map where Value: _StrataOptional & RealmCollectionValue, Value.Wrapped: Object {
    /// The values of a property of the map's objects (nil objects left out).
    private func objectValues<T>(_ read: (Value.Wrapped) -> T?) -> [T] {
        values.compactMap { $0._strataWrapped.flatMap(read) }
    }

    /// The smallest value of a property of the map's objects, or `nil` when there is none.
    @_disfavoredOverload
    public func min<T: _HasPersistedType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T? where T.PersistedType: MinMaxType {
        ValueAggregate.extreme(objectValues { $0[keyPath: keyPath] }, smallest: true)
    }

    /// The largest value of a property of the map's objects, or `nil` when there is none.
    @_disfavoredOverload
    public func max<T: _HasPersistedType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T? where T.PersistedType: MinMaxType {
        ValueAggregate.extreme(objectValues { $0[keyPath: keyPath] }, smallest: false)
    }

    /// The sum of a property of the map's objects; zero when there is none.
    @_disfavoredOverload
    public func sum<T: _HasPersistedType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T where T.PersistedType: AddableType {
        ValueAggregate.value(ValueAggregate.sum(objectValues { $0[keyPath: keyPath] }).total, as: T.self)
    }

    /// The mean of a property of the map's objects, or `nil` when there is none.
    @_disfavoredOverload
    public func average<T: _HasPersistedType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T? where T.PersistedType: AddableType {
        ValueAggregate.average(objectValues { $0[keyPath: keyPath] })
    }

    /// The smallest value of the property `property` of the map's objects, or `nil` when none.
    public func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        ValueAggregate.extreme(objectValues { $0.typedValue(forKey: property) as? T }, smallest: true)
    }

    /// The largest value of the property `property` of the map's objects, or `nil` when none.
    public func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        ValueAggregate.extreme(objectValues { $0.typedValue(forKey: property) as? T }, smallest: false)
    }

    /// The sum of the property `property` of the map's objects; zero when there is none.
    public func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        ValueAggregate.value(ValueAggregate.sum(objectValues { $0.typedValue(forKey: property) as? T }).total, as: T.self)
    }

    /// The mean of the property `property` of the map's objects, or `nil` when there is none.
    public func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        ValueAggregate.average(objectValues { $0.typedValue(forKey: property) as? T })
    }
}
