// Read and write transactions.
//
// Invariants:
// - A read transaction pins its version in the core's reader registry from creation to `end()`
//   (or deinit); pages of a pinned version are never rewritten.
// - A write transaction holds the writer gate from creation until commit/rollback (or deinit).
//   It is confined to the thread that began it (not enforced at run time; `WriteTransaction` is
//   not Sendable, so the compiler keeps it on one isolation domain).
// - Pages allocated by the write transaction live in private buffers (`dirty`) until commit;
//   committed pages are read through the page store and never modified.

import Synchronization

/// A pinned snapshot of one committed version. Reads may happen from several threads at once.
/// Keep it short-lived or refresh it: a pinned version keeps its pages from reuse.
public final class ReadTransaction: PageReading, @unchecked Sendable {
    // @unchecked: immutable after init except `ended`, which is atomic; the core is thread-safe.
    public let version: UInt64
    public let roots: UserRoots
    let core: FileCore
    let pageCount: UInt32
    private let ended = Atomic<Bool>(false)
    /// False for internal readers used while the writer is held (nothing to unpin).
    private let pinned: Bool

    init(core: FileCore, snapshot: CommittedVersion, pinned: Bool = true) {
        self.core = core
        self.version = snapshot.version
        self.roots = snapshot.roots
        self.pageCount = snapshot.pageCount
        self.pinned = pinned
    }

    deinit { end() }

    @inline(__always)
    public func readPage(_ ref: PageRef) throws(StorageError) -> UnsafeRawPointer {
        if ended.load(ordering: .relaxed) {
            throw StorageError(.closed, "read transaction of version \(version) has ended", path: core.path)
        }
        return try core.store.payload(ref, limit: pageCount)
    }

    /// Whether `end()` was called.
    public var isEnded: Bool { ended.load(ordering: .relaxed) }

    /// Unpins the version. Further reads throw `.closed`. Also done on deinit.
    public func end() {
        if !ended.exchange(true, ordering: .acquiringAndReleasing) && pinned {
            core.endRead(version)
        }
    }
}

/// The one write transaction of a file. Confined to the thread that began it.
public final class WriteTransaction: PageWriting {
    /// The version this transaction started from.
    public let baseVersion: UInt64
    /// Committed together with the pages.
    public var roots: UserRoots
    /// Durability of this commit; defaults to the file's. `.memOnly` files ignore it.
    public var durability: Durability

    let core: FileCore
    enum State { case active, committed, rolledBack }
    // The hot stored properties are `@exclusivity(unchecked)`: every tree step goes through
    // readPage/writablePage, where dynamic exclusivity checks cost ~19% of a small transaction.
    // Safe because the transaction is confined to one thread and no accessor here hands out an
    // inout access that could overlap another (all are plain loads/stores or short mutations).
    @exclusivity(unchecked) var state = State.active
    /// High-water mark while this transaction allocates from the end of the file.
    @exclusivity(unchecked) var pageCount: UInt32
    let basePageCount: UInt32
    /// Pages owned by this transaction → their full-page buffers (header + payload).
    let dirty = DirtyPages()
    /// Committed pages freed by this transaction, with the version that wrote them.
    @exclusivity(unchecked) var freedCommitted: [(page: UInt32, allocVersion: UInt64)] = []
    /// The free space as it was when the transaction began (restored by rollback).
    let savedFreeSpace: FreeSpace

    init(core: FileCore, base: CommittedVersion) {
        self.core = core
        self.baseVersion = base.version
        self.roots = base.roots
        self.pageCount = base.pageCount
        self.basePageCount = base.pageCount
        self.durability = core.options.durability
        self.savedFreeSpace = core.freeSpace
    }

    deinit {
        if state == .active { rollback() }
    }

    @inline(__always)
    private func ensureActive() throws(StorageError) {
        guard state == .active else {
            throw StorageError(.closed, "write transaction on version \(baseVersion) has ended", path: core.path)
        }
    }

    public func readPage(_ ref: PageRef) throws(StorageError) -> UnsafeRawPointer {
        try ensureActive()
        if let buffer = dirty[ref.raw] { return UnsafeRawPointer(buffer + PageLayout.headerSize) }
        return try core.store.payload(ref, limit: basePageCount)
    }

    /// A new page with undefined content, recorded as owned. Used by allocation and commit.
    func allocateRaw() throws(StorageError) -> (page: UInt32, buffer: UnsafeMutableRawPointer) {
        let page: UInt32
        if let reused = core.freeSpace.take() {
            page = reused
        } else {
            guard pageCount < UInt32.max else {
                throw StorageError(.tooLarge, "the file has reached 2^32 pages", path: core.path)
            }
            try core.ensureCapacity(pages: Int(pageCount) + 1)
            page = pageCount
            pageCount += 1
        }
        let buffer = core.takeBuffer()
        dirty.insert(page, buffer)
        return (page, buffer)
    }

    public func allocatePage() throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer) {
        try ensureActive()
        let (page, buffer) = try allocateRaw()
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.pageSize)
        return (PageRef(page), buffer + PageLayout.headerSize)
    }

    public func writablePage(_ ref: PageRef) throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer) {
        try ensureActive()
        if let buffer = dirty[ref.raw] { return (ref, buffer + PageLayout.headerSize) }
        let source = try core.store.payload(ref, limit: basePageCount)
        let (page, buffer) = try allocateRaw()
        (buffer + PageLayout.headerSize).copyMemory(from: source, byteCount: PageLayout.payloadSize)
        freeCommitted(ref.raw)
        return (PageRef(page), buffer + PageLayout.headerSize)
    }

    public func freePage(_ ref: PageRef) {
        guard state == .active, ref.raw >= MetaLayout.firstDataPage else { return }
        if let buffer = dirty.remove(ref.raw) {
            core.returnBuffer(buffer)
            core.freeSpace.release(ref.raw)
            return
        }
        guard ref.raw < basePageCount else { return }
        freeCommitted(ref.raw)
    }

    private func freeCommitted(_ page: UInt32) {
        var alloc = core.store.writtenVersion(Int(page))
        if core.cipher != nil {
            // Encrypted pages carry the low 32 bits of their version: the page was written at or
            // before the base version, so take the latest version ≤ base with those bits.
            let bits = UInt32(truncatingIfNeeded: alloc)
            alloc = baseVersion &- UInt64(UInt32(truncatingIfNeeded: baseVersion) &- bits)
        }
        if alloc > baseVersion { alloc = 0 }  // untrustworthy header: hold for every older reader
        freedCommitted.append((page, alloc))
    }

    public func isOwned(_ ref: PageRef) -> Bool { dirty[ref.raw] != nil }

    /// Makes the changes the newest version; durable on return under `.full`.
    /// Returns the new version number. On error nothing of this transaction is visible.
    @discardableResult
    public func commit() throws -> UInt64 {
        try commitWithStatistics().version
    }

    /// `commit()` returning what it wrote and how many flushes it made.
    ///
    /// Under `.full` the version is published (visible to new readers) before its flush; if that
    /// flush fails, this throws `.io`/`.diskFull` although the version is visible in this process,
    /// and the file refuses further commits until reopened.
    @discardableResult
    public func commitWithStatistics() throws(StorageError) -> CommitStatistics {
        try ensureActive()
        var stats: CommitStatistics
        do {
            stats = try performCommit()
        } catch {
            rollback()
            throw error
        }
        let mustFlush = durability == .full && core.fd >= 0
        finish(.committed)
        if mustFlush, try core.awaitDurable(stats.version) { stats.flushes += 1 }
        return stats
    }

    /// Discards the changes and releases the writer lock. Also done on deinit if not committed.
    public func rollback() {
        guard state == .active else { return }
        core.freeSpace = savedFreeSpace
        finish(.rolledBack)
    }

    private func finish(_ final: State) {
        dirty.forEach { _, buffer in core.returnBuffer(buffer) }
        dirty.removeAll()
        freedCommitted.removeAll()
        state = final
        core.releaseWriter()
    }
}
