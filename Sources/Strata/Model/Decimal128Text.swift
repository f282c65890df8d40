// The text of a Decimal128 as RealmSwift writes it (`description`, `stringValue`), and the
// exponent each way of making one gives it, so that logs and `print(object)` read the same after
// a port.
//
// Realm's text is realm-core's `Decimal128::to_string` of the coefficient and exponent it holds,
// with RealmSwift's `stringValue` trimming the zeros that end a fraction:
// - a coefficient below 2⁶⁴: its digits, with the point moved left past the exponent's places
//   (`1999` × 10⁻² is `19.99`, `150` × 10⁰ is `150`); what the point cannot absorb stays as an
//   exponent, the point then after the first digit (`123` × 10⁴ is `1.23E6`, `1` × 10⁻³ is
//   `1E-3`, `25` × 10⁻² is `2.5E-1`);
// - a larger coefficient: the sign, the digits and the exponent, both signed (`+1234…E-5`);
// - NaN is `NaN`.
// The exponent is the one the number was written with (Decimal128.swift keeps it): text gives
// the one it shows (`"123e4"`: 4, `"1.50"`: -2), an integer 0, a `Double` the one of Realm's
// rounding to 15 digits, a `Decimal` (or a value read from a file) that of its plain text.
import Foundation

extension Decimal128 {
    /// The exponent of `value`'s plain text (`1230000` → 0, `0.001` → -3): Foundation's exponent
    /// where it is negative, else 0.
    static func plainExponent(of value: Decimal) -> Int {
        value.isNaN ? 0 : Swift.min(0, value.exponent)
    }

    /// The exponent `text` writes its number with, as Realm parses it: the written exponent less
    /// the digits after the point (`"123e4"` → 4, `"1.50"` → -2, `"1.5e2"` → 1). Text with more
    /// digits than the number keeps (Foundation's `Decimal` rounds) has `value`'s own.
    static func writtenExponent(of text: String, value: Decimal) -> Int {
        guard !value.isNaN else { return 0 }
        var body = Substring(text.trimmingCharacters(in: .whitespaces))
        var exponent = 0
        if let e = body.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let written = Int(body[body.index(after: e)...]) else { return plainExponent(of: value) }
            exponent = written
            body = body[..<e]
        }
        if let point = body.firstIndex(of: ".") { exponent -= body.distance(from: point, to: body.endIndex) - 1 }
        return Swift.min(exponent, value.exponent)
    }

    /// A `Double` as Realm converts one: rounded to 15 significant digits (BinaryDecimal),
    /// with the exponent of those 15 digits once the number reaches 10¹⁵ (`1e20` is `1E20`), where
    /// Realm's conversion keeps them, and of its plain text below.
    convenience init(binary x: Double) {
        let value = BinaryDecimal.decimal(fromBinary: x)
        guard !value.isNaN, !value.isZero else { self.init(value); return }
        let digits = String(describing: value.significand).count
        let adjusted = value.exponent + digits - 1
        let digitsKept = BinaryDecimal.binarySignificantDigits
        let exponent = adjusted >= digitsKept ? adjusted - (digitsKept - 1) : Decimal128.plainExponent(of: value)
        self.init(value, exponent: exponent)
    }

    /// Realm's text of `written` (see the file header).
    static func text(_ written: Written) -> String {
        let value = written.value
        if value.isNaN { return "NaN" }
        // Foundation drops a significand's trailing zeros (not always: they are dropped here);
        // Realm's coefficient has the zeros its exponent implies (150 at exponent 0), when they
        // fit in 34 digits.
        var coefficient = UInt128(String(describing: value.significand)) ?? 0
        var exponent = value.exponent
        while coefficient != 0, coefficient % 10 == 0 {
            coefficient /= 10
            exponent += 1
        }
        if coefficient == 0 {
            exponent = written.exponent
        } else if written.exponent < exponent, exponent - written.exponent < 34 {
            var scaled = coefficient
            for _ in 0..<(exponent - written.exponent) where scaled < coefficientLimit { scaled *= 10 }
            if scaled < coefficientLimit {
                coefficient = scaled
                exponent = written.exponent
            }
        }
        let negative = value.sign == .minus && coefficient != 0
        if coefficient > UInt128(UInt64.max) {
            return (negative ? "-" : "+") + String(coefficient) + "E" + (exponent < 0 ? "-" : "+") + String(exponent.magnitude)
        }
        let digits = String(coefficient)
        var before = digits.count
        while before > 1, exponent != 0 {
            before -= 1
            exponent += 1
        }
        var text = (negative ? "-" : "") + digits.prefix(before)
        let fraction = digits.dropFirst(before).reversed().drop { $0 == "0" }.reversed()
        if !fraction.isEmpty { text += "." + String(fraction) }
        if exponent != 0 { text += "E" + String(exponent) }
        return text
    }
}
