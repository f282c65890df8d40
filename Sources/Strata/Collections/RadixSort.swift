// A stable least-significant-digit radix sort of 64-bit unsigned integers, moving a second array
// along with them: eight passes of one byte, counted in one read of the input, and a pass skipped
// when every value has the same byte there (the high bytes of small integers, the exponent bytes
// of doubles of one magnitude).
//
// Invariant: stable. Values that are equal keep their input order, and so does what they carry;
// ColumnSort relies on it for Realm's order of ties.
enum RadixSort {
    /// Sorts `values` ascending and applies the same permutation to `carried` (of equal length).
    static func sort(_ values: inout [UInt64], carrying carried: inout [UInt64]) {
        let n = values.count
        // Arrays of different lengths are a caller's bug; sorting one alone would pair them wrongly.
        precondition(carried.count == n, "RadixSort: \(n) values carry \(carried.count) others")
        guard n > 1 else { return }
        var counts = [Int](repeating: 0, count: 8 * 256)
        values.withUnsafeBufferPointer { v in
            counts.withUnsafeMutableBufferPointer { c in
                for x in v {
                    for digit in 0..<8 { c[digit &* 256 &+ Int((x >> UInt64(digit &* 8)) & 0xFF)] &+= 1 }
                }
            }
        }
        var spareValues = [UInt64](repeating: 0, count: n)
        var spareCarried = [UInt64](repeating: 0, count: n)
        for digit in 0..<8 {
            let shift = UInt64(digit * 8)
            // A byte that every value shares leaves the order as it is.
            if counts[digit * 256 + Int((values[0] >> shift) & 0xFF)] == n { continue }
            var offsets = [Int](repeating: 0, count: 256)
            var total = 0
            for b in 0..<256 {
                offsets[b] = total
                total += counts[digit * 256 + b]
            }
            values.withUnsafeBufferPointer { v in
                carried.withUnsafeBufferPointer { c in
                    spareValues.withUnsafeMutableBufferPointer { sv in
                        spareCarried.withUnsafeMutableBufferPointer { sc in
                            offsets.withUnsafeMutableBufferPointer { o in
                                for i in 0..<n {
                                    let x = v[i]
                                    let b = Int((x >> shift) & 0xFF)
                                    let at = o[b]
                                    o[b] = at &+ 1
                                    sv[at] = x
                                    sc[at] = c[i]
                                }
                            }
                        }
                    }
                }
            }
            swap(&values, &spareValues)
            swap(&carried, &spareCarried)
        }
    }
}
