// Static checking of queries against a QuerySchema: unknown properties, links that are not
// links, operators applied to the wrong types, quantifiers on single values.
//
// Invariants:
// - Used by both the parser (which adds the offending token's offset to each error) and
//   `QueryPredicate.validate(against:type:)` (errors without offsets, for `Query<T>` trees).
// - Errors name the property or operand; they never depend on the data, only on the schema.

/// The static type of an operand.
struct QueryOperandType {
    /// nil for the `nil` literal.
    var type: QueryPropertyType?
    var linkTarget: String?
    /// Reaches several values (through a list, set, map or inverse link).
    var isMany: Bool
    /// The value when the operand is a constant (lists are checked element by element).
    var constant: QueryValue?
    /// The path ends at a `Map` property (so `['key']`, `@keys`, `@values` may follow).
    var isMap = false
    /// Whether the path was already to-many before reaching the map (then `map['k']` is many too).
    var isManyBeforeMap = false

    init(type: QueryPropertyType?, linkTarget: String? = nil, isMany: Bool = false, constant: QueryValue? = nil) {
        self.type = type
        self.linkTarget = linkTarget
        self.isMany = isMany
        self.constant = constant
    }

    static func of(constant value: QueryValue) -> QueryOperandType {
        switch value {
        case .null: return QueryOperandType(type: nil, constant: value)
        case .bool: return QueryOperandType(type: .bool, constant: value)
        case .int: return QueryOperandType(type: .int, constant: value)
        case .float: return QueryOperandType(type: .float, constant: value)
        case .double: return QueryOperandType(type: .double, constant: value)
        case .string: return QueryOperandType(type: .string, constant: value)
        case .data: return QueryOperandType(type: .data, constant: value)
        case .date: return QueryOperandType(type: .date, constant: value)
        case .decimal: return QueryOperandType(type: .decimal, constant: value)
        case .objectId: return QueryOperandType(type: .objectId, constant: value)
        case .uuid: return QueryOperandType(type: .uuid, constant: value)
        case .object(let reference):
            return QueryOperandType(type: .object, linkTarget: reference.identity.typeName, constant: value)
        case .list, .set, .map: return QueryOperandType(type: .mixed, isMany: true, constant: value)
        case .geo: return QueryOperandType(type: .mixed, constant: value)
        }
    }

    var typeName: String {
        guard let type else { return "null" }
        if type == .object, let linkTarget { return isMany ? "list of \(linkTarget)" : linkTarget }
        return isMany ? "list of \(type.rawValue)" : type.rawValue
    }
}

struct QueryTypeChecker {
    let schema: QuerySchema

    /// The operand type of the queried object itself.
    func root(_ typeName: String) throws(QueryError) -> QueryOperandType {
        guard schema[typeName] != nil else {
            throw QueryError(.unknownProperty, "type '\(typeName)' is not in the schema")
        }
        return QueryOperandType(type: .object, linkTarget: typeName)
    }

    /// The type reached by following property `name` from `current`.
    func step(_ current: QueryOperandType, _ name: String) throws(QueryError) -> QueryOperandType {
        if let component = QueryKeyPath.mapComponent(name) {
            // A mixed value may hold a list or a dictionary: its elements are mixed values.
            if current.type == .mixed, !current.isMap {
                switch component {
                case .key, .index: return QueryOperandType(type: .mixed, isMany: current.isMany)
                case .everyElement: return QueryOperandType(type: .mixed, isMany: true)
                case .keys, .values: break
                }
            }
            guard current.isMap else {
                let shown = QueryKeyPath([name]).description
                throw QueryError(.typeMismatch, "'\(shown)' applies to a map, not to a \(current.typeName) value")
            }
            switch component {
            case .keys: return QueryOperandType(type: .string, isMany: true)
            case .values: return QueryOperandType(type: current.type, linkTarget: current.linkTarget, isMany: true)
            case .key: return QueryOperandType(type: current.type, linkTarget: current.linkTarget, isMany: current.isManyBeforeMap)
            case .index, .everyElement:
                throw QueryError(.typeMismatch, "'\(QueryKeyPath([name]).description)' applies to a mixed value, not to a map")
            }
        }
        guard current.type == .object, let target = current.linkTarget, let objectSchema = schema[target] else {
            throw QueryError(.typeMismatch, "cannot read property '\(name)' of a \(current.typeName) value")
        }
        guard let property = objectSchema.property(named: name) else {
            throw QueryError(.unknownProperty, "property '\(name)' not found in type '\(target)'")
        }
        var result = QueryOperandType(type: property.type, linkTarget: property.linkTarget,
                                      isMany: current.isMany || property.collection != .single)
        if property.collection == .map {
            result.isMap = true
            result.isManyBeforeMap = current.isMany
        }
        return result
    }

    /// The type of a key path from the root type or from a bound SUBQUERY variable.
    func keyPath(_ path: QueryKeyPath, root rootType: QueryOperandType,
                 variables: [String: QueryOperandType]) throws(QueryError) -> QueryOperandType {
        var current = rootType
        if let variable = path.variable {
            guard let bound = variables[variable] else {
                throw QueryError(.syntax, "variable '\(variable)' is not defined by an enclosing SUBQUERY")
            }
            current = bound
        }
        for name in path.components { current = try step(current, name) }
        return current
    }

    /// The result type of an aggregate over `operand` (named `name` in messages).
    func aggregate(_ aggregate: QueryAggregate, _ operand: QueryOperandType, name: String) throws(QueryError) -> QueryOperandType {
        let base = operand.type ?? .mixed
        switch aggregate {
        case .count:
            guard operand.isMany || base == .string || base == .data || base == .mixed else {
                throw QueryError(.typeMismatch, "@count needs a collection, string or data, but '\(name)' is \(operand.typeName)")
            }
            return QueryOperandType(type: .int)
        case .min, .max:
            guard base.isNumeric || base == .date || base == .mixed else {
                throw QueryError(.typeMismatch, "@\(aggregate.rawValue) needs numbers or dates, but '\(name)' is \(operand.typeName)")
            }
            return QueryOperandType(type: base)
        case .sum, .avg:
            guard base.isNumeric || base == .mixed else {
                throw QueryError(.typeMismatch, "@\(aggregate.rawValue) needs numbers, but '\(name)' is \(operand.typeName)")
            }
            if aggregate == .avg { return QueryOperandType(type: base == .decimal ? .decimal : .double) }
            return QueryOperandType(type: base)
        }
    }

    /// Checks that `left op right` can be evaluated.
    static func comparison(_ left: QueryOperandType, _ op: QueryOperator, _ right: QueryOperandType,
                           options: QueryStringOptions, quantifier: QueryQuantifier,
                           leftName: String, rightName: String) throws(QueryError) {
        if quantifier != .implicit, !left.isMany {
            throw QueryError(.typeMismatch, "\(quantifier.rawValue) needs a to-many key path, but '\(leftName)' is \(left.typeName)")
        }
        if op == .geoWithin {
            guard case .geo(let region)? = right.constant else {
                throw QueryError(.typeMismatch, "GEOWITHIN needs a GeoBox, GeoPolygon or GeoCircle on its right, but '\(rightName)' is \(right.typeName)")
            }
            guard left.type == .object else {
                throw QueryError(.typeMismatch, "GEOWITHIN needs a link to a location on its left, but '\(leftName)' is \(left.typeName)")
            }
            try region.validate()
            return
        }
        if op == .in, !right.isMany {
            throw QueryError(.typeMismatch, "IN needs a list or a to-many key path on its right, but '\(rightName)' is \(right.typeName)")
        }
        if op == .between {
            guard case .list(let bounds)? = right.constant, bounds.count == 2 else {
                throw QueryError(.typeMismatch, "BETWEEN needs a list of exactly two values, got '\(rightName)'")
            }
        }
        if !options.isEmpty {
            for (side, name) in [(left, leftName), (right, rightName)] where !isStringLike(side) {
                throw QueryError(.typeMismatch, "[c]/[d] apply to strings, but '\(name)' is \(side.typeName)")
            }
        }
        // Constant lists are checked element by element.
        if case let .list(elements)? = right.constant {
            for element in elements {
                try pair(left, op, .of(constant: element), leftName: leftName, rightName: QueryFormatter.value(element))
            }
            return
        }
        if case let .list(elements)? = left.constant {
            for element in elements {
                try pair(.of(constant: element), op, right, leftName: QueryFormatter.value(element), rightName: rightName)
            }
            return
        }
        try pair(left, op, right, leftName: leftName, rightName: rightName)
    }

    private static func isStringLike(_ operand: QueryOperandType) -> Bool {
        guard let type = operand.type else { return true }
        if case let .list(elements)? = operand.constant {
            return elements.allSatisfy { isStringLike(.of(constant: $0)) }
        }
        return type == .string || type == .mixed
    }

    private static func pair(_ left: QueryOperandType, _ op: QueryOperator, _ right: QueryOperandType,
                             leftName: String, rightName: String) throws(QueryError) {
        guard let a = left.type, let b = right.type, a != .mixed, b != .mixed else { return }
        func mismatch(_ why: String) -> QueryError {
            QueryError(.typeMismatch, "cannot compare '\(leftName)' (\(left.typeName)) with '\(rightName)' (\(right.typeName)) using \(op.rawValue): \(why)")
        }
        if op.isStringOperator {
            guard (a == .string && b == .string) || (a == .data && b == .data) else {
                throw mismatch("\(op.rawValue) needs strings or data on both sides")
            }
            if op == .like, a == .data { throw mismatch("LIKE needs strings") }
            return
        }
        let sameKind = a == b || (a.isNumeric && b.isNumeric)
        guard sameKind else { throw mismatch("the types differ") }
        if a == .object, let x = left.linkTarget, let y = right.linkTarget, x != y {
            throw mismatch("links to different types")
        }
        if op.isOrdering {
            switch a {
            case .bool, .object, .data: throw mismatch("\(a.rawValue) values have no order")
            default: break
            }
        }
    }
}

// MARK: - Validating a tree

extension QueryPredicate {
    /// Checks the predicate against `schema` for objects of type `typeName` (for trees built by
    /// `Query<T>`; string queries are checked while parsing when given a schema).
    /// - Throws: `QueryError` of kind `.unknownProperty` or `.typeMismatch` naming the property.
    package func validate(against schema: QuerySchema, type typeName: String) throws(QueryError) {
        let checker = QueryTypeChecker(schema: schema)
        try checker.check(self, root: checker.root(typeName), variables: [:])
    }
}

extension QueryTypeChecker {
    func check(_ predicate: QueryPredicate, root: QueryOperandType, variables: [String: QueryOperandType]) throws(QueryError) {
        switch predicate {
        case .truePredicate, .falsePredicate: return
        case .and(let operands), .or(let operands):
            for operand in operands { try check(operand, root: root, variables: variables) }
        case .not(let a): try check(a, root: root, variables: variables)
        case .comparison(let c):
            let left = try type(of: c.left, root: root, variables: variables)
            let right = try type(of: c.right, root: root, variables: variables)
            try Self.comparison(left, c.op, right, options: c.options, quantifier: c.quantifier,
                                leftName: c.left.description, rightName: c.right.description)
            if c.op == .geoWithin { try checkLocation(left, name: c.left.description) }
        }
    }

    func type(of expression: QueryExpression, root: QueryOperandType,
              variables: [String: QueryOperandType]) throws(QueryError) -> QueryOperandType {
        switch expression {
        case .constant(let value): return .of(constant: value)
        case .keyPath(let path): return try keyPath(path, root: root, variables: variables)
        case .aggregate(let aggregate, let path):
            let operand = try keyPath(path, root: root, variables: variables)
            return try self.aggregate(aggregate, operand, name: path.description)
        case .subqueryCount(let collection, let variable, let predicate):
            var element = try keyPath(collection, root: root, variables: variables)
            guard element.isMany else {
                throw QueryError(.typeMismatch, "SUBQUERY needs a to-many key path, but '\(collection)' is \(element.typeName)")
            }
            element.isMany = false
            var inner = variables
            inner[variable] = element
            // Inside the SUBQUERY a key path without a variable starts from the element.
            try check(predicate, root: element, variables: inner)
            return QueryOperandType(type: .int)
        case .list(let elements):
            for element in elements { _ = try type(of: element, root: root, variables: variables) }
            return QueryOperandType(type: .mixed, isMany: true)
        }
    }
}
