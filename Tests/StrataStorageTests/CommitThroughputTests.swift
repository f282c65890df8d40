// `.full` commit throughput, 1 writer thread vs 8 (group commit). Runs only when the environment
// variable STRATA_STORAGE_THROUGHPUT is set (it fsyncs a few thousand times and its figures
// belong to release builds: `strata-storage-probe bench-commit` is the release benchmark; this
// test is the in-suite check that group commit shares flushes on the real disk, without injected
// delays, and prints the rates it saw):
//   STRATA_STORAGE_THROUGHPUT=1 swift test --filter CommitThroughput
// It checks only what cannot depend on timing: every commit is durable and counted, a single
// writer makes one flush per commit, and 8 writers make fewer flushes than commits.

import Foundation
import Testing
import StrataStorage

@Suite("Commit throughput", .serialized,
       .enabled(if: ProcessInfo.processInfo.environment["STRATA_STORAGE_THROUGHPUT"] != nil))
struct CommitThroughputTests {
    /// Commits `perThread` small transactions (one 1-page record) on each of `threads` threads;
    /// returns (flushes, seconds).
    func run(threads: Int, perThread: Int, path: String) throws -> (flushes: Int, seconds: Double) {
        let file = try StorageFile.open(StorageOptions(path: path, durability: .full))
        defer { file.close() }
        let tally = ThreadTally()
        let start = Date()
        for _ in 0..<threads {
            Thread.detachNewThread {
                var made = 0
                var failure: String? = nil
                for _ in 0..<perThread where failure == nil {
                    do {
                        let txn = try file.beginWrite()
                        let (ref, payload) = try txn.allocatePage()
                        payload.storeBytes(of: txn.baseVersion, as: UInt64.self)
                        let old = PageRef(UInt32(truncatingIfNeeded: txn.roots[0]))
                        if !old.isNull { txn.freePage(old) }
                        txn.roots[0] = UInt64(ref.raw)
                        txn.roots[1] += 1
                        made += try txn.commitWithStatistics().flushes
                    } catch {
                        failure = "\(error)"
                    }
                }
                tally.record(made, failure)
            }
        }
        let (flushes, failures) = tally.wait(for: threads)
        #expect(failures.isEmpty)
        let seconds = Date().timeIntervalSince(start)
        let reader = try file.beginRead()
        #expect(reader.roots[1] == UInt64(threads * perThread))
        reader.end()
        return (flushes, seconds)
    }

    @Test func eightWritersShareFlushes() throws {
        let dir = TemporaryDirectory()
        let commits = 800
        let single = try run(threads: 1, perThread: commits, path: dir.file("one.strata"))
        let eight = try run(threads: 8, perThread: commits / 8, path: dir.file("eight.strata"))
        #expect(single.flushes == commits)
        #expect(eight.flushes < commits)
        print(String(format: "[throughput] .full 1 writer: %.0f txn/s (%d flushes); 8 writers: %.0f txn/s (%d flushes, %.2f txn/flush)",
                     Double(commits) / single.seconds, single.flushes, Double(commits) / eight.seconds,
                     eight.flushes, Double(commits) / Double(max(1, eight.flushes))))
    }
}
