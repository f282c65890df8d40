// Swift key-path forms of the calls that name properties by string: `sorted(by: \.age)`,
// `distinct(by: [\.name])`, `sum(of: \.age)` and the other aggregates, `observe(keyPaths: [\.name])`
// on collections and objects.
//
// Invariant: a key path is turned into the property path it reads (KeyPathNames.swift), checked
// by its value type, so it can only mean what its string form means. Sorting, distinct and
// observing take paths through links (`\.owner?.name` is "owner.name"), as their string forms do;
// the aggregates take one property of the class. A key path that reads something else (a
// property that is not persisted) stops with a `Strata:` message.
import Foundation

/// The persisted property `keyPath` reads on `T`; with `throughLinks`, the dotted path through
/// links and embedded objects (`\.owner?.name` → "owner.name") for the calls whose string form
/// takes one (sorting, distinct, observing).
func persistedPropertyName<T: Object>(_ keyPath: PartialKeyPath<T>, throughLinks: Bool = false) -> String {
    guard let steps = persistedPath(of: keyPath), throughLinks || steps.count == 1 else {
        Stop.now("Strata: invalidArgument: \(keyPath) is not a persisted property of '\(T.className())'"
            + (throughLinks ? "" : "; a path through a link needs the string form (\"owner.name\")"))
    }
    return steps.map(\.name).joined(separator: ".")
}

extension RealmCollection where Element: Object {
    /// The objects sorted by one property.
    ///
    /// ```swift
    /// let byAge = realm.objects(Dog.self).sorted(by: \.age, ascending: false)
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: a persisted property of the element class.
    ///   - ascending: whether smaller values come first.
    public func sorted<T: Comparable>(by keyPath: KeyPath<Element, T>, ascending: Bool = true) -> Results<Element> {
        queryableResults.sorted(byKeyPath: persistedPropertyName(keyPath, throughLinks: true), ascending: ascending)
    }

    /// The objects sorted by one optional property (nil first when ascending).
    ///
    /// - Parameters:
    ///   - keyPath: a persisted optional property of the element class.
    ///   - ascending: whether smaller values come first.
    public func sorted<T: Comparable>(by keyPath: KeyPath<Element, T?>, ascending: Bool = true) -> Results<Element> {
        queryableResults.sorted(byKeyPath: persistedPropertyName(keyPath, throughLinks: true), ascending: ascending)
    }

    /// The first object of each distinct combination of the properties' values.
    ///
    /// - Parameter keyPaths: persisted properties of the element class.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == PartialKeyPath<Element> {
        queryableResults.distinct(by: keyPaths.map { persistedPropertyName($0, throughLinks: true) })
    }

    /// The smallest value of a property, or `nil` when no object has one.
    ///
    /// - Parameter keyPath: a persisted property of the element class.
    public func min<T: _PersistableElement & Comparable>(of keyPath: KeyPath<Element, T>) -> T? {
        min(ofProperty: persistedPropertyName(keyPath))
    }

    /// The largest value of a property, or `nil` when no object has one.
    ///
    /// - Parameter keyPath: a persisted property of the element class.
    public func max<T: _PersistableElement & Comparable>(of keyPath: KeyPath<Element, T>) -> T? {
        max(ofProperty: persistedPropertyName(keyPath))
    }

    /// The sum of a numeric property; zero when there is no object.
    ///
    /// - Parameter keyPath: a persisted numeric property of the element class.
    public func sum<T: _PersistableElement & AdditiveArithmetic>(of keyPath: KeyPath<Element, T>) -> T {
        sum(ofProperty: persistedPropertyName(keyPath))
    }

    /// The mean of a numeric property as the property's own type (an integer mean truncated, as
    /// Realm returns it), or `nil` when there is no object.
    ///
    /// - Parameter keyPath: a persisted integer, `Float`, `Double` or `Decimal128` property.
    public func average<T: AddableType & _PersistableElement>(of keyPath: KeyPath<Element, T>) -> T? {
        average(ofProperty: persistedPropertyName(keyPath))
    }

    /// Observes the collection, counting as modifications only changes of the given properties.
    ///
    /// ```swift
    /// let token = realm.objects(Dog.self).observe(keyPaths: [\.name]) { change in print(change) }
    /// ```
    ///
    /// - Parameters:
    ///   - keyPaths: persisted properties of the element class.
    ///   - queue: the dispatch queue the handler runs on; `nil` runs it where the realm lives.
    ///   - block: called with each change.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { persistedPropertyName($0, throughLinks: true) }, on: queue, block)
    }
}

extension Object {
    /// Observes this object, reporting changes of the given properties only.
    ///
    /// - Parameters:
    ///   - keyPaths: persisted properties of the object's class.
    ///   - queue: the dispatch queue the handler runs on; `nil` runs it where the realm lives.
    ///   - block: called with each change.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe<T: Object>(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                                   _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { persistedPropertyName($0, throughLinks: true) }, on: queue, block)
    }
}
