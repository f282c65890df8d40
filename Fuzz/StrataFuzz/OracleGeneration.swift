// Objects and predicates of the oracle's subset (OraclePredicate.swift), generated from the
// fuzzer's bytes, and the predicate printed as query text with its %@ arguments.
import Foundation

extension OraclePredicate {
    static func generate(_ c: inout ByteChoices, depth: Int = 0) -> OraclePredicate {
        let roll = c.below(16)
        if depth < 4 {
            switch roll {
            case 0: return .and(generate(&c, depth: depth + 1), generate(&c, depth: depth + 1))
            case 1: return .or(generate(&c, depth: depth + 1), generate(&c, depth: depth + 1))
            case 2: return .not(generate(&c, depth: depth + 1))
            default: break
            }
        }
        switch roll {
        case 3: return .constant(c.bool())
        case 4, 5:
            let p = c.pick([Property.i, .d, .t, .oi])
            return .between(p, literal(for: p, &c, allowNull: false), literal(for: p, &c, allowNull: false))
        case 6, 7:
            let p = c.pick(Property.allCases)
            return .within(p, (0...c.below(3)).map { _ in literal(for: p, &c, allowNull: p == .oi || p == .os) })
        case 8, 9, 10:
            let p = c.pick([Property.s, .os])
            let op = c.pick(StringOperator.allCases)
            let text = op == .like ? c.pick(OraclePools.patterns) : c.pick(OraclePools.strings)
            return .string(p, op, fold: c.pick(Fold.allCases), .string(text))
        case 11:
            return .aggregate(c.pick(Aggregate.allCases), c.pick(Operator.allCases), c.pick([0, 1, 2, 3, 6, 7, -1]))
        default:
            let p = c.pick(Property.allCases)
            let op = p == .b ? c.pick([Operator.eq, .ne]) : c.pick(Operator.allCases)
            let value = Operand.literal(literal(for: p, &c, allowNull: p == .oi || p == .os))
            return c.bool() ? .compare(value, op, .property(p)) : .compare(.property(p), op, value)
        }
    }

    /// A literal that fits property `p`: numbers of either kind for the numeric properties.
    static func literal(for p: Property, _ c: inout ByteChoices, allowNull: Bool) -> Literal {
        if allowNull && c.below(5) == 0 { return .null }
        switch p {
        case .i, .d, .oi: return c.bool() ? .int(c.pick(OraclePools.ints)) : .double(c.pick(OraclePools.doubles))
        case .s, .os: return .string(c.pick(OraclePools.strings))
        case .b: return .bool(c.bool())
        case .t: return .date(c.pick(OraclePools.dates))
        }
    }

    /// The query text; dates are passed as %@ arguments, appended to `arguments` in order.
    func text(_ arguments: inout [Any]) -> String {
        switch self {
        case .compare(let l, let op, let r): return "\(l.text(&arguments)) \(op.rawValue) \(r.text(&arguments))"
        case .between(let p, let lo, let hi): return "\(p.rawValue) BETWEEN {\(lo.text(&arguments)), \(hi.text(&arguments))}"
        case .within(let p, let values): return "\(p.rawValue) IN {\(values.map { $0.text(&arguments) }.joined(separator: ", "))}"
        case .string(let p, let op, let fold, let value): return "\(p.rawValue) \(op.rawValue)\(fold.rawValue) \(value.text(&arguments))"
        case .aggregate(let a, let op, let n): return "list.\(a.rawValue) \(op.rawValue) \(n)"
        case .not(let p): return "NOT (\(p.text(&arguments)))"
        case .and(let a, let b): return "(\(a.text(&arguments))) AND (\(b.text(&arguments)))"
        case .or(let a, let b): return "(\(a.text(&arguments))) OR (\(b.text(&arguments)))"
        case .constant(let v): return v ? "TRUEPREDICATE" : "FALSEPREDICATE"
        }
    }
}

extension OraclePredicate.Operand {
    func text(_ arguments: inout [Any]) -> String {
        switch self {
        case .property(let p): return p.rawValue
        case .literal(let l): return l.text(&arguments)
        }
    }
}

extension OraclePredicate.Literal {
    func text(_ arguments: inout [Any]) -> String {
        switch self {
        case .int(let n): return String(n)
        // Swift's shortest round-trip form ("1e+300", "-0.0", "9.007199254740992e+15").
        case .double(let x): return "\(x)"
        case .string(let s):
            return "'" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        case .bool(let b): return b ? "true" : "false"
        case .date(let d):
            arguments.append(d)
            return "%@"
        case .null: return "nil"
        }
    }
}

extension ItemValues {
    static func generate(id: Int, _ c: inout ByteChoices) -> ItemValues {
        ItemValues(id: id, i: c.pick(OraclePools.ints), d: c.pick(OraclePools.doubles), s: c.pick(OraclePools.strings),
                   b: c.bool(), t: c.pick(OraclePools.dates),
                   oi: c.below(3) == 0 ? nil : c.pick(OraclePools.ints),
                   os: c.below(3) == 0 ? nil : c.pick(OraclePools.strings),
                   list: c.pick(OraclePools.lists))
    }
}
