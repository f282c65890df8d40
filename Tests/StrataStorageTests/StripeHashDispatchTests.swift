// The stripe hash is an on-disk format: the AVX2 and AVX-512F loops (CStrataHash) must give the
// portable loop's value for every input — lengths around the stripe (64) and block (1,024)
// boundaries and the page body (4,088), unaligned starts, any seed — and a level the CPU lacks
// falls back to the portable loop. ChecksumTests pins the values themselves.
import Foundation
import Testing
@testable import StrataStorage

@Suite struct StripeHashDispatchTests {
    @Test func everyVectorLevelGivesThePortableValue() throws {
        var rng = SplitMix64(seed: 0x5752)
        var buffer = [UInt8](repeating: 0, count: 9_000)
        for i in buffer.indices { buffer[i] = UInt8(truncatingIfNeeded: rng.next()) }
        let available = stripeVectorLevelAvailable
        print("stripe hash vector level available here: \(available)")
        var lengths = [64, 65, 127, 128, 129, 1_023, 1_024, 1_025, 1_087, 1_088, 1_089, 2_048, 4_088, 4_096, 8_191, 8_960]
        for _ in 0..<60 { lengths.append(Int.random(in: 64...8_960, using: &rng)) }
        try buffer.withUnsafeBytes { raw in
            let base = try #require(raw.baseAddress)
            for length in lengths {
                for start in [0, 1, 3, 8, 13] where start + length <= raw.count {
                    let seed = rng.next()
                    let reference = stripeHash64Portable(base + start, count: length, seed: seed)
                    for level in Int32(1)...Int32(3) {
                        // Levels above `available` (3 never exists) fall back to the portable loop.
                        #expect(stripeHash64(base + start, count: length, seed: seed, vectorLevel: level) == reference,
                                "length \(length) start \(start) level \(level) (available \(available))")
                    }
                    #expect(stripeHash64(base + start, count: length, seed: seed) == reference)
                }
            }
        }
    }

    @Test func aFlippedBitChangesTheValueAtEveryLevel() throws {
        var page = [UInt8](repeating: 0x5A, count: 4_088)
        let levels = [Int32(0)] + (Int32(1)...max(1, stripeVectorLevelAvailable)).map { $0 }
        for bit in stride(from: 0, to: 4_088 * 8, by: 997) {
            let before = page.withUnsafeBytes { stripeHash64Portable($0.baseAddress!, count: 4_088, seed: 7) }
            page[bit / 8] ^= 1 << UInt8(bit % 8)
            for level in levels {
                let after = page.withUnsafeBytes {
                    level == 0 ? stripeHash64Portable($0.baseAddress!, count: 4_088, seed: 7)
                               : stripeHash64($0.baseAddress!, count: 4_088, seed: 7, vectorLevel: level)
                }
                #expect(after != before, "bit \(bit) level \(level)")
            }
            page[bit / 8] ^= 1 << UInt8(bit % 8)
        }
    }
}
