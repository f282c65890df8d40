// XXH64 (Yann Collet's xxHash, 64-bit variant) over raw memory: the meta-slot checksum of plain
// files, and the stripe hash's tail below one stripe (StripeHash.swift). Page checksums are the
// stripe hash.
//
// Why XXH64: ~1 cycle/byte in portable code, 64 bits make a random flip go undetected with
// probability 2^-64, and it needs no tables. The seed carries the page number so that a valid
// page written at the wrong offset does not verify.

@usableFromInline let xxPrime1: UInt64 = 11400714785092612791
@usableFromInline let xxPrime2: UInt64 = 14029467366897019727
@usableFromInline let xxPrime3: UInt64 = 1609587929392839161
@usableFromInline let xxPrime4: UInt64 = 9650029242287828579
@usableFromInline let xxPrime5: UInt64 = 2870177450012600261

@inlinable @inline(__always)
func xxRotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }

@inlinable @inline(__always)
func xxRound(_ acc: UInt64, _ input: UInt64) -> UInt64 {
    xxRotl(acc &+ input &* xxPrime2, 31) &* xxPrime1
}

@inlinable @inline(__always)
func xxMerge(_ acc: UInt64, _ val: UInt64) -> UInt64 {
    (acc ^ xxRound(0, val)) &* xxPrime1 &+ xxPrime4
}

/// XXH64 of `count` bytes at `data`.
@inlinable
func xxHash64(_ data: UnsafeRawPointer, count: Int, seed: UInt64) -> UInt64 {
    var offset = 0
    var h: UInt64
    if count >= 32 {
        var v1 = seed &+ xxPrime1 &+ xxPrime2
        var v2 = seed &+ xxPrime2
        var v3 = seed
        var v4 = seed &- xxPrime1
        let limit = count - 32
        while offset <= limit {
            v1 = xxRound(v1, data.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian)
            v2 = xxRound(v2, data.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self).littleEndian)
            v3 = xxRound(v3, data.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self).littleEndian)
            v4 = xxRound(v4, data.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self).littleEndian)
            offset += 32
        }
        h = xxRotl(v1, 1) &+ xxRotl(v2, 7) &+ xxRotl(v3, 12) &+ xxRotl(v4, 18)
        h = xxMerge(h, v1)
        h = xxMerge(h, v2)
        h = xxMerge(h, v3)
        h = xxMerge(h, v4)
    } else {
        h = seed &+ xxPrime5
    }
    h = h &+ UInt64(count)
    while offset + 8 <= count {
        let k = xxRound(0, data.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian)
        h = xxRotl(h ^ k, 27) &* xxPrime1 &+ xxPrime4
        offset += 8
    }
    if offset + 4 <= count {
        let k = UInt64(data.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
        h = xxRotl(h ^ (k &* xxPrime1), 23) &* xxPrime2 &+ xxPrime3
        offset += 4
    }
    while offset < count {
        let k = UInt64(data.load(fromByteOffset: offset, as: UInt8.self))
        h = xxRotl(h ^ (k &* xxPrime5), 11) &* xxPrime1
        offset += 1
    }
    h ^= h >> 33
    h = h &* xxPrime2
    h ^= h >> 29
    h = h &* xxPrime3
    h ^= h >> 32
    return h
}
