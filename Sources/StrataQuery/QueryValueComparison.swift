// Realm's comparison semantics over QueryValue, shared by the evaluator and the sort comparator.
//
// Invariants:
// - Numbers (int, float, double, decimal) compare by numeric value across types.
// - `null` equals only `null`. In an ordering comparison two nulls are equal and null comes
//   before every string (Realm's engine); null against any other kind is false (never an error).
// - Values of incompatible kinds are unequal and unordered (the schema check rejects such
//   queries up front; without a schema they simply do not match, as with Realm's Mixed).
// - `[c]` folds case, `[d]` folds diacritics, both through Foundation's `folding(options:locale:)`
//   with no locale, so results do not depend on the machine's locale.
import Foundation

/// The `[c]` / `[d]` modifiers of a string comparison.
public struct QueryStringOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Case-insensitive comparison, `[c]` in query text.
    public static let caseInsensitive = QueryStringOptions(rawValue: 1)
    /// Diacritic-insensitive comparison, `[d]` in query text.
    public static let diacriticInsensitive = QueryStringOptions(rawValue: 2)
}

package enum QueryValueComparison {
    /// The string with the requested folding applied.
    static func fold(_ string: String, _ options: QueryStringOptions) -> String {
        if options.isEmpty { return string }
        // ASCII fast path: diacritic folding changes nothing, case folding is lowercasing.
        if string.utf8.allSatisfy({ $0 < 0x80 }) {
            return options.contains(.caseInsensitive) ? string.lowercased() : string
        }
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return string.folding(options: folding, locale: nil)
    }

    /// Realm equality (`==`).
    static func equal(_ lhs: QueryValue, _ rhs: QueryValue, options: QueryStringOptions = []) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case let (.string(a), .string(b)):
            return options.isEmpty ? a == b : fold(a, options) == fold(b, options)
        case let (.bool(a), .bool(b)): return a == b
        case let (.data(a), .data(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.objectId(a), .objectId(b)): return a == b
        case let (.uuid(a), .uuid(b)): return a == b
        case let (.object(a), .object(b)): return a.identity == b.identity
        case let (.int(a), .int(b)): return a == b
        default:
            if let order = numericOrder(lhs, rhs) { return order == 0 }
            if let a = lhs.collectionElements, let b = rhs.collectionElements {
                return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1, options: options) }
            }
            return false
        }
    }

    /// The order the comparison operators `<`, `<=`, `>`, `>=` see, as Realm's query engine has
    /// it: `order`, and besides, two nulls are equal (`<=` and `>=` hold) and null comes before
    /// every string (a string is `>` null); null against any other kind stays unordered, so every
    /// ordering comparison with it is false.
    static func comparisonOrder(_ lhs: QueryValue, _ rhs: QueryValue, options: QueryStringOptions = []) -> Int? {
        switch (lhs, rhs) {
        case (.null, .null): return 0
        case (.null, .string): return -1
        case (.string, .null): return 1
        default: return order(lhs, rhs, options: options)
        }
    }

    /// Realm ordering for `<`, `<=`, `>`, `>=`: negative, zero or positive; nil when the values are
    /// not ordered against each other (null involved, or incompatible kinds).
    static func order(_ lhs: QueryValue, _ rhs: QueryValue, options: QueryStringOptions = []) -> Int? {
        switch (lhs, rhs) {
        case let (.int(a), .int(b)): return a < b ? -1 : (a == b ? 0 : 1)
        case let (.string(a), .string(b)):
            let (x, y) = options.isEmpty ? (a, b) : (fold(a, options), fold(b, options))
            return x < y ? -1 : (x == y ? 0 : 1)
        case let (.date(a), .date(b)): return a < b ? -1 : (a == b ? 0 : 1)
        case let (.objectId(a), .objectId(b)): return a < b ? -1 : (a == b ? 0 : 1)
        case let (.uuid(a), .uuid(b)): return compareBytes(uuidBytes(a), uuidBytes(b))
        case let (.data(a), .data(b)): return compareBytes(Array(a), Array(b))
        case let (.bool(a), .bool(b)): return a == b ? 0 : (a ? 1 : -1)
        default: return numericOrder(lhs, rhs)
        }
    }

    /// Numeric order of two numbers of any numeric kind; nil unless both are numbers.
    static func numericOrder(_ lhs: QueryValue, _ rhs: QueryValue) -> Int? {
        switch (lhs, rhs) {
        case let (.int(a), .int(b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.decimal, _), (_, .decimal):
            guard let a = decimalValue(lhs), let b = decimalValue(rhs) else {
                // An infinite or out-of-range Float/Double has no Decimal form: compare as doubles.
                guard let x = doubleValue(lhs), let y = doubleValue(rhs), !x.isNaN, !y.isNaN else { return nil }
                return x < y ? -1 : (x == y ? 0 : 1)
            }
            if a.isNaN || b.isNaN { return nil }
            return a < b ? -1 : (a == b ? 0 : 1)
        case let (.int(a), _):
            guard let b = doubleValue(rhs) else { return nil }
            return compareIntToDouble(a, b)
        case let (_, .int(b)):
            guard let a = doubleValue(lhs) else { return nil }
            return compareIntToDouble(b, a).map { -$0 }
        default:
            guard let a = doubleValue(lhs), let b = doubleValue(rhs), !a.isNaN, !b.isNaN else { return nil }
            return a < b ? -1 : (a == b ? 0 : 1)
        }
    }

    /// Exact comparison of an integer with a double (no rounding of large integers).
    package static func compareIntToDouble(_ a: Int64, _ b: Double) -> Int? {
        if b.isNaN { return nil }
        // 2^63 is exactly representable; every double >= it exceeds every Int64.
        if b >= 9_223_372_036_854_775_808.0 { return -1 }
        if b < -9_223_372_036_854_775_808.0 { return 1 }
        let truncated = Int64(b.rounded(.towardZero))
        if a != truncated { return a < truncated ? -1 : 1 }
        let fraction = b - b.rounded(.towardZero)
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }

    static func doubleValue(_ value: QueryValue) -> Double? {
        switch value {
        case .int(let v): return Double(v)
        case .float(let v): return Double(v)
        case .double(let v): return v
        case .decimal(let v): return NSDecimalNumber(decimal: v).doubleValue
        default: return nil
        }
    }

    static func decimalValue(_ value: QueryValue) -> Decimal? {
        switch value {
        case .int(let v): return Decimal(v)
        // A double compares with a decimal as the decimal Realm makes of it (15 digits, so
        // `price == 19.99` matches a stored 19.99). Outside Decimal's range it has no Decimal form
        // (NaN): callers then compare as doubles.
        case .float(let v): return nonNaN(BinaryDecimal.decimal(fromBinary: Double(v)))
        case .double(let v): return nonNaN(BinaryDecimal.decimal(fromBinary: v))
        case .decimal(let v): return v
        default: return nil
        }
    }

    private static func nonNaN(_ value: Decimal) -> Decimal? { value.isNaN ? nil : value }

    static func isNumeric(_ value: QueryValue) -> Bool {
        switch value {
        case .int, .float, .double, .decimal: return true
        default: return false
        }
    }

    static func uuidBytes(_ uuid: UUID) -> [UInt8] {
        withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }

    static func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    // MARK: - String operators

    static func beginsWith(_ lhs: QueryValue, _ rhs: QueryValue, options: QueryStringOptions) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return fold(a, options).hasPrefix(fold(b, options))
        case let (.data(a), .data(b)): return a.starts(with: b)
        default: return false
        }
    }

    static func endsWith(_ lhs: QueryValue, _ rhs: QueryValue, options: QueryStringOptions) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return fold(a, options).hasSuffix(fold(b, options))
        case let (.data(a), .data(b)): return a.count >= b.count && a.suffix(b.count).elementsEqual(b)
        default: return false
        }
    }

    static func contains(_ lhs: QueryValue, _ rhs: QueryValue, options: QueryStringOptions) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)):
            if b.isEmpty { return true }
            return fold(a, options).range(of: fold(b, options)) != nil
        case let (.data(a), .data(b)):
            if b.isEmpty { return true }
            return a.range(of: b) != nil
        default: return false
        }
    }

    /// `LIKE`: `?` matches one character, `*` any run of characters (possibly empty).
    static func like(_ lhs: QueryValue, _ rhs: QueryValue, options: QueryStringOptions) -> Bool {
        guard case let .string(text) = lhs, case let .string(pattern) = rhs else { return false }
        return wildcardMatch(Array(fold(text, options)), Array(fold(pattern, options)))
    }

    /// Iterative wildcard matching with single backtracking point: O(n·m) worst case, no recursion.
    static func wildcardMatch(_ text: [Character], _ pattern: [Character]) -> Bool {
        var t = 0, p = 0
        var starP = -1, starT = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || (pattern[p] != "*" && pattern[p] == text[t]) {
                t += 1; p += 1
            } else if p < pattern.count, pattern[p] == "*" {
                starP = p; starT = t; p += 1
            } else if starP >= 0 {
                p = starP + 1; starT += 1; t = starT
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
