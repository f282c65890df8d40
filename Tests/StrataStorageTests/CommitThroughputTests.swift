// Group commit on the real disk, without injected delays: 1 writer thread against 8, each commit
// `.full`. It checks only what cannot depend on timing: every commit is durable and counted, a
// single writer makes one flush per commit, and 8 writers make fewer flushes than commits. How
// fast they are is the harness's to measure (`strata-bench run --strategy threads --strategy
// dedicated --durability full`), and `strata-storage-probe bench-commit` times the storage layer
// alone in release.

import Foundation
import Testing
import StrataStorage

@Suite("Commit throughput", .serialized)
struct CommitThroughputTests {
    /// Commits `perThread` small transactions (one 1-page record) on each of `threads` threads;
    /// returns the flushes they made.
    func run(threads: Int, perThread: Int, path: String) throws -> (flushes: Int, commits: Int) {
        let file = try StorageFile.open(StorageOptions(path: path, durability: .full))
        defer { file.close() }
        let tally = ThreadTally()
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
        let reader = try file.beginRead()
        #expect(reader.roots[1] == UInt64(threads * perThread))
        reader.end()
        return (flushes, threads * perThread)
    }

    @Test func eightWritersShareFlushes() throws {
        let dir = TemporaryDirectory()
        let commits = 800
        let single = try run(threads: 1, perThread: commits, path: dir.file("one.strata"))
        let eight = try run(threads: 8, perThread: commits / 8, path: dir.file("eight.strata"))
        #expect(single.flushes == commits)
        #expect(eight.flushes < commits)
    }
}
