// What `StrataFile.storage()` and `treeStatistics()` report: the file's pages, free space, held
// pages, readers and tree shapes, as Strata's own types. The page file's inspection types stay in
// StrataStorage; these are copies of their figures, so a program (the `strata` tool among them)
// that reads a file through Strata never names a storage-layer type.
//
// Invariants:
// - Every figure is the storage layer's, copied unchanged at the one place each type is made
//   (`init(_:)` below); nothing here recomputes or rounds.
// - `accounting.balances` holds exactly when the storage layer's accounting balances.
import StrataStorage

extension StrataFile {
    /// The state of the file at its newest version: pages by use, free and held runs, the
    /// processes that have it open.
    public struct Storage: Sendable {
        /// The page-file format version (the meta slot's format).
        public var formatVersion: Int
        public var pageSize: Int
        public var isEncrypted: Bool
        /// The newest committed version (the one inspected).
        public var version: UInt64
        /// The version the durability record names as flushed.
        public var durableVersion: UInt64
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
        /// Other handles (in this process or another) with the file open.
        public var readers: [OpenReader]

        public var totalBytes: Int { accounting.totalPages * pageSize }
        /// Meta and reachable pages: what a compaction keeps.
        public var usedBytes: Int { (accounting.metaPages + accounting.reachablePages) * pageSize }
        public var freeBytes: Int { accounting.freePages * pageSize }
        public var heldBytes: Int { accounting.heldForReaderPages * pageSize }

        init(_ s: StorageInspection) {
            formatVersion = s.formatVersion
            pageSize = s.pageSize
            isEncrypted = s.isEncrypted
            version = s.version
            durableVersion = s.durableVersion
            accounting = PageAccounting(s.accounting)
            freeRuns = s.freeRuns.map { PageRun(start: $0.start, count: $0.count) }
            heldRuns = s.heldRuns.map { HeldPages(start: $0.start, count: $0.count, writtenBy: $0.writtenBy, freedBy: $0.freedBy) }
            preallocatedPages = s.preallocatedPages
            pagerPages = s.pagerPages
            readers = s.readers.map { OpenReader(processID: $0.processID, versions: $0.versions) }
        }
    }

    /// Page accounting of one moment: meta + reachable + held for readers + free == total.
    public struct PageAccounting: Hashable, Sendable {
        public var totalPages: Int
        public var reachablePages: Int
        public var heldForReaderPages: Int
        public var freePages: Int
        public var metaPages: Int
        public var balances: Bool { metaPages + reachablePages + heldForReaderPages + freePages == totalPages }

        init(_ a: StrataStorage.PageAccounting) {
            totalPages = a.totalPages
            reachablePages = a.reachablePages
            heldForReaderPages = a.heldForReaderPages
            freePages = a.freePages
            metaPages = a.metaPages
        }
    }

    /// Pages of the file, as a run.
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

    /// A handle (this process's or another's) that has the file open, from the lock file.
    public struct OpenReader: Hashable, Sendable {
        public var processID: Int
        /// Versions it pins (ranges; empty when it has the file open but reads nothing now).
        public var versions: [ClosedRange<UInt64>]
    }

    /// The shape of one tree, or of several added together.
    public struct TreeStatistics: Hashable, Sendable {
        /// Levels of nodes from the root to the leaves (0 for an empty tree).
        public var depth = 0
        public var branchPages = 0
        public var leafPages = 0
        /// Pages of large values stored outside their leaf.
        public var overflowPages = 0
        /// Values stored in overflow pages (each is one chain).
        public var overflowValues = 0
        /// Entries in the leaves.
        public var entries = 0
        /// Bytes the leaves' entries take, headers and slots included.
        public var leafBytes = 0

        public init() {}

        init(_ s: StrataStorage.TreeStatistics) {
            depth = s.depth
            branchPages = s.branchPages
            leafPages = s.leafPages
            overflowPages = s.overflowPages
            overflowValues = s.overflowValues
            entries = s.entries
            leafBytes = s.leafBytes
        }

        public var pages: Int { branchPages + leafPages + overflowPages }

        /// Mean fill of the leaves, 0…1 (0 for an empty tree).
        public var leafFill: Double {
            leafPages == 0 ? 0 : Double(leafBytes) / Double(leafPages * PageLayout.payloadSize)
        }

        /// Adds another tree's figures (depth: the deeper of the two).
        public mutating func add(_ other: TreeStatistics) {
            depth = max(depth, other.depth)
            branchPages += other.branchPages
            leafPages += other.leafPages
            overflowPages += other.overflowPages
            overflowValues += other.overflowValues
            entries += other.entries
            leafBytes += other.leafBytes
        }
    }
}
