// STUB — the pager work replaces this file (and may split it) with the real page file.
// The public signatures here are the contract the object layer codes against.

/// How hard a commit tries to reach the disk.
public enum Durability: String, Sendable, CaseIterable {
    /// A commit is durable when it returns (one flush; concurrent committers may share it).
    case full
    /// No flush: a process crash loses nothing committed, an OS crash may lose recent commits
    /// but never leaves a partial one visible.
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

    public init(path: String, durability: Durability = .full, encryptionKey: [UInt8]? = nil,
                readOnly: Bool = false, mustExist: Bool = false, maximumActiveVersions: Int? = nil) {
        self.path = path
        self.durability = durability
        self.encryptionKey = encryptionKey
        self.readOnly = readOnly
        self.mustExist = mustExist
        self.maximumActiveVersions = maximumActiveVersions
    }
}

/// Eight 64-bit words stored in every meta slot for the layer above (the object layer keeps
/// its catalog root, schema root and schema version here). Committed atomically with the pages.
public struct UserRoots: Hashable, Sendable {
    public static let count = 8
    public var words: [UInt64]

    public init() { words = Array(repeating: 0, count: UserRoots.count) }

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

/// A handle to one page file. Handles to the same file in one process share its state
/// (writer lock, reader registry, page cache); other processes coordinate through the lock file.
/// Thread-safe: any thread may begin transactions on it.
public final class StorageFile: @unchecked Sendable {
    public let options: StorageOptions

    private init(options: StorageOptions) { self.options = options }

    /// Opens (creating unless `mustExist`) the file.
    public static func open(_ options: StorageOptions) throws -> StorageFile {
        throw StorageError(.invalidState, "StorageFile is a stub")
    }

    /// A snapshot of the newest committed version. Never blocks on writers.
    public func beginRead() throws -> ReadTransaction {
        throw StorageError(.invalidState, "StorageFile is a stub")
    }

    /// The single write transaction; blocks until other writers (threads or processes) finish.
    public func beginWrite() throws -> WriteTransaction {
        throw StorageError(.invalidState, "StorageFile is a stub")
    }

    /// The newest committed version number (including commits by other processes).
    public func latestVersion() throws -> UInt64 {
        throw StorageError(.invalidState, "StorageFile is a stub")
    }

    public func sizes() throws -> FileSizes {
        throw StorageError(.invalidState, "StorageFile is a stub")
    }

    /// Walks the newest version and the free lists; throws `.corruptFile` when accounting fails.
    public func verify() throws -> PageAccounting {
        throw StorageError(.invalidState, "StorageFile is a stub")
    }

    /// Rewrites the newest version densely and atomically replaces the file.
    /// Throws `.fileInUse` when another handle or process has the file open.
    public func compact() throws {
        throw StorageError(.invalidState, "StorageFile is a stub")
    }

    /// Writes the newest committed version densely to `path` (must not exist), encrypted with
    /// `encryptionKey` (nil: plain).
    public func writeCopy(toPath path: String, encryptionKey: [UInt8]?) throws {
        throw StorageError(.invalidState, "StorageFile is a stub")
    }

    /// Releases this handle; the file closes when its last handle does.
    public func close() {}

    /// Whether any handle in this process or any other process has `path` open.
    public static func isOpenAnywhere(path: String) -> Bool { false }

    /// Removes the file and its companions; `.fileInUse` while open anywhere.
    public static func deleteFiles(path: String) throws {
        throw StorageError(.invalidState, "StorageFile is a stub")
    }
}

/// A pinned snapshot of one committed version. Reads may happen from several threads at once.
/// Keep it short-lived or refresh it: a pinned version keeps its pages from reuse.
public final class ReadTransaction: PageReading, @unchecked Sendable {
    public let version: UInt64
    public let roots: UserRoots

    init(version: UInt64, roots: UserRoots) {
        self.version = version
        self.roots = roots
    }

    public func readPage(_ ref: PageRef) throws(StorageError) -> UnsafeRawPointer {
        throw StorageError(.invalidState, "ReadTransaction is a stub")
    }

    /// Unpins the version. Further reads throw `.closed`. Also done on deinit.
    public func end() {}
}

/// The one write transaction of a file. Confined to the thread that began it.
public final class WriteTransaction: PageWriting {
    /// The version this transaction started from.
    public let baseVersion: UInt64
    /// Committed together with the pages.
    public var roots: UserRoots

    init(baseVersion: UInt64, roots: UserRoots) {
        self.baseVersion = baseVersion
        self.roots = roots
    }

    public func readPage(_ ref: PageRef) throws(StorageError) -> UnsafeRawPointer {
        throw StorageError(.invalidState, "WriteTransaction is a stub")
    }

    public func allocatePage() throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer) {
        throw StorageError(.invalidState, "WriteTransaction is a stub")
    }

    public func writablePage(_ ref: PageRef) throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer) {
        throw StorageError(.invalidState, "WriteTransaction is a stub")
    }

    public func freePage(_ ref: PageRef) {}

    public func isOwned(_ ref: PageRef) -> Bool { false }

    /// Makes the changes the newest version; durable on return under `.full`.
    /// Returns the new version number. On error nothing of this transaction is visible.
    @discardableResult
    public func commit() throws -> UInt64 {
        throw StorageError(.invalidState, "WriteTransaction is a stub")
    }

    /// Discards the changes and releases the writer lock. Also done on deinit if not committed.
    public func rollback() {}
}
