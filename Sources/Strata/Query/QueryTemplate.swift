// QueryTemplate: a cached parse whose argument constants are replaced on each call
// (QueryParseCache.swift proves which constants are arguments).
//
// Why a bind plan: rebuilding the whole tree through `QueryConstantRewriter.map` copied every
// node and every constant and looked each constant's ordinal up in a dictionary. For a repeated
// `filter("seq == %@", k)` that was a fifth of an indexed lookup's time, mostly reference
// counting. The plan has the predicate's shape but marks only where arguments go, so a binding
// reuses every subtree without one and allocates only the nodes on the paths to its arguments.
//
// Invariants:
// - `binding(arguments)` equals `QueryConstantRewriter.map` replacing the constant of pre-order
//   index i by `arguments[slots[i]]` (the parse cache checks `binding(probes) == probed` before
//   trusting a template).
// - The plan is built from `predicate` itself; a node the plan does not match (impossible by
//   construction) is returned unchanged, which that check would catch.

/// Where a template's arguments go in a predicate: `keep` for a subtree without one.
indirect enum QueryBindPlan {
    case keep
    case comparison(left: QueryExpressionBindPlan, right: QueryExpressionBindPlan)
    case and([QueryBindPlan])
    case or([QueryBindPlan])
    case not(QueryBindPlan)

    var isKeep: Bool { if case .keep = self { return true } else { return false } }
}

/// Where a template's arguments go in an expression: `argument(i)` replaces a constant by the
/// call's argument `i`.
indirect enum QueryExpressionBindPlan {
    case keep
    case argument(Int)
    case subquery(QueryBindPlan)
    case list([QueryExpressionBindPlan])

    var isKeep: Bool { if case .keep = self { return true } else { return false } }
}

/// A parsed predicate whose constants at `slots` (pre-order constant index → argument index) are
/// the arguments.
struct QueryTemplate: @unchecked Sendable {
    // @unchecked: QueryPredicate is not Sendable only because a constant may be an object
    // reference; templates are built only from literals and scalar arguments (see the parse
    // cache's invariants). The plan holds only indexes.
    let predicate: QueryPredicate
    let plan: QueryBindPlan

    init(predicate: QueryPredicate, slots: [Int: Int]) {
        self.predicate = predicate
        var ordinal = 0
        plan = Self.plan(predicate, slots, &ordinal)
    }

    func binding(_ arguments: [QueryValue]) -> QueryPredicate {
        Self.bind(predicate, plan, arguments)
    }

    // MARK: Building the plan (the constants' pre-order of QueryConstantRewriter)

    private static func plan(_ predicate: QueryPredicate, _ slots: [Int: Int], _ ordinal: inout Int) -> QueryBindPlan {
        switch predicate {
        case .truePredicate, .falsePredicate:
            return .keep
        case .comparison(let c):
            let left = plan(c.left, slots, &ordinal)
            let right = plan(c.right, slots, &ordinal)
            return left.isKeep && right.isKeep ? .keep : .comparison(left: left, right: right)
        case .and(let items):
            let plans = items.map { plan($0, slots, &ordinal) }
            return plans.allSatisfy(\.isKeep) ? .keep : .and(plans)
        case .or(let items):
            let plans = items.map { plan($0, slots, &ordinal) }
            return plans.allSatisfy(\.isKeep) ? .keep : .or(plans)
        case .not(let inner):
            let p = plan(inner, slots, &ordinal)
            return p.isKeep ? .keep : .not(p)
        }
    }

    private static func plan(_ expression: QueryExpression, _ slots: [Int: Int], _ ordinal: inout Int) -> QueryExpressionBindPlan {
        switch expression {
        case .constant:
            defer { ordinal += 1 }
            return slots[ordinal].map(QueryExpressionBindPlan.argument) ?? .keep
        case .keyPath, .aggregate:
            return .keep
        case .subqueryCount(_, _, let predicate):
            let p = plan(predicate, slots, &ordinal)
            return p.isKeep ? .keep : .subquery(p)
        case .list(let elements):
            let plans = elements.map { plan($0, slots, &ordinal) }
            return plans.allSatisfy(\.isKeep) ? .keep : .list(plans)
        }
    }

    // MARK: Binding

    private static func bind(_ predicate: QueryPredicate, _ plan: QueryBindPlan, _ arguments: [QueryValue]) -> QueryPredicate {
        switch (plan, predicate) {
        case (.keep, _):
            return predicate
        case (.comparison(let l, let r), .comparison(var c)):
            if !l.isKeep { c.left = bind(c.left, l, arguments) }
            if !r.isKeep { c.right = bind(c.right, r, arguments) }
            return .comparison(c)
        case (.and(let plans), .and(let items)) where plans.count == items.count:
            return .and(zip(items, plans).map { bind($0, $1, arguments) })
        case (.or(let plans), .or(let items)) where plans.count == items.count:
            return .or(zip(items, plans).map { bind($0, $1, arguments) })
        case (.not(let p), .not(let inner)):
            return .not(bind(inner, p, arguments))
        default:
            return predicate
        }
    }

    private static func bind(_ expression: QueryExpression, _ plan: QueryExpressionBindPlan, _ arguments: [QueryValue]) -> QueryExpression {
        switch (plan, expression) {
        case (.keep, _):
            return expression
        case (.argument(let a), .constant):
            return a < arguments.count ? .constant(arguments[a]) : expression
        case (.subquery(let p), .subqueryCount(let collection, let variable, let predicate)):
            return .subqueryCount(collection: collection, variable: variable, predicate: bind(predicate, p, arguments))
        case (.list(let plans), .list(let elements)) where plans.count == elements.count:
            return .list(zip(elements, plans).map { bind($0, $1, arguments) })
        default:
            return expression
        }
    }
}
