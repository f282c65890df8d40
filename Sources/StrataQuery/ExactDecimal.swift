// A 128-bit integer exactly as a `Decimal`: how an exact integer sum (added in 128 bits, see the
// object layer's ExactSum) becomes a decimal, for `@sum`/`@avg` in queries and for the sums and
// means of collections alike.
//
// Invariant: exact for every value whose magnitude fits 38 decimal digits (every sum of 64-bit
// values); `Decimal` drops only the last digit of the Int128 extremes.
import Foundation

package enum ExactDecimal {
    /// `value` exactly as a `Decimal` (whose 38 digits hold any Int128 but the last digit of the
    /// extremes, far beyond any sum of 64-bit values).
    package static func decimal(_ value: Int128) -> Decimal {
        if let small = Int64(exactly: value) { return Decimal(small) }
        let magnitude = value.magnitude
        let high = Decimal(UInt64(truncatingIfNeeded: magnitude >> 64))
        let low = Decimal(UInt64(truncatingIfNeeded: magnitude))
        let result = high * Decimal(UInt64.max) + high + low
        return value < 0 ? -result : result
    }
}
