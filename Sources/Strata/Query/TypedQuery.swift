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

/// A to-many property type (`List`, `MutableSet`, arrays in tests): member lookup through it
/// reaches the elements' properties, and comparisons then mean ANY element.
public protocol QueryableCollection {
    associatedtype Element
}

extension Array: QueryableCollection {}

/// A `Map<String, Value>` property type (`Map`, dictionaries in tests): `map["key"]`, `.keys`,
/// `.values`, `.count`.
public protocol QueryMapType {
    associatedtype Value
}

extension Dictionary: QueryMapType where Key == String {}

/// `Optional`, so that `Query<Person?>` can look up `Person`'s members.
public protocol QueryOptionalType {
    associatedtype Wrapped
}

extension Optional: QueryOptionalType {}

/// Values the string operators (`contains`, `starts(with:)`, `ends(with:)`, `like`) apply to.
public protocol QueryStringValue: QueryValueConvertible {}
extension String: QueryStringValue {}
extension Data: QueryStringValue {}
extension Optional: QueryStringValue where Wrapped: QueryStringValue {}


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

    init(_ node: Node, quantifier: QueryQuantifier = .implicit) {
        self.node = node
        self.quantifier = quantifier
    }

    /// The root of a query over objects of type `T`.
    public init() {
        self.init(.expression(.keyPath(QueryKeyPath([]))))
    }

    /// The root of a SUBQUERY body: the element bound to `variable`.
    init(variable: String) {
        self.init(.expression(.keyPath(QueryKeyPath([], variable: variable))))
    }

    func appending<V>(_ name: String?, _ describe: @autoclosure () -> String) -> Query<V> {
        switch node {
        case .failure(let error): return Query<V>(.failure(error))
        case .expression(.keyPath(var path)):
            guard let name else {
                return Query<V>(.failure(QueryError(.unknownProperty, "\(describe()) is not a persisted property")))
            }
            path.components.append(name)
            return Query<V>(.expression(.keyPath(path)), quantifier: quantifier)
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
                           options: QueryStringOptions = []) -> Query<Bool> {
        switch (lhs.expression, rhs) {
        case (.failure(let error), _), (_, .failure(let error)): return Query<Bool>(.failure(error))
        case let (.success(left), .success(right)):
            return Query<Bool>(.predicate(.comparison(QueryComparison(left, op, right, options: options,
                                                                      quantifier: lhs.quantifier))))
        }
    }

    // MARK: - Quantifiers

    /// `ANY path …` (the default for to-many paths, made explicit).
    public var any: Query<T> { Query(node, quantifier: .any) }
    /// `ALL path …`: every element matches (true when there are none).
    public var all: Query<T> { Query(node, quantifier: .all) }
    /// `NONE path …`: no element matches.
    public var none: Query<T> { Query(node, quantifier: .none) }
}

// MARK: - Member lookup

extension Query where T: QueryKeyPathNaming {
    /// `$0.name`: the persisted property `keyPath` reads.
    public subscript<V>(dynamicMember keyPath: KeyPath<T, V>) -> Query<V> {
        appending(T.queryPropertyName(for: keyPath), "\(keyPath)")
    }
}

extension Query where T: QueryOptionalType, T.Wrapped: QueryKeyPathNaming {
    /// `$0.owner.name`: through a to-one link (nil links yield nil).
    public subscript<V>(dynamicMember keyPath: KeyPath<T.Wrapped, V>) -> Query<V> {
        appending(T.Wrapped.queryPropertyName(for: keyPath), "\(keyPath)")
    }
}

extension Query where T: QueryableCollection, T.Element: QueryKeyPathNaming {
    /// `$0.dogs.age`: the elements' property; comparisons then mean ANY element.
    public subscript<V>(dynamicMember keyPath: KeyPath<T.Element, V>) -> Query<V> {
        appending(T.Element.queryPropertyName(for: keyPath), "\(keyPath)")
    }
}

// MARK: - Comparisons

extension Query where T: QueryValueConvertible {
    /// A condition comparing a property with a value: `$0.age > 2`, `$0.owner == nil`.
    ///
    /// The ordering operators are accepted for any value type; a comparison the property's type does
    /// not support (such as `Bool < Bool`) is rejected when the query is built.
    public static func == (lhs: Query<T>, rhs: T) -> Query<Bool> { comparison(lhs, .equal, .success(.constant(rhs.queryValue))) }
    /// A condition: the property differs from the value.
    public static func != (lhs: Query<T>, rhs: T) -> Query<Bool> { comparison(lhs, .notEqual, .success(.constant(rhs.queryValue))) }
    /// A condition: the property is less than the value.
    public static func < (lhs: Query<T>, rhs: T) -> Query<Bool> { comparison(lhs, .less, .success(.constant(rhs.queryValue))) }
    /// A condition: the property is less than or equal to the value.
    public static func <= (lhs: Query<T>, rhs: T) -> Query<Bool> { comparison(lhs, .lessOrEqual, .success(.constant(rhs.queryValue))) }
    /// A condition: the property is greater than the value.
    public static func > (lhs: Query<T>, rhs: T) -> Query<Bool> { comparison(lhs, .greater, .success(.constant(rhs.queryValue))) }
    /// A condition: the property is greater than or equal to the value.
    public static func >= (lhs: Query<T>, rhs: T) -> Query<Bool> { comparison(lhs, .greaterOrEqual, .success(.constant(rhs.queryValue))) }

    /// `path IN {values}`.
    public func `in`<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == T {
        Self.comparison(self, .in, .success(.constant(.list(values.map(\.queryValue)))))
    }

    /// `path BETWEEN {low, high}` (inclusive).
    public func between(_ low: T, _ high: T) -> Query<Bool> {
        Self.comparison(self, .between, .success(.constant(.list([low.queryValue, high.queryValue]))))
    }

    /// `path BETWEEN {range.lowerBound, range.upperBound}`.
    public func between(_ range: ClosedRange<T>) -> Query<Bool> where T: Comparable {
        between(range.lowerBound, range.upperBound)
    }
}

extension Query {
    /// A condition comparing two properties of one object: `$0.age > $0.minimumAge`.
    public static func == (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { comparison(lhs, .equal, rhs.expression) }
    /// A condition: the two properties differ.
    public static func != (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { comparison(lhs, .notEqual, rhs.expression) }
    /// A condition: the left property is less than the right one.
    public static func < (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { comparison(lhs, .less, rhs.expression) }
    /// A condition: the left property is less than or equal to the right one.
    public static func <= (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { comparison(lhs, .lessOrEqual, rhs.expression) }
    /// A condition: the left property is greater than the right one.
    public static func > (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { comparison(lhs, .greater, rhs.expression) }
    /// A condition: the left property is greater than or equal to the right one.
    public static func >= (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { comparison(lhs, .greaterOrEqual, rhs.expression) }
}

// MARK: - Strings and data

extension Query where T: QueryStringValue {
    /// `path CONTAINS[options] value`.
    public func contains(_ value: T, options: QueryStringOptions = []) -> Query<Bool> {
        Self.comparison(self, .contains, .success(.constant(value.queryValue)), options: options)
    }

    /// `path BEGINSWITH[options] value`.
    public func starts(with value: T, options: QueryStringOptions = []) -> Query<Bool> {
        Self.comparison(self, .beginsWith, .success(.constant(value.queryValue)), options: options)
    }

    /// `path ENDSWITH[options] value`.
    public func ends(with value: T, options: QueryStringOptions = []) -> Query<Bool> {
        Self.comparison(self, .endsWith, .success(.constant(value.queryValue)), options: options)
    }

    /// `path LIKE[c] pattern` (`?` one character, `*` any run).
    public func like(_ pattern: T, caseInsensitive: Bool = false) -> Query<Bool> {
        Self.comparison(self, .like, .success(.constant(pattern.queryValue)),
                        options: caseInsensitive ? .caseInsensitive : [])
    }

    /// `path ==[options] value` (case/diacritic-insensitive equality).
    public func equals(_ value: T, options: QueryStringOptions) -> Query<Bool> {
        Self.comparison(self, .equal, .success(.constant(value.queryValue)), options: options)
    }
}

// MARK: - Collections

extension Query {
    func aggregate<V>(_ function: QueryAggregate, _ member: String? = nil, _ describe: String = "") -> Query<V> {
        var base: Query<T> = self
        if member != nil || !describe.isEmpty {
            let extended: Query<T> = appending(member, describe)
            base = extended
        }
        switch base.node {
        case .failure(let error): return Query<V>(.failure(error))
        case .expression(.keyPath(let path)): return Query<V>(.expression(.aggregate(function, path)))
        default: return Query<V>(.failure(QueryError(.unsupported, "@\(function.rawValue) needs a key path")))
        }
    }
}

extension Query where T: QueryMapType {
    /// `map['key']`: the value for `key` (nil when absent).
    public subscript(key: String) -> Query<T.Value> {
        appending(QueryKeyPath.subscriptComponent(key), "['\(key)']")
    }

    /// `map.@keys`: comparisons mean ANY key (or per `.all` / `.none`).
    public var keys: Query<String> { appending(QueryKeyPath.keysComponent, "@keys") }

    /// `map.@values`: comparisons mean ANY value (or per `.all` / `.none`).
    public var values: Query<T.Value> { appending(QueryKeyPath.valuesComponent, "@values") }

    /// `map.@count`.
    public var count: Query<Int> { aggregate(.count) }
}

extension Query where T: QueryableCollection {
    func inList(_ values: [QueryValue]) -> Query<Bool> {
        Self.comparison(self, .in, .success(.constant(.list(values))))
    }

    /// `path.@count`.
    public var count: Query<Int> { aggregate(.count) }

    /// `SUBQUERY(path, $variable, predicate)`; use `.count` on the result.
    ///
    /// Without an explicit `variable`, the name is `$x`, or `$x2`, `$x3`… when the body already
    /// contains a nested `where` using that name, so an inner closure can still refer to the
    /// outer element. (The closure is called again for each name tried; it must only build.)
    public func `where`(variable: String? = nil, _ predicate: (Query<T.Element>) -> Query<Bool>) -> QuerySubquery {
        guard case .expression(.keyPath(let path)) = node else {
            if case .failure(let error) = node { return QuerySubquery(.failure(error)) }
            return QuerySubquery(.failure(QueryError(.unsupported, "SUBQUERY needs a key path to a collection")))
        }
        var attempt = 1
        while true {
            let name = variable ?? (attempt == 1 ? "$x" : "$x\(attempt)")
            let body: QueryPredicate
            do throws(QueryError) {
                body = try predicate(Query<T.Element>(variable: name)).predicate()
            } catch {
                return QuerySubquery(.failure(error))
            }
            if variable == nil, body.definesSubqueryVariable(name) {
                attempt += 1
                continue
            }
            return QuerySubquery(.success(.subqueryCount(collection: path, variable: name, predicate: body)))
        }
    }
}

extension QueryPredicate {
    /// Whether a SUBQUERY inside this predicate binds `variable`.
    func definesSubqueryVariable(_ variable: String) -> Bool {
        func inExpression(_ e: QueryExpression) -> Bool {
            switch e {
            case .subqueryCount(_, let v, let p): return v == variable || p.definesSubqueryVariable(variable)
            case .list(let elements): return elements.contains(where: inExpression)
            default: return false
            }
        }
        switch self {
        case .truePredicate, .falsePredicate: return false
        case .comparison(let c): return inExpression(c.left) || inExpression(c.right)
        case .and(let operands), .or(let operands): return operands.contains { $0.definesSubqueryVariable(variable) }
        case .not(let inner): return inner.definesSubqueryVariable(variable)
        }
    }
}

extension Query where T: QueryableCollection, T.Element: QueryValueConvertible {
    /// `value IN path`: the collection contains `element`.
    public func contains(_ element: T.Element) -> Query<Bool> {
        switch expression {
        case .failure(let error): return Query<Bool>(.failure(error))
        case .success(let collection):
            return Query<Bool>(.predicate(.comparison(QueryComparison(.constant(element.queryValue), .in, collection))))
        }
    }

    /// `ANY path IN {values}`: the collection holds at least one of `values`.
    public func containsAny<S: Sequence>(in values: S) -> Query<Bool> where S.Element == T.Element {
        Query(node, quantifier: .any).inList(values.map(\.queryValue))
    }


    /// The smallest value of a collection of values (`path.@min`); compare it like a property.
    public var min: Query<T.Element> { aggregate(.min) }
    /// The largest value of a collection of values (`path.@max`).
    public var max: Query<T.Element> { aggregate(.max) }
    /// The sum of a collection of values (`path.@sum`).
    public var sum: Query<T.Element> { aggregate(.sum) }
    /// `path.@avg` (a Double; a Decimal for Decimal elements).
    public var avg: Query<Double> { aggregate(.avg) }
}

extension Query where T: QueryableCollection, T.Element: Object {
    /// `object IN path`: the collection of links holds `object`.
    public func contains(_ object: T.Element) -> Query<Bool> {
        switch expression {
        case .failure(let error): return Query<Bool>(.failure(error))
        case .success(let collection):
            return Query<Bool>(.predicate(.comparison(QueryComparison(.constant(Object.queryValue(of: object)), .in, collection))))
        }
    }

    /// `ANY path IN {objects}`: the collection of links holds at least one of `objects`.
    public func containsAny<S: Sequence>(in objects: S) -> Query<Bool> where S.Element == T.Element {
        Query(node, quantifier: .any).inList(objects.map { Object.queryValue(of: $0) })
    }
}

extension Query where T: QueryableCollection, T.Element: QueryKeyPathNaming {
    /// The smallest value of the elements' property `member` (`path.@min.member`):
    /// `$0.dogs.min(\.age) < 2`.
    ///
    /// - Parameter member: a persisted property of the element class.
    public func min<V>(_ member: KeyPath<T.Element, V>) -> Query<V> {
        aggregate(.min, T.Element.queryPropertyName(for: member), "\(member)")
    }
    /// The largest value of the elements' property `member` (`path.@max.member`).
    ///
    /// - Parameter member: a persisted property of the element class.
    public func max<V>(_ member: KeyPath<T.Element, V>) -> Query<V> {
        aggregate(.max, T.Element.queryPropertyName(for: member), "\(member)")
    }
    /// The sum of the elements' property `member` (`path.@sum.member`).
    ///
    /// - Parameter member: a persisted property of the element class.
    public func sum<V>(_ member: KeyPath<T.Element, V>) -> Query<V> {
        aggregate(.sum, T.Element.queryPropertyName(for: member), "\(member)")
    }
    /// The mean of the elements' property `member` as a `Double` (`path.@avg.member`).
    ///
    /// - Parameter member: a persisted property of the element class.
    public func avg<V>(_ member: KeyPath<T.Element, V>) -> Query<Double> {
        aggregate(.avg, T.Element.queryPropertyName(for: member), "\(member)")
    }
}

/// The result of `collection.where { … }`: `.count` is the SUBQUERY count.
public struct QuerySubquery {
    let expression: Result<QueryExpression, QueryError>

    init(_ expression: Result<QueryExpression, QueryError>) { self.expression = expression }

    /// `SUBQUERY(…).@count`.
    public var count: Query<Int> {
        switch expression {
        case .success(let e): return Query<Int>(.expression(e))
        case .failure(let error): return Query<Int>(.failure(error))
        }
    }
}

// MARK: - Predicates

extension Query where T == Bool {
    /// `AND` of two conditions.
    public static func && (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> { combine(lhs, rhs, QueryPredicate.conjunction) }
    /// `OR` of two conditions.
    public static func || (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> { combine(lhs, rhs, QueryPredicate.disjunction) }

    /// `NOT` of a condition.
    public static prefix func ! (operand: Query<Bool>) -> Query<Bool> {
        do throws(QueryError) { return Query<Bool>(.predicate(.not(try operand.predicate()))) } catch { return Query<Bool>(.failure(error)) }
    }

    private static func combine(_ lhs: Query<Bool>, _ rhs: Query<Bool>,
                                _ make: (QueryPredicate, QueryPredicate) -> QueryPredicate) -> Query<Bool> {
        do throws(QueryError) {
            return Query<Bool>(.predicate(make(try lhs.predicate(), try rhs.predicate())))
        } catch {
            return Query<Bool>(.failure(error))
        }
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
