// Aggregates and `index(matching:)` of an unmanaged list or set of objects, evaluated in memory,
// as RealmSwift evaluates them on a collection that is not in a realm yet. (Filtering, sorting
// and observing such a collection still stop with a `Strata:` message: RealmSwift raises there.)
//
// Invariants:
// - The property rules are the engine's (Aggregates.swift): an unknown property, a link or a
//   collection property, or a requested type other than the property's stored type (any integer
//   width for an integer property) stops with a `Strata:` message; nil values are skipped.
// - A query is parsed and type-checked against the element class's schema, then evaluated on each
//   object through `Object`'s `QueryValueSource` conformance, which reads unmanaged values.
import Foundation

/// The objects of an unmanaged list or set, with their class's info.
struct UnmanagedObjects<Element: Object> {
    let objects: [Element]
    let info: ClassInfo

    init(_ objects: [Element]) {
        self.objects = objects
        do { info = try ClassInfo.of(Element.self) } catch { Stop.now(error) }
    }

    // MARK: Queries

    /// The position of the first object that matches `predicate`, or nil. The predicate has been
    /// checked against the element class (``predicate(_:_:)``, ``predicate(_:)``).
    func firstIndex(matching predicate: QueryPredicate) -> Int? {
        do {
            let matcher = QueryMatcher(predicate)
            for (i, object) in objects.enumerated() where try matcher.matches(object) { return i }
            return nil
        } catch {
            Stop.now("Strata: invalidQuery: \(error)")
        }
    }

    /// A type-safe query, built and checked against the element class (the parser checks text
    /// queries as it reads them; a built one is checked here).
    func predicate(_ query: (Query<Element>) -> Query<Bool>) -> QueryPredicate {
        do {
            let predicate = try query(Query<Element>()).predicate()
            try predicate.validate(against: querySchema, type: info.schema.className)
            return predicate
        } catch {
            Stop.now("Strata: invalidQuery: \(error)")
        }
    }

    /// A query in Realm's language, parsed and checked against the element class.
    func predicate(_ format: String, _ args: [Any]) -> QueryPredicate {
        do {
            let values = try Object.queryArguments(args)
            return try QueryParser.parse(format, arguments: values, schema: querySchema, typeName: info.schema.className)
        } catch let error as Realm.Error {
            Stop.now(error)
        } catch {
            Stop.now("Strata: invalidQuery: \(error)")
        }
    }

    private var querySchema: QuerySchema { Schema(objectSchema: ClassInfo.schemaClosure(of: info)).querySchema }

    // MARK: Aggregates

    /// The column of an aggregated property, checked as the engine checks it.
    private func column(_ property: String) -> (index: Int, column: _Column) {
        guard let i = info.columnIndex(named: property) else {
            Stop.now("Strata: invalidArgument: '\(info.schema.className)' has no property '\(property)'")
        }
        let c = info.layout.columns[i]
        guard c.collection == .none, c.type != .object, c.type != .linkingObjects else {
            Stop.now("Strata: invalidArgument: '\(info.schema.className).\(property)' cannot be aggregated")
        }
        return (i, c)
    }

    /// The non-nil stored values of a scalar property, in the objects' order.
    private func storedValues(_ index: Int) -> [Any] {
        objects.compactMap { info.fields[index].storedAny($0) }
    }

    /// Each non-nil value of a property as `T`, which must be the property's stored type.
    private func values<T: _PersistableElement>(_ property: String, as: T.Type) -> [T] {
        let (i, c) = column(property)
        guard T._strataShape.type == c.type else {
            Stop.now("Strata: invalidArgument: '\(info.schema.className).\(property)' is \(c.type), not \(T.self)")
        }
        return storedValues(i).compactMap { T._strataFromAny($0) }
    }

    /// Each non-nil, non-NaN value of a numeric property as a number to add.
    private func addends(_ property: String) -> [_StrataNumber] {
        let (i, c) = column(property)
        guard c.type == .int || c.type == .float || c.type == .double || c.type == .decimal128 else {
            Stop.now("Strata: invalidArgument: '\(info.schema.className).\(property)' is \(c.type), not a number")
        }
        return storedValues(i).compactMap { ($0 as? any AddableType)?._strataAddend }
    }

    func extreme<T: _PersistableElement & Comparable>(_ property: String, smallest: Bool) -> T? {
        let all = values(property, as: T.self)
        return smallest ? all.min() : all.max()
    }

    func sum<T: _PersistableElement & AdditiveArithmetic>(_ property: String) -> T {
        let all = values(property, as: T.self)
        return ExactSum.totalOrStop(T.self, of: "the sum of '\(info.schema.className).\(property)'") { all.forEach($0) }
    }

    func checkedSum<T: _PersistableElement & AdditiveArithmetic>(_ property: String) throws(Realm.Error) -> T {
        let all = values(property, as: T.self)
        return try ExactSum.total(T.self, of: "the sum of '\(info.schema.className).\(property)'") { all.forEach($0) }
    }

    func average<T: AddableType>(_ property: String) -> T? {
        let numbers = addends(property)
        guard let first = numbers.first else { return nil }
        return T._strataFrom(numbers.dropFirst().reduce(first, +).divided(by: numbers.count))
    }

    /// The smallest or largest value boxed as Foundation boxes it (see `ColumnAggregates.boxedExtreme`).
    func boxedExtreme(_ property: String, smallest: Bool) -> AnyObject? {
        let (_, c) = column(property)
        guard c.type.hasBoxedExtreme else {
            Stop.now("Strata: invalidArgument: '\(info.schema.className).\(property)' is \(c.type), not a number or a date")
        }
        return c.type.boxedExtreme(UnmanagedExtreme(objects: self, property: property, smallest: smallest))
    }

    /// The sum, or with `mean` the mean, boxed (see `ColumnAggregates.boxedTotal`).
    func boxedTotal(_ property: String, mean: Bool) -> NSNumber? {
        let numbers = addends(property)
        guard let first = numbers.first else { return mean ? nil : NSNumber(value: 0) }
        let total = numbers.dropFirst().reduce(first, +)
        return (mean ? total.divided(by: numbers.count) : total).boxed
    }
}

/// The smallest or largest value of a property of unmanaged objects, as `boxedExtreme` reads it.
private struct UnmanagedExtreme<Element: Object>: ExtremeReader {
    let objects: UnmanagedObjects<Element>
    let property: String
    let smallest: Bool

    func extreme<T: _PersistableElement & Comparable>(_: T.Type) -> T? { objects.extreme(property, smallest: smallest) }
}

extension RealmCollection where Element: Object {
    /// The objects of an unmanaged list or set (evaluated in memory); nil for a collection in a realm.
    var unmanagedObjects: UnmanagedObjects<Element>? {
        guard realm == nil, self is List<Element> || self is MutableSet<Element> else { return nil }
        return UnmanagedObjects(Array(self))
    }
}
