// Read and write transactions.
//
// Invariants:
// - A read transaction pins its version in the core's reader registry from creation to `end()`
//   (or deinit); pages of a pinned version are never rewritten.
// - A write transaction holds the writer lock (`acquireWriter`) from creation until
//   commit/rollback (or deinit). It is confined to the thread that began it (not enforced at run time; `WriteTransaction` is
//   not Sendable, so the compiler keeps it on one isolation domain).
// - Pages allocated by the write transaction live in buffers of their own (`dirty`) until
//   commit; committed pages are read through the page store and never modified. Such a buffer
//   is a pooled private buffer, or the page's own slot of the store's range when the page is
//   built in place (`FileCore.buildsInPlace`: memOnly and encrypted stores, whose range is
//   private memory, and plain files committed through the writable mapping). A page being
//   allocated is free — no version any reader may pin reaches it (FreeSpace) — so building it
//   where it will live is invisible to readers; a rollback or a crash leaves it an unreachable
//   free page with garbage content, like a commit that died before its meta write.

#if canImport(Glibc)
import Glibc
#endif
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
    /// The page space and its verified map as plain values, read once: a page already verified
    /// is handed out without going through the file core and its store, whose reference counts
    /// were ~5% of an iteration's samples. Both stay valid while `core` lives (the store's range
    /// never moves, PageStore.swift).
    private let pageSpace: UnsafeMutableRawPointer
    private let verifiedPages: VerifiedPages.View

    init(core: FileCore, snapshot: CommittedVersion, pinned: Bool = true) {
        self.core = core
        self.version = snapshot.version
        self.roots = snapshot.roots
        self.pageCount = snapshot.pageCount
        self.pinned = pinned
        self.pageSpace = core.store.base
        self.verifiedPages = core.store.verified.view
    }

    deinit { end() }

    @inline(__always)
    public func readPage(_ ref: PageRef) throws(StorageError) -> UnsafeRawPointer {
        if ended.load(ordering: .relaxed) {
            throw StorageError(.closed, "read transaction of version \(version) has ended", path: core.path)
        }
        // The checks of PageStore.payload, in its order; anything but a verified page in range
        // (a first read, a damaged reference) takes its path.
        let page = Int(ref.raw)
        if ref.raw >= MetaLayout.firstDataPage, ref.raw < pageCount, verifiedPages.contains(page) {
            return UnsafeRawPointer(pageSpace + page * PageLayout.pageSize + PageLayout.headerSize)
        }
        return try core.store.payload(ref, limit: pageCount)
    }

    /// Whether `end()` was called.
    public var isEnded: Bool { ended.load(ordering: .relaxed) }

    /// A second read transaction of this version, pinned and ended on its own: hands the version
    /// this one reads to another reader without a moment where nothing pins it. Throws `.closed`
    /// once this one has ended (its version's pages may have been reused).
    public func duplicate() throws(StorageError) -> ReadTransaction {
        guard pinned, !isEnded else {
            throw StorageError(.closed, "read transaction of version \(version) has ended", path: core.path)
        }
        core.pinAgain(version)
        return ReadTransaction(core: core, snapshot: CommittedVersion(version: version, roots: roots, pageCount: pageCount))
    }

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
    /// Taken from the core's spare table and given back (emptied) by `finish`, so a small
    /// transaction allocates no table.
    let dirty: DirtyPages
    /// Committed pages freed by this transaction, with the version that wrote them.
    @exclusivity(unchecked) var freedCommitted: [(page: UInt32, allocVersion: UInt64)] = []
    /// The current extent: pages reserved from one free run, handed out in order so that a
    /// commit's pages form one contiguous run (one pwritev, and a flush of one extent instead of
    /// scattered pages: `strata-storage-probe bench-fsync <dir> 500 pages=7 [scatter]` measured
    /// p50 154–160 µs for 7 contiguous pages + the meta vs 254–259 µs for 7 scattered ones). Used
    /// for files flushed per commit (FileCore.allocatesExtents). Whatever is left returns to the
    /// free space when the commit starts (`closeExtent`), before the free-space records are sized.
    /// Nodes that an append leaves full go apart (`allocateDetachedPage`), so that an extent's
    /// pages are all freed together and form a run again: a cold page left in each extent had
    /// fragmented the free space of a sliding window into single pages (commits in 10 runs).
    @exclusivity(unchecked) var extentNext: UInt32 = 0
    @exclusivity(unchecked) var extentRemaining: UInt32 = 0
    @exclusivity(unchecked) var extentsOpen = true
    /// Pages allocated by this transaction (sizes the next transaction's extent).
    @exclusivity(unchecked) var allocations: UInt32 = 0
    /// Undoes the transaction's changes to the free space on rollback.
    let freeSpaceCheckpoint: FreeSpace.Checkpoint
    /// The core's page store, its verified-page map and range base, and whether it encrypts,
    /// held here so that the per-page paths (readPage, writablePage, freeCommitted) reach a
    /// verified committed page without a call into the store — each such call retained and
    /// released the store (~5% of a small transaction in profiles). `unowned(unsafe)` and the
    /// map's plain view: the core owns the store (and the store its map) for its lifetime, and
    /// this transaction holds the core.
    unowned(unsafe) let store: PageStore
    let verified: VerifiedPages.View
    let pageBase: UnsafeMutableRawPointer
    let encrypted: Bool

    init(core: FileCore, base: CommittedVersion) {
        self.core = core
        self.baseVersion = base.version
        self.roots = base.roots
        self.pageCount = base.pageCount
        self.basePageCount = base.pageCount
        self.durability = core.options.durability
        self.freeSpaceCheckpoint = core.freeSpace.checkpoint()
        self.dirty = core.spareDirtyTable.take() ?? DirtyPages()
        self.store = core.store
        self.verified = core.store.verified.view
        self.pageBase = core.store.base
        self.encrypted = core.cipher != nil
        core.sizeBeforeGrowth = nil
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
        return try committedPayload(ref)
    }

    /// A new page with undefined content, recorded as owned. Used by allocation and commit.
    @inline(__always)
    func allocateRaw() throws(StorageError) -> (page: UInt32, buffer: UnsafeMutableRawPointer) {
        let page = try allocatePageNumber()
        return (page, own(page))
    }

    /// Records `page` (just allocated) as owned and returns the buffer it is built in: its own
    /// slot when the store allows it (see the invariants above: memOnly and encrypted stores
    /// save install's 4 KiB copy per page, plain files committed through the writable mapping
    /// save writePages' copy), else a pooled buffer.
    @inline(__always)
    private func own(_ page: UInt32) -> UnsafeMutableRawPointer {
        let buffer = core.buildsInPlace(page) ? store.pageAddress(Int(page)) : core.takeBuffer()
        dirty.insert(page, buffer)
        return buffer
    }

    /// The number of a page for this transaction to own (its buffer is the caller's business).
    private func allocatePageNumber() throws(StorageError) -> UInt32 {
        let page: UInt32
        allocations &+= 1
        if extentRemaining > 0 {
            page = extentNext
            extentNext += 1
            extentRemaining -= 1
        } else if extentsOpen, core.extentHint > 0, core.allocatesExtents, let run = try takeExtent() {
            page = run.start
            extentNext = run.start + 1
            extentRemaining = run.count - 1
        } else if let reused = core.freeSpace.take() {
            page = reused
        } else {
            guard pageCount < UInt32.max else {
                throw StorageError(.tooLarge, "the file has reached 2^32 pages", path: core.path)
            }
            try core.ensureCapacity(pages: Int(pageCount) + 1)
            page = pageCount
            pageCount += 1
        }
        return page
    }

    /// The next extent, in order of preference:
    /// 1. `extentHint` pages from the lowest free run that long;
    /// 2. when the free space is small (fewer than 8 extents' worth of pages, or 1/16 of the
    ///    file), fresh pages at the end of the file: the pages this commit frees later are then
    ///    the previous extent, so runs form and the file stops growing (a stream of small commits
    ///    settles into a rotation of a few extents);
    /// 3. the longest free run, however short (a file whose free pages are fragmented — cold
    ///    pages left behind in old extents, random updates — is not grown: at most ~1/16 of it);
    /// 4. nil: page-by-page allocation from the lowest free page.
    private func takeExtent() throws(StorageError) -> FreeRun? {
        let want = core.extentHint
        if let run = core.freeSpace.takeRun(atLeast: want) { return run }
        if core.freeSpace.reusablePageCount < max(8 * Int(want), Int(pageCount) / 16),
           UInt64(pageCount) + UInt64(want) < UInt64(UInt32.max) {
            try core.ensureCapacity(pages: Int(pageCount) + Int(want))
            let run = FreeRun(start: pageCount, count: want)
            pageCount += want
            return run
        }
        return core.freeSpace.takeLongestRun(atLeast: 2)
    }

    /// Returns the unused rest of the current extent to the free space and allocates page by page
    /// from then on (the commit sizes its free-space records after this; see Commit.swift).
    func closeExtent() {
        extentsOpen = false
        if extentRemaining > 0 {
            core.freeSpace.releaseRun(FreeRun(start: extentNext, count: extentRemaining))
            extentRemaining = 0
        }
        // The last transaction's need and half again: a slightly larger commit must not spill
        // into a second run (the unused rest costs nothing, it goes back at once). Large
        // transactions get no extent: their pages come mostly from the file's end anyway, their
        // flush is dominated by volume, and the free pages an extent policy leaves scattered
        // (up to 8 extents' worth, see takeExtent) would grow with the extent size.
        core.extentHint = allocations > 16 ? 0 : max(8, allocations + allocations / 2)
    }

    public func allocatePage() throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer) {
        try ensureActive()
        let (page, buffer) = try allocateRaw()
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.pageSize)
        return (PageRef(page), buffer + PageLayout.headerSize)
    }

    /// Files that write each commit as one extent place full nodes apart (NodeEdit.swift,
    /// `splitInsert`): a full node will not change again, so it need not sit in the extent the
    /// next commits rewrite.
    public var placesFullNodesApart: Bool { core.allocatesExtents }

    /// The lowest free page, outside the current extent (the extent stays one run); from the
    /// extent or the file's end as usual when no page is free. Not counted in `allocations`:
    /// the next extent is sized for the pages that go together.
    public func allocateDetachedPage() throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer) {
        try ensureActive()
        guard let page = core.freeSpace.take() else { return try allocatePage() }
        return (PageRef(page), own(page) + PageLayout.headerSize)
    }

    public func writablePage(_ ref: PageRef) throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer) {
        try ensureActive()
        if let buffer = dirty[ref.raw] { return (ref, buffer + PageLayout.headerSize) }
        let source = try committedPayload(ref)
        let (page, buffer) = try allocateRaw()
        (buffer + PageLayout.headerSize).copyMemory(from: source, byteCount: PageLayout.payloadSize)
        freeCommitted(ref.raw)
        return (PageRef(page), buffer + PageLayout.headerSize)
    }

    /// `writablePage` for a tree node page (NodeLayout.swift): copies the header and slot array
    /// [0, 16 + 2n) and the cell area [cellStart, payloadSize), not the gap between them, which
    /// no tree code reads before writing it (insertions write a slot at 16 + 2n and a cell below
    /// cellStart; defragment and split rebuild from slots and cells). In the sensors benchmark
    /// the gap is ~40% of a copied page, and this copy was ~7.6% of a small transaction's CPU.
    ///
    /// The header of a committed page comes from disk: count and cellStart are bounded before
    /// any byte is copied, and a page that is not a consistent node throws `.corruptFile` (what
    /// `TreeNode` reports for the same page) without allocating anything.
    ///
    /// What the gap of the copy holds: the checksum and the cipher cover the whole page, so any
    /// bytes are valid there. When the copy is built in its own slot (`buildsInPlace`) the gap
    /// keeps the bytes that slot already held: for a plain file that is the file's own content
    /// at that very offset (free pages already hold stale page bytes, as the gaps of tree pages
    /// do after a defragment or split: nothing appears anywhere it was not before); memOnly
    /// stores never reach a disk, and encrypted stores encrypt the whole page. A pooled buffer,
    /// though, may hold a page of a rolled-back transaction that never reached the file, so its
    /// gap is zeroed (a memset, cheaper than the copy it replaces).
    public func writableNodePage(_ ref: PageRef) throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer) {
        try ensureActive()
        if let buffer = dirty[ref.raw] { return (ref, buffer + PageLayout.headerSize) }
        let source = try committedPayload(ref)
        let kind = source.load(as: UInt8.self)
        if kind == TreePageKind.keyedPackedLeaf {
            // No slot gap to skip: the whole payload is copied.
            let page = try allocatePageNumber()
            let inPlace = core.buildsInPlace(page)
            let buffer = inPlace ? store.pageAddress(Int(page)) : core.takeBuffer()
            dirty.insert(page, buffer)
            let payload = buffer + PageLayout.headerSize
            payload.copyMemory(from: source, byteCount: PageLayout.payloadSize)
            freeCommitted(ref.raw)
            return (PageRef(page), payload)
        }
        let count = Int(UInt16(littleEndian: source.loadUnaligned(fromByteOffset: TreeLayout.countOffset, as: UInt16.self)))
        let cellStart = Int(UInt16(littleEndian: source.loadUnaligned(fromByteOffset: TreeLayout.cellStartOffset, as: UInt16.self)))
        let slotsEnd = TreeLayout.headerSize + count * TreeLayout.slotSize
        guard kind >= TreePageKind.keyedLeaf, kind <= TreePageKind.positionalBranch,
              slotsEnd <= cellStart, cellStart <= PageLayout.payloadSize else {
            throw StorageError(.corruptFile, "tree \(ref): inconsistent node header (kind \(kind), count \(count), cell start \(cellStart))",
                               path: core.path)
        }
        let page = try allocatePageNumber()
        let inPlace = core.buildsInPlace(page)
        let buffer = inPlace ? store.pageAddress(Int(page)) : core.takeBuffer()
        dirty.insert(page, buffer)
        let payload = buffer + PageLayout.headerSize
        payload.copyMemory(from: source, byteCount: slotsEnd)
        (payload + cellStart).copyMemory(from: source + cellStart, byteCount: PageLayout.payloadSize - cellStart)
        if !inPlace {
            (payload + slotsEnd).initializeMemory(as: UInt8.self, repeating: 0, count: cellStart - slotsEnd)
        }
        freeCommitted(ref.raw)
        return (PageRef(page), payload)
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

    /// The verified payload of a page of the base version: `store.payload(_:limit:)`, with its
    /// common case (a page already verified) inlined here.
    @inline(__always)
    private func committedPayload(_ ref: PageRef) throws(StorageError) -> UnsafeRawPointer {
        let page = Int(ref.raw)
        if ref.raw >= MetaLayout.firstDataPage, ref.raw < basePageCount, verified.contains(page) {
            return UnsafeRawPointer(pageBase + page * PageLayout.pageSize + PageLayout.headerSize)
        }
        return try store.payload(ref, limit: basePageCount)
    }

    private func freeCommitted(_ page: UInt32) {
        // The version in the header of a verified page; otherwise the store verifies it first.
        var alloc = verified.contains(Int(page))
            ? UInt64(littleEndian: pageBase.loadUnaligned(fromByteOffset: Int(page) * PageLayout.pageSize + PageHeader.versionOffset,
                                                          as: UInt64.self))
            : store.writtenVersion(Int(page))
        if encrypted {
            // Encrypted pages carry the low 32 bits of their version: the page was written at or
            // before the base version, so take the latest version ≤ base with those bits.
            let bits = UInt32(truncatingIfNeeded: alloc)
            alloc = baseVersion &- UInt64(UInt32(truncatingIfNeeded: baseVersion) &- bits)
        }
        if alloc > baseVersion { alloc = 0 }  // untrustworthy header: hold for every older reader
        if freedCommitted.capacity == 0 { freedCommitted.reserveCapacity(16) }  // one allocation, not five
        freedCommitted.append((page, alloc))
    }

    public func isOwned(_ ref: PageRef) -> Bool { state == .active && dirty[ref.raw] != nil }

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
        core.freeSpace.restore(freeSpaceCheckpoint)
        // Before finish releases the writer lock: no other writer may grow the file meanwhile.
        core.undoGrowth()
        finish(.rolledBack)
    }

    private func finish(_ final: State) {
        dirty.forEach { _, buffer in core.returnBuffer(buffer) }
        dirty.removeAll()
        core.spareDirtyTable = dirty  // writer-owned: handed over before the writer lock goes
        freedCommitted.removeAll()
        state = final
        core.releaseWriter()
    }
}
