// Tree micro-benchmarks, run only with STRATA_TREE_BENCH=1 (CI never times them):
//   STRATA_TREE_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter TreeBenchmarks
// They use the in-memory page double, so they measure tree work alone (no pager, no I/O);
// each "transaction" ends with commit + releaseRetired (no reader holds old versions).
// The checks at the end only confirm the work was done; the figures are printed.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import StrataStorage

private let benchEnabled = getenv("STRATA_TREE_BENCH").map { String(cString: $0) == "1" } ?? false

@Suite(.enabled(if: benchEnabled), .serialized) struct TreeBenchmarks {
    /// CPU time of the calling thread: robust when other processes share the cores.
    static func threadCPUSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

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
        let cpuStart = Self.threadCPUSeconds()
        let insert = try clock.measure {
            try value.withUnsafeMutableBytes { buffer in
                for key in 0..<UInt64(n) {
                    buffer.storeBytes(of: key, as: UInt64.self)
                    try tree.put(key, UnsafeRawBufferPointer(buffer), in: pages)
                    if key % 10_000 == 9_999 { pages.commit(); pages.releaseRetired() }
                }
            }
        }
        let cpu = Self.threadCPUSeconds() - cpuStart
        pages.commit()
        print("tree-bench insert ascending: \(n) keys in \(Self.seconds(insert)) s = \(Double(n) / Self.seconds(insert) / 1e6) M keys/s (thread CPU: \(Double(n) / cpu / 1e6) M keys/s), \(pages.livePageCount) pages")

        var rng = SplitMix64(seed: 1)
        let probes = (0..<n).map { _ in UInt64.random(in: 0..<UInt64(n), using: &rng) }
        var sum: UInt64 = 0
        let lookupCPUStart = Self.threadCPUSeconds()
        let lookup = try clock.measure {
            for key in probes {
                sum &+= try tree.withValue(forKey: key, in: pages) { $0.loadUnaligned(as: UInt64.self) } ?? 0
            }
        }
        let lookupCPU = Self.threadCPUSeconds() - lookupCPUStart
        print("tree-bench random lookup in \(n): \(Self.seconds(lookup) / Double(n) * 1e9) ns per lookup (thread CPU: \(lookupCPU / Double(n) * 1e9) ns)")
        #expect(sum == probes.reduce(0, &+))
        sum = 0

        let hot = probes.prefix(10_000).map { $0 % 10_000 }
        let hotLookup = try clock.measure {
            for _ in 0..<100 {
                for key in hot {
                    sum &+= try tree.withValue(forKey: key, in: pages) { $0.loadUnaligned(as: UInt64.self) } ?? 0
                }
            }
        }
        print("tree-bench lookup of 10,000 hot keys (cached pages): \(Self.seconds(hotLookup) / 1e6 * 1e9) ns per lookup")

        var scanned = 0
        let scan = try clock.measure {
            try tree.forEach(in: pages) { _, _ in scanned += 1; return true }
        }
        print("tree-bench full scan: \(Self.seconds(scan) / Double(n) * 1e9) ns per entry")
        #expect(scanned == n)
        #expect(sum == 100 &* hot.reduce(0, &+))
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
                if i % 1000 == 999 { pages.commit(); pages.releaseRetired() }
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

    /// The unfavourable case for interpolation: sparse random keys inserted in random order.
    @Test func randomSparseKeys() throws {
        let pages = TreeTestPages()
        pages.trackCommitted = false
        var tree = KeyedTree()
        let n = 1_000_000
        var rng = SplitMix64(seed: 2)
        let keys = (0..<n).map { _ in rng.next() }
        let value = [UInt8](repeating: 0x42, count: 24)
        let clock = ContinuousClock()
        let insert = try clock.measure {
            try value.withUnsafeBytes { buffer in
                for (i, key) in keys.enumerated() {
                    try tree.put(key, buffer, in: pages)
                    if i % 10_000 == 9_999 { pages.commit(); pages.releaseRetired() }
                }
            }
        }
        pages.commit()
        print("tree-bench insert random sparse: \(n) keys in \(Self.seconds(insert)) s = \(Double(n) / Self.seconds(insert) / 1e6) M keys/s, \(pages.livePageCount) pages")
        let probes = (0..<n).map { _ in keys[Int.random(in: 0..<n, using: &rng)] }
        var found = 0
        let cpuStart = Self.threadCPUSeconds()
        let lookup = try clock.measure {
            for key in probes where try tree.contains(key, in: pages) { found += 1 }
        }
        let cpu = Self.threadCPUSeconds() - cpuStart
        print("tree-bench random lookup of sparse keys in \(n): \(Self.seconds(lookup) / Double(n) * 1e9) ns per lookup (thread CPU: \(cpu / Double(n) * 1e9) ns)")
        #expect(found == n)
    }

    @Test func bytesTreeIndexKeys() throws {
        let pages = TreeTestPages()
        pages.trackCommitted = false
        var tree = BytesTree()
        let n = 300_000
        var rng = SplitMix64(seed: 3)
        // Index-like keys: an 8-byte big-endian value then an 8-byte object key.
        let keys = (0..<n).map { i -> [UInt8] in
            withUnsafeBytes(of: rng.next().bigEndian) { Array($0) } + withUnsafeBytes(of: UInt64(i).bigEndian) { Array($0) }
        }
        let clock = ContinuousClock()
        let insert = try clock.measure {
            for (i, key) in keys.enumerated() {
                _ = try key.withUnsafeBytes { try tree.put($0, UnsafeRawBufferPointer(start: nil, count: 0), in: pages) }
                if i % 10_000 == 9_999 { pages.commit(); pages.releaseRetired() }
            }
        }
        print("tree-bench bytes tree insert of \(n) random 16-byte keys: \(Self.seconds(insert) / Double(n) * 1e9) ns per key")
        var found = 0
        let lookup = try clock.measure {
            for _ in 0..<n {
                let key = keys[Int.random(in: 0..<n, using: &rng)]
                if try key.withUnsafeBytes({ try tree.contains($0, in: pages) }) { found += 1 }
            }
        }
        print("tree-bench bytes tree random lookup in \(n): \(Self.seconds(lookup) / Double(n) * 1e9) ns per lookup")
        #expect(found == n)
    }
}

extension TreeBenchmarks {
    /// The sensors window at tree level, 1,000 readings per transaction over a window of
    /// 10,000: rows (KeyedTree, 24-byte values), list (PositionalTree of 8-byte keys) and
    /// backlinks (BytesTree, 28-byte keys), appended and trimmed one entry at a time or with
    /// the batch operations. Prints entries per second of thread CPU for both.
    @Test func slidingWindowSingleVersusBatch() throws {
        let batch = 1_000, window = 10_000, rounds = 300
        func backlinkKey(_ k: UInt64) -> [UInt8] {
            var key = [UInt8](repeating: 0, count: 28)
            key.withUnsafeMutableBytes {
                $0.storeBytes(of: UInt32(2).bigEndian, toByteOffset: 0, as: UInt32.self)
                $0.storeBytes(of: k.bigEndian, toByteOffset: 4, as: UInt64.self)
                $0.storeBytes(of: UInt32(1).bigEndian, toByteOffset: 12, as: UInt32.self)
                $0.storeBytes(of: UInt64(1).bigEndian, toByteOffset: 20, as: UInt64.self)
            }
            return key
        }
        for batched in [false, true] {
            let pages = TreeTestPages()
            pages.trackCommitted = false
            var rows = KeyedTree(), list = PositionalTree(), links = BytesTree()
            let value = [UInt8](repeating: 0x42, count: 24)
            let one: [UInt8] = [1, 0, 0, 0]
            var next: UInt64 = 0
            let cpuStart = Self.threadCPUSeconds()
            for _ in 0..<rounds {
                let keys = (0..<UInt64(batch)).map { next + $0 }
                next += UInt64(batch)
                let linkKeys = keys.map(backlinkKey)
                try value.withUnsafeBytes { v in
                    try one.withUnsafeBytes { o in
                        if batched {
                            try rows.putSorted(keys: keys, values: Array(repeating: v, count: batch), in: pages)
                            try list.appendUInt64s(keys, in: pages)
                            let flat = linkKeys.flatMap { $0 }
                            try flat.withUnsafeBytes { all in
                                let kb = (0..<batch).map { UnsafeRawBufferPointer(rebasing: all[$0 * 28..<$0 * 28 + 28]) }
                                try links.putSorted(keys: kb, values: Array(repeating: o, count: batch), in: pages)
                            }
                        } else {
                            for (k, lk) in zip(keys, linkKeys) {
                                try rows.put(k, v, in: pages)
                                try list.appendUInt64(k, in: pages)
                                try lk.withUnsafeBytes { _ = try links.put($0, o, in: pages) }
                            }
                        }
                    }
                }
                let excess = try list.count(in: pages) - window
                if excess > 0 {
                    var old: [UInt64] = []
                    if batched {
                        try list.removeFirst(excess, in: pages) { old.append($0.loadUnaligned(as: UInt64.self)) }
                        try rows.removeSorted(old, in: pages)
                        let flat = old.flatMap(backlinkKey)
                        _ = try flat.withUnsafeBytes { all in
                            try links.removeSorted((0..<old.count).map { UnsafeRawBufferPointer(rebasing: all[$0 * 28..<$0 * 28 + 28]) }, in: pages)
                        }
                    } else {
                        for _ in 0..<excess { try list.remove(at: 0, in: pages) { old.append($0.loadUnaligned(as: UInt64.self)) } }
                        for k in old {
                            try rows.remove(k, in: pages)
                            try backlinkKey(k).withUnsafeBytes { _ = try links.remove($0, in: pages) }
                        }
                    }
                }
                pages.commit()
                pages.releaseRetired()
            }
            let cpu = Self.threadCPUSeconds() - cpuStart
            #expect(try rows.count(in: pages) == window && list.count(in: pages) == window && links.count(in: pages) == window)
            print("tree-bench sliding window \(batched ? "batch " : "single"): \(Double(rounds * batch) / cpu / 1e6) M readings/s of thread CPU (rows + list + backlinks, in and out), \(pages.livePageCount) pages")
        }
    }
}
