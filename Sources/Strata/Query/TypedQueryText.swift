// A typed query written out as RealmSwift writes it (`Query._constructPredicate()`): NSPredicate
// format text with every value an argument. Code ported from RealmSwift compares that text, so it
// is built beside the tree the engine runs, one node per builder operation, and rendered with
// RealmSwift's rules:
// - a comparison is bracketed: `(intCol == %@)`, `(stringCol CONTAINS[cd] %@)`;
// - `&&` and `||` bracket their operands' pair: `((a == %@) && (b == %@))`;
// - a Bool property used as a condition, where a condition starts (the root, an operand of
//   `&&`/`||`), is `boolCol == true` (`!` makes it `boolCol == false`), with no argument;
// - `!` elsewhere puts `NOT ` inside a comparison's bracket and before a compound's;
// - a comparison through a collection starts `ANY `; `count`, aggregates, `contains(element)`
//   and map subscripts read the collection itself, without it;
// - an aggregate of a property reached through a collection names the collection first
//   (`list.@avg.intCol`); one of a collection of values comes last (`arrayInt.@max`);
// - map keys and the positions and keys of a mixed value's collections are arguments
//   (`mapInt[%@]`, `anyCol[%@][%K]` with `"#any"` for every element);
// - `(condition).count` is `SUBQUERY(collection, $colN, condition).@count`, the collection's
//   paths read from `$colN`, N counting the subqueries of the whole query from 1. (RealmSwift
//   names the path's first property as the collection; the first to-many property is named
//   here, which is the same for a collection of the queried class and also parses for one
//   reached through a link.)
//
// Invariant: Strata's query parser reads the text back, with the arguments, to the condition the
// builder made. Operations RealmSwift does not have (`all`, `none`, memberwise comparison of
// embedded values, `where { }` subqueries, geospatial tests) leave no text, and the query is then
// written in Strata's own form.
import Foundation

indirect enum QueryText {
    /// A key path; `any` when a comparison with it means ANY element, `throughCollection` when
    /// it reads through a collection (a SUBQUERY over it reads it from its variable).
    case keyPath([String], any: Bool, throughCollection: Bool)
    /// A value, written `%@`.
    case constant(Any?)
    /// Subscripts of a map or of a mixed value's collections: `path[%@][%K]`.
    case subscripts(QueryText, [QueryTextSubscript])
    /// `(lhs op rhs)`; `op` carries its string options (`CONTAINS[c]`).
    case comparison(String, QueryText, QueryText)
    /// `(lhs && rhs)`, `(lhs || rhs)`.
    case compound(String, QueryText, QueryText)
    case not(QueryText)
    /// `(lhs BETWEEN {%@, %@})`.
    case between(QueryText, Any?, Any?)
    /// `SUBQUERY(collection, $colN, condition).@count`: `collection` is the path to the first
    /// to-many property the condition reads through.
    case subqueryCount(QueryText, collection: [String])

    /// The key path with `component` appended.
    func appending(_ component: String, collection: Bool = false) -> QueryText? {
        guard case .keyPath(let components, let any, let through) = self else { return nil }
        return .keyPath(components + [component], any: any || collection, throughCollection: through || collection)
    }

    /// The key path read as the collection itself (no `ANY`), `component` appended if given.
    func erasingAny(appending component: String? = nil) -> QueryText? {
        guard case .keyPath(let components, _, let through) = self else { return nil }
        return .keyPath(components + (component.map { [$0] } ?? []), any: false, throughCollection: through)
    }

    /// An aggregate of a property reached through a collection: after the collection's name.
    func aggregatingThroughCollection(_ aggregate: String) -> QueryText? {
        guard case .keyPath(var components, _, let through) = self else { return nil }
        components.insert(aggregate, at: components.count > 1 ? 1 : components.count)
        return .keyPath(components, any: false, throughCollection: through)
    }

    /// A subscript of a mixed value's collection, after any subscripts before it.
    func subscripted(_ subscriptValue: QueryTextSubscript) -> QueryText? {
        switch self {
        case .keyPath: return erasingAny().map { .subscripts($0, [subscriptValue]) }
        case .subscripts(let base, let previous): return .subscripts(base, previous + [subscriptValue])
        default: return nil
        }
    }

    static func comparisonOperator(_ op: QueryOperator, _ options: QueryStringOptions) -> String {
        guard !options.isEmpty else { return op.rawValue }
        return op.rawValue + "[" + (options.contains(.caseInsensitive) ? "c" : "")
            + (options.contains(.diacriticInsensitive) ? "d" : "") + "]"
    }

    /// The text and its arguments, in the order the text reads them.
    func rendered() -> (String, [Any]) {
        var renderer = QueryTextRenderer()
        renderer.render(self, startsCondition: true)
        return (renderer.text, renderer.arguments)
    }
}

enum QueryTextSubscript {
    case index(Int)
    case key(String)
    case everyElement
}

private struct QueryTextRenderer {
    var text = ""
    var arguments: [Any] = []
    var subqueries = 0

    mutating func argument(_ value: Any?) {
        text += "%@"
        arguments.append(Self.unwrapped(value))
    }

    /// A nil, however deeply optional, is `NSNull`, as an NSPredicate argument must be.
    private static func unwrapped(_ value: Any?) -> Any {
        guard let value else { return NSNull() }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return unwrapped(mirror.children.first?.value)
    }

    mutating func render(_ node: QueryText, prefix: String = "", startsCondition: Bool = false) {
        switch node {
        case .constant(let value):
            argument(value)
        case .keyPath(let components, let any, _):
            if startsCondition || !prefix.isEmpty {
                let condition = components.joined(separator: ".") + " == true"
                text += prefix.isEmpty ? condition : "(" + prefix + condition + ")"
                return
            }
            text += (any ? "ANY " : "") + components.joined(separator: ".")
        case .subscripts(let base, let keys):
            render(base)
            for key in keys {
                switch key {
                case .index(let position): text += "[%@]"; arguments.append(position)
                case .key(let name): text += "[%@]"; arguments.append(name)
                case .everyElement: text += "[%K]"; arguments.append("#any")
                }
            }
        case .not(let operand):
            if startsCondition, case .keyPath(let components, _, _) = operand {
                text += components.joined(separator: ".") + " == false"
                return
            }
            render(operand, prefix: prefix + "NOT ")
        case .comparison(let op, let lhs, let rhs):
            text += "(" + prefix
            render(lhs)
            text += " \(op) "
            render(rhs)
            text += ")"
        case .compound(let op, let lhs, let rhs):
            text += prefix + "("
            render(lhs, startsCondition: true)
            text += " \(op) "
            render(rhs, startsCondition: true)
            text += ")"
        case .between(let lhs, let lower, let upper):
            text += "(" + prefix
            render(lhs)
            text += " BETWEEN {"
            argument(lower)
            text += ", "
            argument(upper)
            text += "})"
        case .subqueryCount(let condition, let collection):
            subqueries += 1
            let variable = "$col\(subqueries)"
            text += "SUBQUERY(\(collection.joined(separator: ".")), \(variable), "
            render(Self.rebased(condition, onto: variable, collection: collection))
            text += ").@count"
        }
    }

    /// `condition` with each path through `collection` read from `variable` in its place.
    private static func rebased(_ node: QueryText, onto variable: String, collection: [String]) -> QueryText {
        switch node {
        case .keyPath(let components, _, true) where components.starts(with: collection):
            return .keyPath([variable] + components.dropFirst(collection.count), any: false, throughCollection: true)
        case .keyPath, .constant, .subqueryCount, .subscripts: return node
        case .not(let operand): return .not(rebased(operand, onto: variable, collection: collection))
        case .comparison(let op, let lhs, let rhs):
            return .comparison(op, rebased(lhs, onto: variable, collection: collection),
                               rebased(rhs, onto: variable, collection: collection))
        case .compound(let op, let lhs, let rhs):
            return .compound(op, rebased(lhs, onto: variable, collection: collection),
                             rebased(rhs, onto: variable, collection: collection))
        case .between(let lhs, let lower, let upper):
            return .between(rebased(lhs, onto: variable, collection: collection), lower, upper)
        }
    }
}
