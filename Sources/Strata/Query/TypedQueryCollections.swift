// The collection operators of `Query<T>`: lists, sets, linking objects and results
// (`QueryableCollection`), and maps (`QueryMapType`). Comparing a collection with one element
// means ANY element; `min`/`max`/`sum`/`avg` and `count` are aggregates; `where { }` is a
// SUBQUERY; a range test on a collection holds when every element lies in the range.
import Foundation

extension Query {
    /// `path.@function` (`path.member.@function` with a member). RealmSwift writes an aggregate of
    /// a collection last (`arrayInt.@max`), one of a property through a collection after the
    /// collection (`list.@avg.intCol`, `throughCollection`).
    func aggregate<V>(_ function: QueryAggregate, _ member: String? = nil, _ describe: String = "",
                      throughCollection: Bool = false) -> Query<V> {
        var base: Query<T> = self
        var text = self.text
        if member != nil || !describe.isEmpty {
            let extended: Query<T> = appending(member, describe)
            base = extended
            text = member.flatMap { text?.appending($0) }
        }
        let name = "@" + function.rawValue
        text = throughCollection || member != nil ? text?.aggregatingThroughCollection(name) : text?.erasingAny(appending: name)
        switch base.node {
        case .failure(let error): return Query<V>(.failure(error))
        case .expression(.keyPath(let path)):
            return Query<V>(.expression(.aggregate(function, path)), collection: base.collection, text: text)
        default: return Query<V>(.failure(QueryError(.unsupported, "@\(function.rawValue) needs a key path")))
        }
    }

    /// `lower <= path.@min AND path.@max < upper` (or `<=` for a closed range): every element lies
    /// in the range.
    func everyElement(from lower: Any, to upper: Any, closed: Bool) -> Query<Bool> {
        let smallest: Query<Any> = aggregate(.min)
        let largest: Query<Any> = aggregate(.max)
        return Query<Any>.comparison(smallest, .greaterOrEqual, value: lower)
            && Query<Any>.comparison(largest, closed ? .lessOrEqual : .less, value: upper)
    }
}

extension Query where T: QueryableCollection {
    func inList(_ values: [QueryValue]) -> Query<Bool> {
        Self.comparison(self, .in, .success(.constant(.list(values))), rhsText: nil)
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

    /// `value IN path`: the collection contains `element`.
    public func contains(_ element: T.Element) -> Query<Bool> {
        Self.elementIn(element, self)
    }

    /// `ANY path IN {values}`: the collection holds at least one of `values`.
    public func containsAny<S: Sequence>(in values: S) -> Query<Bool> where S.Element == T.Element {
        anyIn(Array(values))
    }

    /// A condition: ANY element equals the value (`path == value`).
    public static func == (lhs: Query<T>, rhs: T.Element) -> Query<Bool> {
        if let object = memberwiseObject(rhs) {
            return memberwise(lhs, .equal, object, through: true).written(lhs.text.map { .comparison(QueryOperator.equal.rawValue, $0, .constant(rhs)) })
        }
        return comparison(lhs, .equal, value: rhs)
    }
    /// A condition: ANY element differs from the value.
    public static func != (lhs: Query<T>, rhs: T.Element) -> Query<Bool> {
        if let object = memberwiseObject(rhs) {
            return memberwise(lhs, .notEqual, object, through: true).written(lhs.text.map { .comparison(QueryOperator.notEqual.rawValue, $0, .constant(rhs)) })
        }
        return comparison(lhs, .notEqual, value: rhs)
    }
    /// A condition: ANY element is less than the value.
    public static func < (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { comparison(lhs, .less, value: rhs) }
    /// A condition: ANY element is less than or equal to the value.
    public static func <= (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { comparison(lhs, .lessOrEqual, value: rhs) }
    /// A condition: ANY element is greater than the value.
    public static func > (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { comparison(lhs, .greater, value: rhs) }
    /// A condition: ANY element is greater than or equal to the value.
    public static func >= (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { comparison(lhs, .greaterOrEqual, value: rhs) }

    /// The smallest value of a collection of values (`path.@min`); compare it like a property.
    public var min: Query<T.Element> { aggregate(.min) }
    /// The largest value of a collection of values (`path.@max`).
    public var max: Query<T.Element> { aggregate(.max) }
    /// The sum of a collection of values (`path.@sum`).
    public var sum: Query<T.Element> { aggregate(.sum) }
    /// The mean of a collection of values (`path.@avg`).
    public var avg: Query<T.Element> { aggregate(.avg) }

    /// `value IN collection`.
    static func elementIn(_ element: Any, _ collection: Query<T>) -> Query<Bool> {
        collection.holding(element)
    }
}

extension Query {
    /// `value IN path`: the collection (or map) holds `element`.
    func holding(_ element: Any) -> Query<Bool> {
        switch (Self.constant(element), expression) {
        case (.failure(let error), _), (_, .failure(let error)): return Query<Bool>(.failure(error))
        case let (.success(value), .success(path)):
            return Query<Bool>(.predicate(.comparison(QueryComparison(value, .in, path))),
                               text: text?.erasingAny().map { .comparison("IN", .constant(element), $0) })
        }
    }

    /// `ANY path IN {values}`: the collection (or map) holds at least one of `values`.
    func anyIn(_ values: [Any]) -> Query<Bool> {
        let result = Self.comparison(Query(node, quantifier: .any), .in, Self.constantList(values), rhsText: nil)
        return result.written(text.map { .comparison("IN", $0, .constant(values)) })
    }
}

extension Query where T: QueryableCollection, T.Element: Comparable {
    /// A condition: every element lies in `range`.
    public func contains(_ range: Range<T.Element>) -> Query<Bool> {
        everyElement(from: range.lowerBound, to: range.upperBound, closed: false)
    }

    /// A condition: every element lies in `range`.
    public func contains(_ range: ClosedRange<T.Element>) -> Query<Bool> {
        everyElement(from: range.lowerBound, to: range.upperBound, closed: true)
    }
}

extension Query where T: QueryableCollection, T.Element: OptionalProtocol, T.Element.Wrapped: Comparable {
    /// A condition: every element lies in `range`.
    public func contains(_ range: Range<T.Element.Wrapped>) -> Query<Bool> {
        everyElement(from: range.lowerBound, to: range.upperBound, closed: false)
    }

    /// A condition: every element lies in `range`.
    public func contains(_ range: ClosedRange<T.Element.Wrapped>) -> Query<Bool> {
        everyElement(from: range.lowerBound, to: range.upperBound, closed: true)
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

extension Query where T: QueryMapType {
    /// `map['key']`: the value for `key` (nil when absent).
    public subscript(key: String) -> Query<T.Value> {
        appending(QueryKeyPath.subscriptComponent(key), "['\(key)']").written(text?.subscripted(.key(key)))
    }

    /// `map.@keys`: comparisons mean ANY key (or per `.all` / `.none`).
    public var keys: Query<String> {
        appending(QueryKeyPath.keysComponent, "@keys").written(text?.appending("@allKeys"))
    }

    /// `map.@values`: comparisons mean ANY value (or per `.all` / `.none`).
    public var values: Query<T.Value> {
        appending(QueryKeyPath.valuesComponent, "@values").written(text?.appending("@allValues"))
    }

    /// `map.@count`.
    public var count: Query<Int> { aggregate(.count) }

    /// `value IN map`: one of the map's values equals `value`.
    public func contains(_ value: T.Value) -> Query<Bool> {
        holding(value)
    }

    /// `ANY map IN {values}`: the map holds at least one of `values`.
    public func containsAny<S: Sequence>(in values: S) -> Query<Bool> where S.Element == T.Value {
        anyIn(Array(values))
    }

    /// The smallest value of the map (`map.@min`).
    public var min: Query<T.Value> { aggregate(.min) }
    /// The largest value of the map (`map.@max`).
    public var max: Query<T.Value> { aggregate(.max) }
    /// The sum of the map's values (`map.@sum`).
    public var sum: Query<T.Value> { aggregate(.sum) }
    /// The mean of the map's values (`map.@avg`).
    public var avg: Query<T.Value> { aggregate(.avg) }
}

extension Query where T: QueryMapType, T.Value: Comparable {
    /// A condition: every value of the map lies in `range`.
    public func contains(_ range: Range<T.Value>) -> Query<Bool> {
        everyElement(from: range.lowerBound, to: range.upperBound, closed: false)
    }

    /// A condition: every value of the map lies in `range`.
    public func contains(_ range: ClosedRange<T.Value>) -> Query<Bool> {
        everyElement(from: range.lowerBound, to: range.upperBound, closed: true)
    }
}

extension Query where T: QueryMapType, T.Value: OptionalProtocol, T.Value.Wrapped: Comparable {
    /// A condition: every value of the map lies in `range`.
    public func contains(_ range: Range<T.Value.Wrapped>) -> Query<Bool> {
        everyElement(from: range.lowerBound, to: range.upperBound, closed: false)
    }

    /// A condition: every value of the map lies in `range`.
    public func contains(_ range: ClosedRange<T.Value.Wrapped>) -> Query<Bool> {
        everyElement(from: range.lowerBound, to: range.upperBound, closed: true)
    }
}

extension Query where T == Bool {
    /// `SUBQUERY(collection, $col1, condition).@count`: how many elements of the collection the
    /// condition reads through satisfy it, as in `($0.dogs.age > 5 && $0.dogs.name == "Rex").count`.
    ///
    /// A condition that reads through no collection is recorded as an error, which running the
    /// query reports.
    public var count: Query<Int> {
        guard let collection else {
            if case .failure(let error) = node { return Query<Int>(.failure(error)) }
            return Query<Int>(.failure(QueryError(.unsupported,
                "a subquery's condition must read through a collection, as in ($0.dogs.age > 5).count")))
        }
        let body: QueryPredicate
        do throws(QueryError) { body = try predicate() } catch { return Query<Int>(.failure(error)) }
        var n = 1
        while body.definesSubqueryVariable("$col\(n)") { n += 1 }
        let variable = "$col\(n)"
        return Query<Int>(.expression(.subqueryCount(collection: collection, variable: variable,
                                                     predicate: body.rebasing(collection, onto: variable))),
                          text: conditionText.map { .subqueryCount($0, collection: collection.components) })
    }
}

extension QueryPredicate {
    /// The predicate with every key path through `collection` read from `variable` instead (the
    /// SUBQUERY's element); nested SUBQUERYs keep their own paths.
    func rebasing(_ collection: QueryKeyPath, onto variable: String) -> QueryPredicate {
        func rebase(_ path: QueryKeyPath) -> QueryKeyPath {
            guard path.variable == collection.variable,
                  path.components.starts(with: collection.components) else { return path }
            return QueryKeyPath(Array(path.components.dropFirst(collection.components.count)), variable: variable)
        }
        func rebase(_ expression: QueryExpression) -> QueryExpression {
            switch expression {
            case .keyPath(let path): return .keyPath(rebase(path))
            case .aggregate(let function, let path): return .aggregate(function, rebase(path))
            case .list(let elements): return .list(elements.map(rebase))
            case .constant, .subqueryCount: return expression
            }
        }
        switch self {
        case .truePredicate, .falsePredicate: return self
        case .comparison(var c):
            c.left = rebase(c.left)
            c.right = rebase(c.right)
            return .comparison(c)
        case .and(let operands): return .and(operands.map { $0.rebasing(collection, onto: variable) })
        case .or(let operands): return .or(operands.map { $0.rebasing(collection, onto: variable) })
        case .not(let operand): return .not(operand.rebasing(collection, onto: variable))
        }
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

