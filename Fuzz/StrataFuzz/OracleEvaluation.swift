// The oracle itself: the subset's predicates (OraclePredicate.swift) evaluated over plain Swift
// values with the semantics written down there, independently of Strata's evaluator (no shared
// code: its own numeric comparison, folding and wildcard matching).
import Foundation

extension OraclePredicate {
    func evaluate(_ o: ItemValues) -> Bool {
        switch self {
        case .compare(let l, let op, let r): return Self.compare(l.value(o), op, r.value(o))
        case .between(let p, let lo, let hi):
            let x = p.value(o)
            return Self.compare(x, .ge, lo) && Self.compare(x, .le, hi)
        case .within(let p, let values):
            let x = p.value(o)
            return values.contains { Self.equal(x, $0) }
        case .string(let p, let op, let fold, let pattern):
            guard case .string(let wanted) = pattern else { return false }
            guard case .string(let text) = p.value(o) else { return op == .notEqual }
            let (a, b) = (Self.fold(text, fold), Self.fold(wanted, fold))
            switch op {
            case .equal: return a == b
            case .notEqual: return a != b
            case .begins: return a.hasPrefix(b)
            case .ends: return a.hasSuffix(b)
            case .contains: return b.isEmpty || a.contains(b)
            case .like: return Self.like(Array(a), Array(b))
            }
        case .aggregate(let kind, let op, let n):
            let list = o.list
            let value: Literal
            switch kind {
            case .count: value = .int(list.count)
            case .sum: value = .int(list.reduce(0, +))
            case .min: value = list.min().map { .int($0) } ?? .null
            case .max: value = list.max().map { .int($0) } ?? .null
            }
            return Self.compare(value, op, .int(n))
        case .not(let p): return !p.evaluate(o)
        case .and(let a, let b): return a.evaluate(o) && b.evaluate(o)
        case .or(let a, let b): return a.evaluate(o) || b.evaluate(o)
        case .constant(let v): return v
        }
    }

    static func compare(_ l: Literal, _ op: Operator, _ r: Literal) -> Bool {
        switch op {
        case .eq: return equal(l, r)
        case .ne: return !equal(l, r)
        default:
            guard let order = order(l, r) else { return false }
            switch op {
            case .lt: return order < 0
            case .le: return order <= 0
            case .gt: return order > 0
            default: return order >= 0
            }
        }
    }

    static func equal(_ l: Literal, _ r: Literal) -> Bool {
        switch (l, r) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case let (.string(a), .string(b)): return a == b
        case let (.bool(a), .bool(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        default: return order(l, r) == 0
        }
    }

    /// Negative, zero, positive; nil when unordered.
    static func order(_ l: Literal, _ r: Literal) -> Int? {
        func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a == b ? 0 : 1) }
        switch (l, r) {
        case (.null, .null): return 0
        case (.null, .string): return -1
        case (.string, .null): return 1
        case let (.string(a), .string(b)): return sign(a, b)
        case let (.date(a), .date(b)): return sign(a.timeIntervalSince1970, b.timeIntervalSince1970)
        case let (.int(a), .int(b)): return sign(a, b)
        case let (.double(a), .double(b)): return a.isNaN || b.isNaN ? nil : sign(a, b)
        case let (.int(a), .double(b)): return exactOrder(a, b)
        case let (.double(a), .int(b)): return exactOrder(b, a).map { -$0 }
        default: return nil
        }
    }

    /// An Int against a Double without rounding either (Double(Int) rounds above 2^53).
    static func exactOrder(_ a: Int, _ b: Double) -> Int? {
        if b.isNaN { return nil }
        if b >= 9_223_372_036_854_775_808.0 { return -1 }
        if b < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = b.rounded(.towardZero)
        let w = Int(whole)
        if a != w { return a < w ? -1 : 1 }
        return b > whole ? -1 : (b < whole ? 1 : 0)
    }

    static func fold(_ s: String, _ fold: Fold) -> String {
        var out = s
        if fold == .d || fold == .cd {
            let kept = out.decomposedStringWithCanonicalMapping.unicodeScalars.filter { !(0x300...0x36F).contains($0.value) }
            var view = String.UnicodeScalarView()
            view.append(contentsOf: kept)
            out = String(view).precomposedStringWithCanonicalMapping
        }
        if fold == .c || fold == .cd { out = out.lowercased() }
        return out
    }

    /// `?` one character, `*` any run: plain recursion over the (short) pools' strings.
    static func like(_ text: ArraySlice<Character>, _ pattern: ArraySlice<Character>) -> Bool {
        guard let p = pattern.first else { return text.isEmpty }
        if p == "*" { return like(text, pattern.dropFirst()) || (!text.isEmpty && like(text.dropFirst(), pattern)) }
        guard let t = text.first, p == "?" || p == t else { return false }
        return like(text.dropFirst(), pattern.dropFirst())
    }

    static func like(_ text: [Character], _ pattern: [Character]) -> Bool { like(text[...], pattern[...]) }
}

extension OraclePredicate.Operand {
    func value(_ o: ItemValues) -> OraclePredicate.Literal {
        switch self {
        case .property(let p): return p.value(o)
        case .literal(let l): return l
        }
    }
}

extension OraclePredicate.Property {
    func value(_ o: ItemValues) -> OraclePredicate.Literal {
        switch self {
        case .i: return .int(o.i)
        case .d: return .double(o.d)
        case .s: return .string(o.s)
        case .b: return .bool(o.b)
        case .t: return .date(o.t)
        case .oi: return o.oi.map { .int($0) } ?? .null
        case .os: return o.os.map { .string($0) } ?? .null
        }
    }
}
