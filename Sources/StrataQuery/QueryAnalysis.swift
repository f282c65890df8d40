// Analysis of predicates for the object layer's query planner.
//
// Invariant: the analysis only *narrows candidates*; it never decides a match. Objects found
// through an index must still be checked with `evaluate(on:)` (the rest of the predicate, and
// `[c]`-free exact equality semantics, are applied there).

/// A top-level `property == value` or `property IN {values}` conjunct: every matching object has
/// `property` equal to one of `values`.
package struct QueryIndexableEquality: Equatable {
    /// A plain property name (no links, no aggregates).
    package var property: String
    /// The candidate values (one for `==`, the list elements for `IN`).
    package var values: [QueryValue]

    init(property: String, values: [QueryValue]) {
        self.property = property
        self.values = values
    }
}

extension QueryPredicate {
    /// The conjuncts of the top-level AND chain that an index on a property can answer:
    /// `prop == const`, `const == prop`, `prop IN {consts}` / `prop IN %@`, without `[c]`/`[d]` and
    /// without a quantifier. The object layer may use any one of them (typically the most
    /// selective indexed or primary-key property) to fetch candidates, then must still call
    /// `evaluate(on:)` on each. A property that is a collection must not be looked up in an index:
    /// on it, `==` means ANY element.
    package func indexableEqualities() -> [QueryIndexableEquality] {
        var result: [QueryIndexableEquality] = []
        collectIndexable(into: &result)
        return result
    }

    private func collectIndexable(into result: inout [QueryIndexableEquality]) {
        switch self {
        case .and(let operands):
            for operand in operands { operand.collectIndexable(into: &result) }
        case .comparison(let c):
            guard c.options.isEmpty, c.quantifier == .implicit else { return }
            func plainProperty(_ e: QueryExpression) -> String? {
                guard case .keyPath(let path) = e, path.variable == nil, path.components.count == 1 else { return nil }
                return path.components[0]
            }
            func scalar(_ e: QueryExpression) -> QueryValue? {
                guard case .constant(let value) = e, value.collectionElements == nil else { return nil }
                return value
            }
            switch c.op {
            case .equal:
                if let property = plainProperty(c.left), let value = scalar(c.right) {
                    result.append(QueryIndexableEquality(property: property, values: [value]))
                } else if let property = plainProperty(c.right), let value = scalar(c.left) {
                    result.append(QueryIndexableEquality(property: property, values: [value]))
                }
            case .in:
                guard let property = plainProperty(c.left), case .constant(let list) = c.right,
                      let elements = list.collectionElements,
                      elements.allSatisfy({ $0.collectionElements == nil }) else { return }
                result.append(QueryIndexableEquality(property: property, values: elements))
            default:
                return
            }
        default:
            return
        }
    }
}

extension QueryPredicate {
    /// Every key path the predicate reads, from the queried object: plain and aggregated paths,
    /// and for a SUBQUERY its collection plus the collection-prefixed paths of its body
    /// (`SUBQUERY(dogs, $d, $d.age > 1)` reads `dogs` and `dogs.age`). In first-use order, without
    /// duplicates. The object layer can use it to tell whether a change can affect membership.
    func referencedKeyPaths() -> [QueryKeyPath] {
        var seen: Set<QueryKeyPath> = []
        var result: [QueryKeyPath] = []
        collectKeyPaths(variables: [:]) { path in
            if seen.insert(path).inserted { result.append(path) }
        }
        return result
    }

    private func collectKeyPaths(variables: [String: QueryKeyPath], _ add: (QueryKeyPath) -> Void) {
        func rooted(_ path: QueryKeyPath) -> QueryKeyPath {
            guard let variable = path.variable else { return path }
            guard let base = variables[variable] else { return path }
            return QueryKeyPath(base.components + path.components)
        }
        func visit(_ expression: QueryExpression) {
            switch expression {
            case .constant: return
            case .keyPath(let path), .aggregate(_, let path):
                if path.variable == nil || !path.components.isEmpty { add(rooted(path)) }
            case .subqueryCount(let collection, let variable, let predicate):
                let base = rooted(collection)
                add(base)
                var inner = variables
                inner[variable] = base
                predicate.collectKeyPaths(variables: inner, add)
            case .list(let elements):
                elements.forEach(visit)
            }
        }
        switch self {
        case .truePredicate, .falsePredicate: return
        case .comparison(let c):
            visit(c.left)
            visit(c.right)
        case .and(let operands), .or(let operands):
            for operand in operands { operand.collectKeyPaths(variables: variables, add) }
        case .not(let inner): inner.collectKeyPaths(variables: variables, add)
        }
    }
}
