// The shared state of one open page file in this process. Every `StorageFile` handle to the same
// path shares one core: one writer lock, one reader registry, one page store (and so one mapping
// and one page cache).
//
// Invariants:
// - `latest`, `readers`, `handleCount` are read and written only under `lock`.
// - `freeSpace`, `freeListPages`, `overflowPages`, `fileSizePages`, the buffer pool
//   and the fault-injection hooks belong to the writer: touched only while holding the writer
//   lock (`acquireWriter`: `writerLock`, the lock file's writer word or, for in-memory files, a
//   private one), or during open, before the core is shared.
// - `latest.pageCount` pages exist in the file (fileSizePages ≥ latest.pageCount).
// - Another process's commit is noticed through the lock file's latest version: `latest` is then
//   re-read from the meta slots (under `lock`), the verified-page map is cleared, and the writer
//   state (free space etc.) is reloaded from the file at the next `beginWrite`.

import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What a reader needs to know of one committed version.
struct CommittedVersion: Equatable {
    var version: UInt64
    var roots: UserRoots
    var pageCount: UInt32
}

final class FileCore: @unchecked Sendable {
    // @unchecked: see the invariants above — each mutable field is guarded by `lock` or owned by
    // the holder of the writer lock.
    let options: StorageOptions
    let registryKey: String
    let fd: Int32
    let store: PageStore
    let cipher: PageCipher?
    var path: String { options.path }

    // Guarded by `lock`.
    let lock = PosixLock()
    var latest: CommittedVersion
    /// The meta of `latest`.
    var latestMeta: MetaState
    /// (version, durable base) of the metas this core wrote or adopted, by slot. Guarded by `lock`.
    var recentDurableBases: [(version: UInt64, durableBase: UInt64)?] = Array(repeating: nil, count: MetaLayout.slotCount)
    var readers = PinnedVersions()
    var handleCount = 0
    /// Set by the layer above for `verify()`; see TreeWalking.swift.
    var reachabilityWalker: ReachabilityWalker?
    /// Set by the layer above for dense compaction and copies (and `verify()` when no walker is
    /// set); see Trees/Relocation.swift.
    var relocator: (any PageRelocating)?
    /// nil for memOnly files and read-only files whose lock file cannot be opened.
    let lockFile: LockFile?

    // Owned by the writer.
    /// Excludes writers of every thread and process using the file: the lock file's writer word,
    /// or a private word when there is no lock file (WriterLock.swift).
    let writerLock: WriterLock
    /// `store.buildsPagesInPlace`, and whether a plain file's writer builds pages in the writable
    /// mapping (`buildsInPlace`). Fixed at open.
    let storeBuildsInPlace: Bool
    let buildsPlainPagesInMap: Bool
    // `@exclusivity(unchecked)` on the writer's hot fields (used per page allocation or per commit): they are
    // touched only by the writer-lock holder, so accesses can never overlap.
    @exclusivity(unchecked) var freeSpace = FreeSpace()
    /// Every page of the writer's version's free list (a directory's included).
    @exclusivity(unchecked) var freeListPages: [UInt32] = []
    /// The writer's version's free list when it is a directory (FreeListDirectory.swift): what a
    /// commit may keep of it.
    @exclusivity(unchecked) var freeListDirectory: FreeListDirectory?
    /// Slots of an earlier format this core opened with, not yet overwritten or retired
    /// (EarlierFormatSlots.swift).
    @exclusivity(unchecked) var earlierFormatSlots: [EarlierFormatSlot] = []
    @exclusivity(unchecked) var overflowPages: [UInt32] = []
    var fileSizePages: Int
    /// The file's size in pages before the open write transaction first grew it (nil: it has
    /// not): a rollback cuts the file back to it, so a cancelled write leaves the file's length
    /// as it was. Writer-owned (set and read under the writer lock).
    var sizeBeforeGrowth: Int?
    /// The version whose free space, free-list pages and commit-record pages the writer holds.
    var writerStateVersion: UInt64
    @exclusivity(unchecked) var bufferPool: [UnsafeMutableRawPointer] = []
    /// The page table of the last write transaction, emptied, for the next one to reuse.
    @exclusivity(unchecked) var spareDirtyTable: DirtyPages?
    /// Pages the next write transaction reserves at once from one free run (extent allocation,
    /// WriteTransaction.allocateRaw): the previous commit's allocation count and half again, at
    /// least 8; 0 (no extent) after a transaction of more than 16 pages.
    @exclusivity(unchecked) var extentHint: UInt32 = 8
    /// Whether write transactions allocate extents (WriteTransaction.allocateRaw): by default for
    /// files flushed per commit (`.full`), where one run of pages makes the flush cheaper; without
    /// a flush per commit page order buys nothing and the pages an extent policy leaves unused
    /// would only grow the file. Tests set it to exercise both policies on one durability.
    var allocatesExtents: Bool {
        get { extentsSetting ?? (options.durability == .full) }
        set { extentsSetting = newValue }
    }
    @exclusivity(unchecked) var extentsSetting: Bool?
    // Group commit (guarded by `flushLock`): the newest version known durable, whether a flush is
    // running, and the error of a failed flush (after which commits are refused: what reached the
    // disk is unknown, as after any failed fsync).
    let flushLock = PosixLock()
    let flushCondition = PosixCondition()
    var durableVersion: UInt64
    var flushing = false
    /// Flushes made through this core (statistics; guarded by `flushLock`).
    var flushCount = 0
    /// The work commits did on this file in this process (`StorageFile.statistics`).
    let counters = StorageCounters()
    var flushError: StorageError?
    /// The newest version the durability record names (DurabilityRecord.swift); guarded by
    /// `recordLock`, which also orders the record's writes.
    var recordedDurableVersion: UInt64 = 0
    /// The first version this process knows was written in format 7 (DurabilityRecord.swift:
    /// from it on, slot pages take records); nil until open finds one or this process commits.
    /// Guarded by `recordLock`.
    var recordSlotsFrom: UInt64?
    let recordLock = PosixLock()
    /// Whether `deinit` closes `fd`: false for a core given up during open, whose descriptor the
    /// open that made it closes or hands to the next attempt.
    var ownsDescriptor = true
    /// Test hook: when non-zero, the next commit's page write fails with this errno.
    var injectedWriteErrno: Int32 = 0
    /// Test hook: each flush sleeps this long first (to make group commit observable).
    var injectedFlushDelayMicroseconds: UInt32 = 0
    /// Test hook: when non-zero, the next commit's meta write fails with this errno after its
    /// pages were written — what a process killed between the two leaves on disk.
    var injectedMetaWriteErrno: Int32 = 0
    /// Test hook: when non-zero, the next commit's flush fails with this errno.
    var injectedFlushErrno: Int32 = 0
    /// Test hook: compaction fails after its copy is complete and durable, before the rename.
    var injectedCompactionFailureBeforeRename = false

    init(options: StorageOptions, registryKey: String, fd: Int32, store: PageStore, cipher: PageCipher?,
         lockFile: LockFile?, meta: MetaState, fileSizePages: Int) {
        self.options = options
        self.registryKey = registryKey
        self.fd = fd
        self.store = store
        self.cipher = cipher
        self.lockFile = lockFile
        self.writerLock = lockFile?.writerLock ?? WriterLock()
        self.storeBuildsInPlace = store.buildsPagesInPlace
        self.buildsPlainPagesInMap = cipher == nil && fd >= 0 && store.writeWindow != nil
            && FileCore.usesWriteMap(durability: options.durability)
        self.latest = CommittedVersion(version: meta.version, roots: meta.roots, pageCount: meta.pageCount)
        self.latestMeta = meta
        self.recentDurableBases[Int(meta.version % UInt64(MetaLayout.slotCount))] = (meta.version, meta.durableBase)
        self.durableVersion = meta.version
        self.writerStateVersion = meta.version
        self.fileSizePages = fileSizePages
    }

    deinit {
        for buffer in bufferPool { buffer.deallocate() }
        if fd >= 0 && ownsDescriptor { Glibc.close(fd) }
        _ = lockFile  // released (closing its descriptor drops every lock) after the data file
    }

    // MARK: - Readers

    func beginRead() throws(StorageError) -> CommittedVersion {
        try lock.withLock { () throws(StorageError) -> CommittedVersion in
            while true {
                try refreshLocked()
                let current = latest
                let isNewPin = !readers.contains(current.version)
                if isNewPin, let limit = options.maximumActiveVersions, readers.count >= limit {
                    throw StorageError(.tooManyActiveVersions,
                                       "\(readers.count) versions are pinned, the limit is \(limit)", path: path)
                }
                readers.pin(current.version)
                guard isNewPin, let lockFile else { return current }
                // Publish the pin, then check that no other process committed in between: a
                // writer that read our slot before the pin could otherwise reuse its pages.
                lockFile.publish(versions: readers.versions)
                if lockFile.latestVersion <= current.version { return current }
                // Another process committed meanwhile: retry, unless its meta cannot be seen yet
                // (then the pin is still safe: that writer read our slot before it committed).
                let seen = try FileCore.readNewestMeta(fd: fd, cipher: cipher, path: path).meta.version
                if seen <= current.version { return current }
                readers.removeAll(of: current.version)
                lockFile.publish(versions: readers.versions)
            }
        }
    }

    /// One more reader of `version`, which a live reader of this process pins already (so no
    /// writer can have reused its pages).
    func pinAgain(_ version: UInt64) {
        lock.withLock {
            if readers.pin(version) { lockFile?.publish(versions: readers.versions) }
        }
    }

    func endRead(_ version: UInt64) {
        lock.withLock {
            if readers.unpin(version) { lockFile?.publish(versions: readers.versions) }
        }
    }

    /// Versions pinned by live readers of this process, ascending.
    func pinnedVersions() -> [UInt64] {
        lock.withLock { readers.versions }
    }

    func currentVersion() throws(StorageError) -> CommittedVersion {
        try lock.withLock { () throws(StorageError) -> CommittedVersion in
            try refreshLocked()
            return latest
        }
    }

    /// Adopts another process's newer commit, if any. Called with `lock` held.
    func refreshLocked() throws(StorageError) {
        guard let lockFile, lockFile.latestVersion > latest.version else { return }
        let newest = try FileCore.readNewestMeta(fd: fd, cipher: cipher, path: path)
        guard newest.meta.version > latest.version else { return }
        store.verified.removeAll(below: Int(max(newest.meta.pageCount, latest.pageCount)))
        latest = CommittedVersion(version: newest.meta.version, roots: newest.meta.roots, pageCount: newest.meta.pageCount)
        latestMeta = newest.meta
        noteDurableBase(of: newest.meta)
    }

    /// Remembers the durable base of a meta written or adopted (see `reuseHorizon`). Called with
    /// `lock` held.
    func noteDurableBase(of meta: MetaState) {
        recentDurableBases[Int(meta.version % UInt64(MetaLayout.slotCount))] = (meta.version, meta.durableBase)
    }

    // MARK: - Writer resources

    /// Whether the writer builds `page` (being allocated, so free) directly in its slot of the
    /// store's range rather than in a pooled buffer: always for memOnly and encrypted stores
    /// (private memory), and for plain files committed through the writable mapping
    /// (`buildsPlainPagesInMap`) when the page lies in the file — the mapping may only be written
    /// below the file's size (PageStore), which allocation has already grown to cover the page.
    /// The commit then seals the page where it lies and copies nothing (writePages skips images
    /// already at their target). Encrypted files keep their decrypted range for this: their
    /// mapping holds ciphertext.
    @inline(__always)
    func buildsInPlace(_ page: UInt32) -> Bool {
        if storeBuildsInPlace { return true }
        return buildsPlainPagesInMap && Int(page) < fileSizePages
            && (Int(page) + 1) * PageLayout.pageSize <= store.writeWindowBytes
    }

    /// A page-sized, page-aligned buffer (contents undefined).
    func takeBuffer() -> UnsafeMutableRawPointer {
        if let buffer = bufferPool.popLast() { return buffer }
        return UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
    }

    func returnBuffer(_ buffer: UnsafeMutableRawPointer) {
        if store.contains(buffer) { return }  // a page slot built in place (buildsInPlace)
        if bufferPool.count < 4096 { bufferPool.append(buffer) } else { buffer.deallocate() }
    }

    /// Cuts the file back to its size before the rolled-back write transaction grew it. Only the
    /// writer, under the writer lock, and only pages no version references (they were added by
    /// this transaction, which published nothing); other processes learn the size by fstat under
    /// the writer lock, so none relies on the pages removed.
    func undoGrowth() {
        guard let pages = sizeBeforeGrowth else { return }
        sizeBeforeGrowth = nil
        if fd >= 0 {
            // Best effort: a failure leaves zero-filled free pages at the end, as before.
            guard ftruncate(fd, off_t(pages * PageLayout.pageSize)) == 0 else { return }
        }
        fileSizePages = pages
    }

    /// Grows the file so that `pages` pages exist, in amortised steps of max(1 MiB, min(1/8 of the
    /// file, 16 MiB)), so that commits rarely extend the file and fdatasync rarely has metadata to
    /// flush. The new pages are written with zeros rather than `posix_fallocate`d: on ext4/xfs
    /// fallocate leaves *unwritten* extents, and the first write into each one is an extent
    /// conversion that the next fdatasync must journal — under `.full` that made nearly every
    /// commit of a growing file pay a journal commit. Written zeros make later commits pure data
    /// overwrites. The current size comes from fstat (under the writer lock), so the zeros never
    /// cover a page another process wrote. The price: a commit that grows the file writes (and its
    /// flush syncs) up to 16 MiB of zeros once per step.
    func ensureCapacity(pages: Int) throws(StorageError) {
        guard pages <= store.reservedPages else {
            throw StorageError(.tooLarge, "the file would exceed \(store.reservedPages) pages", path: path)
        }
        guard pages > fileSizePages else { return }
        if fd < 0 { fileSizePages = pages; return }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ioError("fstat", errno, path: path) }
        let actual = Int(info.st_size) / PageLayout.pageSize
        if actual >= pages {
            fileSizePages = actual
            return
        }
        let step = max(256, min(actual / 8, 4096))
        var target = max(pages, actual + step)
        target = (target + 255) / 256 * 256
        target = min(target, store.reservedPages)
        let chunkPages = GrowthZeros.pages
        let zeros = GrowthZeros.chunk
        if sizeBeforeGrowth == nil { sizeBeforeGrowth = actual }
        var page = actual
        while page < target {
            let count = min(chunkPages, target - page)
            do throws(StorageError) {
                try pwriteFully(fd, zeros, count * PageLayout.pageSize, page * PageLayout.pageSize, path: path,
                                counting: counters)
            } catch {
                fileSizePages = max(fileSizePages, page)
                throw error
            }
            page += count
        }
        store.prefault(pages: actual..<target)
        fileSizePages = target
    }
}

/// The zeros a growing file is written with: one read-only anonymous mapping of `pages` pages for
/// the whole process, made on first use. Its pages are the kernel's shared zero page, so it
/// costs no memory, and a growth no longer allocates and clears 1 MiB on the heap. That
/// allocation made a workload's heap bytes per transaction depend on how many times its file
/// happened to grow (+5% for one growth more in 100 transactions, which the counted-work gate
/// reported as a regression of unchanged code).
enum GrowthZeros {
    static let pages = 256

    /// `pages` pages of zeros; a zero-filled heap buffer, kept, if the mapping fails.
    nonisolated(unsafe) static let chunk: UnsafeRawPointer = {
        let size = pages * PageLayout.pageSize
        if let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), mapped != MAP_FAILED {
            return UnsafeRawPointer(mapped)
        }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: PageLayout.pageSize)
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        return UnsafeRawPointer(buffer)
    }()
}
