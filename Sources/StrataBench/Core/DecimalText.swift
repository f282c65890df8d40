// The one reader of numbers written as text: CSV cells, history records and command-line flags.
//
// Invariants: a number is exactly `[+-]? digits [. digits] [(e|E) [+-]? digits]` (digits may be
// absent on one side of the point, never on both): no hexadecimal, no `inf`/`nan` words (the
// harness writes a missing or non-finite value as an empty cell, never as a word), no spaces,
// no NUL or other byte after the number. `Double(String)` alone is not enough: it hands the text to
// strtod, which stops at a NUL byte ("5\0abc" reads as 5) and accepts hexadecimal floats ("0x10"
// reads as 16). A text that passes the grammar is converted by `Double(String)`, which then sees
// only ASCII digits, signs, a point and an exponent and rounds correctly. Integers are computed
// from the digits, never through a Double: exact, and beyond `Int`'s range an error, never a
// wrap or a trap.

public enum DecimalText {
    /// Why a text is not the number asked for.
    public enum Failure: Error, Sendable, Equatable {
        /// Not a decimal number at all (a word, hexadecimal, a NUL, a space, empty).
        case notDecimal
        /// A decimal number, but an integer was asked for and it has a fraction.
        case notWhole
        /// A decimal number beyond the type's range (a Double that would be infinite, an integer
        /// beyond `Int`).
        case outOfRange
    }

    /// The parts of a decimal number: sign, the digits without the point, and the power of ten
    /// that scales them.
    struct Parts {
        var negative: Bool
        var digits: [UInt8]
        var fractionDigits: Int
        var exponent: Int
    }

    /// `text` as a finite Double, or why not.
    public static func parseDouble(_ text: String) -> Result<Double, Failure> {
        guard split(text) != nil else { return .failure(.notDecimal) }
        // Only digits, signs, '.' and 'e'/'E' remain: strtod reads them as a decimal and rounds
        // to nearest. A huge exponent overflows to infinity or underflows to zero, as decimal
        // text of that size means.
        guard let value = Double(text) else { return .failure(.notDecimal) }
        guard value.isFinite else { return .failure(.outOfRange) }
        return .success(value)
    }

    /// `text` as an `Int` (exponent form allowed when the value is whole: "1e6"), or why not.
    public static func parseInteger(_ text: String) -> Result<Int, Failure> {
        guard let parts = split(text) else { return .failure(.notDecimal) }
        let zero = UInt8(ascii: "0")
        // Leading zeros say nothing (sliced off at once: a cell may hold millions of them).
        guard let firstSignificant = parts.digits.firstIndex(where: { $0 != zero }) else { return .success(0) }
        var digits = Array(parts.digits[firstSignificant...])
        // Scale by the power of ten exactly, on the digits: drop zeros or append them.
        let shift = parts.exponent - parts.fractionDigits
        if shift < 0 {
            let cut = -shift
            if cut > digits.count || digits.suffix(cut).contains(where: { $0 != zero }) { return .failure(.notWhole) }
            digits.removeLast(cut)
        } else if shift > 0 {
            // Int.max has 19 digits: a longer number is out of range without building it.
            if digits.count + shift > 19 { return .failure(.outOfRange) }
            digits += Array(repeating: zero, count: shift)
        }
        if digits.count > 19 { return .failure(.outOfRange) }
        var value = 0
        for digit in digits {
            let (scaled, scaleOverflow) = value.multipliedReportingOverflow(by: 10)
            let (next, addOverflow) = parts.negative ? scaled.subtractingReportingOverflow(Int(digit - zero))
                                                     : scaled.addingReportingOverflow(Int(digit - zero))
            if scaleOverflow || addOverflow { return .failure(.outOfRange) }
            value = next
        }
        return .success(value)
    }

    /// `text` as a finite Double; nil when it is not a decimal number or not finite.
    public static func double(_ text: String) -> Double? {
        try? parseDouble(text).get()
    }

    /// `text` as an `Int`; nil when it is not a whole decimal number within `Int`'s range.
    public static func integer(_ text: String) -> Int? {
        try? parseInteger(text).get()
    }

    /// `text` as an `Int64`; nil when it is not a whole decimal number within `Int64`'s range.
    public static func integer64(_ text: String) -> Int64? {
        integer(text).map(Int64.init)
    }

    /// Splits a decimal number into its parts; nil when `text` is not one.
    static func split(_ text: String) -> Parts? {
        var bytes = Substring(text).utf8[...]
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let whole = bytes.prefix(while: isDigit)
        bytes = bytes.dropFirst(whole.count)
        var fraction = bytes.prefix(0)
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fraction = bytes.prefix(while: isDigit)
            bytes = bytes.dropFirst(fraction.count)
        }
        guard whole.count + fraction.count > 0 else { return nil }
        var exponent = 0
        if let marker = bytes.first, marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            var exponentNegative = false
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                exponentNegative = sign == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            let exponentDigits = bytes.prefix(while: isDigit)
            guard !exponentDigits.isEmpty else { return nil }
            bytes = bytes.dropFirst(exponentDigits.count)
            // Saturates: an exponent of more than a few hundred already decides the value.
            for digit in exponentDigits {
                exponent = min(exponent * 10 + Int(digit - UInt8(ascii: "0")), 1_000_000_000)
            }
            if exponentNegative { exponent = -exponent }
        }
        guard bytes.isEmpty else { return nil }
        return Parts(negative: negative, digits: Array(whole) + Array(fraction), fractionDigits: fraction.count,
                     exponent: exponent)
    }
}
