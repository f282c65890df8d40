// The ranges of an integer property that a top-level AND of comparisons bounds: the conjuncts
// `prop < > <= >= int` (either side), and `prop BETWEEN {int, int}`, without options or a
// quantifier. The object layer may scan an ordered index over such a range for candidates, then
// must still evaluate the whole predicate on each (QueryIndexPlan.swift).
//
// Invariants:
// - Bounds are inclusive and may be looser than the comparison (`> 5` gives a lower bound of 5):
//   the range holds every value that can satisfy the conjuncts, never fewer.
// - Only integer constants: an integer property against a Double follows the numeric comparison
//   rules, which the index's order does not reproduce, so such a conjunct bounds nothing.

/// Inclusive bounds on one plain property; nil bound: unbounded on that side.
struct QueryIndexableRange: Equatable {
    var property: String
    var lower: Int64?
    var upper: Int64?

    /// Whether the bounds leave no value (lower above upper).
    var isEmpty: Bool {
        if let lower, let upper { return lower > upper }
        return false
    }
}

extension QueryPredicate {
    /// For each property bounded by top-level AND conjuncts, the tightest range they give (one
    /// range per property).
    func indexableRanges() -> [QueryIndexableRange] {
        var ranges: [QueryIndexableRange] = []
        func bound(_ property: String, lower: Int64? = nil, upper: Int64? = nil) {
            if let i = ranges.firstIndex(where: { $0.property == property }) {
                if let lower { ranges[i].lower = Swift.max(ranges[i].lower ?? lower, lower) }
                if let upper { ranges[i].upper = Swift.min(ranges[i].upper ?? upper, upper) }
            } else {
                ranges.append(QueryIndexableRange(property: property, lower: lower, upper: upper))
            }
        }
        var conjuncts: [QueryPredicate] = [self]
        while let next = conjuncts.popLast() {
            switch next {
            case .and(let operands): conjuncts.append(contentsOf: operands)
            case .comparison(let c):
                guard c.options.isEmpty, c.quantifier == .implicit else { continue }
                if c.op == .between {
                    guard let property = Self.plainProperty(c.left), case .constant(let list) = c.right,
                          let elements = list.collectionElements, elements.count == 2,
                          case .int(let low) = elements[0], case .int(let high) = elements[1] else { continue }
                    bound(property, lower: low, upper: high)
                    continue
                }
                var op = c.op
                let property: String
                let constant: Int64
                if let p = Self.plainProperty(c.left), case .constant(.int(let i)) = c.right {
                    property = p
                    constant = i
                } else if let p = Self.plainProperty(c.right), case .constant(.int(let i)) = c.left {
                    property = p
                    constant = i
                    // `5 < prop` bounds prop as `prop > 5` does.
                    switch op {
                    case .less: op = .greater
                    case .lessOrEqual: op = .greaterOrEqual
                    case .greater: op = .less
                    case .greaterOrEqual: op = .lessOrEqual
                    default: break
                    }
                } else {
                    continue
                }
                switch op {
                case .greater, .greaterOrEqual: bound(property, lower: constant)
                case .less, .lessOrEqual: bound(property, upper: constant)
                case .equal: bound(property, lower: constant, upper: constant)
                default: continue
                }
            default: continue
            }
        }
        return ranges.filter { $0.lower != nil || $0.upper != nil }
    }

    /// The values of integer property `property` this predicate keeps, when it is nothing but
    /// a top-level AND of comparisons of that property with integer constants (`==`, `<`, `<=`,
    /// `>`, `>=` on either side, `BETWEEN`; no options, no quantifier); nil when anything else
    /// takes part. Strict bounds become inclusive ones (`> 5` is `>= 6`: exact over integers,
    /// so valid only for a property of integer type). The candidates of an index scan over this
    /// range are then the predicate's result, with nothing left to evaluate.
    func exactIntegerRange(of property: String) -> QueryIndexableRange? {
        var range = QueryIndexableRange(property: property, lower: nil, upper: nil)
        var empty = false
        var conjuncts: [QueryPredicate] = [self]
        while let next = conjuncts.popLast() {
            switch next {
            case .and(let operands):
                conjuncts.append(contentsOf: operands)
            case .comparison(let c):
                guard c.options.isEmpty, c.quantifier == .implicit else { return nil }
                var lower: Int64?, upper: Int64?
                if c.op == .between {
                    guard Self.plainProperty(c.left) == property, case .constant(let list) = c.right,
                          let elements = list.collectionElements, elements.count == 2,
                          case .int(let low) = elements[0], case .int(let high) = elements[1] else { return nil }
                    lower = low
                    upper = high
                } else {
                    var op = c.op
                    let constant: Int64
                    if Self.plainProperty(c.left) == property, case .constant(.int(let i)) = c.right {
                        constant = i
                    } else if Self.plainProperty(c.right) == property, case .constant(.int(let i)) = c.left {
                        constant = i
                        switch op {
                        case .less: op = .greater
                        case .lessOrEqual: op = .greaterOrEqual
                        case .greater: op = .less
                        case .greaterOrEqual: op = .lessOrEqual
                        default: break
                        }
                    } else {
                        return nil
                    }
                    switch op {
                    case .equal: lower = constant; upper = constant
                    case .greaterOrEqual: lower = constant
                    case .lessOrEqual: upper = constant
                    case .greater:
                        if constant == .max { empty = true } else { lower = constant + 1 }
                    case .less:
                        if constant == .min { empty = true } else { upper = constant - 1 }
                    default: return nil
                    }
                }
                if let lower { range.lower = Swift.max(range.lower ?? lower, lower) }
                if let upper { range.upper = Swift.min(range.upper ?? upper, upper) }
            default:
                return nil
            }
        }
        // No value at all: bounds that cross.
        if empty { return QueryIndexableRange(property: property, lower: 1, upper: 0) }
        return range
    }

    private static func plainProperty(_ e: QueryExpression) -> String? {
        guard case .keyPath(let path) = e, path.variable == nil, path.components.count == 1 else { return nil }
        return path.components[0]
    }
}
