// Copies and compaction of a page file.
//
// Two copies exist:
// - Dense (DenseCopy.swift), used when the layer above registered a relocator
//   (`StorageFile.setRelocator`): every live page is renumbered into [8, 8 + live), child
//   references and the references inside values are rewritten, the new file has no free space.
// - Sparse (below), the fallback without a relocator: the pager cannot renumber pages (it does
//   not know which user roots or value bytes are references), so it keeps every live page at its
//   page number, writes nothing for free pages (holes that the new free list records as
//   reusable) and ends the file at the highest live page, dropping the free tail.
//
// Invariants:
// - Sparse: live pages of the newest version = [8, pageCount) minus free, held, free-list and
//   commit-record pages (page accounting guarantees that is exactly the reachable set).
// - Both write a temporary beside the destination (CopyTemporary.swift), never the destination's
//   name: the copy is written fully and flushed before its meta is written and fsynced; then
//   `writeCopy` links it to its destination (which must not exist) and compaction renames it over
//   the original, and the directory is fsynced. A crash leaves either the old or the new file,
//   never a mix, and never a partial or 0-byte destination; a failure before the rename removes
//   the temporary and leaves the original; a killed copy's temporary is removed at the next open.
// - Compaction needs exclusive use: no other handle in this process (`.fileInUse`), no reader or
//   writer on this handle, and no other process (the lock file's open marker, taken exclusively).
// - Compaction holds the handle registry's lock and therefore never waits: not for another
//   process (exclusive use is tried before the writer lock, which then cannot be contended), nor
//   for a write transaction of this process (the writer lock — the lock file's writer word, or
//   the writer gate for older lock-file layouts — is only tried: `.fileInUse`).
// - The relocator and reachability walker move with the handle to the compacted file's core.

#if canImport(Glibc)
import Glibc
#endif

extension FileCore {
    /// Writes the newest version to `destination` (which must not exist) with `encryptionKey`.
    func writeCopy(toPath destination: String, encryptionKey: [UInt8]?) throws(StorageError) {
        guard fd >= 0 else {
            throw StorageError(.invalidState, "an in-memory file cannot be copied", path: path)
        }
        guard access(destination, F_OK) != 0 else {
            throw StorageError(.alreadyExists, "the destination of the copy exists", path: destination)
        }
        let targetCipher: PageCipher?
        if let encryptionKey { targetCipher = try PageCipher(key: encryptionKey, path: destination) } else { targetCipher = nil }
        _ = try acquireWriter()
        defer { releaseWriter() }
        let temporary = try CopyTemporary.create(for: destination, suffix: CopyTemporary.copySuffix)
        do throws(StorageError) {
            try copyNewestVersionDenselyIfPossible(into: temporary, cipher: targetCipher)
        } catch {
            temporary.discard()
            throw error
        }
        try temporary.installAsNewFile(at: destination)
    }

    /// The dense copy when a relocator is registered, else the sparse one, written into
    /// `temporary` and fsynced; the caller holds the writer and installs or discards it.
    func copyNewestVersionDenselyIfPossible(into temporary: CopyTemporary, cipher target: PageCipher?) throws(StorageError) {
        if let relocator = lock.withLock({ relocator }) {
            try copyDensely(into: temporary.fd, path: temporary.path, cipher: target, relocator: relocator)
        } else {
            try copyNewestVersion(into: temporary.fd, path: temporary.path, cipher: target)
        }
    }

    /// The copy itself, into the empty file `out` (named `destination`, for errors), fsynced;
    /// the caller holds the writer.
    func copyNewestVersion(into out: Int32, path destination: String, cipher target: PageCipher?) throws(StorageError) {
        let current = try currentVersion()
        let pageCount = Int(current.pageCount)
        var live = [Bool](repeating: true, count: pageCount)
        for p in 0..<min(pageCount, MetaLayout.headerPages) { live[p] = false }
        for run in freeSpace.reusable { for p in Int(run.start)..<Int(run.start + run.count) where p < pageCount { live[p] = false } }
        for run in freeSpace.held { for p in Int(run.start)..<Int(run.start + run.count) where p < pageCount { live[p] = false } }
        for p in freeListPages + overflowPages where Int(p) < pageCount { live[Int(p)] = false }
        let highest = live.lastIndex(of: true) ?? (MetaLayout.headerPages - 1)
        var holes = FreeSpace()
        for p in MetaLayout.headerPages..<(highest + 1) where !live[p] { holes.release(UInt32(p)) }
        let freeListCount = FreeSpace.pagesNeeded(records: holes.recordCount)
        let newPageCount = highest + 1 + freeListCount

        guard ftruncate(out, off_t(newPageCount * PageLayout.pageSize)) == 0 else {
            throw ioError("ftruncate", errno, path: destination)
        }
        let sameFormat = target == nil && cipher == nil
        // 1 MiB per pwrite: large sequential writes (4 MiB measured no faster: 496–695 vs
        // 612–853 MB/s), the page cache writes them back in big requests before the one fsync.
        let batchPages = 256
        let batch = UnsafeMutableRawPointer.allocate(byteCount: batchPages * PageLayout.pageSize, alignment: PageLayout.pageSize)
        let image = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { batch.deallocate(); image.deallocate() }

        var page = MetaLayout.headerPages
        while page <= highest {
            guard live[page] else { page += 1; continue }
            var end = page
            while end <= highest && live[end] && end - page < batchPages { end += 1 }
            if sameFormat {
                // Verified once, then copied verbatim from the mapping (checksums stay valid:
                // they cover the page number, which does not change).
                for p in page..<end { _ = try store.payload(PageRef(UInt32(p)), limit: current.pageCount) }
                try pwriteFully(out, UnsafeRawPointer(store.pageAddress(page)), (end - page) * PageLayout.pageSize,
                                page * PageLayout.pageSize, path: destination)
            } else {
                for p in page..<end {
                    let payload = try store.payload(PageRef(UInt32(p)), limit: current.pageCount)
                    image.copyMemory(from: payload - PageLayout.headerSize, byteCount: PageLayout.pageSize)
                    var version = UInt64(littleEndian: image.loadUnaligned(fromByteOffset: PageHeader.versionOffset, as: UInt64.self))
                    if cipher != nil {
                        let bits = UInt32(truncatingIfNeeded: version)
                        version = current.version &- UInt64(UInt32(truncatingIfNeeded: current.version) &- bits)
                    }
                    let slot = batch + (p - page) * PageLayout.pageSize
                    _ = try PageStore.seal(image, page: UInt32(p), version: version, cipher: target,
                                           sealed: target == nil ? image : slot, path: destination)
                    if target == nil { slot.copyMemory(from: UnsafeRawPointer(image), byteCount: PageLayout.pageSize) }
                }
                try pwriteFully(out, UnsafeRawPointer(batch), (end - page) * PageLayout.pageSize,
                                page * PageLayout.pageSize, path: destination)
            }
            page = end
        }

        // The new free list: the holes, in pages after the highest live page.
        var freeListPages: [(ref: UInt32, payload: UnsafeMutableRawPointer)] = []
        var buffers: [UnsafeMutableRawPointer] = []
        defer { for b in buffers { b.deallocate() } }
        for i in 0..<freeListCount {
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
            buffers.append(buffer)
            freeListPages.append((UInt32(highest + 1 + i), buffer + PageLayout.headerSize))
        }
        holes.serialize(into: freeListPages)
        var entries: [CommitEntry] = []
        for (i, item) in freeListPages.enumerated() {
            let sealed = batch + (i % batchPages) * PageLayout.pageSize
            let buffer = buffers[i]
            let sum = try PageStore.seal(buffer, page: item.ref, version: current.version, cipher: target,
                                         sealed: target == nil ? buffer : sealed, path: destination)
            try pwriteFully(out, target == nil ? UnsafeRawPointer(buffer) : UnsafeRawPointer(sealed), PageLayout.pageSize,
                            Int(item.ref) * PageLayout.pageSize, path: destination)
            entries.append(CommitEntry(page: item.ref, checksum: sum))
        }
        guard fsync(out) == 0 else { throw ioError("fsync", errno, path: destination) }

        var meta = MetaState()
        meta.version = current.version
        meta.roots = current.roots
        meta.freeListHead = freeListPages.first?.ref ?? 0
        meta.freeListPageCount = UInt32(freeListCount)
        meta.pageCount = UInt32(newPageCount)
        meta.encrypted = target != nil
        meta.keyCheck = target?.keyCheck ?? []
        meta.durableBase = current.version
        meta.inlineEntries = Array(entries.prefix(MetaLayout.inlineCapacity(rootData: current.roots.data.count)))
        meta.totalEntries = UInt32(meta.inlineEntries.count)
        try FileCore.writeHeader(of: meta, cipher: target, to: out, path: destination)
        guard fsync(out) == 0 else { throw ioError("fsync", errno, path: destination) }
    }
}

extension CoreRegistry {
    /// Compacts the file of `core` (held by exactly one handle) and returns the core of the new file.
    func compact(_ core: FileCore) throws(StorageError) -> FileCore {
        try withRegistryLock { () throws(StorageError) -> FileCore in
            let path = core.path
            guard core.fd >= 0 else {
                throw StorageError(.invalidState, "an in-memory file cannot be compacted", path: path)
            }
            guard core.lock.withLock({ core.handleCount }) == 1 else {
                throw StorageError(.fileInUse, "another handle in this process has the file open", path: path)
            }
            // Nothing below waits while the registry lock is held: exclusive use of the file is
            // tried first (so no other process can hold the writer lock), then the writer lock is
            // only tried — a write transaction open on another thread (which may need the registry
            // to open or close a handle before it commits) or on this one makes it `.fileInUse`.
            guard let lockFile = core.lockFile, lockFile.tryExclusive() else {
                throw StorageError(.fileInUse, "another process has the file open", path: path)
            }
            var exclusive = true
            defer { if exclusive { lockFile.endExclusive() } }
            _ = try core.acquireWriter(waiting: false)
            var writerHeld = true
            defer { if writerHeld { core.releaseWriter() } }
            guard core.lock.withLock({ core.readers.isEmpty }) else {
                throw StorageError(.fileInUse, "a read transaction of this handle is open", path: path)
            }
            // Exclusive use: a `.compact` file left here is a killed compaction's (removed by create).
            let temporary = try CopyTemporary.create(for: path, suffix: CopyTemporary.compactionSuffix)
            do throws(StorageError) {
                try core.copyNewestVersionDenselyIfPossible(into: temporary, cipher: core.cipher)
                if core.injectedCompactionFailureBeforeRename {
                    core.injectedCompactionFailureBeforeRename = false
                    throw StorageError(.io, "injected failure before the rename", path: path)
                }
            } catch {
                temporary.discard()
                throw error
            }
            try temporary.installReplacing(path)
            core.releaseWriter()
            writerHeld = false
            lockFile.endExclusive()
            exclusive = false
            // The old core keeps the old inode (and its lock-file descriptor) until its last
            // transaction ends; the handle moves to a core opened on the new file.
            let fresh = try FileCore.open(core.options, registryKey: core.registryKey)
            fresh.handleCount = 1
            let (walker, relocator) = core.lock.withLock { (core.reachabilityWalker, core.relocator) }
            fresh.reachabilityWalker = walker
            fresh.relocator = relocator
            replaceUnlocked(core, with: fresh)
            return fresh
        }
    }
}

extension StorageFile {
    /// Registers how compaction, `writeCopy` and `verify()` find the trees of a version (see
    /// `PageRelocating`): with a relocator, copies are dense (pages renumbered, no free space);
    /// nil restores the sparse copy. Shared by every handle to the file in this process and kept
    /// across `compact()`.
    public func setRelocator(_ relocator: (any PageRelocating)?) {
        let core = self.core
        core.lock.withLock { core.relocator = relocator }
    }
}

