// Evaluates a QueryPredicate against one object through the QueryValueSource protocol.
//
// Semantics (Realm's):
// - A key path through a to-many property reaches *many* values; a comparison with such an
//   operand holds if ANY value matches (implicit), or per the explicit ANY/ALL/NONE quantifier.
//   ALL and NONE hold for an empty collection; ANY does not.
// - A key path through a nil to-one link yields nil, so `owner.name == nil` holds for a dog
//   without owner; ordering comparisons with nil are false, except that two nils are equal
//   (`<=`, `>=` hold) and nil comes before every string (QueryValueComparison.comparisonOrder). Through a to-many path, each nil
//   link yields one nil value.
// - `x IN list` holds when x equals some element; `BETWEEN {a, b}` is `>= a AND <= b`.
// - `@count` counts elements (bytes for a string or data value, 0 for nil); `@min`/`@max` ignore
//   nils and are nil for no values; `@sum` is 0 and `@avg` nil for no values; integers add
//   exactly (an integer sum beyond 64 bits is its exact decimal), whatever their order.
// - `SUBQUERY(c, $x, p).@count` counts the elements of c for which p holds with $x bound; in p
//   a key path without a variable reads the element too (`$x.name` and `name` are the same), as
//   in Realm's engine.
// Errors: a value source's own errors propagate unchanged; reading a property of a value that is
// not an object is a `.typeMismatch` QueryError (a schema check would have caught it).
import Foundation

extension QueryPredicate {
    /// Whether `object` matches the predicate.
    /// - Throws: the source's errors (e.g. an unknown property), or `QueryError` for a key path
    ///   that reads a property of a non-object value or a BETWEEN without two bounds.
    ///   For many objects, prepare a `QueryMatcher` once instead.
    func evaluate(on object: some QueryValueSource) throws -> Bool {
        try QueryMatcher(self).matches(object)
    }
}

/// One side of a comparison: a single value, or the values reached through a to-many path.
package enum QueryOperand {
    case one(QueryValue)
    case many([QueryValue])

    package var values: [QueryValue] {
        switch self {
        case .one(let value): return [value]
        case .many(let values): return values
        }
    }
}

package struct QueryEvaluator {
    /// The object key paths without a variable start from: the queried object, or inside a
    /// SUBQUERY the element being counted (Realm's engine reads them from the element).
    var root: any QueryValueSource
    /// SUBQUERY variables bound to the current element.
    var bindings: [String: QueryValue] = [:]

    init(root: any QueryValueSource) { self.root = root }

    mutating func predicate(_ predicate: CompiledPredicate) throws -> Bool {
        switch predicate {
        case .constant(let value): return value
        case .comparison(let c): return try comparison(c)
        case .and(let list):
            for item in list.items where try !self.predicate(item) { return false }
            return true
        case .or(let list):
            for item in list.items where try self.predicate(item) { return true }
            return false
        case .not(let box): return try !self.predicate(box.inner)
        }
    }

    // MARK: - Operands

    /// The values `path` reaches from the root object or its bound variable. A nil link reached
    /// through a to-many property yields one nil value (so `ALL list.link.name == 'x'` fails on it).
    func resolve(_ path: QueryKeyPath) throws -> QueryOperand {
        let components = path.components
        // Fast path: a plain property of the object.
        if path.variable == nil, components.count == 1 {
            let value = try root.queryValue(forKey: components[0])
            if let elements = value.collectionElements { return .many(elements) }
            return .one(value)
        }
        var source: (any QueryValueSource)? = root
        if let variable = path.variable {
            guard let bound = bindings[variable] else {
                throw QueryError(.syntax, "variable '\(variable)' is not bound")
            }
            if components.isEmpty { return .one(bound) }
            switch bound {
            case .object(let reference): source = reference.source
            case .null: source = nil
            default:
                throw QueryError(.typeMismatch, "cannot read '\(components[0])' of a non-object value bound to \(variable)")
            }
        }
        guard !components.isEmpty else { throw QueryError(.syntax, "empty key path") }
        // Walk the to-one prefix with one source and no arrays; switch to `resolveMany` at the
        // first collection.
        var index = 0
        while index < components.count {
            guard let current = source else { return .one(.null) }
            let name = components[index]
            let end = selectorsEnd(components, after: index)
            var value = try current.queryValue(forKey: name)
            for selector in components[(index + 1)..<end] { value = try Self.select(selector, from: value, of: name) }
            if let elements = value.collectionElements {
                return try resolveMany(elements, components, from: end)
            }
            if end == components.count { return .one(value) }
            switch value {
            case .object(let reference): source = reference.source
            case .null: source = nil
            default:
                throw QueryError(.typeMismatch, "cannot read '\(components[end])' of '\(name)', which is not a link")
            }
            index = end
        }
        return .one(.null)
    }

    /// The index after the map selectors (`['k']`, `@keys`, `@values`) that follow `index`.
    private func selectorsEnd(_ components: [String], after index: Int) -> Int {
        var end = index + 1
        while end < components.count, QueryKeyPath.mapComponent(components[end]) != nil { end += 1 }
        return end
    }

    /// Continues a path through a to-many property: `values` are the collection's elements,
    /// `components[index...]` what remains to read from each. A nil link yields one nil value.
    private func resolveMany(_ values: [QueryValue], _ components: [String], from start: Int) throws -> QueryOperand {
        var values = values
        var index = start
        while index < components.count {
            let name = components[index]
            let end = selectorsEnd(components, after: index)
            var next: [QueryValue] = []
            next.reserveCapacity(values.count)
            for element in values {
                let source: any QueryValueSource
                switch element {
                case .object(let reference): source = reference.source
                case .null:
                    next.append(.null)
                    continue
                default:
                    throw QueryError(.typeMismatch, "cannot read '\(name)' of a value that is not a link")
                }
                var value = try source.queryValue(forKey: name)
                for selector in components[(index + 1)..<end] { value = try Self.select(selector, from: value, of: name) }
                if let elements = value.collectionElements {
                    next.append(contentsOf: elements)
                } else {
                    next.append(value)
                }
            }
            values = next
            index = end
        }
        return .many(values)
    }

    /// Applies a map selector to the value of property `name`.
    static func select(_ selector: String, from value: QueryValue, of name: String) throws -> QueryValue {
        switch (QueryKeyPath.mapComponent(selector), value) {
        case (.keys?, .map(let entries)): return .list(entries.keys.sorted().map(QueryValue.string))
        case (.values?, .map(let entries)): return .list(QueryValue.map(entries).collectionElements ?? [])
        case (.key(let key)?, .map(let entries)): return entries[key] ?? .null
        case (.index(let position)?, .list(let elements)):
            return elements.indices.contains(position) ? elements[position] : .null
        case (.index?, _): return .null
        case (.everyElement?, .list), (.everyElement?, .set): return value
        case (.everyElement?, .map(let entries)): return .list(QueryValue.map(entries).collectionElements ?? [])
        case (.everyElement?, _): return .list([])
        case (.key?, _) where value.collectionElements == nil: return .null  // a mixed value holding a scalar
        case (.key?, .list), (.key?, .set): return .null
        case (_, .null): return .null
        default:
            throw QueryError(.typeMismatch, "'\(QueryKeyPath([name, selector]))' selects from a map, but '\(name)' is not a map")
        }
    }

    mutating func operand(_ expression: CompiledExpression) throws -> QueryOperand {
        switch expression.kind {
        case .constant:
            return expression.constant
        case .property:
            let value = try root.queryValue(forKey: expression.property)
            if let elements = value.collectionElements { return .many(elements) }
            return .one(value)
        case .keyPath:
            return try resolve(expression.path)
        case .aggregate:
            return .one(Self.aggregate(expression.aggregate, try resolve(expression.path)))
        case .subqueryCount:
            let elements: [QueryValue]
            switch try resolve(expression.path) {
            case .many(let values): elements = values
            case .one(let value): elements = value.isNull ? [] : [value]
            }
            let variable = expression.variable
            let saved = bindings[variable]
            let outer = root
            defer {
                bindings[variable] = saved
                root = outer
            }
            var count: Int64 = 0
            for element in elements {
                bindings[variable] = element
                // A key path without a variable reads the element, as in Realm's engine; an
                // element that is not an object has no properties (the type checker refuses
                // such paths), so the outer root stays for the unchecked form.
                if case .object(let reference) = element { root = reference.source } else { root = outer }
                if try self.predicate(expression.predicate) { count += 1 }
            }
            return .one(.int(count))
        case .list:
            var values: [QueryValue] = []
            for element in expression.elements { values.append(contentsOf: try operand(element).values) }
            return .many(values)
        }
    }

    static func aggregate(_ aggregate: QueryAggregate, _ operand: QueryOperand) -> QueryValue {
        let values: [QueryValue]
        switch operand {
        case .many(let many): values = many
        case .one(let value):
            if aggregate == .count {
                switch value {
                case .null: return .int(0)
                case .string(let s): return .int(Int64(s.utf8.count))
                case .data(let d): return .int(Int64(d.count))
                default: return .int(1)
                }
            }
            values = value.isNull ? [] : [value]
        }
        switch aggregate {
        case .count:
            return .int(Int64(values.count))
        case .min, .max:
            var best: QueryValue?
            for value in values where !value.isNull {
                guard let current = best else { best = value; continue }
                if let order = QueryValueComparison.order(value, current),
                   aggregate == .min ? order < 0 : order > 0 {
                    best = value
                }
            }
            return best ?? .null
        case .sum, .avg:
            return sumOrAverage(values, average: aggregate == .avg)
        }
    }

    /// `@sum` or `@avg` of `values`. Integers add exactly in 128 bits (ExactDecimal.swift), so the
    /// order of the values never changes the result: an integer sum beyond 64 bits is given as
    /// the exact decimal, which compares exactly with any number; a mean divides the exact sum.
    private static func sumOrAverage(_ values: [QueryValue], average: Bool) -> QueryValue {
        var intSum: Int128 = 0
        var doubleSum = 0.0
        var decimalSum = Decimal(0)
        var sawDouble = false, sawDecimal = false
        var count = 0
        for value in values {
            switch value {
            case .int(let i):
                count += 1
                intSum += Int128(i)
            case .float, .double:
                count += 1
                sawDouble = true
                let d = QueryValueComparison.doubleValue(value) ?? 0
                doubleSum += d
                if d.isFinite { decimalSum += BinaryDecimal.decimal(fromBinary: d) }
            case .decimal(let d):
                count += 1
                sawDecimal = true
                decimalSum += d
                doubleSum += NSDecimalNumber(decimal: d).doubleValue
            default:
                continue
            }
        }
        if sawDecimal { decimalSum += ExactDecimal.decimal(intSum) }
        if average {
            guard count > 0 else { return .null }
            if sawDecimal { return .decimal(decimalSum / Decimal(count)) }
            return .double((Double(intSum) + doubleSum) / Double(count))
        }
        if sawDecimal { return .decimal(decimalSum) }
        if sawDouble { return .double(Double(intSum) + doubleSum) }
        if let fits = Int64(exactly: intSum) { return .int(fits) }
        return .decimal(ExactDecimal.decimal(intSum))
    }

    // MARK: - Comparisons

    mutating func comparison(_ c: CompiledComparison) throws -> Bool {
        let left = try operand(c.left)
        let right = try operand(c.right)
        return try Self.compare(left, right, c)
    }

    /// The comparison `c` on operands already resolved (shared with QueryRowProgram, which reads
    /// the operands from row bytes).
    package static func compare(_ left: QueryOperand, _ right: QueryOperand, _ c: CompiledComparison) throws -> Bool {
        let options = c.options

        switch c.op {
        case .in:
            if let membership = c.membership {
                return Self.quantify(left, c.quantifier) { a in
                    if let key = QueryMatchKey(a) { return membership.contains(key) }
                    return right.values.contains { QueryValueComparison.equal(a, $0) }
                }
            }
            if case .one(let a) = left, c.quantifier == .implicit, case .one(let b) = right {
                return QueryValueComparison.equal(a, b, options: options)
            }
            let candidates = right.values
            return Self.quantify(left, c.quantifier) { a in
                candidates.contains { QueryValueComparison.equal(a, $0, options: options) }
            }
        case .geoWithin:
            guard case .one(.geo(let region)) = right else { return false }
            return Self.quantify(left, c.quantifier) { value in
                guard case .object(let reference) = value, let point = GeoLocation(reference.source) else { return false }
                return region.contains(latitude: point.latitude, longitude: point.longitude)
            }
        case .between:
            let bounds = right.values
            guard bounds.count == 2 else {
                throw QueryError(.typeMismatch, "BETWEEN needs exactly two values, got \(bounds.count)")
            }
            return Self.quantify(left, c.quantifier) { a in
                guard let low = QueryValueComparison.order(a, bounds[0]),
                      let high = QueryValueComparison.order(a, bounds[1]) else { return false }
                return low >= 0 && high <= 0
            }
        default:
            let op = c.op
            switch (left, right) {
            case let (.one(a), .one(b)):
                if c.rightIsFolded { return Self.testFolded(a, op, b, options) }
                return Self.test(a, op, b, options)
            case let (.many(lefts), .one(b)):
                if c.rightIsFolded { return Self.quantify(lefts, c.quantifier) { Self.testFolded($0, op, b, options) } }
                return Self.quantify(lefts, c.quantifier) { Self.test($0, op, b, options) }
            case let (.one(a), .many(rights)):
                return Self.quantify(rights, c.quantifier) { Self.test(a, op, $0, options) }
            case let (.many(lefts), .many(rights)):
                return Self.quantify(lefts, c.quantifier) { a in rights.contains { Self.test(a, op, $0, options) } }
            }
        }
    }

    static func quantify(_ operand: QueryOperand, _ quantifier: QueryQuantifier, _ match: (QueryValue) -> Bool) -> Bool {
        switch operand {
        case .one(let value):
            return quantifier == .none ? !match(value) : match(value)
        case .many(let values):
            return quantify(values, quantifier, match)
        }
    }

    static func quantify(_ values: [QueryValue], _ quantifier: QueryQuantifier, _ match: (QueryValue) -> Bool) -> Bool {
        switch quantifier {
        case .implicit, .any: return values.contains(where: match)
        case .all: return values.allSatisfy(match)
        case .none: return !values.contains(where: match)
        }
    }

    /// `test` where `b` is a string already folded with `options`: fold only `a`.
    static func testFolded(_ a: QueryValue, _ op: QueryOperator, _ b: QueryValue, _ options: QueryStringOptions) -> Bool {
        guard case .string(let text) = a else { return test(a, op, b, []) }
        return test(.string(QueryValueComparison.fold(text, options)), op, b, [])
    }

    static func test(_ a: QueryValue, _ op: QueryOperator, _ b: QueryValue, _ options: QueryStringOptions) -> Bool {
        switch op {
        case .equal: return QueryValueComparison.equal(a, b, options: options)
        case .notEqual: return !QueryValueComparison.equal(a, b, options: options)
        case .less: return (QueryValueComparison.comparisonOrder(a, b, options: options) ?? 0) < 0
        case .lessOrEqual: return QueryValueComparison.comparisonOrder(a, b, options: options).map { $0 <= 0 } ?? false
        case .greater: return (QueryValueComparison.comparisonOrder(a, b, options: options) ?? 0) > 0
        case .greaterOrEqual: return QueryValueComparison.comparisonOrder(a, b, options: options).map { $0 >= 0 } ?? false
        case .beginsWith: return QueryValueComparison.beginsWith(a, b, options: options)
        case .endsWith: return QueryValueComparison.endsWith(a, b, options: options)
        case .contains: return QueryValueComparison.contains(a, b, options: options)
        case .like: return QueryValueComparison.like(a, b, options: options)
        case .in: return QueryValueComparison.equal(a, b, options: options)
        case .between, .geoWithin: return false
        }
    }
}
