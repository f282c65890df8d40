// Realm.storageStatistics: the work commits did on the realm's file, counted rather than timed.
//
// Read-only and safe from any thread (the counters are atomic): a benchmark reads it before and
// after a phase and divides the difference by the transactions it made. The figures cover every
// realm of the same file in this process (they share the file), not other processes.

import StrataStorage

extension Realm {
    /// Counters of the work this process's commits did on the realm's file since it was opened:
    /// `commits`, `pagesWritten`, `bytesWritten`, `flushes`, `writeCalls` (the storage layer's
    /// own counters, shown as they are). In-memory realms count the pages a commit built and
    /// write no bytes, flushes or write calls.
    public typealias StorageStatistics = StrataStorage.StorageStatistics

    /// The work this process's commits did on the realm's file since it was opened. A compaction
    /// replaces the file and starts the counters again from zero.
    ///
    /// ```swift
    /// let before = realm.storageStatistics
    /// try realm.write { realm.add(reading) }
    /// let pagesPerCommit = realm.storageStatistics.pagesWritten - before.pagesWritten
    /// ```
    public var storageStatistics: StorageStatistics { core.file.statistics }
}
