// Renders expression trees back into Realm's query language (the `description` of the tree types).
//
// Invariant: for every tree the parser produces, parsing the rendered text gives an equal tree
// (the fuzz test checks this). Values without a literal form (objects, maps, Float, non-finite
// doubles) render as `%@(…)`, which is readable but does not parse; neither does a key path whose
// first property is named like a keyword or a literal (`any`, `in`, `T1`, …), which only `%K`
// can express.
import Foundation

package enum QueryFormatter {
    package static func predicate(_ node: QueryPredicate) -> String {
        switch node {
        case .truePredicate: return "TRUEPREDICATE"
        case .falsePredicate: return "FALSEPREDICATE"
        case .comparison(let comparison): return self.comparison(comparison)
        case .and(let operands):
            return operands.map { operand($0, parenthesiseIf: isBinary($0)) }.joined(separator: " AND ")
        case .or(let operands):
            return operands.map { operand($0, parenthesiseIf: isOr($0)) }.joined(separator: " OR ")
        case .not(let a):
            return "NOT \(operand(a, parenthesiseIf: isBinary(a)))"
        }
    }

    private static func isOr(_ p: QueryPredicate) -> Bool {
        if case .or = p { return true }
        return false
    }

    private static func isBinary(_ p: QueryPredicate) -> Bool {
        switch p {
        case .and, .or: return true
        default: return false
        }
    }

    private static func operand(_ p: QueryPredicate, parenthesiseIf condition: Bool) -> String {
        condition ? "(\(predicate(p)))" : predicate(p)
    }

    static func comparison(_ c: QueryComparison) -> String {
        var text = c.quantifier == .implicit ? "" : c.quantifier.rawValue + " "
        text += expression(c.left) + " " + c.op.rawValue
        if !c.options.isEmpty {
            text += "["
            if c.options.contains(.caseInsensitive) { text += "c" }
            if c.options.contains(.diacriticInsensitive) { text += "d" }
            text += "]"
        }
        return text + " " + expression(c.right)
    }

    static func expression(_ e: QueryExpression) -> String {
        switch e {
        case .constant(let value): return self.value(value)
        case .keyPath(let path): return path.description
        case .aggregate(let aggregate, let path): return "\(path).@\(aggregate.rawValue)"
        case .subqueryCount(let collection, let variable, let predicate):
            return "SUBQUERY(\(collection), \(variable), \(self.predicate(predicate))).@count"
        case .list(let elements): return "{" + elements.map(expression).joined(separator: ", ") + "}"
        }
    }

    static func value(_ value: QueryValue) -> String {
        switch value {
        case .null: return "nil"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? "\(d)" : "%@(\(d))"
        case .float(let f): return "%@(float \(f))"
        case .string(let s): return quoted(s)
        case .data(let d): return "B64\"\(d.base64EncodedString())\""
        case .date(let date):
            let interval = date.timeIntervalSince1970
            guard interval.isFinite, abs(interval) < 1e15 else { return "%@(\(date))" }
            var seconds = interval.rounded(.down)
            var nanos = ((interval - seconds) * 1e9).rounded()
            if nanos >= 1e9 { seconds += 1; nanos -= 1e9 }
            return "T\(Int64(seconds)):\(Int64(nanos))"
        case .decimal(let d): return "decimal128(\(d))"
        case .objectId(let id): return "oid(\(id))"
        case .uuid(let u): return "uuid(\(u.uuidString))"
        case .object(let reference): return "%@(\(reference.identity))"
        case .geo(let region): return "%@(\(region))"
        case .list(let elements), .set(let elements):
            return "{" + elements.map { self.value($0) }.joined(separator: ", ") + "}"
        case .map(let entries): return "%@(map of \(entries.count))"
        }
    }

    package static func quoted(_ s: String) -> String {
        var text = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\\": text += "\\\\"
            case "\"": text += "\\\""
            case "\n": text += "\\n"
            case "\t": text += "\\t"
            case "\r": text += "\\r"
            case "\0": text += "\\0"
            default: text.unicodeScalars.append(c)
            }
        }
        return text + "\""
    }
}
