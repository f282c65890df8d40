// The stress harness's random numbers (the kill moments, the crash points and states, the
// io-error sweep): SplitMix64 (Steele, Lea and Flood), because a choice must be made again from
// its seed on another run and another machine — the system generator is neither seedable nor
// stable.

/// A small seeded generator; the same seed gives the same sequence everywhere.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in 0..<bound (bound > 0), without `Int.random(in:using:)`, whose algorithm the
    /// standard library does not promise to keep.
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0)
        return Int(next() % UInt64(bound))
    }
}
