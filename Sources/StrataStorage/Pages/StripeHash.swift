// The stripe hash: the page checksum of plain pages written since checksum kind 1 (PageStore).
//
// Why not XXH64 any more: XXH64 needs two 64-bit multiplies per 8 bytes and the CPU has one
// 64-bit multiplier, so it tops out near 4 bytes/cycle (~0.36–0.5 µs per 4 KiB page here); with ten
// pages sealed per sensors transaction that was ~16% of the transaction's CPU. This hash has the
// structure of XXH3's long-input loop (Yann Collet): per 8 bytes one 32×32→64 multiply and two
// adds, in 8 independent 64-bit lanes, which the compiler maps to SSE2 `pmuludq` on two lanes at a
// time (measured in release: `strata-storage-probe bench-checksum`). Every 1024 bytes the lanes are
// scrambled (xorshift, key, multiply), at the end folded pairwise with 64×64→128 multiplies and
// avalanched, with the seed (the page number) mixed in, so a page copied to another offset fails.
// It is NOT XXH3 (its own key material: `stripeSecret`, splitmix64 output), so its values match no
// published test vectors; `ChecksumTests` pins them instead, because they are an on-disk format.
//
// Invariants:
// - Deterministic across builds and CPUs: only integer wrapping arithmetic. The loop may run on
//   AVX2 or AVX-512F (CStrataHash, chosen at run time), lane for lane the same arithmetic as the
//   portable SIMD2 loop here, so the value never depends on the CPU.
// - For `count` ≥ 64 the last stripe is read at `count - 64` (it may overlap the previous one);
//   shorter inputs are hashed with XXH64.

internal import CStrataHash
import Foundation

/// 192 bytes of key material: 24 words of splitmix64 from seed 0x5354_5241_5441_5048 ("STRATAPH").
@usableFromInline let stripeSecret: [UInt64] = {
    var state: UInt64 = 0x5354_5241_5441_5048
    return (0..<24).map { _ in
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}()

@usableFromInline let stripePrime32: UInt64 = 0x9E37_79B1

@inlinable @inline(__always)
func stripeLanes(_ acc: inout SIMD2<UInt64>, _ data: UnsafeRawPointer, _ key: SIMD2<UInt64>) {
    let d = data.loadUnaligned(as: SIMD2<UInt64>.self)
    let k = d ^ key
    // acc[i ^ 1] += d[i]: the data itself survives even where the product loses bits.
    acc &+= SIMD2(d[1], d[0]) &+ (k & SIMD2(repeating: 0xFFFF_FFFF)) &* (k &>> 32)
}

/// One 64-byte stripe at `p` into the four accumulators, keyed from `secret` at byte `k`
/// (k, k + 16, k + 32, k + 48 for the four 16-byte lanes).
@inlinable @inline(__always)
func stripeOf64(_ a0: inout SIMD2<UInt64>, _ a1: inout SIMD2<UInt64>, _ a2: inout SIMD2<UInt64>,
                _ a3: inout SIMD2<UInt64>, _ p: UnsafeRawPointer, _ secret: UnsafeRawPointer, _ k: Int) {
    stripeLanes(&a0, p, secret.loadUnaligned(fromByteOffset: k, as: SIMD2<UInt64>.self))
    stripeLanes(&a1, p + 16, secret.loadUnaligned(fromByteOffset: k &+ 16, as: SIMD2<UInt64>.self))
    stripeLanes(&a2, p + 32, secret.loadUnaligned(fromByteOffset: k &+ 32, as: SIMD2<UInt64>.self))
    stripeLanes(&a3, p + 48, secret.loadUnaligned(fromByteOffset: k &+ 48, as: SIMD2<UInt64>.self))
}

@inlinable @inline(__always)
func stripeScramble(_ acc: inout SIMD2<UInt64>, _ key: SIMD2<UInt64>) {
    acc = ((acc ^ (acc &>> 47)) ^ key) &* SIMD2(repeating: stripePrime32)
}

@inlinable @inline(__always)
func stripeFold(_ a: UInt64, _ b: UInt64) -> UInt64 {
    let product = a.multipliedFullWidth(by: b)
    return product.high ^ product.low
}

/// The stripe hash of `count` bytes at `data` (page bodies: 4088 bytes). Below one stripe (64
/// bytes, never the case for pages) it is XXH64, so the function is total. The accumulator loop
/// runs on the widest vector unit the CPU has (CStrataHash: AVX-512F or AVX2), else portably;
/// every variant gives the same value (StripeHashDispatchTests).
func stripeHash64(_ data: UnsafeRawPointer, count: Int, seed: UInt64) -> UInt64 {
    let level = stripeVectorLevel
    if level > 0, count >= 64 { return stripeHash64(data, count: count, seed: seed, vectorLevel: level) }
    return stripeHash64Portable(data, count: count, seed: seed)
}

/// The vector variant `stripeHash64` runs: the widest CStrataHash supports on this CPU (2
/// AVX-512F, 1 AVX2, 0 none). Tests and comparisons pick a level explicitly through
/// `stripeHash64(_:count:seed:vectorLevel:)`.
let stripeVectorLevel: Int32 = stripeVectorLevelAvailable

/// What the CPU supports (2 AVX-512F, 1 AVX2, 0 neither).
var stripeVectorLevelAvailable: Int32 { strata_stripe_vector_level() }

/// `stripeHash64` through CStrataHash's loop at `vectorLevel` (falls back to the portable
/// loop when that level is not available here).
func stripeHash64(_ data: UnsafeRawPointer, count: Int, seed: UInt64, vectorLevel: Int32) -> UInt64 {
    if count < 64 { return xxHash64(data, count: count, seed: seed) }
    return stripeSecret.withUnsafeBufferPointer { words in
        guard let first = words.baseAddress, words.count == 24 else { return xxHash64(data, count: count, seed: seed) }
        var acc: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
            0x0000_0000_C2B2_AE3D, 0x9E37_79B1_85EB_CA87, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9,
            0x85EB_CA77_C2B2_AE63, 0x0000_0000_85EB_CA77, 0x27D4_EB2F_1656_67C5, 0x0000_0000_9E37_79B1)
        let ran = withUnsafeMutableBytes(of: &acc) { raw in
            strata_stripe_accumulate(data, count, UnsafeRawPointer(first),
                                     raw.baseAddress!.assumingMemoryBound(to: UInt64.self), vectorLevel)
        }
        guard ran == 0 else { return stripeHash64Portable(data, count: count, seed: seed) }
        return stripeFinish(SIMD2(acc.0, acc.1), SIMD2(acc.2, acc.3), SIMD2(acc.4, acc.5), SIMD2(acc.6, acc.7),
                            count: count, seed: seed, words)
    }
}

/// The folds and avalanche after the accumulator loop.
@inline(__always)
func stripeFinish(_ a0: SIMD2<UInt64>, _ a1: SIMD2<UInt64>, _ a2: SIMD2<UInt64>, _ a3: SIMD2<UInt64>,
                  count: Int, seed: UInt64, _ words: UnsafeBufferPointer<UInt64>) -> UInt64 {
    var h = UInt64(count) &* 0x9E37_79B1_85EB_CA87 ^ (seed &* 0xC2B2_AE3D_27D4_EB4F)
    h &+= stripeFold(a0[0] ^ words[1], a0[1] ^ words[2])
    h &+= stripeFold(a1[0] ^ words[3], a1[1] ^ words[4])
    h &+= stripeFold(a2[0] ^ words[5], a2[1] ^ words[6])
    h &+= stripeFold(a3[0] ^ words[7], a3[1] ^ words[8])
    h = stripeFold(h ^ seed, 0x1656_67B1_9E37_79F9 ^ words[9])
    h ^= h >> 37
    h = h &* 0x1656_6791_9E37_79F9
    h ^= h >> 32
    return h
}

/// The portable loop (SIMD2: SSE2 on x86-64), the reference the vector variants must match.
func stripeHash64Portable(_ data: UnsafeRawPointer, count: Int, seed: UInt64) -> UInt64 {
    if count < 64 { return xxHash64(data, count: count, seed: seed) }
    return stripeSecret.withUnsafeBufferPointer { words in
        // 24 words, never empty; the fallback only keeps the function free of force-unwraps.
        guard let first = words.baseAddress, words.count == 24 else { return xxHash64(data, count: count, seed: seed) }
        let secret = UnsafeRawPointer(first)
        @inline(__always) func key(_ offset: Int) -> SIMD2<UInt64> {
            secret.loadUnaligned(fromByteOffset: offset, as: SIMD2<UInt64>.self)
        }
        var a0 = SIMD2<UInt64>(0x0000_0000_C2B2_AE3D, 0x9E37_79B1_85EB_CA87)
        var a1 = SIMD2<UInt64>(0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9)
        var a2 = SIMD2<UInt64>(0x85EB_CA77_C2B2_AE63, 0x0000_0000_85EB_CA77)
        var a3 = SIMD2<UInt64>(0x27D4_EB2F_1656_67C5, 0x0000_0000_9E37_79B1)
        // Whole blocks of 16 stripes (1024 bytes), each followed by a scramble, then the stripes
        // left before the last one. Wrapping index arithmetic: offsets stay below `count`.
        let lastStripe = count &- 64
        let fullStripes = (lastStripe &+ 63) >> 6  // stripes starting below lastStripe
        var offset = 0
        var remaining = fullStripes
        while remaining >= 16 {
            for stripe in 0..<16 {
                stripeOf64(&a0, &a1, &a2, &a3, data + offset, secret, stripe &* 8)
                offset &+= 64
            }
            remaining &-= 16
            stripeScramble(&a0, key(128))
            stripeScramble(&a1, key(144))
            stripeScramble(&a2, key(160))
            stripeScramble(&a3, key(176))
        }
        for stripe in 0..<remaining {
            stripeOf64(&a0, &a1, &a2, &a3, data + offset, secret, stripe &* 8)
            offset &+= 64
        }
        // The last 64 bytes, with a key offset no full stripe uses (121: unaligned on purpose).
        stripeOf64(&a0, &a1, &a2, &a3, data + lastStripe, secret, 121)
        return stripeFinish(a0, a1, a2, a3, count: count, seed: seed, words)
    }
}
