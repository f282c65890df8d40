// Heap allocations counted by jemalloc: how many allocation requests the process made and how
// many bytes they asked for, cumulatively — the deltas around a phase are its allocations.
//
// Why jemalloc's figures: the harness runs under `LD_PRELOAD=libjemalloc.so.2` in CI (as for the
// allocator columns), and jemalloc keeps per-size-class request counters ("nrequests") for every
// arena. `stats.arenas.4096.*` (4096 = MALLCTL_ARENAS_ALL) merges all arenas.
//
// Invariants:
// - Bytes are counted at size-class granularity (requests × the class's size), so an allocation
//   of 20 bytes counts 24 — the memory the allocator handed out, which is what a change of
//   allocation pattern changes.
// - Thread caches hand out small blocks without touching the arena and report their request
//   counts to it when they flush (every few hundred requests per size class, and at thread exit),
//   so a snapshot may miss the last requests of a live thread: a bounded error, which the
//   counter thresholds allow for.
// - Without jemalloc loaded the figures are nil (empty cells), never zero.

import Foundation

extension AllocatorStats {
    public struct Requests: Sendable, Equatable {
        public var count: Int
        public var bytes: Int
    }

    /// Cumulative allocation requests of the process (all arenas), nil without jemalloc.
    public static func requests() -> Requests? {
        guard let mallctl = mallctl() else { return nil }
        var epochOut: UInt64 = 0
        var epochIn: UInt64 = 1
        var epochSize = MemoryLayout<UInt64>.size
        _ = mallctl("epoch", &epochOut, &epochSize, &epochIn, MemoryLayout<UInt64>.size)
        func read<T: FixedWidthInteger>(_ name: String, as: T.Type) -> T? {
            var value: T = 0
            var size = MemoryLayout<T>.size
            return mallctl(name, &value, &size, nil, 0) == 0 ? value : nil
        }
        guard let bins = read("arenas.nbins", as: UInt32.self), let large = read("arenas.nlextents", as: UInt32.self) else {
            return nil
        }
        var count = 0
        var bytes = 0
        for index in 0..<Int(bins) {
            guard let size = read("arenas.bin.\(index).size", as: Int.self),
                  let requests = read("stats.arenas.4096.bins.\(index).nrequests", as: UInt64.self) else { return nil }
            count += Int(requests)
            bytes += Int(requests) * size
        }
        for index in 0..<Int(large) {
            guard let size = read("arenas.lextent.\(index).size", as: Int.self),
                  let requests = read("stats.arenas.4096.lextents.\(index).nrequests", as: UInt64.self) else { return nil }
            count += Int(requests)
            bytes &+= Int(requests) &* size
        }
        return Requests(count: count, bytes: bytes)
    }
}
