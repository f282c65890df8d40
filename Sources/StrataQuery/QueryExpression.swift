// The expression tree shared by the string query language and the type-safe `Query<T>` builder.
//
// Invariants:
// - Both front ends build the same canonical tree for the same query:
//   `AND`/`OR` are n-ary and flattened (no `.and` directly inside an `.and`, no `.or` inside an
//   `.or`, always at least two operands), so a chain of a thousand `OR`s is one node, not a
//   thousand-deep tree that recursion could not walk; a `{…}` literal whose elements are all constants
//   is folded into one `.constant(.list(…))`; an aggregate written `dogs.@max.age` or
//   `dogs.age.@max` is `.aggregate(.max, dogs.age)`; `=`/`==`, `<>`/`!=`, `=<`/`<=`, `=>`/`>=`
//   and `SOME`/`ANY` are one operator each.
// - Trees hold no source positions, so equality is purely structural (`QueryValue` equality).
// - Not `Sendable`: constants may be object arguments carrying their (thread-confined) source.

/// A path of property names from the queried object or from a SUBQUERY variable.
package struct QueryKeyPath: Hashable, Sendable, CustomStringConvertible {
    /// `"$x"` when the path starts at a SUBQUERY variable, nil when it starts at the object.
    package var variable: String?
    /// Property names, in order. Empty only for a bare variable (`$x`).
    package var components: [String]

    /// A path of `components` from the object, or from `variable` (`"$x"`) inside a SUBQUERY.
    package init(_ components: [String], variable: String? = nil) {
        self.components = components
        self.variable = variable
    }

    /// Parses `"owner.name"` into components (no validation).
    init(dotted: String) {
        self.init(dotted.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    /// Renders the path in the query language (`owner.name`, `scores['math']`, `$x.age`).
    package var description: String {
        var text = variable ?? ""
        for component in components {
            switch QueryKeyPath.mapComponent(component) {
            case .key(let key)?: text += "[" + QueryFormatter.quoted(key) + "]"
            case .index(let position)?: text += "[\(position)]"
            case .everyElement?: text += "[*]"
            default:
                text += (text.isEmpty ? "" : ".") + component
            }
        }
        return text
    }

    /// The component for `map['key']`. Property names are identifiers, so a component starting
    /// with `[` (like `@keys` and `@values`) can never clash with a property.
    package static func subscriptComponent(_ key: String) -> String { "[" + key + "]" }
    /// The component for `mixed[position]`: an element of a list held in a mixed value. It starts
    /// with `#`, which no property name or other selector does.
    package static func indexComponent(_ position: Int) -> String { "#[\(position)]" }
    /// The component for `mixed[*]`: every element of the list or dictionary a mixed value holds.
    package static let everyElementComponent = "#[*]"
    /// The component for `map.@keys`.
    package static let keysComponent = "@keys"
    /// The component for `map.@values`.
    package static let valuesComponent = "@values"

    /// What a map component selects, nil for a property name.
    package static func mapComponent(_ component: String) -> QueryMapComponent? {
        if component == keysComponent { return .keys }
        if component == valuesComponent { return .values }
        if component == everyElementComponent { return .everyElement }
        if component.hasPrefix("#["), component.hasSuffix("]"), let position = Int(component.dropFirst(2).dropLast()) {
            return .index(position)
        }
        if component.hasPrefix("["), component.hasSuffix("]"), component.count >= 2 {
            return .key(String(component.dropFirst().dropLast()))
        }
        return nil
    }
}

/// A selector applied to a `Map` value (or a collection a mixed value holds) inside a key path.
package enum QueryMapComponent: Equatable {
    case keys
    case values
    case key(String)
    /// The element at a position of a list (nil past its end).
    case index(Int)
    /// Every element of a list, or every value of a dictionary.
    case everyElement
}

/// `@count` (alias `@size`), `@min`, `@max`, `@sum`, `@avg`.
package enum QueryAggregate: String, Hashable, Sendable {
    case count, min, max, sum, avg
}

/// A comparison operator.
package enum QueryOperator: String, Hashable, Sendable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case beginsWith = "BEGINSWITH"
    case contains = "CONTAINS"
    case endsWith = "ENDSWITH"
    case like = "LIKE"
    case `in` = "IN"
    case between = "BETWEEN"
    /// A link to a location (an embedded object with `coordinates` and `type`) lies in a
    /// geospatial shape.
    case geoWithin = "GEOWITHIN"

    /// Operators defined on strings and data only.
    var isStringOperator: Bool {
        switch self {
        case .beginsWith, .contains, .endsWith, .like: return true
        default: return false
        }
    }

    /// Operators that need an order (`<` … `>=`, `BETWEEN`).
    var isOrdering: Bool {
        switch self {
        case .less, .lessOrEqual, .greater, .greaterOrEqual, .between: return true
        default: return false
        }
    }
}

/// How a comparison treats a to-many operand.
package enum QueryQuantifier: String, Hashable, Sendable {
    /// No keyword: a to-many operand matches if any element does (Realm's implicit ANY).
    case implicit = ""
    /// `ANY` / `SOME`.
    case any = "ANY"
    /// `ALL`: every element matches (true for an empty collection).
    case all = "ALL"
    /// `NONE`: no element matches (true for an empty collection).
    case none = "NONE"
}

/// An operand of a comparison.
package indirect enum QueryExpression: Hashable, CustomStringConvertible {
    /// A literal or an argument.
    case constant(QueryValue)
    /// A property (possibly through links, possibly to-many).
    case keyPath(QueryKeyPath)
    /// An aggregate over the values a key path reaches: `dogs.@count`, `dogs.@max.age`.
    case aggregate(QueryAggregate, QueryKeyPath)
    /// `SUBQUERY(collection, $variable, predicate).@count`.
    case subqueryCount(collection: QueryKeyPath, variable: String, predicate: QueryPredicate)
    /// A `{…}` literal that contains non-constant elements (all-constant ones fold into `.constant(.list)`).
    case list([QueryExpression])

    package var description: String { QueryFormatter.expression(self) }
}

/// A comparison: `[quantifier] left op[options] right`.
package struct QueryComparison: Hashable, CustomStringConvertible {
    /// The operand before the operator (the key path, usually).
    package var left: QueryExpression
    package var op: QueryOperator
    /// The operand after the operator (a constant, usually).
    package var right: QueryExpression
    /// `[c]`, `[d]`: string folding for the comparison.
    package var options: QueryStringOptions
    /// `ANY`/`ALL`/`NONE` before the left operand, or `.implicit`.
    package var quantifier: QueryQuantifier

    /// `[quantifier] left op[options] right`.
    package init(_ left: QueryExpression, _ op: QueryOperator, _ right: QueryExpression,
                options: QueryStringOptions = [], quantifier: QueryQuantifier = .implicit) {
        self.left = left
        self.op = op
        self.right = right
        self.options = options
        self.quantifier = quantifier
    }

    package var description: String { QueryFormatter.comparison(self) }
}

/// A parsed query: the predicate a `filter` keeps objects by.
package indirect enum QueryPredicate: Hashable, CustomStringConvertible {
    case truePredicate
    case falsePredicate
    case comparison(QueryComparison)
    /// All operands hold. Build with `&&` or `conjunction(_:_:)`, which keep the tree flat.
    case and([QueryPredicate])
    /// Some operand holds. Build with `||` or `disjunction(_:_:)`, which keep the tree flat.
    case or([QueryPredicate])
    case not(QueryPredicate)

    /// The predicate in Realm's query language; it parses back to an equal tree, except for
    /// values that have no literal form (objects, `Float`, non-finite numbers), shown as `%@(…)`.
    package var description: String { QueryFormatter.predicate(self) }

    /// Parses a query string. See `QueryParser`.
    init(_ query: String, _ arguments: QueryValueConvertible..., schema: QuerySchema? = nil,
                type typeName: String? = nil) throws(QueryError) {
        self = try QueryParser.parse(query, arguments: arguments.map(\.queryValue),
                                     schema: schema, typeName: typeName)
    }

    /// Parses a query string with its arguments already converted.
    init(_ query: String, arguments: [QueryValue], schema: QuerySchema? = nil,
                type typeName: String? = nil) throws(QueryError) {
        self = try QueryParser.parse(query, arguments: arguments, schema: schema, typeName: typeName)
    }

    /// `lhs AND rhs`, flattened.
    package static func conjunction(_ lhs: QueryPredicate, _ rhs: QueryPredicate) -> QueryPredicate {
        var operands: [QueryPredicate] = []
        for side in [lhs, rhs] {
            if case .and(let inner) = side { operands.append(contentsOf: inner) } else { operands.append(side) }
        }
        return .and(operands)
    }

    /// `lhs OR rhs`, flattened.
    package static func disjunction(_ lhs: QueryPredicate, _ rhs: QueryPredicate) -> QueryPredicate {
        var operands: [QueryPredicate] = []
        for side in [lhs, rhs] {
            if case .or(let inner) = side { operands.append(contentsOf: inner) } else { operands.append(side) }
        }
        return .or(operands)
    }

    /// `lhs AND rhs`.
    static func && (lhs: QueryPredicate, rhs: QueryPredicate) -> QueryPredicate { conjunction(lhs, rhs) }
    /// `lhs OR rhs`.
    static func || (lhs: QueryPredicate, rhs: QueryPredicate) -> QueryPredicate { disjunction(lhs, rhs) }
    /// `NOT self`.
    static prefix func ! (operand: QueryPredicate) -> QueryPredicate { .not(operand) }
}
