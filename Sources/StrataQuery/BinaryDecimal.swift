// The decimal number a `Double` (or `Float`) stands for, as Realm converts one into a Decimal128
// (the query language compares decimals with doubles by it; the object layer stores it).
//
// Invariants:
// - The binary value is rounded to 15 significant digits (half-even on its exact value, by the C
//   library's `%e` formatting), as Realm's conversion quantizes, and trailing zeros are dropped:
//   `19.99` is 19.99, `0.1 + 0.2` is 0.3, `2.5` is 2.5. Foundation's own `Decimal(Double)` keeps
//   about 19 digits of which the last few are not the double's (19.99 → 19.98999999999999488), so
//   a decimal made from a literal would neither equal what was written nor what Realm stores.
// - A double whose decimal form is beyond Foundation's `Decimal` (magnitude above about 1e165 or
//   below 1e-128 once rounded), an infinity or NaN gives NaN.
// - The last few conversions are remembered (by the double's bits): a query comparing a decimal
//   property with a double converts the same constant for every object it reads, and the
//   formatting costs about 2 µs where the lookup costs a lock.
import Foundation
import Synchronization

/// Realm's conversion of a binary floating-point number into a decimal (see the file header).
package enum BinaryDecimal {
    /// The significant digits Realm keeps when it converts a binary floating-point number.
    package static let binarySignificantDigits = 15

    /// `x` rounded to 15 significant digits as a `Decimal` (see the file header).
    package static func decimal(fromBinary x: Double) -> Decimal {
        guard x.isFinite else { return .nan }
        if x == 0 { return 0 }
        if let known = recentConversions.withLock({ $0.value(for: x.bitPattern) }) { return known }
        let converted = convert(x)
        recentConversions.withLock { $0.remember(converted, for: x.bitPattern) }
        return converted
    }

    private static let recentConversions = Mutex(RecentConversions())

    private static func convert(_ x: Double) -> Decimal {
        // "d.dddddddddddddde±x": 15 digits, correctly rounded from the exact binary value.
        let text = scientificText(x, digits: binarySignificantDigits)
        guard let ePosition = text.firstIndex(of: "e"), let exponent = Int(text[text.index(after: ePosition)...]) else {
            return .nan
        }
        var coefficient: UInt64 = 0
        for character in text[..<ePosition] where character.isASCII && character.isNumber {
            coefficient = coefficient * 10 + UInt64(character.asciiValue! - 48)
        }
        var scale = exponent - (binarySignificantDigits - 1)
        while coefficient % 10 == 0 { coefficient /= 10; scale += 1 }  // coefficient > 0 here
        guard let foundationExponent = Int8(exactly: scale) else { return .nan }
        return Decimal(sign: x < 0 ? .minus : .plus, exponent: Int(foundationExponent), significand: Decimal(coefficient))
    }

    /// `x` in C's `%.{digits-1}e` form.
    private static func scientificText(_ x: Double, digits: Int) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 40) { buffer in
            let written = withVaList([Int32(digits - 1), x]) { vsnprintf(buffer.baseAddress, 40, "%.*e", $0) }
            let count = Swift.max(0, Swift.min(Int(written), 39))
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), as: UTF8.self)
        }
    }
}

/// The last few doubles converted and their decimals, replaced in turn.
private struct RecentConversions {
    private var bits: [UInt64] = []
    private var values: [Decimal] = []
    private var next = 0
    private static let capacity = 4

    func value(for key: UInt64) -> Decimal? {
        bits.firstIndex(of: key).map { values[$0] }
    }

    mutating func remember(_ value: Decimal, for key: UInt64) {
        if bits.count < Self.capacity {
            bits.append(key)
            values.append(value)
        } else {
            bits[next] = key
            values[next] = value
            next = (next + 1) % Self.capacity
        }
    }
}
