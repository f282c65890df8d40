// A typed query as text and arguments (RealmSwift's `_constructPredicate()`): the same condition
// written in Realm's query language, every value a `%@` placeholder, so that
// `filter(text, arguments)` selects what `where { … }` selects. It is written as RealmSwift
// writes it (TypedQueryText.swift); a query using an operation RealmSwift does not have is
// written in Strata's form, from the tree the engine runs.
//
// Invariant: each constant of the tree becomes exactly one `%@` and one argument, in the order
// the text reads them. Placeholders are marked in the tree by strings no query holds (a fresh
// UUID per call) before the tree is rendered, then replaced by `%@`.
import Foundation

extension Query {
    /// A query over objects of type `T`, as the root `where { … }` gives (RealmSwift's test hook).
    public static func _constructForTesting() -> Query<T> { Query<T>() }
}

extension Query where T == Bool {
    /// The condition as query text with `%@` placeholders, and the values they stand for, as
    /// RealmSwift writes them: `(intCol == %@)`, `((a == %@) && boolCol == true)`.
    ///
    /// A condition the query engine rejected while it was built stops with a `Strata:` message, as
    /// running it would.
    public func _constructPredicate() -> (String, [Any]) {
        let tree: QueryPredicate
        do { tree = try predicate() } catch { Stop.now("Strata: invalidQuery: \(error)") }
        if let text = conditionText { return text.rendered() }
        var arguments: [Any] = []
        let marker = "strata-argument-\(UUID().uuidString)-"
        let marked = QueryConstruction.mark(tree, marker: marker, arguments: &arguments)
        var text = QueryFormatter.predicate(marked)
        for i in arguments.indices.reversed() {
            text = text.replacingOccurrences(of: QueryFormatter.quoted("\(marker)\(i)"), with: "%@")
        }
        return (text, arguments)
    }
}

enum QueryConstruction {
    /// `predicate` with each constant replaced by a marker string, its value appended to `arguments`.
    static func mark(_ predicate: QueryPredicate, marker: String, arguments: inout [Any]) -> QueryPredicate {
        switch predicate {
        case .truePredicate, .falsePredicate: return predicate
        case .comparison(var c):
            c.left = mark(c.left, marker: marker, arguments: &arguments)
            c.right = mark(c.right, marker: marker, arguments: &arguments)
            return .comparison(c)
        case .and(let operands): return .and(operands.map { mark($0, marker: marker, arguments: &arguments) })
        case .or(let operands): return .or(operands.map { mark($0, marker: marker, arguments: &arguments) })
        case .not(let operand): return .not(mark(operand, marker: marker, arguments: &arguments))
        }
    }

    private static func mark(_ expression: QueryExpression, marker: String, arguments: inout [Any]) -> QueryExpression {
        switch expression {
        case .constant(let value):
            let placeholder = QueryExpression.constant(.string("\(marker)\(arguments.count)"))
            arguments.append(argument(value))
            return placeholder
        case .keyPath, .aggregate: return expression
        case .subqueryCount(let collection, let variable, let predicate):
            return .subqueryCount(collection: collection, variable: variable,
                                  predicate: mark(predicate, marker: marker, arguments: &arguments))
        case .list(let elements): return .list(elements.map { mark($0, marker: marker, arguments: &arguments) })
        }
    }

    /// The Swift value a query argument must be to stand for `value`.
    static func argument(_ value: QueryValue) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let b): return b
        case .int(let i): return i
        case .double(let d): return d
        case .float(let f): return f
        case .string(let s): return s
        case .data(let d): return d
        case .date(let d): return d
        case .decimal(let d): return Decimal128(d)
        case .objectId(let id): return (try? ObjectId(string: id.description)) ?? id
        case .uuid(let u): return u
        case .object(let reference): return reference.source
        case .list(let elements), .set(let elements): return elements.map(argument)
        case .map(let entries): return entries.mapValues(argument)
        case .geo(let region): return region.argument
        }
    }
}
