// Query<T>: the type-safe query builder (`where { $0.age > 2 && $0.name.starts(with: "R") }`).
//
// Invariants:
// - It builds exactly the tree the string form builds (`Query<Bool>.predicate()` equals
//   `QueryParser.parse` of the equivalent string), so both share one evaluator and planner.
// - Property names come from `QueryKeyPathNaming.queryPropertyName(for:)`, which the object
//   layer implements for `Object` (its persisted properties). A key path it cannot name (a
//   property that is not persisted) does not trap: the builder records a `.unknownProperty`
//   QueryError that `predicate()` throws.
// - A bare `Query<Bool>` key path used as a predicate means `path == true`.
import Foundation

/// A type whose key paths map to property names (the object layer's `Object` adopts it).
///
/// The key path is an `AnyKeyPath` (its root is `Self`) rather than `PartialKeyPath<Self>`
/// because a non-final class such as `Object` cannot satisfy a requirement with `Self` in that
/// position. `Object` adopts it with (checked against the `objects` branch; `Self` in the body is
/// the dynamic subclass, so `\Dog.age` resolves on `Dog`):
/// ```swift
/// extension Object: QueryKeyPathNaming {
///     public class func queryPropertyName(for keyPath: AnyKeyPath) -> String? {
///         guard let typed = keyPath as? PartialKeyPath<Self> else { return nil }
///         return _strataPropertyName(for: typed)
///     }
/// }
/// extension List: QueryableCollection {}
/// extension LinkingObjects: QueryableCollection {}
/// ```
public protocol QueryKeyPathNaming {
    /// The persisted property name that `keyPath` (rooted at `Self`) reads, or nil if it is not a
    /// persisted property.
    static func queryPropertyName(for keyPath: AnyKeyPath) -> String?
}

/// A to-many property type (`List`, `MutableSet`, `Results`, arrays in tests): member lookup
/// through it reaches the elements' properties, and comparisons then mean ANY element.
/// Every ``RealmCollection`` is one.
public protocol QueryableCollection {
    associatedtype Element
}

extension Array: QueryableCollection {}

/// A `Map<String, Value>` property type (`Map`, dictionaries in tests): `map["key"]`, `.keys`,
/// `.values`, `.count`. Every ``RealmKeyedCollection`` is one.
public protocol QueryMapType {
    associatedtype Value
}

extension Dictionary: QueryMapType where Key == String {}

/// `Optional`, so that `Query<Person?>` can look up `Person`'s members, and generic code can name
/// the wrapped type of an optional (RealmSwift's `OptionalProtocol`).
public protocol OptionalProtocol {
    /// The type an optional of this type wraps.
    associatedtype Wrapped
}

extension Optional: OptionalProtocol {}

/// A typed query expression over values of type `T`; a `Query<Bool>` is a condition.
///
/// You do not create one yourself: ``Results/where(_:)`` hands the closure a `Query` of the
/// element class, whose dynamic members are its persisted properties. Comparisons, string
/// operators, collection quantifiers and aggregates build the same predicate the text query
/// language builds, so both are evaluated (and use indexes) alike.
///
/// ```swift
/// let dogs = realm.objects(Dog.self)
/// dogs.where { $0.age >= 2 && $0.name.starts(with: "R") }
/// dogs.where { $0.owner.name == "Ann" }                     // through a to-one link
/// people.where { $0.dogs.age > 10 }                         // ANY dog older than 10
/// people.where { $0.dogs.count == 0 || !$0.name.contains("x") }
/// people.where { $0.scores.max > 100 }                      // an aggregate of a List<Int>
/// ```
@dynamicMemberLookup
public struct Query<T> {
    enum Node {
        case expression(QueryExpression)
        case predicate(QueryPredicate)
        case failure(QueryError)
    }

    let node: Node
    let quantifier: QueryQuantifier
    /// The first to-many property the expression reads through (`arrayCol` in
    /// `$0.arrayCol.intCol > 5`), which `(condition).count` makes a SUBQUERY over.
    let collection: QueryKeyPath?
    /// The query as RealmSwift writes it out; nil after an operation RealmSwift does not have.
    let text: QueryText?

    init(_ node: Node, quantifier: QueryQuantifier = .implicit, collection: QueryKeyPath? = nil, text: QueryText? = nil) {
        self.node = node
        self.quantifier = quantifier
        self.collection = collection
        self.text = text
    }

    /// The same query, written out as `text`.
    func written(_ text: QueryText?) -> Query<T> {
        Query(node, quantifier: quantifier, collection: collection, text: text)
    }

    /// The root of a query over objects of type `T`.
    public init() {
        self.init(.expression(.keyPath(QueryKeyPath([]))), text: .keyPath([], any: false, throughCollection: false))
    }

    /// The root of a SUBQUERY body: the element bound to `variable`.
    init(variable: String) {
        self.init(.expression(.keyPath(QueryKeyPath([], variable: variable))))
    }

    /// `$0.property` on what this query reads. A property of a map entry (`map["key"].name`)
    /// is refused, as in RealmSwift.
    func member<V>(_ name: String?, _ describe: @autoclosure () -> String) -> Query<V> {
        if case .expression(.keyPath(let path)) = node, let last = path.components.last,
           case .key? = QueryKeyPath.mapComponent(last) {
            let property = name.map { "property '\($0)'" } ?? describe()
            return Query<V>(.failure(QueryError(.unsupported, "the \(property) of the map entry '\(path)' cannot be queried; query the linked class instead")))
        }
        let isCollection = V.self is any QueryableCollection.Type || V.self is any QueryMapType.Type
        return appending(name, describe()).written(name.flatMap { text?.appending($0, collection: isCollection) })
    }

    func appending<V>(_ name: String?, _ describe: @autoclosure () -> String) -> Query<V> {
        switch node {
        case .failure(let error): return Query<V>(.failure(error))
        case .expression(.keyPath(var path)):
            guard let name else {
                return Query<V>(.failure(QueryError(.unknownProperty, "\(describe()) is not a persisted property")))
            }
            path.components.append(name)
            return Query<V>(.expression(.keyPath(path)), quantifier: quantifier, collection: collection)
        default:
            return Query<V>(.failure(QueryError(.unsupported, "cannot read \(describe()) of an aggregate or a predicate")))
        }
    }

    var expression: Result<QueryExpression, QueryError> {
        switch node {
        case .expression(.keyPath(let path)) where path.components.isEmpty && path.variable == nil:
            return .failure(QueryError(.typeMismatch, "the queried object itself cannot be compared; use one of its properties"))
        case .expression(let expression): return .success(expression)
        case .predicate: return .failure(QueryError(.typeMismatch, "a predicate cannot be used as a value"))
        case .failure(let error): return .failure(error)
        }
    }

    static func comparison(_ lhs: Query<T>, _ op: QueryOperator, _ rhs: Result<QueryExpression, QueryError>,
                           options: QueryStringOptions = [], rhsText: QueryText?) -> Query<Bool> {
        switch (lhs.expression, rhs) {
        case (.failure(let error), _), (_, .failure(let error)): return Query<Bool>(.failure(error))
        case let (.success(left), .success(right)):
            var text: QueryText?
            if let l = lhs.text, let r = rhsText, lhs.quantifier == .implicit {
                text = .comparison(QueryText.comparisonOperator(op, options), l, r)
            }
            return Query<Bool>(.predicate(.comparison(QueryComparison(left, op, right, options: options,
                                                                      quantifier: lhs.quantifier))),
                               collection: lhs.collection, text: text)
        }
    }

    /// A comparison of the property with a value.
    static func comparison(_ lhs: Query<T>, _ op: QueryOperator, value: Any?, options: QueryStringOptions = []) -> Query<Bool> {
        comparison(lhs, op, constant(value), options: options, rhsText: .constant(value))
    }

    /// A comparison of the property with another one, `column`.
    static func comparison<U>(_ lhs: Query<T>, _ op: QueryOperator, column: Query<U>, options: QueryStringOptions = []) -> Query<Bool> {
        comparison(lhs, op, column.expression, options: options, rhsText: column.text)
    }

    /// A comparison of two properties; it reads through the first collection either side does.
    /// Two collection properties cannot be compared, as in RealmSwift.
    static func comparison(_ lhs: Query<T>, _ op: QueryOperator, _ rhs: Query<T>) -> Query<Bool> {
        if T.self is any QueryableCollection.Type || T.self is any QueryMapType.Type,
           case .expression(.keyPath(let left)) = lhs.node, case .expression(.keyPath(let right)) = rhs.node {
            return Query<Bool>(.failure(QueryError(.unsupported, "two collections ('\(left)' and '\(right)') cannot be compared; compare their elements or counts")))
        }
        let result = comparison(lhs, op, column: rhs)
        guard result.collection == nil, let other = rhs.collection else { return result }
        return Query<Bool>(result.node, collection: other, text: result.text)
    }

    // MARK: - Quantifiers

    /// `ANY path …` (the default for to-many paths, made explicit).
    public var any: Query<T> { Query(node, quantifier: .any, collection: collection) }
    /// `ALL path …`: every element matches (true when there are none).
    public var all: Query<T> { Query(node, quantifier: .all, collection: collection) }
    /// `NONE path …`: no element matches.
    public var none: Query<T> { Query(node, quantifier: .none, collection: collection) }
}

// MARK: - Member lookup

extension Query where T: QueryKeyPathNaming {
    /// `$0.name`: the persisted property `keyPath` reads.
    public subscript<V>(dynamicMember keyPath: KeyPath<T, V>) -> Query<V> {
        member(T.queryPropertyName(for: keyPath), "\(keyPath)")
    }
}

extension Query where T: OptionalProtocol, T.Wrapped: QueryKeyPathNaming {
    /// `$0.owner.name`: through a to-one link (nil links yield nil).
    public subscript<V>(dynamicMember keyPath: KeyPath<T.Wrapped, V>) -> Query<V> {
        member(T.Wrapped.queryPropertyName(for: keyPath), "\(keyPath)")
    }
}

extension Query where T: QueryableCollection, T.Element: QueryKeyPathNaming {
    /// `$0.dogs.age`: the elements' property; comparisons then mean ANY element.
    public subscript<V>(dynamicMember keyPath: KeyPath<T.Element, V>) -> Query<V> {
        let element: Query<V> = member(T.Element.queryPropertyName(for: keyPath), "\(keyPath)")
        guard collection == nil, case .expression(.keyPath(let path)) = node else { return element }
        return Query<V>(element.node, quantifier: element.quantifier, collection: path, text: element.text)
    }
}

// MARK: - Comparisons

extension Query {
    /// A value as a query constant: any stored type (scalars, `ObjectId`, `Decimal128`, enums and
    /// custom-persisted values through their stored form, objects, collections), or a
    /// `QueryValueConvertible`. Anything else records a type-mismatch error for `predicate()`.
    static func constant(_ value: Any?) -> Result<QueryExpression, QueryError> {
        guard let converted = Object.queryConstant(value) else {
            return .failure(QueryError(.typeMismatch, "a \(type(of: value as Any)) cannot be a query value"))
        }
        return .success(.constant(converted))
    }

    /// A condition comparing a property with a value: `$0.age == 2`, `$0.owner == nil`.
    /// A value of a custom type stored as an embedded object is compared property by property.
    public static func == (lhs: Query<T>, rhs: T) -> Query<Bool> { equality(lhs, .equal, rhs) }
    /// A condition: the property differs from the value.
    public static func != (lhs: Query<T>, rhs: T) -> Query<Bool> { equality(lhs, .notEqual, rhs) }

    /// `==` / `!=` with a value: property by property for an embedded value (through map values
    /// too), else as a constant.
    private static func equality(_ lhs: Query<T>, _ op: QueryOperator, _ rhs: T) -> Query<Bool> {
        if let object = memberwiseObject(rhs) {
            var readsValues = false
            if case .expression(.keyPath(let path)) = lhs.node, path.components.last == QueryKeyPath.valuesComponent { readsValues = true }
            return memberwise(lhs, op, object, through: readsValues).written(lhs.text.map { .comparison(op.rawValue, $0, .constant(rhs)) })
        }
        return comparison(lhs, op, value: rhs)
    }
    /// A condition: the property is less than the value.
    ///
    /// The ordering operators are accepted for any value type; a comparison the property's type
    /// does not support (such as `Bool < Bool`) is rejected when the query is checked.
    public static func < (lhs: Query<T>, rhs: T) -> Query<Bool> { comparison(lhs, .less, value: rhs) }
    /// A condition: the property is less than or equal to the value.
    public static func <= (lhs: Query<T>, rhs: T) -> Query<Bool> { comparison(lhs, .lessOrEqual, value: rhs) }
    /// A condition: the property is greater than the value.
    public static func > (lhs: Query<T>, rhs: T) -> Query<Bool> { comparison(lhs, .greater, value: rhs) }
    /// A condition: the property is greater than or equal to the value.
    public static func >= (lhs: Query<T>, rhs: T) -> Query<Bool> { comparison(lhs, .greaterOrEqual, value: rhs) }

    /// A condition comparing two properties of one object: `$0.age > $0.minimumAge`.
    public static func == (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { comparison(lhs, .equal, rhs) }
    /// A condition: the two properties differ.
    public static func != (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { comparison(lhs, .notEqual, rhs) }
    /// A condition: the left property is less than the right one.
    public static func < (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { comparison(lhs, .less, rhs) }
    /// A condition: the left property is less than or equal to the right one.
    public static func <= (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { comparison(lhs, .lessOrEqual, rhs) }
    /// A condition: the left property is greater than the right one.
    public static func > (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { comparison(lhs, .greater, rhs) }
    /// A condition: the left property is greater than or equal to the right one.
    public static func >= (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { comparison(lhs, .greaterOrEqual, rhs) }

    /// `path IN {values}`.
    public func `in`<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == T {
        let values = values.map { $0 }
        return Self.comparison(self, .in, Self.constantList(values), rhsText: .constant(values))
    }

    /// `path BETWEEN {low, high}` (inclusive).
    public func between(_ low: T, _ high: T) -> Query<Bool> {
        Self.between(self, low, high)
    }

    static func between(_ lhs: Query<T>, _ low: Any, _ high: Any) -> Query<Bool> {
        let result = comparison(lhs, .between, constantList([low, high]), rhsText: nil)
        guard let l = lhs.text, lhs.quantifier == .implicit else { return result.written(nil) }
        return result.written(.between(l, low, high))
    }

    /// `path BETWEEN {range.lowerBound, range.upperBound}`.
    public func between(_ range: ClosedRange<T>) -> Query<Bool> where T: Comparable {
        between(range.lowerBound, range.upperBound)
    }

    /// Values as one list constant (the right side of `IN` and `BETWEEN`).
    static func constantList<V>(_ values: [V]) -> Result<QueryExpression, QueryError> {
        var elements: [QueryValue] = []
        elements.reserveCapacity(values.count)
        for value in values {
            switch constant(value) {
            case .success(.constant(let element)): elements.append(element)
            case .failure(let error): return .failure(error)
            case .success: return .failure(QueryError(.typeMismatch, "a list element must be a value"))
            }
        }
        return .success(.constant(.list(elements)))
    }
}

extension Query where T: Comparable {
    /// A condition: the property lies in `range` (`path >= lower AND path < upper`).
    public func contains(_ range: Range<T>) -> Query<Bool> {
        Self.comparison(self, .greaterOrEqual, value: range.lowerBound)
            && Self.comparison(self, .less, value: range.upperBound)
    }

    /// A condition: the property lies in `range` (`path BETWEEN {lower, upper}`).
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> { between(range) }
}

extension Query where T: OptionalProtocol, T.Wrapped: Comparable {
    /// A condition: the optional property holds a value in `range` (nil does not).
    public func contains(_ range: Range<T.Wrapped>) -> Query<Bool> {
        Self.comparison(self, .greaterOrEqual, value: range.lowerBound)
            && Self.comparison(self, .less, value: range.upperBound)
    }

    /// A condition: the optional property holds a value in `range` (nil does not).
    public func contains(_ range: ClosedRange<T.Wrapped>) -> Query<Bool> {
        Self.between(self, range.lowerBound, range.upperBound)
    }
}

// MARK: - Predicates

extension Query where T == Bool {
    /// `AND` of two conditions.
    public static func && (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> { combine(lhs, rhs, "&&", QueryPredicate.conjunction) }
    /// `OR` of two conditions.
    public static func || (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> { combine(lhs, rhs, "||", QueryPredicate.disjunction) }

    /// `NOT` of a condition.
    public static prefix func ! (operand: Query<Bool>) -> Query<Bool> {
        do throws(QueryError) {
            return Query<Bool>(.predicate(.not(try operand.predicate())), collection: operand.collection,
                               text: operand.conditionText.map { .not($0) })
        } catch {
            return Query<Bool>(.failure(error))
        }
    }

    private static func combine(_ lhs: Query<Bool>, _ rhs: Query<Bool>, _ op: String,
                                _ make: (QueryPredicate, QueryPredicate) -> QueryPredicate) -> Query<Bool> {
        do throws(QueryError) {
            var text: QueryText?
            if let l = lhs.conditionText, let r = rhs.conditionText { text = .compound(op, l, r) }
            return Query<Bool>(.predicate(make(try lhs.predicate(), try rhs.predicate())),
                               collection: lhs.collection ?? rhs.collection, text: text)
        } catch {
            return Query<Bool>(.failure(error))
        }
    }

    /// The condition as RealmSwift writes it: nil if a quantifier other than the implicit one
    /// applies to a bare Bool key path (RealmSwift has none).
    var conditionText: QueryText? {
        if case .expression = node, quantifier != .implicit { return nil }
        return text
    }

    /// The expression tree. A bare Bool key path means `path == true`.
    /// - Throws: the first `QueryError` recorded while building (a key path that is not persisted, …).
    func predicate() throws(QueryError) -> QueryPredicate {
        switch node {
        case .predicate(let predicate): return predicate
        case .failure(let error): throw error
        case .expression:
            switch expression {
            case .failure(let error): throw error
            case .success(let e): return .comparison(QueryComparison(e, .equal, .constant(.bool(true)), quantifier: quantifier))
            }
        }
    }
}

extension QueryPredicate {
    /// Builds a predicate with the type-safe form: `try QueryPredicate(Dog.self) { $0.age > 2 }`.
    init<T>(_ type: T.Type, _ build: (Query<T>) -> Query<Bool>) throws(QueryError) {
        self = try build(Query<T>()).predicate()
    }
}
