// The commit: from a write transaction's private pages to a durable new version with one flush.
//
// Order of a commit of version N = base + 1:
// 1. Pages freed by this transaction, and the base version's commit-record pages (and free-list
//    pages, all of them or those a directory replaces: step 2), are held as freed by N
//    (reusable once no reader pins a version that can see them).
// 2. When the free-space records fit in the meta beside the whole commit record and the user
//    root data, they go there (no free-list page: the common small commit writes one page
//    fewer). Otherwise they go to free-list pages: a chain rewritten whole, or a directory that
//    keeps the pages whose records did not change; then overflow commit-record pages if the
//    commit record does not fit in the meta page (CommitFreeList.swift).
// 3. Every written page gets its header (checksum or GCM tag); the commit record lists them.
// 4. pwrite of the pages (contiguous runs coalesced with pwritev), pwrite of the meta into slot
//    N % 8 (with the newest durable version as its durable base; when 7 versions already wait for
//    a flush, the writer flushes first so the ring never overwrites an undurable chain).
// 5. Publication: the new version becomes `latest` for new readers; the writer lock is released.
// 6. Group commit under `.full`: the committer waits until a flush covers its version. The first
//    waiter to find no flush running becomes the leader: it notes the newest written version,
//    calls fdatasync once, and marks everything up to that version durable for all waiters (in
//    this process, and through the lock file in others). So concurrent committers share flushes,
//    and each returns only once its own commit is durable. Before telling them, the leader
//    writes the durability record into the page of the next version's slot, which that
//    version's meta rewrites anyway: a flush writes the commit's pages and one slot page
//    (DurabilityRecord.swift).
// A failure before publication leaves `latest` and the durable slots untouched; the slot we may
// have written is zeroed again (best effort) so a reopen cannot pick an unacknowledged commit.
// A failed flush (after publication) is reported to every waiter and refuses further commits
// until the file is reopened: what reached the disk is unknown after a failed fdatasync.
//
// Cost (measured in release, `strata-storage-probe bench-commit <dir> 1 500 full plain 2`,
// strace -f -c): a small `.full` commit makes 1 fdatasync, no fcntl (the cross-process writer
// lock is the lock file's shared writer word, WriterLock.swift), 1 pwritev (its pages: one contiguous run, see extent allocation in Transactions.swift)
// and 1 pwrite (the meta slot); the free-space records ride in the meta. Commits not flushed
// per commit put their pages into the writable shared mapping instead (`usesWriteMap`; plain
// files build them there from the start, FileCore.buildsInPlace, so the commit seals them in
// place and copies nothing). It never calls fallocate/ftruncate in steady state
// (the file grows in zero-filled steps, FileCore). So a single writer's rate is the fdatasync
// latency of the disk; concurrent writers share flushes (~3.4 commits per flush with 8 threads).

#if canImport(Glibc)
import Glibc
#endif

extension FileCore {
    /// Waits for the writer lock (threads and processes), catches up with other processes'
    /// commits, promotes free pages no reader needs, and returns the version to build on.
    /// With `waiting: false` (compaction, which holds the handle registry's lock and so must never
    /// wait for a writer that may itself need the registry) a busy writer lock throws `.fileInUse`.
    /// `toRead`: the caller only reads under the writer lock (an inspection or a copy, which
    /// need the free space of the newest version to stay put), so a read-only handle may take it.
    func acquireWriter(waiting: Bool = true, toRead: Bool = false) throws(StorageError) -> CommittedVersion {
        guard toRead || !options.readOnly else {
            throw StorageError(.readOnly, "the file was opened read-only", path: path)
        }
        if waiting {
            writerLock.lock()
        } else if !writerLock.tryLock() {
            throw StorageError(.fileInUse, "a write transaction is open (in this or another process)", path: path)
        }
        do throws(StorageError) {
            let base = try currentVersion()
            if base.version != writerStateVersion { try reloadWriterState() }
            if let error = flushLock.withLock({ flushError }) { throw error }
            let foreign = lockFile?.foreignPins() ?? []
            freeSpace.promote(readers: pinnedVersions(), ranges: foreign, durableVersion: reuseHorizon())
            return base
        } catch {
            releaseWriter()
            throw error
        }
    }

    /// Pages freed by a version at or below this may be overwritten by the next commit.
    ///
    /// Not simply the newest durable version D. Open accepts a version only after checking the
    /// commit records of every version after the durable base its meta names (MetaSlot.swift),
    /// and after a crash or power loss the version open must land on is at least D — whose own
    /// chain check reads the pages written by versions in (durableBase(D), D]. Overwriting a page
    /// freed by a version above durableBase(D) could therefore make D unverifiable if the commit
    /// doing it dies between its page writes and its meta write (seen as a group-commit crash-test
    /// failure), or if power fails after those page writes but before a newer meta reached the
    /// disk. Pages freed by versions up to durableBase(D) were written by versions D's check does
    /// not read, so they are safe to overwrite. The price: reuse lags the flush by a commit or two.
    func reuseHorizon() -> UInt64 {
        let durable = currentDurable()
        guard fd >= 0 else { return durable }
        let newestDurable = min(durable, lock.withLock { latest.version })
        return min(newestDurable, durableBase(ofVersion: newestDurable))
    }

    /// The durable base named by the meta of `version`: from the recent metas this core wrote or
    /// adopted, else read from the version's slot; 0 (no reuse) when that slot holds another one.
    func durableBase(ofVersion version: UInt64) -> UInt64 {
        if let known = lock.withLock({ recentDurableBases[Int(version % UInt64(MetaLayout.slotCount))] }),
           known.version == version {
            return known.durableBase
        }
        let page = takeBuffer()
        defer { returnBuffer(page) }
        let offset = Int(version % UInt64(MetaLayout.slotCount)) * PageLayout.pageSize
        guard (try? preadFully(fd, page, PageLayout.pageSize, offset, path: path)) == PageLayout.pageSize,
              case .success(let meta) = MetaState.decode(UnsafeRawPointer(page)),
              meta.version == version, FileCore.sealVerifies(UnsafeRawPointer(page), cipher: cipher) else {
            return 0
        }
        return meta.durableBase
    }

    func releaseWriter() {
        writerLock.unlock()
    }

    /// The newest version known durable, in this process or another.
    func currentDurable() -> UInt64 {
        flushLock.withLock { () -> UInt64 in
            durableVersion = max(durableVersion, lockFile?.durableVersion ?? 0)
            return durableVersion
        }
    }

    /// Treats `version` as durable without a flush, for files opened `.unsafe` or `.memOnly`
    /// (their promise covers process crashes only). In this process only: the lock file's durable
    /// version, which `.full` committers of other processes trust, is raised by real flushes only.
    func markDurable(_ version: UInt64) {
        flushLock.withLock { durableVersion = max(durableVersion, version) }
    }

    /// Returns once `version` is durable, flushing as the group's leader if no flush is running.
    /// Returns whether this call made the flush.
    @discardableResult
    func awaitDurable(_ version: UInt64) throws(StorageError) -> Bool {
        flushLock.lock()
        defer { flushLock.unlock() }
        var led = false
        while true {
            if let flushError { throw flushError }
            durableVersion = max(durableVersion, lockFile?.durableVersion ?? 0)
            if durableVersion >= version { return led }
            if flushing {
                flushCondition.wait(flushLock)
                continue
            }
            flushing = true
            // Every version published so far wrote its pages and meta before publishing, so one
            // fdatasync started now covers all of them (whichever descriptor wrote them).
            let target = max(lock.withLock { latest.version }, lockFile?.latestVersion ?? 0)
            flushLock.unlock()
            var failure: StorageError? = nil
            do throws(StorageError) { try flush() } catch { failure = error }
            // Before any waiter learns its commit is durable: from here on open never falls back
            // below `target` without saying so (DurabilityRecord.swift).
            if failure == nil { recordDurable(target) }
            flushLock.lock()
            flushing = false
            flushCount += 1
            if let failure {
                flushError = StorageError(failure.code, "a commit flush failed; reopen the file (\(failure.message))", path: path)
            } else {
                durableVersion = max(durableVersion, target)
                lockFile?.raiseDurableVersion(to: target)
                led = true
            }
            flushCondition.broadcast()
        }
    }
}

extension WriteTransaction {
    func performCommit() throws(StorageError) -> CommitStatistics {
        let core = self.core
        let newVersion = baseVersion + 1
        guard roots.data.count <= UserRoots.maxDataSize else {
            throw StorageError(.tooLarge, "\(roots.data.count) bytes of root data, at most \(UserRoots.maxDataSize) fit", path: core.path)
        }
        let dataBytes = roots.data.count

        // 1. Hold what this version stops referencing (after the rest of the extent is back in
        //    the free space: from here on allocation only takes pages from the heads of runs).
        closeExtent()
        // Sorted, so pages freed together that one commit wrote contiguously share a held run.
        freedCommitted.sort { $0.page < $1.page }
        for freed in freedCommitted {
            core.freeSpace.hold(freed.page, allocVersion: freed.allocVersion, freeVersion: newVersion)
        }
        for page in core.overflowPages { core.freeSpace.hold(page, allocVersion: baseVersion, freeVersion: newVersion) }

        // 2. Free-list pages, then commit-record overflow pages (CommitFreeList.swift).
        let placed = try placeFreeList(newVersion: newVersion, dataBytes: dataBytes)
        let freeListPages = placed.listPages
        let inlineFree = placed.inlineFree
        let directory = placed.directory
        let freeListHead = placed.head
        let inlineCapacity = placed.inlineCapacity
        let overflow = placed.overflow
        defer { for item in overflow { core.returnBuffer(item.buffer) } }

        // 3. Seal pages, build the commit record.
        let encrypted = core.cipher != nil
        var sealedBuffers: [UnsafeMutableRawPointer] = []
        defer { for buffer in sealedBuffers { core.returnBuffer(buffer) } }
        let pages = dirty.sortedPages()
        var images: [(page: UInt32, image: UnsafeMutableRawPointer, sealed: UnsafeMutableRawPointer)] = []
        images.reserveCapacity(pages.count + overflow.count)
        var entries: [CommitEntry] = []
        entries.reserveCapacity(pages.count)
        for page in pages {
            guard let image = dirty[page] else { continue }
            let sealed = encrypted ? core.sealTarget(page, &sealedBuffers) : image
            let sum = try core.store.seal(image, page: page, version: newVersion, sealed: sealed)
            entries.append(CommitEntry(page: page, checksum: sum))
            images.append((page, image, sealed))
        }
        var meta = MetaState()
        meta.version = newVersion
        meta.roots = roots
        meta.freeListHead = freeListHead
        meta.freeListPageCount = UInt32(directory.map { $0.pages.count + 1 } ?? freeListPages.count)
        meta.pageCount = pageCount
        meta.encrypted = encrypted
        meta.keyCheck = core.cipher?.keyCheck ?? []
        meta.totalEntries = UInt32(entries.count)
        meta.inlineFree = inlineFree
        let inlineCount = min(entries.count, inlineCapacity)
        // The whole record in the meta (the usual small commit) shares the array, copying nothing.
        meta.inlineEntries = inlineCount == entries.count ? entries : Array(entries[0..<inlineCount])
        // Overflow pages are chained front to back; each names the next and its checksum, so they
        // are sealed back to front.
        var nextPage: UInt32 = 0
        var nextSum: UInt64 = 0
        for index in stride(from: overflow.count - 1, through: 0, by: -1) {
            let (page, image) = overflow[index]
            let payload = image + PageLayout.headerSize
            payload.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.payloadSize)
            payload.storeBytes(of: PagerPageKind.commitRecord, as: UInt8.self)
            let first = inlineCount + index * CommitRecordLayout.capacity
            let count = min(CommitRecordLayout.capacity, entries.count - first)
            payload.storeBytes(of: UInt32(count).littleEndian, toByteOffset: 4, as: UInt32.self)
            payload.storeBytes(of: nextPage.littleEndian, toByteOffset: 8, as: UInt32.self)
            payload.storeBytes(of: nextSum.littleEndian, toByteOffset: 16, as: UInt64.self)
            var offset = CommitRecordLayout.entriesOffset
            for entry in entries[first..<(first + count)] {
                payload.storeBytes(of: entry.page.littleEndian, toByteOffset: offset, as: UInt32.self)
                payload.storeBytes(of: entry.checksum.littleEndian, toByteOffset: offset + 4, as: UInt64.self)
                offset += MetaLayout.entrySize
            }
            let sealed = encrypted ? core.sealTarget(page, &sealedBuffers) : image
            nextSum = try core.store.seal(image, page: page, version: newVersion, sealed: sealed)
            nextPage = page
            images.append((page, image, sealed))
        }
        meta.overflowHead = nextPage
        meta.overflowChecksum = nextSum

        // 4. Write (the flush comes after the writer lock is released; see commitWithStatistics).
        var flushes = 0
        images.sort { $0.page < $1.page }
        let slotCount = UInt64(MetaLayout.slotCount)
        if core.fd >= 0 {
            var durable = core.currentDurable()
            if newVersion - min(durable, baseVersion) >= slotCount {
                // The ring holds 7 versions waiting for a flush: flush them before overwriting.
                if try core.awaitDurable(baseVersion) { flushes += 1 }
                durable = core.currentDurable()
            }
            meta.durableBase = min(durable, baseVersion)
            let targetSlot = Int(newVersion % slotCount)
            do {
                try core.writePages(images)
                try core.writeMeta(meta, slot: targetSlot)
            } catch {
                core.invalidateSlot(targetSlot)
                throw error
            }
            core.noteRecordSlots(from: newVersion)
            core.retireEarlierFormatSlots(written: targetSlot)
        } else {
            meta.durableBase = baseVersion
        }
        for item in images { core.store.install(UnsafeRawPointer(item.image), page: item.page) }

        // 5. Publish.
        core.freeListPages = directory?.allPages ?? freeListPages.map(\.ref)
        core.freeListDirectory = directory
        core.overflowPages = overflow.map(\.page)
        core.writerStateVersion = newVersion
        let published = CommittedVersion(version: newVersion, roots: roots, pageCount: pageCount)
        core.lock.withLock {
            core.latest = published
            core.latestMeta = meta
            core.noteDurableBase(of: meta)
        }
        core.lockFile?.setLatestVersion(newVersion)
        // A `.unsafe` commit on a `.full` file stays pending: a later flush covers it, and earlier
        // `.full` committers still waiting must not be told their commit is durable.
        if core.fd < 0 || core.options.durability != .full { core.markDurable(newVersion) }
        var runs = 0
        var previous: UInt32? = nil
        for item in images {
            if previous.map({ $0 &+ 1 != item.page }) ?? true { runs += 1 }
            previous = item.page
        }
        core.counters.committed(pages: images.count)
        return CommitStatistics(version: newVersion, pagesWritten: images.count, dataRuns: runs, flushes: flushes)
    }
}

extension FileCore {
    /// Where an encrypted commit seals `page`: straight into the write window when the page lies
    /// in the file (writePages then has nothing to copy), else a pooled buffer (added to `taken`).
    /// Writing a page of the file before the meta is safe: a commit only writes pages that no
    /// durable version references (MetaSlot.swift).
    func sealTarget(_ page: UInt32, _ taken: inout [UnsafeMutableRawPointer]) -> UnsafeMutableRawPointer {
        if usesWriteMap, let window = store.writeWindow, Int(page) < fileSizePages,
           (Int(page) + 1) * PageLayout.pageSize <= store.writeWindowBytes {
            return window + Int(page) * PageLayout.pageSize
        }
        let buffer = takeBuffer()
        taken.append(buffer)
        return buffer
    }

    /// Whether commits put pages into the writable mapping rather than pwrite them.
    ///
    /// Only for files that are not flushed per commit. After an fdatasync the kernel cleans the
    /// mapped pages, so the next store into each takes a write fault (and the filesystem's
    /// page_mkwrite); measured with `strata-storage-probe bench-commit <dir> 1 1500 full plain N`:
    /// 3 pages 149 vs 123–143 µs per commit, 20 pages 253–256 vs 179–191 µs (mapped vs pwrite).
    /// Without flushes the mapped copy is the cheaper path (no syscall per run of pages).
    var usesWriteMap: Bool { FileCore.usesWriteMap(durability: options.durability) }

    static func usesWriteMap(durability: Durability) -> Bool { durability != .full }

    /// Whether `writeMeta` copies the sealed slot into the write window (files not flushed per
    /// commit) instead of pwriting it: the same reasoning as the pages' write map.
    var metaGoesThroughWindow: Bool { usesWriteMap }

    /// Writes sealed pages sorted by page number: copied into the writable file mapping when
    /// there is one and `usesWriteMap` (PageStore's write window), else pwrite with contiguous
    /// runs in one pwritev.
    func writePages(_ images: [(page: UInt32, image: UnsafeMutableRawPointer, sealed: UnsafeMutableRawPointer)]) throws(StorageError) {
        if injectedWriteErrno != 0 {
            let code = injectedWriteErrno
            injectedWriteErrno = 0
            throw ioError("pwrite", code, path: path)
        }
        var images = images
        if usesWriteMap, let window = store.writeWindow {
            // Every page below the file size is backed by the mapping; pages beyond it (never
            // expected: allocation grows the file first) keep the pwrite path.
            var beyond: [(page: UInt32, image: UnsafeMutableRawPointer, sealed: UnsafeMutableRawPointer)] = []
            for item in images {
                let page = Int(item.page)
                guard page < fileSizePages, (page + 1) * PageLayout.pageSize <= store.writeWindowBytes else {
                    beyond.append(item)
                    continue
                }
                let target = window + page * PageLayout.pageSize
                counters.wrote(bytes: PageLayout.pageSize, calls: 0)
                if target == item.sealed { continue }  // sealed in place (sealTarget)
                target.copyMemory(from: UnsafeRawPointer(item.sealed), byteCount: PageLayout.pageSize)
            }
            if beyond.isEmpty { return }
            images = beyond
        }
        var index = 0
        var iov = [iovec](repeating: iovec(), count: min(images.count, 512))
        while index < images.count {
            var runLength = 1
            while index + runLength < images.count, runLength < iov.count,
                  images[index + runLength].page == images[index].page + UInt32(runLength) {
                runLength += 1
            }
            if runLength == 1 {
                try pwriteFully(fd, images[index].sealed, PageLayout.pageSize,
                                Int(images[index].page) * PageLayout.pageSize, path: path, counting: counters)
            } else {
                for k in 0..<runLength {
                    iov[k] = iovec(iov_base: images[index + k].sealed, iov_len: PageLayout.pageSize)
                }
                try writeVector(&iov, count: runLength, offset: Int(images[index].page) * PageLayout.pageSize)
            }
            index += runLength
        }
    }

    private func writeVector(_ iov: inout [iovec], count: Int, offset: Int) throws(StorageError) {
        let total = count * PageLayout.pageSize
        let written = iov.withUnsafeBufferPointer { pwritev(fd, $0.baseAddress, Int32(count), off_t(offset)) }
        counters.wrote(bytes: max(0, written), calls: 1)
        if written == total { return }
        if written < 0 && errno != EINTR { throw ioError("pwritev", errno, path: path) }
        // Short or interrupted vector write: finish page by page.
        let done = max(0, written)
        var position = 0
        for k in 0..<count {
            let pageStart = k * PageLayout.pageSize
            if pageStart + PageLayout.pageSize <= done { position = pageStart + PageLayout.pageSize; continue }
            let skip = max(0, done - pageStart)
            guard let base = iov[k].iov_base else { continue }
            try pwriteFully(fd, UnsafeRawPointer(base) + skip, PageLayout.pageSize - skip, offset + pageStart + skip, path: path,
                            counting: counters)
            position = pageStart + PageLayout.pageSize
        }
        _ = position
    }

    func writeMeta(_ meta: MetaState, slot: Int) throws(StorageError) {
        if injectedMetaWriteErrno != 0 {
            let code = injectedMetaWriteErrno
            injectedMetaWriteErrno = 0
            throw ioError("pwrite", code, path: path)
        }
        let page = takeBuffer()
        defer { returnBuffer(page) }
        meta.encode(into: page)
        try FileCore.sealMeta(page, cipher: cipher, path: path)
        DurabilityRecord.carry(recordForSlotPage, inSlotPage: page)
        if metaGoesThroughWindow, let window = store.writeWindow,
           (slot + 1) * PageLayout.pageSize <= store.writeWindowBytes {
            // Files not flushed per commit copy the sealed slot into the mapping, like their
            // pages: the pwrite cost ~1 µs of a ~10 µs one-reading transaction (syscall, ext4
            // write_begin/write_end, page-cache lookup). A copy cut short by a process kill
            // leaves a torn slot, which is safe: it is the slot of the version being committed
            // (v % 8), never acknowledged; its seal fails, open takes version v − 1 from its own
            // intact slot, and the version the torn slot held (v − 8) is at or below every durable
            // base open may need (a commit may be written only while v − durable < 8, and
            // unflushed files count each published version durable). Readers in other processes
            // already meet torn slots (a pwrite is not atomic against their reads) and retry on a
            // failed seal. Tests: MetaWindowTests (a slot torn at every length falls back).
            (window + slot * PageLayout.pageSize).copyMemory(from: UnsafeRawPointer(page), byteCount: PageLayout.pageSize)
            counters.wrote(bytes: PageLayout.pageSize, calls: 0)
            return
        }
        try pwriteFully(fd, page, PageLayout.pageSize, slot * PageLayout.pageSize, path: path, counting: counters)
    }

    func flush() throws(StorageError) {
        if injectedFlushDelayMicroseconds > 0 { usleep(injectedFlushDelayMicroseconds) }
        if injectedFlushErrno != 0 {
            let code = injectedFlushErrno
            injectedFlushErrno = 0
            throw ioError("fdatasync", code, path: path)
        }
        while true {
            counters.flushed()
            if fdatasync(fd) == 0 { break }
            if errno == EINTR { continue }
            throw ioError("fdatasync", errno, path: path)
        }
    }

    /// After a failed commit: zero the slot it may have written, so that no reopen picks it (the
    /// page keeps the newest durability record, which the slot's earlier meta may have carried).
    func invalidateSlot(_ slot: Int) {
        let page = takeBuffer()
        defer { returnBuffer(page) }
        page.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.pageSize)
        DurabilityRecord.carry(recordForSlotPage, inSlotPage: page)
        _ = try? pwriteFully(fd, page, PageLayout.pageSize, slot * PageLayout.pageSize, path: path, counting: counters)
        counters.flushed()
        _ = fdatasync(fd)
    }
}
