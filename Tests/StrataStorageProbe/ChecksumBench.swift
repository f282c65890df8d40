// `strata-storage-probe bench-checksum <count>`: candidate page checksums over the 4088 bytes a
// plain page's checksum covers — XXH64 (the current one, copied here because the library keeps it
// internal) versus GMAC (AES-256-GCM with the page as additional data and no plaintext, through
// BoringSSL, which uses carry-less multiply instructions).

import CCryptoBoringSSL
import Foundation

private let p1: UInt64 = 11400714785092612791
private let p2: UInt64 = 14029467366897019727
private let p3: UInt64 = 1609587929392839161
private let p4: UInt64 = 9650029242287828579
private let p5: UInt64 = 2870177450012600261
@inline(__always) private func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }
@inline(__always) private func round(_ acc: UInt64, _ input: UInt64) -> UInt64 { rotl(acc &+ input &* p2, 31) &* p1 }
@inline(__always) private func merge(_ acc: UInt64, _ val: UInt64) -> UInt64 { (acc ^ round(0, val)) &* p1 &+ p4 }

/// XXH64 for lengths that are a multiple of 8 and ≥ 32 (enough for the bench).
@inline(never)
private func benchXXH64(_ data: UnsafeRawPointer, count: Int, seed: UInt64) -> UInt64 {
    var v1 = seed &+ p1 &+ p2, v2 = seed &+ p2, v3 = seed, v4 = seed &- p1
    var offset = 0
    while offset <= count - 32 {
        v1 = round(v1, data.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        v2 = round(v2, data.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
        v3 = round(v3, data.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
        v4 = round(v4, data.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
        offset += 32
    }
    var h = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
    h = merge(merge(merge(merge(h, v1), v2), v3), v4) &+ UInt64(count)
    while offset + 8 <= count {
        h = rotl(h ^ round(0, data.loadUnaligned(fromByteOffset: offset, as: UInt64.self)), 27) &* p1 &+ p4
        offset += 8
    }
    h ^= h >> 33; h = h &* p2; h ^= h >> 29; h = h &* p3; h ^= h >> 32
    return h
}

func benchChecksum(count: Int) {
    let page = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 4096)
    defer { page.deallocate() }
    for i in 0..<4096 { page.storeBytes(of: UInt8(truncatingIfNeeded: i &* 31 &+ 7), toByteOffset: i, as: UInt8.self) }
    var sink: UInt64 = 0
    var start = monotonicSeconds()
    for i in 0..<count {
        page.storeBytes(of: UInt64(i), toByteOffset: 64, as: UInt64.self)
        sink &+= benchXXH64(page + 8, count: 4088, seed: UInt64(i))
    }
    let xxh = (monotonicSeconds() - start) / Double(count)

    let context = UnsafeMutablePointer<EVP_AEAD_CTX>.allocate(capacity: 1)
    defer { CCryptoBoringSSL_EVP_AEAD_CTX_cleanup(context); context.deallocate() }
    CCryptoBoringSSL_EVP_AEAD_CTX_zero(context)
    let key = [UInt8](repeating: 0x42, count: 32)
    _ = CCryptoBoringSSL_EVP_AEAD_CTX_init(context, CCryptoBoringSSL_EVP_aead_aes_256_gcm(), key, 32, 16, nil)
    var nonce = [UInt8](repeating: 0, count: 12)
    var tag = [UInt8](repeating: 0, count: 16)
    start = monotonicSeconds()
    for i in 0..<count {
        page.storeBytes(of: UInt64(i), toByteOffset: 64, as: UInt64.self)
        nonce.withUnsafeMutableBytes { $0.storeBytes(of: UInt64(i), as: UInt64.self) }
        var tagLength = 0
        _ = CCryptoBoringSSL_EVP_AEAD_CTX_seal_scatter(context, nil, &tag, &tagLength, 16, nonce, 12,
                                                       nil, 0, nil, 0,
                                                       (page + 8).assumingMemoryBound(to: UInt8.self), 4088)
        sink &+= UInt64(tag[0])
    }
    let gmac = (monotonicSeconds() - start) / Double(count)
    say(String(format: "checksum of 4088 B: XXH64 %.3f µs, GMAC (AES-256-GCM, page as AAD) %.3f µs (sink %d)",
               xxh * 1e6, gmac * 1e6, Int(sink & 1)))
}

/// Prototype: XXH3-style accumulation (8 × u64 lanes, 32×32→64 multiply per 8 bytes) with
/// SIMD2<UInt64>, to see whether Swift's baseline (SSE2) vector code beats XXH64. It did (~0.26 vs
/// ~0.36–0.53 µs per page under load), which led to the library's stripe hash (StripeHash.swift,
/// same loop plus the final stripe and merge); this prototype is not that function.
@inline(never)
func benchStripeHash(_ data: UnsafeRawPointer, count: Int, secret: UnsafeRawPointer) -> UInt64 {
    var a0 = SIMD2<UInt64>(1, 2), a1 = SIMD2<UInt64>(3, 4), a2 = SIMD2<UInt64>(5, 6), a3 = SIMD2<UInt64>(7, 8)
    let low = SIMD2<UInt64>(repeating: 0xFFFF_FFFF)
    var offset = 0
    var s = 0
    @inline(__always) func lane(_ acc: inout SIMD2<UInt64>, _ at: Int, _ key: Int) {
        let d = data.loadUnaligned(fromByteOffset: at, as: SIMD2<UInt64>.self)
        let k = d ^ secret.loadUnaligned(fromByteOffset: key, as: SIMD2<UInt64>.self)
        acc &+= SIMD2(d[1], d[0]) &+ (k & low) &* (k &>> 32)
    }
    while offset + 64 <= count {
        lane(&a0, offset, s)
        lane(&a1, offset + 16, s + 16)
        lane(&a2, offset + 32, s + 32)
        lane(&a3, offset + 48, s + 48)
        offset += 64
        s += 8
        if s == 128 {
            s = 0
            a0 = (a0 ^ (a0 &>> 47)) &* 2654435761
            a1 = (a1 ^ (a1 &>> 47)) &* 2654435761
            a2 = (a2 ^ (a2 &>> 47)) &* 2654435761
            a3 = (a3 ^ (a3 &>> 47)) &* 2654435761
        }
    }
    let v = a0 ^ a1 ^ a2 ^ a3
    return v[0] &+ v[1]
}

func benchStripe(count: Int) {
    let page = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 4096)
    let secret = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 64)
    defer { page.deallocate(); secret.deallocate() }
    for i in 0..<4096 { page.storeBytes(of: UInt8(truncatingIfNeeded: i &* 31 &+ 7), toByteOffset: i, as: UInt8.self) }
    for i in 0..<256 { secret.storeBytes(of: UInt8(truncatingIfNeeded: i &* 131 &+ 5), toByteOffset: i, as: UInt8.self) }
    var sink: UInt64 = 0
    let start = monotonicSeconds()
    for i in 0..<count {
        page.storeBytes(of: UInt64(i), toByteOffset: 64, as: UInt64.self)
        sink &+= benchStripeHash(page + 8, count: 4088, secret: secret)
    }
    let t = (monotonicSeconds() - start) / Double(count)
    say(String(format: "stripe hash prototype of 4088 B: %.3f µs (sink %d)", t * 1e6, Int(sink & 1)))
}
