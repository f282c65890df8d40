// Release-build measurements of the page file, run as `strata-storage-probe bench-… <dir> …`
// (see `runBenchmark`). Not a test: it prints figures. It lives in the probe because the probe is
// a small executable of this package, so `swift build -c release --product strata-storage-probe`
// builds it without the package-benchmark toolchain.
//
// Commands:
//   bench-commit <dir> <threads> <commitsPerThread> <durability> <plain|encrypted> [pages [pinned]]
//       `threads` threads each run `commitsPerThread` write transactions that replace a small
//       generation (a directory page + `pages` data pages, like one small tree put); prints txn/s,
//       flushes and µs per commit. `pinned` keeps a read transaction open (the file then grows).
//   bench-copy <dir> <megabytes> <plain|encrypted>
//       fills a file with `megabytes` of live values in one keyed tree (overflow chains) under
//       `.unsafe`, then times writeCopy (the compaction path: dense rewrite + one fsync) and
//       prints MB/s of live data.
//   bench-open <dir> <megabytes> <plain|encrypted> [rounds] [cold]
//       fills a file like bench-copy, then opens it `rounds` times with open verification of
//       every stored page and without it, interleaved (OpenBench.swift): the cost of verifying at
//       open, in MB/s of file. `cold` drops the page cache before each open (needs root).
//   bench-fsync <dir> <count> [spin] [pages=N] [scatter]
//       the disk's floor: the write pattern of a small commit + fdatasync, raw (FsyncBench.swift).
//   bench-log <dir> <rounds> [pages=N] [record=R] [checkpoint=K]
//       the floor, a copy-on-write commit's writes and a commit that flushes only an R-page log
//       record, taken in turn (LogRecordBench.swift).
//   bench-freelist <dir> <runs> <commits> <full|unsafe>
//       small commits on a file whose free space is `runs` one-page runs (FreeListBench.swift).
//   bench-aead <count>
//       per-page AES-256-GCM cost, public swift-crypto API vs BoringSSL direct (AEADBench.swift).
//   bench-checksum [count]
//       per-page checksum candidates: XXH64 vs GMAC (ChecksumBench.swift).

import Foundation
import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

func monotonicSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

let benchKey: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }

func benchFile(_ dir: String, _ name: String, durability: Durability, encrypted: Bool) throws -> StorageFile {
    let path = dir + "/" + name
    try? StorageFile.deleteFiles(path: path)
    return try StorageFile.open(StorageOptions(path: path, durability: durability,
                                               encryptionKey: encrypted ? benchKey : nil))
}

/// Mutable counters shared by the benchmark threads.
final class BenchCounters: @unchecked Sendable {
    // @unchecked: every field is read and written under `lock`.
    let lock = NSLock()
    var flushes = 0
    var failure: String?
}

func benchCommit(dir: String, threads: Int, perThread: Int, durability: Durability, encrypted: Bool, pages: Int,
                 pinned: Bool) throws {
    let file = try benchFile(dir, "bench-commit.strata", durability: durability, encrypted: encrypted)
    defer { file.close() }
    // With a pinned reader (the object layer's live snapshot) no freed page is reused: every
    // commit writes new pages at the end of a growing file.
    let pin = pinned ? try file.beginRead() : nil
    defer { pin?.end() }
    // Warm up: the file grows to its working size once.
    for _ in 0..<50 {
        let txn = try file.beginWrite()
        try writeGeneration(txn, value: txn.roots[1] + 1, pages: pages)
        try txn.commit()
    }
    let counters = BenchCounters()
    let group = DispatchGroup()
    let start = monotonicSeconds()
    for _ in 0..<threads {
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            var flushes = 0
            do {
                for _ in 0..<perThread {
                    let txn = try file.beginWrite()
                    try writeGeneration(txn, value: txn.roots[1] + 1, pages: pages)
                    flushes += try txn.commitWithStatistics().flushes
                }
            } catch {
                counters.lock.withLock { counters.failure = "\(error)" }
            }
            counters.lock.withLock { counters.flushes += flushes }
        }
    }
    group.wait()
    let elapsed = monotonicSeconds() - start
    if let failure = counters.failure { throw StorageError(.io, "benchmark thread failed: \(failure)") }
    let total = threads * perThread
    say(String(format: "commit %@ %@%@ threads=%d pages=%d: %d txn in %.3f s = %.0f txn/s, %.1f µs/txn, %d flushes (%.2f txn/flush)",
               durability.rawValue, encrypted ? "encrypted" : "plain", pinned ? " pinned" : "", threads, pages + 1, total, elapsed,
               Double(total) / elapsed, elapsed / Double(total) * 1e6, counters.flushes,
               Double(total) / Double(max(1, counters.flushes))))
}

func benchCopy(dir: String, megabytes: Int, encrypted: Bool) throws {
    let file = try benchFile(dir, "bench-copy.strata", durability: .unsafe, encrypted: encrypted)
    defer { file.close() }
    file.setRelocator(LiveTreeRelocator())
    try fillLiveTree(file, megabytes: megabytes)
    let copy = dir + "/bench-copy-out.strata"
    unlink(copy)
    let start = monotonicSeconds()
    try file.writeCopy(toPath: copy, encryptionKey: encrypted ? benchKey : nil)
    let elapsed = monotonicSeconds() - start
    var info = stat()
    stat(copy, &info)
    unlink(copy)
    say(String(format: "writeCopy %@ %d MiB live: %.1f ms = %.0f MB/s (copy %lld bytes)",
               encrypted ? "encrypted" : "plain", megabytes, elapsed * 1e3,
               Double(megabytes) * 1.048576 / elapsed, Int64(info.st_size)))
}

/// The one keyed tree `fillLiveTree` writes (root word 2), whose values hold no page references.
struct LiveTreeRelocator: PageRelocating {
    struct Plan: RelocationPlan {
        var rootTrees: [(word: Int, role: TreeRole)] { [(2, TreeRole(kind: 1))] }
        func valueReferences(for role: TreeRole) -> ValueReferences { .none }
        func embeddedRoots(inValue value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                           role: TreeRole) throws -> [EmbeddedRoot] { [] }
    }
    func plan(for roots: UserRoots, in pages: any PageReading) throws -> any RelocationPlan { Plan() }
}

/// Commits `megabytes` of live values, 64 KiB each (overflow chains), into one keyed tree at
/// root word 2, 16 values per transaction.
func fillLiveTree(_ file: StorageFile, megabytes: Int) throws {
    let valueSize = 64 << 10
    var value = [UInt8](repeating: 0, count: valueSize)
    var key: UInt64 = 0
    while key < UInt64(megabytes * 16) {
        let txn = try file.beginWrite()
        var tree = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: txn.roots[2])))
        for _ in 0..<16 where key < UInt64(megabytes * 16) {
            for i in stride(from: 0, to: valueSize, by: 8) {
                value.withUnsafeMutableBytes { $0.storeBytes(of: key &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(i), toByteOffset: i, as: UInt64.self) }
            }
            _ = try value.withUnsafeBytes { try tree.put(key, $0, in: txn) }
            key += 1
        }
        txn.roots[2] = UInt64(tree.root.raw)
        try txn.commit()
    }
}

/// Commits `megabytes` of live pages (every generation kept live by chaining directory pages).
func fillLivePages(_ file: StorageFile, megabytes: Int) throws {
    let pageCount = megabytes * 1024 * 1024 / PageLayout.pageSize
    var written = 0
    var directories: [UInt64] = []
    while written < pageCount {
        // Directory pages hold ≤ 1000 refs; keep every generation live by chaining roots.
        let txn = try file.beginWrite()
        let batch = min(1000, pageCount - written)
        let (directory, dirPayload) = try txn.allocatePage()
        dirPayload.storeBytes(of: UInt32(batch), toByteOffset: 8, as: UInt32.self)
        for i in 0..<batch {
            let (ref, payload) = try txn.allocatePage()
            payload.storeBytes(of: UInt64(written + i), toByteOffset: 8, as: UInt64.self)
            dirPayload.storeBytes(of: ref.raw, toByteOffset: 16 + 4 * i, as: UInt32.self)
        }
        directories.append(UInt64(directory.raw))
        txn.roots[2] = UInt64(directory.raw)
        try txn.commit()
        written += batch
    }
}

/// Returns nil when `command` is not a benchmark command.
func runBenchmark(_ args: [String]) throws -> Int32? {
    switch args[1] {
    case "bench-commit":
        guard args.count >= 7, let threads = Int(args[3]), let perThread = Int(args[4]),
              let durability = Durability(rawValue: args[5]) else {
            say("usage: bench-commit <dir> <threads> <commitsPerThread> <full|unsafe|memOnly> <plain|encrypted> [pages]")
            return 64
        }
        let pages = args.count > 7 ? Int(args[7]) ?? 1 : 1
        try benchCommit(dir: args[2], threads: threads, perThread: perThread, durability: durability,
                        encrypted: args[6] == "encrypted", pages: pages, pinned: args.count > 8 && args[8] == "pinned")
        return 0
    case "bench-copy":
        guard args.count >= 5, let megabytes = Int(args[3]) else {
            say("usage: bench-copy <dir> <megabytes> <plain|encrypted>")
            return 64
        }
        try benchCopy(dir: args[2], megabytes: megabytes, encrypted: args[4] == "encrypted")
        return 0
    case "bench-fsync":
        guard args.count >= 4, let count = Int(args[3]), count > 0 else {
            say("usage: bench-fsync <dir> <count> [spin] [pages=N] [scatter]")
            return 64
        }
        let options = args.dropFirst(4)
        let pages = options.compactMap { $0.hasPrefix("pages=") ? Int($0.dropFirst(6)) : nil }.last ?? 2
        try benchFsync(dir: args[2], count: count, spin: options.contains("spin"), pages: max(1, min(pages, 64)),
                       scatter: options.contains("scatter"))
        return 0
    case "bench-log":
        guard args.count >= 4, let rounds = Int(args[3]), rounds > 0 else {
            say("usage: bench-log <dir> <rounds> [pages=N] [record=R] [checkpoint=K]")
            return 64
        }
        let options = args.dropFirst(4)
        func option(_ name: String, _ fallback: Int) -> Int {
            options.compactMap { $0.hasPrefix(name + "=") ? Int($0.dropFirst(name.count + 1)) : nil }.last ?? fallback
        }
        try benchLogRecord(dir: args[2], rounds: rounds, pages: max(1, min(option("pages", 6), 64)),
                           recordPages: max(1, min(option("record", 1), 64)), checkpointEvery: max(0, option("checkpoint", 256)))
        return 0
    case "bench-freelist":
        guard args.count >= 6, let runs = Int(args[3]), runs > 0, let commits = Int(args[4]), commits > 0,
              let durability = Durability(rawValue: args[5]) else {
            say("usage: bench-freelist <dir> <runs> <commits> <full|unsafe>")
            return 64
        }
        try benchFreeList(dir: args[2], runs: runs, commits: commits, durability: durability)
        return 0
    case "bench-open":
        guard args.count >= 5, let megabytes = Int(args[3]) else {
            say("usage: bench-open <dir> <megabytes> <plain|encrypted> [rounds] [cold]")
            return 64
        }
        try benchOpen(dir: args[2], megabytes: megabytes, encrypted: args[4] == "encrypted",
                      rounds: args.count > 5 ? Int(args[5]) ?? 5 : 5, cold: args.contains("cold"))
        return 0
    case "bench-aead":
        try benchAEAD(count: Int(args[2]) ?? 20_000)
        return 0
    case "bench-checksum":
        benchChecksum(count: args.count > 2 ? Int(args[2]) ?? 200_000 : 200_000)
        benchStripe(count: args.count > 2 ? Int(args[2]) ?? 200_000 : 200_000)
        return 0
    default:
        return nil
    }
}
