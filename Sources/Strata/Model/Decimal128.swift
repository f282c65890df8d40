// `Decimal128`, Realm's decimal number, and its stored form.
//
// Invariants:
// - A Decimal128 is a class, as RealmSwift's is: `negate()` changes the instance, and every
//   reference to it sees the change. Its number sits behind a lock, so sharing an instance
//   between threads is safe. Arithmetic makes new instances; a value read from a realm is a new
//   instance each time, so changing it never changes what is stored.
// - It wraps Foundation's `Decimal`. It is stored in 16 bytes (a fixed row slot, like a UUID):
//   bytes 0..<14 the low 112 bits of the coefficient (unsigned, little-endian), byte 14 the
//   decimal exponent (Int8), byte 15 flags (bit 0 negative, bit 1 NaN, bit 2 the coefficient's
//   bit 112). The coefficient is below 10³⁴, so, like Realm's IEEE-754 decimal128, a stored value
//   holds 34 significant digits: a value with more (Foundation's Decimal allows 38) is rounded
//   half-up to 34 when stored, and values of ≤ 34 digits round-trip exactly.
// - A value whose rounding needs an exponent above 127 is beyond the stored form: writing it fails
//   with `.invalidArgument`. It is never clamped, which would store a different number.
// - Beside the number, an instance keeps the exponent Realm's decimal128 would hold for it (the
//   one it was written with: 4 for `"123e4"`, 0 for `150`), because RealmSwift's text shows it
//   (`1.23E6`, `150`) and Foundation's `Decimal` drops it (both are 123 × 10⁴ there). The stored
//   form is the number alone, so that equal numbers are equal bytes (sets and indexes compare
//   bytes): a value read back from a file has the exponent of its plain text.
import Foundation
import Synchronization

/// A decimal number, Realm's `Decimal128`, backed by Foundation's `Decimal`.
///
/// A stored value keeps 34 significant digits, as Realm's IEEE 754 decimal128 does: a value with
/// more (a `Decimal` can have 38) is rounded half-up to 34 digits when it is written, and values
/// of at most 34 digits read back exactly. Writing a value beyond ``max`` or ``min`` fails the
/// write with `.invalidArgument`.
///
/// As in RealmSwift, a `Decimal128` is a class: ``negate()`` changes the instance itself, and two
/// variables holding the same instance both see it. Equality compares the numbers.
///
/// ```swift
/// final class Invoice: Object {
///     @Persisted var total: Decimal128 = 0
/// }
/// invoice.total = try Decimal128(string: "1234.56")
/// ```
public final class Decimal128: Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    private let number: Mutex<Written>

    /// The number and the exponent Realm would hold it with (see the file header).
    struct Written: Sendable {
        var value: Decimal
        var exponent: Int
    }

    /// The number as a Foundation `Decimal`.
    public var value: Decimal {
        get { number.withLock { $0.value } }
        set { number.withLock { $0 = Written(value: newValue, exponent: Decimal128.plainExponent(of: newValue)) } }
    }

    /// The number with the exponent it was written with.
    var written: Written { number.withLock { $0 } }

    /// Creates a decimal number from a `Decimal` (zero by default).
    ///
    /// - Parameter value: the number.
    public init(_ value: Decimal = 0) { number = Mutex(Written(value: value, exponent: Decimal128.plainExponent(of: value))) }
    /// A number written with the exponent `exponent` (`"123e4"`: 4), which its text shows.
    init(_ value: Decimal, exponent: Int) { number = Mutex(Written(value: value, exponent: exponent)) }
    public convenience init(integerLiteral v: Int) { self.init(Decimal(v), exponent: 0) }
    /// A number written as a floating-point literal, rounded to 15 significant digits as Realm
    /// rounds one: `let price: Decimal128 = 19.99` is exactly 19.99.
    public convenience init(floatLiteral v: Double) { self.init(binary: v) }
    /// A number written as a string literal (`let price: Decimal128 = "12.50"`, `Decimal128("1e3")`).
    /// A literal that is not a number is NaN, as Realm's is; ``init(string:)`` throws instead.
    public convenience init(stringLiteral v: String) {
        guard let d = Decimal(string: v, locale: Locale(identifier: "en_US_POSIX")) else { self.init(Decimal.nan); return }
        self.init(d, exponent: Decimal128.writtenExponent(of: v, value: d))
    }
    /// Parses a decimal string; throws `.invalidArgument` when it is not a number.
    public convenience init(string: String) throws {
        guard let d = Decimal(string: string, locale: Locale(identifier: "en_US_POSIX")) else {
            throw Realm.Error(.invalidArgument, "'\(string)' is not a decimal number")
        }
        self.init(d, exponent: Decimal128.writtenExponent(of: string, value: d))
    }

    /// Changes the sign of this instance (every reference to it sees the change).
    public func negate() { number.withLock { $0.value.negate() } }

    /// The number as RealmSwift writes it (`150`, `19.99`, `1.23E6` for `"123e4"`, `1E-3` for
    /// `0.001`); see ``stringValue``.
    public var description: String { stringValue }
    public static func < (l: Decimal128, r: Decimal128) -> Bool { l.value < r.value }
    // Written out (a class has no synthesized `==`): Strideable's default `==`, by
    // `distance(to:) == 0`, would recurse through the Stride, which is Decimal128 itself.
    public static func == (l: Decimal128, r: Decimal128) -> Bool { l.value == r.value }
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

extension Decimal128: _PersistableElement {
    public static var _strataShape: _PropertyShape { _PropertyShape(type: .decimal128) }
    public static func _strataDefault() -> Decimal128 { Decimal128() }

    /// One more than the largest stored coefficient: 34 decimal digits, as in IEEE 754 decimal128.
    static let coefficientLimit: UInt128 = 10_000_000_000_000_000_000_000_000_000_000_000
    static let largestExponent = 127

    /// Converts a loosely typed value (`init(value:)`, `create`, `setValue(_:forKey:)`) as RealmSwift
    /// does for a decimal property: a `Decimal128`, a `Decimal`, an integer, a floating-point
    /// number, an `NSNumber`, or text that is a number. Anything else, a `Bool` and text that is not
    /// a number included, does not fit (the write then fails with `.invalidArgument`).
    public static func _strataFromAny(_ any: Any?) -> Decimal128? {
        guard let any, type(of: any) != Bool.self else { return nil }
        if let decimal = any as? Decimal128 { return decimal }
        if let text = any as? String { return try? Decimal128(string: text) }
        let converted = Decimal128(value: any)
        return converted.isNaN ? nil : converted
    }


    /// The 16-byte stored form (see the file header); throws `.invalidArgument` for a value beyond
    /// it (more than 34 digits whose rounding needs an exponent above 127).
    func packed() throws(Realm.Error) -> (UInt64, UInt64) {
        let value = self.value
        if value.isNaN { return (0, UInt64(2) << 56) }
        var e = value.exponent
        // The significand of a finite Decimal is a non-negative integer of at most 39 digits.
        var m = UInt128(value.significand.description) ?? 0
        if m >= Self.coefficientLimit {
            // Drop the fewest trailing digits that make it fit, rounding once (half up).
            var divisor: UInt128 = 1
            while m / divisor >= Self.coefficientLimit { divisor *= 10; e += 1 }
            let (q, r) = m.quotientAndRemainder(dividingBy: divisor)
            m = r >= divisor - r ? q + 1 : q
            if m >= Self.coefficientLimit { m /= 10; e += 1 }  // the carry reached 10³⁴, which is exact
        }
        if m == 0 { e = 0 }
        guard e <= Self.largestExponent, let exponent = Int8(exactly: e) else {
            throw Realm.Error(.invalidArgument,
                              "the decimal \(value) rounds to 34 digits with exponent \(e), beyond the largest a stored Decimal128 holds (127)")
        }
        let negative: UInt64 = (value.sign == .minus && m != 0) ? 1 : 0
        let bit112 = UInt64(truncatingIfNeeded: m >> 112) & 1
        let flags = negative | bit112 << 2
        let low = UInt64(truncatingIfNeeded: m)
        let high = UInt64(truncatingIfNeeded: m >> 64) & 0xFFFF_FFFF_FFFF
        let top = high | UInt64(UInt8(bitPattern: exponent)) << 48 | flags << 56
        return (low, top)
    }

    /// Decodes the 16-byte form; shorter input (never written by this layer) reads as 0.
    static func unpack(_ b: UnsafeRawBufferPointer) -> Decimal128 { Decimal128(unpackedNumber(b)) }

    /// The number of the 16-byte form, without making an instance (for aggregates over rows).
    static func unpackedNumber(_ b: UnsafeRawBufferPointer) -> Decimal {
        guard b.count >= 16 else { return 0 }
        let low = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        let top = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let flags = UInt8(truncatingIfNeeded: top >> 56)
        if flags & 2 != 0 { return .nan }
        let exponent = Int(Int8(bitPattern: UInt8(truncatingIfNeeded: top >> 48)))
        let m = UInt128(flags >> 2 & 1) << 112 | UInt128(top & 0xFFFF_FFFF_FFFF) << 64 | UInt128(low)
        let significand: Decimal
        if m <= UInt128(UInt64.max) {
            significand = Decimal(UInt64(m))
        } else {
            significand = Decimal(string: String(m)) ?? 0
        }
        return Decimal(sign: flags & 1 != 0 ? .minus : .plus, exponent: exponent, significand: significand)
    }

    public static func _strataRead(_ row: _RowView, _ column: _Column) -> Decimal128? {
        unpack(row.fixedBytes(column, count: 16))
    }
    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        let (low, top) = try packed()
        withUnsafeBytes(of: (low.littleEndian, top.littleEndian)) { row.storeBytes($0, column) }
    }
    public static func _strataDecodeElement(_ element: _ElementView) -> Decimal128 { unpack(element.bytes) }
    public func _strataEncodeElement(_ out: inout _ElementBuffer) throws {
        let (low, top) = try packed()
        withUnsafeBytes(of: (low.littleEndian, top.littleEndian)) { out.bytes.append(contentsOf: $0) }
    }
}
