// What a page file holds, read without writing to it: for the `strata` tool's `info`, `stat` and
// `verify`, which open files read-only.
//
// Like `verify()`, inspection holds the writer lock while it walks, so that the free space it
// reads (loaded from the newest version's meta) stays that version's; unlike `verify()` it takes
// the lock on a read-only handle too (the lock lives in the lock file, never in the data file).
//
// Invariants:
// - The accounting describes exactly the newest version, with its own free space.
// - Nothing is written to the data file; a read-only handle cannot (its descriptor is O_RDONLY).

#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Pages of the file, as runs.
public struct PageRun: Hashable, Sendable {
    public var start: Int
    public var count: Int
}

/// Pages freed by a commit but kept because a reader may still need them.
public struct HeldPages: Hashable, Sendable {
    public var start: Int
    public var count: Int
    /// The version that wrote these pages.
    public var writtenBy: UInt64
    /// The version that stopped using them; they return to the free space once no live reader
    /// pins a version in `writtenBy..<freedBy`.
    public var freedBy: UInt64
}

/// Another core (this process or another) that has the file open, from the lock file.
public struct OpenReader: Hashable, Sendable {
    public var processID: Int
    /// Versions it pins (ranges; empty when it has the file open but reads nothing now).
    public var versions: [ClosedRange<UInt64>]
}

/// The state of a page file at one version, as the `strata` tool reports it.
public struct StorageInspection: Sendable {
    /// The page-file format version of the newest version's meta slot (an older format this
    /// build reads until the next commit rewrites it).
    public var formatVersion: Int
    public var pageSize: Int
    public var isEncrypted: Bool
    /// The newest committed version (the one inspected).
    public var version: UInt64
    /// The version the durability record names as flushed.
    public var durableVersion: UInt64
    /// The user roots of the inspected version (the object layer's catalog lives there).
    public var roots: UserRoots
    /// Every page: meta, reachable, held for readers, free.
    public var accounting: PageAccounting
    /// Free pages by run (reusable now), ascending; pages past the high-water mark not included.
    public var freeRuns: [PageRun]
    /// Pages held for live readers, by run.
    public var heldRuns: [HeldPages]
    /// Pages allocated on disk beyond the high-water mark (preallocated growth, never written).
    public var preallocatedPages: Int
    /// Reachable pages that belong to the pager itself (free-list and commit-record pages); the
    /// rest of the reachable pages are the trees'.
    public var pagerPages: Int
    /// Other cores with the file open.
    public var readers: [OpenReader]

    public var totalBytes: Int { accounting.totalPages * pageSize }
    /// Meta and reachable pages: what a compaction keeps.
    public var usedBytes: Int { (accounting.metaPages + accounting.reachablePages) * pageSize }
    public var freeBytes: Int { accounting.freePages * pageSize }
    public var heldBytes: Int { accounting.heldForReaderPages * pageSize }
}

extension StorageFile {
    /// The state of the newest version, without writing to the file; works on read-only handles.
    /// Walks every page of the version (through the registered relocator or walker) and checks
    /// the accounting, so it throws `.corruptFile` where `verify()` would.
    ///
    /// - Parameter patience: how long to wait for a write transaction open elsewhere (in this
    ///   or another process) to end, in seconds; past it, `.fileInUse`.
    public func inspect(patience: Double = 5) throws -> StorageInspection {
        try core.inspect(patience: patience)
    }

    /// The other cores (this process's other handles included) that have the file open, from
    /// the lock file; cheap, unlike `inspect()`.
    public func openReaders() -> [OpenReader] {
        (core.lockFile?.liveReaders() ?? []).map { OpenReader(processID: $0.pid, versions: $0.versions) }
    }
}

extension FileCore {
    func inspect(patience: Double) throws(StorageError) -> StorageInspection {
        guard fd >= 0 else {
            throw StorageError(.invalidArgument, "an in-memory file has no pages to inspect", path: path)
        }
        // A tool must not hang behind a write left open elsewhere: try, then give up with a cause.
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, patience) * 1e9)
        while true {
            do {
                _ = try acquireWriter(waiting: false, toRead: true)
                break
            } catch where error.code == .fileInUse && DispatchTime.now().uptimeNanoseconds < deadline {
                usleep(10_000)
            } catch where error.code == .fileInUse {
                throw StorageError(.fileInUse, "a write transaction stayed open elsewhere for \(patience) s; inspect again once it ends", path: path)
            }
        }
        defer { releaseWriter() }
        return try inspectWriterState(of: try currentVersion())
    }

    private func inspectWriterState(of version: CommittedVersion) throws(StorageError) -> StorageInspection {
        let accounting = try accounting(of: version)
        let meta = lock.withLock { latestMeta }
        return StorageInspection(
            formatVersion: Int(meta.format),
            pageSize: PageLayout.pageSize,
            isEncrypted: cipher != nil,
            version: version.version,
            durableVersion: max(recordedDurableVersion, meta.version == version.version ? meta.durableBase : 0),
            roots: version.roots,
            accounting: accounting,
            freeRuns: freeSpace.reusable.map { PageRun(start: Int($0.start), count: Int($0.count)) },
            heldRuns: freeSpace.held.map {
                HeldPages(start: Int($0.start), count: Int($0.count), writtenBy: $0.allocVersion, freedBy: $0.freeVersion)
            },
            preallocatedPages: max(0, fileSizePages - Int(version.pageCount)),
            pagerPages: freeListPages.count + overflowPages.count,
            readers: (lockFile?.liveReaders() ?? []).map { OpenReader(processID: $0.pid, versions: $0.versions) })
    }
}
