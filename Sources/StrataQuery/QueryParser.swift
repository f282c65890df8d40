// Recursive-descent parser for Realm's query language (NSPredicate style).
//
// Grammar (keywords case-insensitive):
//   predicate  := or
//   or         := and (('OR' | '||') and)*
//   and        := not (('AND' | '&&') not)*
//   not        := ('NOT' | '!') not | primary
//   primary    := '(' predicate ')' | 'TRUEPREDICATE' | 'FALSEPREDICATE' | comparison
//   comparison := ['ANY'|'SOME'|'ALL'|'NONE'] operand op ['[' c|d|cd ']'] operand
//   op         := == = != <> < <= =< > >= => BEGINSWITH CONTAINS ENDSWITH LIKE IN BETWEEN
//   operand    := literal | '%@' | '$0' | keypath | 'SUBQUERY' '(' keypath ',' $var ',' predicate ')' '.@count'
//               | '{' [operand (',' operand)*] '}'
//   keypath    := (name | '%K' | $var) ['[' string ']'] ('.' (name | '%K' | '@count' | '@size' | '@min' | '@max'
//                 | '@sum' | '@avg' | '@keys' | '@values' | '@allKeys' | '@allValues') ['[' string ']'])*
//
// Invariants:
// - Never traps and never recurses more than `maximumNesting` levels deep (deeper input is a
//   `.syntax` error), so any input yields a predicate or a QueryError.
// - With a schema and a type name, every key path and comparison is type-checked as it is
//   parsed, so errors carry the offset of the offending token.

/// Parses query strings into `QueryPredicate` trees.
package enum QueryParser {
    /// Maximum nesting of parentheses, NOT, `{…}` and SUBQUERY.
    static let maximumNesting = 100

    /// Parses `query` with its arguments (`%@`, `%K`, `$0`…).
    ///
    /// ```swift
    /// let p = try QueryParser.parse("age > %@ AND name BEGINSWITH[c] %@", arguments: [.int(2), .string("r")])
    /// ```
    /// - Parameters:
    ///   - schema, typeName: when both are given, key paths and comparisons are checked against the
    ///     schema for objects of type `typeName`.
    /// - Throws: `QueryError` (`.syntax`, `.argumentCount`, `.unknownProperty`, `.typeMismatch`,
    ///   `.unsupported`) with the offset of the offending token.
    package static func parse(_ query: String, arguments: [QueryValue] = [], schema: QuerySchema? = nil,
                             typeName: String? = nil) throws(QueryError) -> QueryPredicate {
        let tokens = try QueryTokenizer.tokenize(query)
        var parser = QueryParserState(tokens: tokens, arguments: arguments)
        if let schema, let typeName {
            let checker = QueryTypeChecker(schema: schema)
            parser.checker = checker
            parser.rootType = try checker.root(typeName)
        }
        let predicate = try parser.parseOr()
        let token = parser.current
        guard token.kind == .end else {
            throw QueryError(.syntax, "unexpected '\(token.text)' after a complete predicate", offset: token.offset)
        }
        // An argument no placeholder refers to is a mistake in the call (a value meant for a
        // placeholder that was left out), so it is refused rather than silently dropped. It has no
        // place in the text: the error points at the end, where its placeholder is missing.
        let used = max(parser.nextArgument, parser.positionalArgumentsUsed)
        guard arguments.count <= used else {
            throw QueryError(.argumentCount, "\(arguments.count) arguments were given, but the query uses \(used)"
                             + " (argument \(used) and later are not referred to by any placeholder)", offset: token.offset)
        }
        return predicate
    }
}

extension QueryParser {
    /// Parses a key path alone (`owner.name`, `scores['math']`), as sort and distinct take them.
    /// - Throws: `QueryError(.syntax)` for anything but a plain key path (aggregates included).
    package static func parseKeyPath(_ text: String) throws(QueryError) -> QueryKeyPath {
        var parser = QueryParserState(tokens: try QueryTokenizer.tokenize(text), arguments: [])
        let operand = try parser.parseKeyPath()
        guard case .keyPath(let path) = operand.expression, path.variable == nil else {
            throw QueryError(.syntax, "'\(text)' is not a plain key path", offset: 0)
        }
        guard parser.current.kind == .end else {
            throw QueryError(.syntax, "unexpected '\(parser.current.text)' in key path", offset: parser.current.offset)
        }
        return path
    }
}

/// An operand with where it started and, when checking, its static type.
private struct ParsedOperand {
    var expression: QueryExpression
    var offset: Int
    var type: QueryOperandType?
}

private struct QueryParserState {
    let tokens: [QueryToken]
    var position = 0
    let arguments: [QueryValue]
    var nextArgument = 0
    /// One more than the highest `$n` the query refers to (0 when it uses none).
    var positionalArgumentsUsed = 0
    var checker: QueryTypeChecker?
    var rootType: QueryOperandType?
    /// SUBQUERY variables in scope, with their element type when checking.
    var variables: [String: QueryOperandType?] = [:]
    var depth = 0

    init(tokens: [QueryToken], arguments: [QueryValue]) {
        self.tokens = tokens
        self.arguments = arguments
    }

    /// Keywords that cannot start a key path (a property with such a name is reachable via `%K`).
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "BEGINSWITH", "CONTAINS", "ENDSWITH", "LIKE", "IN",
        "BETWEEN", "TRUEPREDICATE", "FALSEPREDICATE", "SUBQUERY", "GEOWITHIN",
    ]

    var current: QueryToken { tokens[min(position, tokens.count - 1)] }
    var following: QueryToken { tokens[min(position + 1, tokens.count - 1)] }

    mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    func isKeyword(_ token: QueryToken, _ words: String...) -> Bool {
        guard case .identifier(let name) = token.kind else { return false }
        let upper = name.uppercased()
        return words.contains(upper)
    }

    func syntax(_ message: String, _ token: QueryToken) -> QueryError {
        QueryError(.syntax, message, offset: token.offset)
    }

    mutating func expect(_ kind: QueryTokenKind, _ what: String) throws(QueryError) {
        guard current.kind == kind else { throw syntax("expected \(what), found '\(current.text)'", current) }
        advance()
    }

    mutating func enter() throws(QueryError) {
        depth += 1
        if depth > QueryParser.maximumNesting {
            throw syntax("query nests deeper than \(QueryParser.maximumNesting) levels", current)
        }
    }

    // MARK: - Predicates

    mutating func parseOr() throws(QueryError) -> QueryPredicate {
        var operands: [QueryPredicate] = []
        repeat {
            if !operands.isEmpty { advance() }
            // Flatten a parenthesised OR into this one: one node per chain, built in linear time.
            switch try parseAnd() {
            case .or(let inner): operands.append(contentsOf: inner)
            case let operand: operands.append(operand)
            }
        } while current.kind == .symbol("||") || isKeyword(current, "OR")
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    mutating func parseAnd() throws(QueryError) -> QueryPredicate {
        var operands: [QueryPredicate] = []
        repeat {
            if !operands.isEmpty { advance() }
            switch try parseNot() {
            case .and(let inner): operands.append(contentsOf: inner)
            case let operand: operands.append(operand)
            }
        } while current.kind == .symbol("&&") || isKeyword(current, "AND")
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    mutating func parseNot() throws(QueryError) -> QueryPredicate {
        if current.kind == .symbol("!") || isKeyword(current, "NOT") {
            advance()
            try enter()
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    mutating func parsePrimary() throws(QueryError) -> QueryPredicate {
        if current.kind == .leftParen {
            advance()
            try enter()
            defer { depth -= 1 }
            let inner = try parseOr()
            try expect(.rightParen, "')'")
            return inner
        }
        if isKeyword(current, "TRUEPREDICATE") { advance(); return .truePredicate }
        if isKeyword(current, "FALSEPREDICATE") { advance(); return .falsePredicate }
        return try parseComparison()
    }

    mutating func parseComparison() throws(QueryError) -> QueryPredicate {
        var quantifier = QueryQuantifier.implicit
        if isKeyword(current, "ANY", "SOME", "ALL", "NONE"), following.kind != .dot, !isOperatorToken(following) {
            if case .identifier(let word) = current.kind {
                switch word.uppercased() {
                case "ALL": quantifier = .all
                case "NONE": quantifier = .none
                default: quantifier = .any
                }
            }
            advance()
        }
        let left = try parseOperand()
        let opToken = current
        guard var op = comparisonOperator(opToken) else {
            if opToken.kind == .end {
                throw syntax("expected a comparison operator after '\(left.expression)', found end of query", opToken)
            }
            throw syntax("expected a comparison operator after '\(left.expression)', found '\(opToken.text)'", opToken)
        }
        advance()
        let options = try parseOptions(for: op)
        let right = try parseOperand()
        // `location IN %@` with a shape is a GEOWITHIN comparison, as in RealmSwift.
        if op == .in, case .constant(.geo) = right.expression { op = .geoWithin }
        if op == .between { try checkBetween(right) }
        if let leftType = left.type, let rightType = right.type {
            do throws(QueryError) {
                try QueryTypeChecker.comparison(leftType, op, rightType, options: options, quantifier: quantifier,
                                                leftName: left.expression.description,
                                                rightName: right.expression.description)
                if op == .geoWithin, let checker {
                    try checker.checkLocation(leftType, name: left.expression.description)
                }
            } catch {
                throw error.located(at: opToken.offset)
            }
        }
        return .comparison(QueryComparison(left.expression, op, right.expression, options: options, quantifier: quantifier))
    }

    func isOperatorToken(_ token: QueryToken) -> Bool { comparisonOperator(token) != nil }

    func comparisonOperator(_ token: QueryToken) -> QueryOperator? {
        switch token.kind {
        case .symbol("=="): return .equal
        case .symbol("!="): return .notEqual
        case .symbol("<"): return .less
        case .symbol("<="): return .lessOrEqual
        case .symbol(">"): return .greater
        case .symbol(">="): return .greaterOrEqual
        case .identifier(let word):
            switch word.uppercased() {
            case "BEGINSWITH": return .beginsWith
            case "CONTAINS": return .contains
            case "ENDSWITH": return .endsWith
            case "LIKE": return .like
            case "IN": return .in
            case "BETWEEN": return .between
            case "GEOWITHIN": return .geoWithin
            default: return nil
            }
        default: return nil
        }
    }

    /// `[c]`, `[d]`, `[cd]` after an operator.
    mutating func parseOptions(for op: QueryOperator) throws(QueryError) -> QueryStringOptions {
        guard current.kind == .leftBracket else { return [] }
        let open = current
        guard op == .equal || op == .notEqual || op == .in || op.isStringOperator else {
            throw syntax("modifier '[…]' is not allowed after \(op.rawValue)", open)
        }
        advance()
        guard case .identifier(let letters) = current.kind else {
            throw syntax("expected 'c', 'd' or 'cd' inside '[…]', found '\(current.text)'", current)
        }
        var options: QueryStringOptions = []
        for letter in letters.lowercased() {
            switch letter {
            case "c" where !options.contains(.caseInsensitive): options.insert(.caseInsensitive)
            case "d" where !options.contains(.diacriticInsensitive): options.insert(.diacriticInsensitive)
            default: throw syntax("unknown modifier '[\(letters)]' (expected [c], [d] or [cd])", current)
            }
        }
        advance()
        try expect(.rightBracket, "']'")
        return options
    }

    func checkBetween(_ right: ParsedOperand) throws(QueryError) {
        switch right.expression {
        case .constant(.list(let values)) where values.count == 2: return
        case .list(let values) where values.count == 2: return
        default:
            throw QueryError(.typeMismatch, "BETWEEN needs exactly two values '{low, high}', got '\(right.expression)'",
                             offset: right.offset)
        }
    }

    // MARK: - Operands

    mutating func parseOperand() throws(QueryError) -> ParsedOperand {
        let token = current
        func constant(_ value: QueryValue) -> ParsedOperand {
            ParsedOperand(expression: .constant(value), offset: token.offset,
                          type: checker == nil ? nil : .of(constant: value))
        }
        switch token.kind {
        case .string(let text): advance(); return constant(.string(text))
        case .integer(let value): advance(); return constant(.int(value))
        case .double(let value): advance(); return constant(.double(value))
        case .date(let value): advance(); return constant(.date(value))
        case .objectId(let value): advance(); return constant(.objectId(value))
        case .uuid(let value): advance(); return constant(.uuid(value))
        case .data(let value): advance(); return constant(.data(value))
        case .decimal(let value): advance(); return constant(.decimal(value))
        case .valueArgument:
            guard nextArgument < arguments.count else {
                throw QueryError(.argumentCount, "'%@' refers to argument \(nextArgument), but only \(arguments.count) were given",
                                 offset: token.offset)
            }
            nextArgument += 1
            advance()
            return constant(arguments[nextArgument - 1])
        case .positionalArgument(let index):
            guard index < arguments.count else {
                throw QueryError(.argumentCount, "'$\(index)' refers to argument \(index), but only \(arguments.count) were given",
                                 offset: token.offset)
            }
            advance()
            positionalArgumentsUsed = max(positionalArgumentsUsed, index + 1)
            return constant(arguments[index])
        case .leftBrace:
            return try parseListLiteral()
        case .identifier(let name):
            switch name.uppercased() {
            case "TRUE": advance(); return constant(.bool(true))
            case "FALSE": advance(); return constant(.bool(false))
            case "NIL", "NULL": advance(); return constant(.null)
            case "SUBQUERY" where following.kind == .leftParen: return try parseSubquery()
            case let word where QueryParserState.reservedWords.contains(word):
                throw syntax("expected a value or key path, found keyword '\(token.text)' (use %K for a property named like a keyword)", token)
            default: return try parseKeyPath()
            }
        case .keyPathArgument, .variable:
            return try parseKeyPath()
        case .end:
            throw syntax("expected a value or key path, found end of query", token)
        default:
            throw syntax("expected a value or key path, found '\(token.text)'", token)
        }
    }

    mutating func parseListLiteral() throws(QueryError) -> ParsedOperand {
        let open = current
        advance()
        try enter()
        defer { depth -= 1 }
        var elements: [ParsedOperand] = []
        if current.kind != .rightBrace {
            while true {
                elements.append(try parseOperand())
                if current.kind == .comma { advance(); continue }
                break
            }
        }
        try expect(.rightBrace, "',' or '}' in list")
        var constants: [QueryValue] = []
        for element in elements {
            guard case .constant(let value) = element.expression else {
                return ParsedOperand(expression: .list(elements.map(\.expression)), offset: open.offset,
                                     type: checker == nil ? nil : QueryOperandType(type: .mixed, isMany: true))
            }
            constants.append(value)
        }
        let value = QueryValue.list(constants)
        return ParsedOperand(expression: .constant(value), offset: open.offset,
                             type: checker == nil ? nil : .of(constant: value))
    }

    /// A key path, possibly with one aggregate (`dogs.@count`, `dogs.@max.age`, `dogs.age.@max`).
    mutating func parseKeyPath() throws(QueryError) -> ParsedOperand {
        let start = current
        var path = QueryKeyPath([])
        var type: QueryOperandType? = rootType
        var aggregate: (QueryAggregate, QueryToken)?

        func addNames(_ names: [String], at token: QueryToken) throws(QueryError) {
            for name in names {
                guard !name.isEmpty else { throw QueryError(.syntax, "empty property name in key path", offset: token.offset) }
                path.components.append(name)
                if let checker, let currentType = type {
                    do throws(QueryError) { type = try checker.step(currentType, name) } catch { throw error.located(at: token.offset) }
                }
            }
        }

        var expectingComponent = true
        var isFirst = true
        while expectingComponent {
            let token = current
            switch token.kind {
            case .identifier(let name):
                advance()
                try addNames([name], at: token)
            case .keyPathArgument:
                guard nextArgument < arguments.count else {
                    throw QueryError(.argumentCount, "'%K' refers to argument \(nextArgument), but only \(arguments.count) were given",
                                     offset: token.offset)
                }
                guard case .string(let dotted) = arguments[nextArgument] else {
                    throw QueryError(.argumentCount, "'%K' needs a string argument (a key path), got \(QueryFormatter.value(arguments[nextArgument]))",
                                     offset: token.offset)
                }
                nextArgument += 1
                advance()
                try addNames(dotted.split(separator: ".", omittingEmptySubsequences: false).map(String.init), at: token)
            case .variable(let name) where isFirst:
                guard let bound = variables[name] else {
                    throw syntax("variable '\(name)' is not defined by an enclosing SUBQUERY", token)
                }
                advance()
                path.variable = name
                type = bound
            case .aggregate(let name) where !isFirst:
                guard aggregate == nil || ["keys", "values", "allkeys", "allvalues"].contains(name) else {
                    throw QueryError(.unsupported, "only one aggregate per key path is supported, found '\(token.text)'", offset: token.offset)
                }
                switch name {
                case "count", "size": aggregate = (.count, token)
                case "min": aggregate = (.min, token)
                case "max": aggregate = (.max, token)
                case "sum": aggregate = (.sum, token)
                case "avg": aggregate = (.avg, token)
                case "keys", "values", "allkeys", "allvalues":
                    // `@allKeys`/`@allValues` are RealmSwift's NSPredicate spellings of `@keys`/`@values`.
                    advance()
                    try addNames([name.hasSuffix("keys") ? QueryKeyPath.keysComponent : QueryKeyPath.valuesComponent], at: token)
                    isFirst = false
                    if current.kind == .dot { advance() } else { expectingComponent = false }
                    continue
                case "type":
                    throw QueryError(.unsupported, "'\(token.text)' is not supported", offset: token.offset)
                default:
                    throw syntax("unknown aggregate '\(token.text)'", token)
                }
                advance()
            default:
                if token.kind == .end { throw syntax("expected a property name, found end of query", token) }
                throw syntax("expected a property name, found '\(token.text)'", token)
            }
            isFirst = false
            // Subscripts: a map's key (scores['math']), a position or key of a collection a mixed
            // value holds (any[0]); a key or position may be an
            // argument (`[%@]`), and every element `[%K]` with "#any", as RealmSwift writes them.
            while current.kind == .leftBracket, let component = try subscriptComponent() {
                let open = current
                advance()
                advance()
                try expect(.rightBracket, "']' after a subscript")
                try addNames([component], at: open)
            }
            if current.kind == .dot { advance() } else { expectingComponent = false }
        }

        guard let aggregate else {
            return ParsedOperand(expression: .keyPath(path), offset: start.offset, type: type)
        }
        let (function, token) = aggregate
        var resultType: QueryOperandType?
        if let checker, let operandType = type {
            do throws(QueryError) { resultType = try checker.aggregate(function, operandType, name: path.description) } catch {
                throw error.located(at: token.offset)
            }
        }
        return ParsedOperand(expression: .aggregate(function, path), offset: start.offset, type: resultType)
    }

    /// The key-path component of the subscript `[` opens (the current token), nil if what
    /// follows is no subscript. An argument it reads is consumed.
    mutating func subscriptComponent() throws(QueryError) -> String? {
        let token = following
        switch token.kind {
        case .string(let key): return QueryKeyPath.subscriptComponent(key)
        case .integer(let position): return QueryKeyPath.indexComponent(Int(position))
        case .valueArgument, .keyPathArgument:
            guard nextArgument < arguments.count else {
                throw QueryError(.argumentCount, "'\(token.text)' refers to argument \(nextArgument), but only \(arguments.count) were given",
                                 offset: token.offset)
            }
            let argument = arguments[nextArgument]
            nextArgument += 1
            switch (token.kind, argument) {
            case (.keyPathArgument, .string("#any")): return QueryKeyPath.everyElementComponent
            case (.valueArgument, .string(let key)): return QueryKeyPath.subscriptComponent(key)
            case (.valueArgument, .int(let position)) where Int(exactly: position) != nil:
                return QueryKeyPath.indexComponent(Int(position))
            default:
                throw QueryError(.typeMismatch, "a subscript needs a key (a string) or a position (an integer), or '#any' for '%K', got \(QueryFormatter.value(argument))",
                                 offset: token.offset)
            }
        default: return nil
        }
    }

    /// `SUBQUERY(collection, $x, predicate).@count`
    mutating func parseSubquery() throws(QueryError) -> ParsedOperand {
        let start = current
        advance()
        try expect(.leftParen, "'(' after SUBQUERY")
        try enter()
        defer { depth -= 1 }
        let collection = try parseKeyPath()
        guard case .keyPath(let collectionPath) = collection.expression else {
            throw QueryError(.syntax, "SUBQUERY needs a key path to a collection, not an aggregate", offset: collection.offset)
        }
        var elementType: QueryOperandType?
        if var type = collection.type {
            guard type.isMany else {
                throw QueryError(.typeMismatch, "SUBQUERY needs a to-many key path, but '\(collectionPath)' is \(type.typeName)",
                                 offset: collection.offset)
            }
            type.isMany = false
            elementType = type
        }
        try expect(.comma, "',' after the SUBQUERY collection")
        guard case .variable(let variable) = current.kind else {
            throw syntax("expected a variable like '$x' in SUBQUERY, found '\(current.text)'", current)
        }
        advance()
        try expect(.comma, "',' after the SUBQUERY variable")
        let outer = variables
        let outerRoot = rootType
        variables[variable] = .some(elementType)
        // Inside the SUBQUERY a key path without a variable starts from the element, as in
        // Realm's engine.
        if checker != nil { rootType = elementType }
        let predicate = try parseOr()
        variables = outer
        rootType = outerRoot
        try expect(.rightParen, "')' closing SUBQUERY")
        try expect(.dot, "'.@count' after SUBQUERY(…)")
        guard case .aggregate(let name) = current.kind, name == "count" || name == "size" else {
            throw QueryError(.unsupported, "SUBQUERY(…) must be followed by '.@count', found '\(current.text)'", offset: current.offset)
        }
        advance()
        return ParsedOperand(expression: .subqueryCount(collection: collectionPath, variable: variable, predicate: predicate),
                             offset: start.offset, type: checker == nil ? nil : QueryOperandType(type: .int))
    }
}
