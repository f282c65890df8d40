// Decimal128 as a number, with RealmSwift's API: conversions (`init(value:)`, `init(number:)`,
// `init?(exactly:)`), arithmetic (`+ - * /`, `magnitude`, negation), `Strideable`, `min` and
// `max`, the NaN queries, `stringValue`, and `Codable` (a string, or a JSON number when decoding).
//
// Invariants:
// - Arithmetic is Foundation `Decimal` arithmetic (38 significant digits); a stored value keeps 34
//   (Decimal128.swift rounds on write), so a result reads back as RealmSwift's decimal128
//   would hold it for every value of at most 34 digits.
// - `min` and `max` are the extremes a stored value can hold here: the largest coefficient of the
//   stored form (10³⁴ − 1, 34 digits) with its largest exponent (127). IEEE 754 decimal128 reaches
//   further (exponent 6111); writing a value beyond this range fails with `.invalidArgument`.
// - A value `init(value:)` cannot convert (an unsupported type, text that is not a number) is
//   NaN, never a stop: RealmSwift aborts there, and a non-throwing initializer has no other way
//   to say it. `init(string:)` throws instead.
import Foundation

extension Decimal128 {
    /// Converts an integer of any width, a `Float`, `Double`, `Decimal`, `NSNumber`, `String` or
    /// another `Decimal128`; anything else (or text that is not a number) gives NaN. A `Float` or
    /// `Double` is rounded to 15 significant digits, as Realm converts one (`19.99` is 19.99).
    ///
    /// - Parameter value: the value to convert.
    public convenience init(value: Any) {
        switch value {
        case let d as Decimal128: let w = d.written; self.init(w.value, exponent: w.exponent)
        case let d as Decimal: self.init(d)
        case is Bool: self.init(Decimal.nan)
        case let i as any BinaryInteger: self.init(Decimal(string: "\(i)") ?? .nan, exponent: 0)
        case let f as any BinaryFloatingPoint: self.init(binary: Double(f))
        case let n as NSNumber: self.init(number: n)
        case let s as String: self.init(stringLiteral: s)
        default: self.init(Decimal.nan)
        }
    }

    /// Converts a number: an integer exactly, a floating-point value rounded to 15 significant
    /// digits, as Realm converts one (`19.99` is 19.99).
    ///
    /// - Parameter number: the number to convert.
    public convenience init(number: NSNumber) {
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "d"), UInt8(ascii: "f"): self.init(binary: number.doubleValue)
        default: self.init(number.decimalValue, exponent: 0)
        }
    }

    /// The value of an integer, or nil when it has more significant digits than a stored
    /// Decimal128 keeps (34), so that the value would not read back exactly.
    ///
    /// - Parameter source: the integer to convert.
    public convenience init?<T: BinaryInteger>(exactly source: T) {
        let digits = "\(source.magnitude)".reversed().drop { $0 == "0" }.count
        guard digits <= 34, let d = Decimal(string: "\(source)") else { return nil }
        self.init(d, exponent: 0)
    }

    /// The smallest value a stored Decimal128 holds: −(10³⁴ − 1) × 10¹²⁷.
    public static var min: Decimal128 { Decimal128(-extreme, exponent: largestExponent) }
    /// The largest value a stored Decimal128 holds: (10³⁴ − 1) × 10¹²⁷ (the largest coefficient
    /// and exponent of the stored form, Decimal128.swift).
    public static var max: Decimal128 { Decimal128(extreme, exponent: largestExponent) }

    private static var extreme: Decimal {
        Decimal(sign: .plus, exponent: 127, significand: Decimal(string: String(repeating: "9", count: 34)) ?? 0)
    }

    /// Whether this is not a number.
    public var isNaN: Bool { value.isNaN }
    /// Whether this is a signaling NaN: every NaN here, as in RealmSwift.
    public var isSignaling: Bool { value.isNaN }
    /// Whether this is a signaling NaN: every NaN here, as in RealmSwift.
    public var isSignalingNaN: Bool { value.isNaN }
    /// The number as RealmSwift writes it (Decimal128Text.swift): `"12.345"`, `"150"`, `"1.23E6"`
    /// for `"123e4"`, `"1E-3"` for `0.001`, `"NaN"`.
    public var stringValue: String { Decimal128.text(written) }

    /// The nearest `Double` (NaN for NaN).
    public var doubleValue: Double { value.isNaN ? .nan : NSDecimalNumber(decimal: value).doubleValue }
}

extension Decimal128: SignedNumeric {
    public typealias Magnitude = Decimal128

    /// The absolute value.
    public var magnitude: Decimal128 { let w = written; return Decimal128(w.value.magnitude, exponent: w.exponent) }

    // Each result keeps the exponent IEEE 754 prefers for it, as Realm's decimal128 does, so that
    // its text is Realm's (`2.5 - 3.5` is `-1.0`, written `-1`): the smaller one for a sum or a
    // difference, their sum for a product, their difference for a quotient.
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        let l = lhs.written, r = rhs.written
        return Decimal128(l.value + r.value, exponent: Swift.min(l.exponent, r.exponent))
    }
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        let l = lhs.written, r = rhs.written
        return Decimal128(l.value - r.value, exponent: Swift.min(l.exponent, r.exponent))
    }
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        let l = lhs.written, r = rhs.written
        return Decimal128(l.value * r.value, exponent: l.exponent + r.exponent)
    }
    /// The quotient; division by zero is NaN.
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        let l = lhs.written, r = rhs.written
        return Decimal128(l.value / r.value, exponent: l.exponent - r.exponent)
    }
    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs + rhs }
    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs - rhs }
    public static func *= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs * rhs }
    public static func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs / rhs }
    public static prefix func - (operand: Decimal128) -> Decimal128 {
        let w = operand.written
        return Decimal128(-w.value, exponent: w.exponent)
    }
}

extension Decimal128: Strideable {
    public typealias Stride = Decimal128
    /// The difference `other - self`.
    public func distance(to other: Decimal128) -> Decimal128 { other - self }
    /// `self + n`.
    public func advanced(by n: Decimal128) -> Decimal128 { self + n }
}

extension Decimal128: Codable {
    /// Decodes a string (`"12.5"`) or a number; anything else is a `DecodingError`.
    public convenience init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            try self.init(string: text)
        } else if let integer = try? container.decode(Int64.self) {
            self.init(Decimal(integer), exponent: 0)
        } else if let double = try? container.decode(Double.self) {
            self.init(binary: double)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a Decimal128 is a string or a number")
        }
    }

    /// Encodes the number as its text, so no digit is lost.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
