// QueryMatcher: a predicate prepared once for evaluation over many objects (a table scan).
//
// Invariants:
// - Matching with a QueryMatcher gives exactly the result of `QueryPredicate.evaluate(on:)`
//   (which prepares a matcher for the one call).
// - Preparation turns constants into ready operands and a large `IN {…}` list into a hash set
//   of normalised keys (`QueryMatchKey`), so `IN` with n values costs O(1) per object instead of
//   O(n). The set is used only when the normalisation is exact for every candidate (no Decimal,
//   no NaN, no collections, no `[c]`/`[d]`); otherwise `IN` scans the list. A constant string
//   compared with `[c]`/`[d]` is folded once here, so only the object's value is folded per match.
// - Not Sendable, not thread-safe by itself: it holds the predicate's constants (which may be
//   objects) and is meant to be used where the objects it matches live.
import Foundation

/// A predicate prepared for repeated evaluation.
///
/// ```swift
/// let matcher = try QueryMatcher(QueryParser.parse("age IN %@", arguments: [ids]))
/// let hits = try objects.filter { try matcher.matches($0) }
/// ```
package final class QueryMatcher {
    /// The predicate this matcher evaluates.
    let predicate: QueryPredicate
    let compiled: CompiledPredicate

    /// Prepares `predicate` (O(size of its constants); an `IN` list of n values is hashed once).
    package init(_ predicate: QueryPredicate) {
        self.predicate = predicate
        self.compiled = CompiledPredicate(predicate)
    }

    /// Whether `object` matches. Throws as `QueryPredicate.evaluate(on:)`.
    package func matches(_ object: some QueryValueSource) throws -> Bool {
        var evaluator = QueryEvaluator(root: object)
        return try evaluator.predicate(compiled)
    }
}

/// A value normalised so that Realm equality (`==` without options) is key equality:
/// numbers of any kind that are integral compare as `.int`, other finite numbers as `.double`.
enum QueryMatchKey: Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case objectId(QueryObjectID)
    case uuid(UUID)
    case object(QueryObjectIdentity)

    /// nil when the value has no exact key (Decimal, NaN, collections): use the slow path.
    init?(_ value: QueryValue) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .float(let f): self.init(double: Double(f))
        case .double(let d): self.init(double: d)
        case .string(let s): self = .string(s)
        case .data(let d): self = .data(d)
        case .date(let d): self = .date(d)
        case .objectId(let id): self = .objectId(id)
        case .uuid(let u): self = .uuid(u)
        case .object(let reference): self = .object(reference.identity)
        case .decimal, .list, .set, .map, .geo: return nil
        }
    }

    private init?(double d: Double) {
        if d.isNaN { return nil }
        // Integral doubles within Int64's range equal exactly one Int64 (see compareIntToDouble).
        if d == d.rounded(.towardZero), d >= -9_223_372_036_854_775_808.0, d < 9_223_372_036_854_775_808.0 {
            self = .int(Int64(d))
        } else {
            self = .double(d)
        }
    }
}

// The compiled nodes are final classes (not structs in indirect enums) because matching an
// indirect enum case copies its payload and retains every field of it on each visit; a scan over
// a million objects spent ~47% of its time in swift_retain/swift_release that way.

/// A QueryPredicate with its constants prepared. Payloads are classes, so a match retains one
/// reference; the enum needs no `indirect` box.
package enum CompiledPredicate {
    case constant(Bool)
    case comparison(CompiledComparison)
    case and(CompiledPredicateList)
    case or(CompiledPredicateList)
    case not(CompiledPredicateBox)

    package init(_ predicate: QueryPredicate) {
        switch predicate {
        case .truePredicate: self = .constant(true)
        case .falsePredicate: self = .constant(false)
        case .comparison(let c): self = .comparison(CompiledComparison(c))
        case .and(let operands): self = .and(CompiledPredicateList(operands.map { CompiledPredicate($0) }))
        case .or(let operands): self = .or(CompiledPredicateList(operands.map { CompiledPredicate($0) }))
        case .not(let a): self = .not(CompiledPredicateBox(CompiledPredicate(a)))
        }
    }
}

package final class CompiledPredicateList {
    package let items: [CompiledPredicate]
    init(_ items: [CompiledPredicate]) { self.items = items }
}

package final class CompiledPredicateBox {
    package let inner: CompiledPredicate
    init(_ inner: CompiledPredicate) { self.inner = inner }
}

package final class CompiledComparison {
    package let left: CompiledExpression
    package let op: QueryOperator
    package let right: CompiledExpression
    package let options: QueryStringOptions
    let quantifier: QueryQuantifier
    /// For `IN` against a constant list whose every element has an exact key.
    let membership: Set<QueryMatchKey>?
    /// The right operand is a constant string already folded with `options` (fold only the left).
    let rightIsFolded: Bool

    /// Lists shorter than this are scanned: hashing costs more than a few comparisons.
    static let membershipThreshold = 8

    init(_ c: QueryComparison) {
        left = CompiledExpression(c.left)
        op = c.op
        options = c.options
        quantifier = c.quantifier
        var right = CompiledExpression(c.right)
        var rightIsFolded = false
        if !c.options.isEmpty, case .constant(.string(let text)) = c.right {
            right = CompiledExpression(constant: .one(.string(QueryValueComparison.fold(text, c.options))))
            rightIsFolded = true
        }
        self.right = right
        self.rightIsFolded = rightIsFolded
        var membership: Set<QueryMatchKey>?
        if c.op == .in, c.options.isEmpty, right.kind == .constant, case .many(let candidates) = right.constant,
           candidates.count >= Self.membershipThreshold {
            var keys = Set<QueryMatchKey>(minimumCapacity: candidates.count)
            var exact = true
            for candidate in candidates {
                guard let key = QueryMatchKey(candidate) else { exact = false; break }
                keys.insert(key)
            }
            if exact { membership = keys }
        }
        self.membership = membership
    }
}

package final class CompiledExpression {
    package enum Kind {
        case constant
        /// A plain property of the object itself (`age`): the fast path.
        case property
        case keyPath
        case aggregate
        case subqueryCount
        case list
    }

    package let kind: Kind
    package let constant: QueryOperand
    package let property: String
    let path: QueryKeyPath
    let aggregate: QueryAggregate
    let variable: String
    /// The SUBQUERY body (`.constant(true)` for other kinds).
    let predicate: CompiledPredicate
    package let elements: [CompiledExpression]

    private init(kind: Kind, constant: QueryOperand = .one(.null), path: QueryKeyPath = QueryKeyPath([]),
                 aggregate: QueryAggregate = .count, variable: String = "", predicate: CompiledPredicate = .constant(true),
                 elements: [CompiledExpression] = []) {
        self.kind = kind
        self.constant = constant
        self.path = path
        self.property = path.variable == nil && path.components.count == 1 ? path.components[0] : ""
        self.aggregate = aggregate
        self.variable = variable
        self.predicate = predicate
        self.elements = elements
    }

    convenience init(constant: QueryOperand) {
        self.init(kind: .constant, constant: constant)
    }

    convenience init(_ expression: QueryExpression) {
        switch expression {
        case .constant(let value):
            if let elements = value.collectionElements {
                self.init(kind: .constant, constant: .many(elements))
            } else {
                self.init(kind: .constant, constant: .one(value))
            }
        case .keyPath(let path):
            let plain = path.variable == nil && path.components.count == 1
            self.init(kind: plain ? .property : .keyPath, path: path)
        case .aggregate(let aggregate, let path): self.init(kind: .aggregate, path: path, aggregate: aggregate)
        case .subqueryCount(let collection, let variable, let predicate):
            self.init(kind: .subqueryCount, path: collection, variable: variable, predicate: CompiledPredicate(predicate))
        case .list(let elements): self.init(kind: .list, elements: elements.map { CompiledExpression($0) })
        }
    }
}
