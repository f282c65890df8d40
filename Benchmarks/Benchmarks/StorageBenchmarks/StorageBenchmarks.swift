// Micro-benchmarks of StrataStorage primitives (release only; see Benchmarks/Package.swift).
//
//   Commit/*            one write transaction per iteration (empty, or one 64-byte keyed put)
//   Batch/*             1,000 keyed inserts in one transaction + commit
//   Positional/*        append + removeFirst on a 10,000-element positional tree
//   Keyed/lookup-1M     random key lookup in a 1,000,000-key tree
//   Pages/*             writing / cold-reading pages, plain vs encrypted
//   Window/*, Bytes/*   tree work of the sensors window and of index keys (SlidingWindow.swift)
//
// Files live under /tmp/strata-bench-<pid>; each benchmark's fixture is built in its setup
// closure and torn down after.
//
// STRATA_BENCH_QUICK=1 runs every benchmark for a few iterations only: CI uses it to check that
// each one still runs (package-benchmark's exit status stays 0 when a benchmark throws, so CI
// reads the output); its figures mean nothing.

import Benchmark
import Foundation
import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

let benchDir: String = {
    let dir = "/tmp/strata-bench-\(getpid())"
    mkdir(dir, 0o755)
    return dir
}()

let benchKey: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }

func freshPath(_ name: String) -> String {
    let path = benchDir + "/" + name
    try? StorageFile.deleteFiles(path: path)
    return path
}

/// Fixtures shared between a benchmark's setup and body. Benchmarks run one at a time, so the
/// unsynchronised global is never accessed concurrently.
final class Fixture: @unchecked Sendable {
    var file: StorageFile?
    var tree = KeyedTree()
    var list = PositionalTree()
    var nextKey: UInt64 = 0
    var path = ""
    /// Pages written by a fixture's setup (read back by the cold-read benchmark).
    var pages: [PageRef] = []
    var keys = 0
}
let fixture = Fixture()

let value64 = [UInt8](repeating: 0x5A, count: 64)

let quickMode = ProcessInfo.processInfo.environment["STRATA_BENCH_QUICK"] == "1"

/// A benchmark configuration; in quick mode a handful of iterations whatever the arguments.
func configuration(metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal, .syscalls],
                   maxDuration: Duration, maxIterations: Int) -> Benchmark.Configuration {
    quickMode
        ? .init(metrics: metrics, warmupIterations: 1, maxDuration: .milliseconds(50), maxIterations: 3)
        : .init(metrics: metrics, warmupIterations: 10, maxDuration: maxDuration, maxIterations: maxIterations)
}

func openFixture(_ name: String, _ durability: Durability, key: [UInt8]? = nil) throws {
    fixture.path = freshPath(name)
    fixture.file = try StorageFile.open(StorageOptions(path: fixture.path, durability: durability, encryptionKey: key))
    fixture.tree = KeyedTree()
    fixture.nextKey = 0
    fixture.pages = []
}

func closeFixture() {
    fixture.file?.close()
    fixture.file = nil
    if !fixture.path.isEmpty { try? StorageFile.deleteFiles(path: fixture.path) }
}

/// One write transaction putting `count` 64-byte values under increasing keys.
func putBatch(_ count: Int, packing: Bool = false) throws {
    guard let file = fixture.file else { return }
    let txn = try file.beginWrite()
    var tree = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: txn.roots[0])))
    try value64.withUnsafeBytes { raw in
        for _ in 0..<count {
            try tree.put(fixture.nextKey, raw, packing: packing, in: txn)
            fixture.nextKey += 1
        }
    }
    txn.roots[0] = UInt64(tree.root.raw)
    try txn.commit()
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = configuration(maxDuration: .seconds(2), maxIterations: 20_000)

    Benchmark("Commit/empty (unsafe)") { benchmark in
        guard let file = fixture.file else { return }
        for _ in benchmark.scaledIterations {
            let txn = try file.beginWrite()
            try txn.commit()
        }
    } setup: { try openFixture("empty", .unsafe) } teardown: { closeFixture() }

    for (name, durability, key) in [("full", Durability.full, nil), ("unsafe", .unsafe, nil), ("memOnly", .memOnly, nil),
                                    ("full encrypted", .full, benchKey), ("unsafe encrypted", .unsafe, benchKey)]
                                    as [(String, Durability, [UInt8]?)] {
        Benchmark("Commit/small put (\(name))") { benchmark in
            for _ in benchmark.scaledIterations { try putBatch(1) }
        } setup: { try openFixture("small-\(durability)", durability, key: key) } teardown: { closeFixture() }
    }

    for (name, key) in [("plain", nil), ("encrypted", benchKey)] as [(String, [UInt8]?)] {
        Benchmark("Batch/1000 puts (unsafe, \(name))",
                  configuration: configuration(maxDuration: .seconds(3), maxIterations: 2_000)) { benchmark in
            for _ in benchmark.scaledIterations { try putBatch(1000) }
        } setup: { try openFixture("batch-\(name)", .unsafe, key: key) } teardown: { closeFixture() }
    }

    // The same appends into packed leaves (PackedLeaf.swift): each put writes the value's
    // stored planes into its leaf's columns instead of a cell.
    Benchmark("Batch/1000 puts (unsafe, packed)",
              configuration: configuration(maxDuration: .seconds(3), maxIterations: 2_000)) { benchmark in
        for _ in benchmark.scaledIterations { try putBatch(1000, packing: true) }
    } setup: { try openFixture("batch-packed", .unsafe) } teardown: { closeFixture() }

    Benchmark("Positional/append+removeFirst at 10k (memOnly)") { benchmark in
        guard let file = fixture.file else { return }
        var txn = try file.beginWrite()
        var list = fixture.list
        var done = 0
        for _ in benchmark.scaledIterations {
            try list.appendUInt64(UInt64(done), in: txn)
            try list.removeFirst(1, in: txn)
            done += 1
            if done % 1000 == 0 {
                txn.roots[1] = UInt64(list.root.raw)
                try txn.commit()
                txn = try file.beginWrite()
            }
        }
        txn.roots[1] = UInt64(list.root.raw)
        try txn.commit()
        fixture.list = list
    } setup: {
        try openFixture("positional", .memOnly)
        guard let file = fixture.file else { return }
        let txn = try file.beginWrite()
        var list = PositionalTree()
        for i in 0..<10_000 { try list.appendUInt64(UInt64(i), in: txn) }
        txn.roots[1] = UInt64(list.root.raw)
        try txn.commit()
        fixture.list = list
    } teardown: { closeFixture() }

    Benchmark("Keyed/random lookup in 1M (unsafe file)") { benchmark in
        guard let file = fixture.file else { return }
        let reader = try file.beginRead()
        let tree = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: reader.roots[0])))
        var generator = SystemRandomNumberGenerator()
        var sum = 0
        for _ in benchmark.scaledIterations {
            let key = UInt64.random(in: 0..<1_000_000, using: &generator)
            sum &+= try tree.withValue(forKey: key, in: reader) { $0.count } ?? 0
        }
        blackHole(sum)
        reader.end()
    } setup: {
        try openFixture("lookup", .unsafe)
        for _ in 0..<100 { try putBatch(10_000) }
    } teardown: { closeFixture() }

    for (name, key) in [("plain", nil), ("encrypted", benchKey)] as [(String, [UInt8]?)] {
        Benchmark("Pages/write 100 pages + commit (unsafe, \(name))") { benchmark in
            guard let file = fixture.file else { return }
            for _ in benchmark.scaledIterations {
                // Frees the previous iteration's 100 pages, so that the file reaches a steady size
                // and each commit reuses pages (freeing only the 8 the roots name grew the file by
                // 92 pages per commit: the encrypted case then measured growth, not writing).
                let txn = try file.beginWrite()
                for ref in fixture.pages { txn.freePage(ref) }
                fixture.pages.removeAll(keepingCapacity: true)
                for i in 0..<100 {
                    let (ref, payload) = try txn.allocatePage()
                    payload.storeBytes(of: UInt64(i), toByteOffset: 8, as: UInt64.self)
                    if i < 8 { txn.roots[i] = UInt64(ref.raw) }
                    fixture.pages.append(ref)
                }
                try txn.commit()
            }
        } setup: { try openFixture("pages-w-\(name)", .unsafe, key: key) } teardown: { closeFixture() }

        Benchmark("Pages/open + cold read 1000 pages (\(name))",
                  configuration: configuration(maxDuration: .seconds(2), maxIterations: 500)) { benchmark in
            for _ in benchmark.scaledIterations {
                let file = try StorageFile.open(StorageOptions(path: fixture.path, encryptionKey: key))
                let reader = try file.beginRead()
                var sum: UInt64 = 0
                for ref in fixture.pages { sum &+= try reader.readPage(ref).loadUnaligned(fromByteOffset: 8, as: UInt64.self) }
                blackHole(sum)
                reader.end()
                file.close()
            }
        } setup: {
            try openFixture("pages-r-\(name)", .unsafe, key: key)
            guard let file = fixture.file else { return }
            let txn = try file.beginWrite()
            fixture.pages = []
            for i in 0..<1000 {
                let (ref, payload) = try txn.allocatePage()
                payload.storeBytes(of: UInt64(i), toByteOffset: 8, as: UInt64.self)
                fixture.pages.append(ref)
            }
            try txn.commit()
            file.close()
            fixture.file = nil
        } teardown: { closeFixture() }
    }

    registerTreeWorkBenchmarks()
}
