// The ranges of an integer property that a top-level AND of comparisons bounds: the conjuncts
// `prop < > <= >= int` (either side), and `prop BETWEEN {int, int}`, without options or a
// quantifier. The object layer may scan an ordered index over such a range for candidates, then
// evaluates the whole predicate on each, unless the predicate is nothing but that property's
// range (`exactIntegerRange`): the candidates are then the result (QueryIndexPlan.swift).
//
// Invariants:
// - Bounds are inclusive and exact over integers (`> 5` gives a lower bound of 6): the range holds
//   every integer that can satisfy the conjuncts, never fewer (valid for integer properties only,
//   the only ones the object layer scans an index range of).
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

    /// Intersects these bounds with `other`'s (of the same property).
    mutating func narrow(to other: QueryIndexableRange) {
        if let l = other.lower { lower = Swift.max(lower ?? l, l) }
        if let u = other.upper { upper = Swift.min(upper ?? u, u) }
    }
}

extension QueryPredicate {
    /// For each property bounded by top-level AND conjuncts, the tightest range they give (one
    /// range per property).
    func indexableRanges() -> [QueryIndexableRange] {
        var ranges: [QueryIndexableRange] = []
        var conjuncts: [QueryPredicate] = [self]
        while let next = conjuncts.popLast() {
            switch next {
            case .and(let operands): conjuncts.append(contentsOf: operands)
            case .comparison(let c):
                guard let bound = Self.integerBound(c) else { continue }
                if let i = ranges.firstIndex(where: { $0.property == bound.property }) {
                    ranges[i].narrow(to: bound)
                } else {
                    ranges.append(bound)
                }
            default: continue
            }
        }
        return ranges.filter { $0.lower != nil || $0.upper != nil }
    }

    /// The values of integer property `property` this predicate keeps, when it is nothing but
    /// a top-level AND of comparisons of that property with integer constants (`integerBound`);
    /// nil when anything else takes part. The candidates of an index scan over this range are
    /// then the predicate's result, with nothing left to evaluate.
    func exactIntegerRange(of property: String) -> QueryIndexableRange? {
        var range = QueryIndexableRange(property: property, lower: nil, upper: nil)
        var conjuncts: [QueryPredicate] = [self]
        while let next = conjuncts.popLast() {
            switch next {
            case .and(let operands):
                conjuncts.append(contentsOf: operands)
            case .comparison(let c):
                guard let bound = Self.integerBound(c), bound.property == property else { return nil }
                range.narrow(to: bound)
            default:
                return nil
            }
        }
        return range
    }

    /// The bounds one comparison of a plain property with integer constants puts on it: `prop op
    /// c` or `c op prop` with `<`, `<=`, `>`, `>=`, `==`, or `prop BETWEEN {low, high}`; nil for
    /// any other comparison, or one with options or a quantifier. Inclusive and exact over
    /// integers: `> 5` is `>= 6`, and a comparison no integer satisfies (`> Int.max`) gives
    /// bounds that cross.
    private static func integerBound(_ c: QueryComparison) -> QueryIndexableRange? {
        guard c.options.isEmpty, c.quantifier == .implicit else { return nil }
        if c.op == .between {
            guard let property = plainProperty(c.left), case .constant(let list) = c.right,
                  let elements = list.collectionElements, elements.count == 2,
                  case .int(let low) = elements[0], case .int(let high) = elements[1] else { return nil }
            return QueryIndexableRange(property: property, lower: low, upper: high)
        }
        var op = c.op
        let property: String
        let constant: Int64
        if let p = plainProperty(c.left), case .constant(.int(let i)) = c.right {
            property = p
            constant = i
        } else if let p = plainProperty(c.right), case .constant(.int(let i)) = c.left {
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
            return nil
        }
        let none = QueryIndexableRange(property: property, lower: 1, upper: 0)
        switch op {
        case .equal: return QueryIndexableRange(property: property, lower: constant, upper: constant)
        case .greaterOrEqual: return QueryIndexableRange(property: property, lower: constant, upper: nil)
        case .lessOrEqual: return QueryIndexableRange(property: property, lower: nil, upper: constant)
        case .greater: return constant == .max ? none : QueryIndexableRange(property: property, lower: constant + 1, upper: nil)
        case .less: return constant == .min ? none : QueryIndexableRange(property: property, lower: nil, upper: constant - 1)
        default: return nil
        }
    }

    private static func plainProperty(_ e: QueryExpression) -> String? {
        guard case .keyPath(let path) = e, path.variable == nil, path.components.count == 1 else { return nil }
        return path.components[0]
    }
}
