// Tree micro-benchmarks, run only with STRATA_TREE_BENCH=1 (CI never times them):
//   STRATA_TREE_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter TreeBenchmarks
// They use the in-memory page double, so they measure tree work alone (no pager, no I/O).
// The checks at the end only confirm the work was done; the figures are printed.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import StrataStorage

private let benchEnabled = getenv("STRATA_TREE_BENCH").map { String(cString: $0) == "1" } ?? false

@Suite(.enabled(if: benchEnabled), .serialized) struct TreeBenchmarks {
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    @Test func ascendingInsertAndRandomLookup() throws {
        let pages = TreeTestPages()
        pages.trackCommitted = false
        var tree = KeyedTree()
        let n = 1_000_000
        var value = [UInt8](repeating: 0x42, count: 24)
        let clock = ContinuousClock()
        let insert = try clock.measure {
            try value.withUnsafeMutableBytes { buffer in
                for key in 0..<UInt64(n) {
                    buffer.storeBytes(of: key, as: UInt64.self)
                    try tree.put(key, UnsafeRawBufferPointer(buffer), in: pages)
                    if key % 10_000 == 9_999 { pages.commit() }
                }
            }
        }
        pages.commit()
        print("tree-bench insert ascending: \(n) keys in \(Self.seconds(insert)) s = \(Double(n) / Self.seconds(insert) / 1e6) M keys/s, \(pages.livePageCount) pages")

        var rng = SplitMix64(seed: 1)
        let probes = (0..<n).map { _ in UInt64.random(in: 0..<UInt64(n), using: &rng) }
        var sum: UInt64 = 0
        let lookup = try clock.measure {
            for key in probes {
                sum &+= try tree.withValue(forKey: key, in: pages) { $0.loadUnaligned(as: UInt64.self) } ?? 0
            }
        }
        print("tree-bench random lookup in \(n): \(Self.seconds(lookup) / Double(n) * 1e9) ns per lookup")
        #expect(sum == probes.reduce(0, &+))

        var scanned = 0
        let scan = try clock.measure {
            try tree.forEach(in: pages) { _, _ in scanned += 1; return true }
        }
        print("tree-bench full scan: \(Self.seconds(scan) / Double(n) * 1e9) ns per entry")
        #expect(scanned == n)
    }

    @Test func positionalAppendRemoveFirst() throws {
        let pages = TreeTestPages()
        pages.trackCommitted = false
        var tree = PositionalTree()
        for value in 0..<UInt64(10_000) { try tree.appendUInt64(value, in: pages) }
        pages.commit()
        let clock = ContinuousClock()
        let pairs = 200_000
        let batched = try clock.measure {
            for i in 0..<pairs {
                try tree.appendUInt64(UInt64(10_000 + i), in: pages)
                try tree.remove(at: 0, in: pages)
                if i % 1000 == 999 { pages.commit() }
            }
        }
        print("tree-bench positional append+remove(at:0) at 10k, commit every 1000 pairs: \(Self.seconds(batched) / Double(pairs) * 1e9) ns per pair")
        let single = try clock.measure {
            for i in 0..<pairs {
                try tree.appendUInt64(UInt64(10_000 + pairs + i), in: pages)
                try tree.remove(at: 0, in: pages)
                pages.commit()
                if i % 1000 == 999 { pages.releaseRetired() }
            }
        }
        print("tree-bench positional append+remove(at:0) at 10k, commit every pair: \(Self.seconds(single) / Double(pairs) * 1e9) ns per pair")
        #expect(try tree.count(in: pages) == 10_000)
        #expect(try tree.element64(at: 0, in: pages) == UInt64(2 * pairs))
    }
}
