// The public value types of the page file: durability, open options, user roots, sizes, accounting.
//
// Invariants:
// - `UserRoots` always has exactly `UserRoots.count` words (they are stored in a fixed-size area
//   of the meta slot).
// - `PageAccounting.balances` is the property `StorageFile.verify()` checks: every page of the
//   file is meta, reachable from the newest version, held for an older live version, or free.

/// How hard a commit tries to reach the disk.
public enum Durability: String, Sendable, CaseIterable {
    /// A commit is durable when it returns (one flush; concurrent committers may share it).
    case full
    /// No flush: a process crash loses nothing committed. After an OS crash or power loss the
    /// newest commits may be lost; a torn commit is detected by its commit record and skipped, but
    /// because nothing orders writes, the previous version may itself be damaged, in which case
    /// open reports `.corruptFile` rather than wrong data (as LMDB's MDB_NOSYNC).
    case unsafe
    /// Nothing touches disk; the data lives while a handle to it is open.
    case memOnly
}

/// How to open a page file.
public struct StorageOptions: Sendable {
    /// The file. For `.memOnly` it is only an identifier: handles with the same one share data.
    public var path: String
    public var durability: Durability
    /// 64 bytes, or nil for a plain file.
    public var encryptionKey: [UInt8]?
    public var readOnly: Bool
    /// Open fails with `.notFound` instead of creating the file.
    public var mustExist: Bool
    /// Beyond this many live versions (pinned by readers), beginning a read throws
    /// `.tooManyActiveVersions`. nil: unlimited.
    public var maximumActiveVersions: Int?
    /// How much of the file the first open in a process verifies before the file is used.
    public var openVerification: OpenVerification
    /// When the version the file recorded as durable no longer verifies (damage after the fact),
    /// open the newest older version that does instead of failing with `.corruptFile`. What the
    /// newer versions held is then given up: an explicit recovery, never a default.
    public var recoversToLastIntactVersion: Bool
    /// Seal encrypted pages whole, as builds of storage format 5 did (PageCipher.swift). Only for
    /// the tests that make such a file to show it is still read; not part of the public options.
    var sealsPagesWhole = false

    public init(path: String, durability: Durability = .full, encryptionKey: [UInt8]? = nil,
                readOnly: Bool = false, mustExist: Bool = false, maximumActiveVersions: Int? = nil,
                openVerification: OpenVerification = .default, recoversToLastIntactVersion: Bool = false) {
        self.path = path
        self.durability = durability
        self.encryptionKey = encryptionKey
        self.readOnly = readOnly
        self.mustExist = mustExist
        self.maximumActiveVersions = maximumActiveVersions
        self.openVerification = openVerification
        self.recoversToLastIntactVersion = recoversToLastIntactVersion
    }
}

/// What `open` verifies before a file is used (FileOpen.swift). A page open does not verify is
/// verified when a read first touches it; then damage surfaces at that read instead of at open.
public enum OpenVerification: Sendable, Equatable {
    /// Every stored page of the newest version: checksum and page number, or AES-GCM tag.
    case allPages
    /// Every stored page when the version's pages total at most `bytes`; beyond that only the
    /// pages of the commits open already checks (the newest ones).
    case allPagesUpTo(bytes: Int)
    /// Only the pages the newest commits wrote (their commit records), as every open checks.
    case newestCommitsOnly

    /// Every stored page of files up to 256 MiB. Measured with `strata-storage-probe bench-open`
    /// (68 MB file, medians of 7): plain 2.0–2.3 GB/s from the page cache, 0.7 GB/s cold;
    /// encrypted 0.76–0.82 GB/s. So the first open of a 256 MiB file spends ~0.1 s (plain) to
    /// ~0.35 s (encrypted) verifying; larger files are verified as reads touch their pages.
    public static let `default` = OpenVerification.allPagesUpTo(bytes: 256 << 20)

    func coversAllPages(ofBytes bytes: Int) -> Bool {
        switch self {
        case .allPages: true
        case .allPagesUpTo(let limit): bytes <= limit
        case .newestCommitsOnly: false
        }
    }
}

/// Eight 64-bit words stored in every meta slot for the layer above (the object layer keeps
/// its catalog root, schema root and schema version here), plus up to `maxDataSize` bytes of
/// opaque `data` (the object layer keeps its table roots there, so a commit that only moves a
/// tree root rewrites no catalog page). Committed atomically with the pages, in the meta itself.
public struct UserRoots: Hashable, Sendable {
    public static let count = 8
    /// The most bytes `data` may hold; a commit with more throws `.tooLarge`.
    public static let maxDataSize = 1024
    public var words: [UInt64]
    /// Opaque bytes committed with the words (empty by default and in format-1 files).
    public var data: [UInt8]

    public init() {
        words = UserRoots.zeroWords
        data = []
    }

    // Shared, so that a default value (every commit's meta starts from one) allocates nothing
    // until a word is set.
    private static let zeroWords = [UInt64](repeating: 0, count: UserRoots.count)

    public subscript(_ index: Int) -> UInt64 {
        get { words[index] }
        set { words[index] = newValue }
    }
}

/// Sizes that feed `shouldCompactOnLaunch(totalBytes, usedBytes)`.
public struct FileSizes: Hashable, Sendable {
    /// Bytes of the file on disk.
    public var totalBytes: Int
    /// Bytes of pages reachable from the newest version (plus meta).
    public var usedBytes: Int
}

/// Page accounting of one moment: reachable + heldForReaders + free == total.
public struct PageAccounting: Hashable, Sendable {
    public var totalPages: Int
    public var reachablePages: Int
    public var heldForReaderPages: Int
    public var freePages: Int
    public var metaPages: Int
    public var balances: Bool { metaPages + reachablePages + heldForReaderPages + freePages == totalPages }
}

/// What one commit did; returned by `WriteTransaction.commitWithStatistics()`.
public struct CommitStatistics: Hashable, Sendable {
    public var version: UInt64
    /// Pages written (tree pages, free-list pages, commit-record pages).
    public var pagesWritten: Int
    /// Contiguous runs among the pages written (each one pwritev; the meta slot not counted).
    /// Extent allocation keeps a small commit at one run.
    public var dataRuns: Int = 0
    /// fdatasync calls made by this commit (0 under `.unsafe`/`.memOnly`, 0 or 1 under `.full`).
    public var flushes: Int
}
