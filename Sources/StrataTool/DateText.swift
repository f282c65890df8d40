// Dates in exports: seconds since 1970-01-01 UTC, written so that they read back to the very
// same stored value.
//
// A date is stored as a Double of seconds since 2001-01-01 (Foundation's reference date). Adding
// the 978,307,200 s between the epochs in Double arithmetic loses low bits for about half of the
// dates of this decade (a value read back differs by up to ~1e-7 s), so the sum is taken in
// decimal: the stored Double's shortest exact text plus the offset, in `Decimal`, and back the
// same way. Every finite value round-trips exactly.
import Foundation

public enum DateText {
    private static let epochOffset = Decimal(978_307_200)
    private static let posix = Locale(identifier: "en_US_POSIX")

    /// The date as JSON: a number of seconds since 1970, exact; "nan", "inf" or "-inf" for a
    /// non-finite one.
    public static func json(_ date: Date) -> JSONValue {
        let stored = date.timeIntervalSinceReferenceDate
        if stored.isNaN { return .string("nan") }
        if stored.isInfinite { return .string(stored > 0 ? "inf" : "-inf") }
        guard let decimal = Decimal(string: "\(stored)", locale: posix) else { return .number("\(date.timeIntervalSince1970)") }
        return .number((decimal + epochOffset).description)
    }

    /// The date a `json(_:)` value stands for; nil for anything else.
    public static func date(from json: JSONValue) -> Date? {
        switch json {
        case .number(let text):
            // Decimal(string:) reads the longest prefix that is a number ("2020-01-01" as 2020,
            // "1,5" as 1): only a whole JSON number is a date, and it must stay finite.
            guard JSONParser.isNumber(text), let since1970 = Decimal(string: text, locale: posix), !since1970.isNaN,
                  let stored = Double((since1970 - epochOffset).description), stored.isFinite else { return nil }
            if since1970.isZero && ValueInput.hasNonZeroDigit(text) { return nil }  // underflowed
            return Date(timeIntervalSinceReferenceDate: stored)
        case .string("nan"): return Date(timeIntervalSinceReferenceDate: .nan)
        case .string("inf"): return Date(timeIntervalSinceReferenceDate: .infinity)
        case .string("-inf"): return Date(timeIntervalSinceReferenceDate: -.infinity)
        default: return nil
        }
    }
}
