// Realm.storageStatistics: the work commits did on the realm's file, counted rather than timed.
//
// Read-only and safe from any thread (the counters are atomic): a benchmark reads it before and
// after a phase and divides the difference by the transactions it made. The figures cover every
// realm of the same file in this process (they share the file), not other processes.

import StrataStorage

extension Realm {
    /// Counters of the work this process's commits did on the realm's file since it was opened.
    public struct StorageStatistics: Hashable, Sendable {
        /// Transactions committed.
        public var commits: Int
        /// Pages written by commits (tree, free-list and commit-record pages; not the meta slot).
        /// In-memory realms count them too (the pages a commit built).
        public var pagesWritten: Int
        /// Bytes put into the file: commit pages, meta slots and the zeros of file growth, whether
        /// through write system calls or the file mapping. 0 for in-memory realms.
        public var bytesWritten: Int
        /// fdatasync/fsync calls on the file (0 without `durability: .full`).
        public var flushes: Int
        /// pwrite/pwritev system calls on the file (commits that go through the mapping make none).
        public var writeCalls: Int
    }

    /// The work this process's commits did on the realm's file since it was opened. A compaction
    /// replaces the file and starts the counters again from zero.
    public var storageStatistics: StorageStatistics {
        let figures = core.file.statistics
        return StorageStatistics(commits: figures.commits, pagesWritten: figures.pagesWritten,
                                 bytesWritten: figures.bytesWritten, flushes: figures.flushes,
                                 writeCalls: figures.writeCalls)
    }
}
