// The work a file's commits did, counted where it happens: pages written by commits, bytes put
// into the file, flushes, write system calls. For benchmarks and regression gates, which judge
// this work exactly instead of timing it (a commit that writes one page more is a change even
// when no clock can see it).
//
// Invariants:
// - Counters only grow, from zero when the file is opened in this process; they count what this
//   process did through every handle of the file (handles share one core), not other processes.
// - `bytesWritten` counts every byte this process put into the file — commit pages, meta slots,
//   the durability record, the zeros of file growth — whether through a write system call or the writable mapping, so
//   the figure does not depend on which path a durability level takes. `writeCalls` counts the
//   system calls only (pwrite, pwritev), so the mapped path shows as fewer calls, not fewer bytes.
// - `flushes` counts every fdatasync/fsync the core makes on the file (group-commit leaders,
//   the ring's forced flush, a failed commit's slot invalidation, the last close's flush).
// - Relaxed atomics: each counter is exact; a snapshot taken while commits run may mix
//   counters of adjacent commits (benchmarks read it with no write in progress).

import Synchronization

/// Counters of the work one file's commits did in this process since it was opened.
public struct StorageStatistics: Hashable, Sendable {
    /// Transactions committed.
    public var commits: Int
    /// Pages written by commits (tree, free-list and commit-record pages; meta slots not counted).
    public var pagesWritten: Int
    /// Bytes put into the file: commit pages, meta slots, the durability record, growth zeros
    /// (write calls or mapping).
    public var bytesWritten: Int
    /// fdatasync/fsync calls on the file.
    public var flushes: Int
    /// pwrite/pwritev system calls on the file.
    public var writeCalls: Int

    public init(commits: Int = 0, pagesWritten: Int = 0, bytesWritten: Int = 0, flushes: Int = 0, writeCalls: Int = 0) {
        self.commits = commits
        self.pagesWritten = pagesWritten
        self.bytesWritten = bytesWritten
        self.flushes = flushes
        self.writeCalls = writeCalls
    }
}

/// The live counters behind `StorageStatistics`, one per open file (`FileCore.counters`).
final class StorageCounters: Sendable {
    private let commits = Atomic<Int>(0)
    private let pagesWritten = Atomic<Int>(0)
    private let bytesWritten = Atomic<Int>(0)
    private let flushes = Atomic<Int>(0)
    private let writeCalls = Atomic<Int>(0)

    func committed(pages: Int) {
        commits.add(1, ordering: .relaxed)
        pagesWritten.add(pages, ordering: .relaxed)
    }

    /// Bytes put into the file, through a system call (`calls` > 0) or the mapping (`calls` 0).
    func wrote(bytes: Int, calls: Int) {
        bytesWritten.add(bytes, ordering: .relaxed)
        if calls > 0 { writeCalls.add(calls, ordering: .relaxed) }
    }

    func flushed() {
        flushes.add(1, ordering: .relaxed)
    }

    func snapshot() -> StorageStatistics {
        StorageStatistics(commits: commits.load(ordering: .relaxed), pagesWritten: pagesWritten.load(ordering: .relaxed),
                          bytesWritten: bytesWritten.load(ordering: .relaxed), flushes: flushes.load(ordering: .relaxed),
                          writeCalls: writeCalls.load(ordering: .relaxed))
    }
}
