// The query oracle's grammar subset: predicates generated from the fuzzer's bytes, printed as query
// text, and evaluated by straightforward Swift over the same values (QueryOracleTarget compares).
//
// Covered: ==, !=, <, <=, >, >= on i (Int), d (Double), s (String), b (Bool, == and != only), t (Date,
// through %@ arguments), oi (Int?), os (String?), with Int and Double literals mixed on numbers and
// the constant on either side; BETWEEN {lo, hi} and IN {…} (nil allowed in IN for optionals);
// ==, !=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE with [c], [d], [cd] on s and os; list.@count,
// @sum, @min, @max compared with Int literals; NOT, AND, OR, TRUEPREDICATE, FALSEPREDICATE.
// Not covered: links, subqueries, ANY/ALL/NONE, other property types, sorting, ordering with
// [c]/[d].
//
// The semantics written down here are Realm's: null equals only null, `!=` null holds for every
// non-null value; a null string orders before every string, a null number is unordered (every
// ordering comparison false); a string operator on null is false; @min/@max of an empty list are
// null, @sum of an empty list is 0; [c] compares lowercased, [d] without combining marks.
import Foundation

indirect enum OraclePredicate {
    case compare(Operand, Operator, Operand)
    case between(Property, Literal, Literal)
    case within(Property, [Literal])
    case string(Property, StringOperator, fold: Fold, Literal)
    case aggregate(Aggregate, Operator, Int)
    case not(OraclePredicate)
    case and(OraclePredicate, OraclePredicate)
    case or(OraclePredicate, OraclePredicate)
    case constant(Bool)

    enum Property: String, CaseIterable { case i, d, s, b, t, oi, os }
    enum Operand { case property(Property), literal(Literal) }
    enum Literal: Equatable {
        case int(Int), double(Double), string(String), bool(Bool), date(Date), null
    }
    enum Operator: String, CaseIterable { case eq = "==", ne = "!=", lt = "<", le = "<=", gt = ">", ge = ">=" }
    enum StringOperator: String, CaseIterable {
        case equal = "==", notEqual = "!=", begins = "BEGINSWITH", ends = "ENDSWITH", contains = "CONTAINS", like = "LIKE"
    }
    enum Fold: String, CaseIterable { case none = "", c = "[c]", d = "[d]", cd = "[cd]" }
    enum Aggregate: String, CaseIterable { case count = "@count", sum = "@sum", min = "@min", max = "@max" }
}

/// The value pools objects and literals are drawn from: small, so that equal and near values meet,
/// with the edges that once broke numeric and string comparisons.
enum OraclePools {
    static let ints = [0, 1, -1, 2, 3, 7, -3, Int.max, Int.min, 1 << 53, (1 << 53) + 1]
    static let doubles: [Double] = [0, -0.0, 0.5, 2.5, 3, -1.5, 7, 1e300, 9_007_199_254_740_992, 9.223372036854775807e18, -9.223372036854775808e18]
    static let strings = ["", "a", "A", "á", "Á", "ab", "aB", "b", "ba", "é", "e", "E", "ée", "a*b", "x?", "É", "abc", "ça"]
    static let patterns = ["*", "?", "a*", "*a", "?b", "a?", "*é*", "A*", "e", "", "a*b"]
    static let dates = [0, 1_700_000_000, 1_700_000_000.25, -86_400.5, 1e9 + 0.1].map { Date(timeIntervalSince1970: $0) }
    static let lists: [[Int]] = [[], [1], [1, 2, 3], [-2, 0], [7, 7], [Int.max], [3]]
}
