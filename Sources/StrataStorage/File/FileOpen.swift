// Opening a page file: create it, or pick the newest meta slot whose commit fully verifies, then
// verify the pages it will read.
//
// Invariants:
// - A new file is born with version 1 in slot 1 (empty roots, no free list) and a durability
//   record naming version 1, made durable with its directory entry before open returns (a failed
//   directory flush fails the open). An empty file, or an unfinished creation — no longer than
//   the header and holding nothing but zeros and bytes of a new file's header (the exact rule is
//   in UnfinishedCreation.swift) — is initialised by a writable open and is `.notAStrataFile`
//   to a read-only one, which writes nothing. Any other file is never initialised.
// - The version opened is the one SlotChoice.swift chooses (the newest whose commits verify, never
//   one older than a version known durable; a torn commit falls back, damage is an error).
// - No version older than the one the durability record names is chosen: that version was
//   flushed before any committer was told so, so if it no longer verifies the file was damaged
//   after the fact, and open fails with `.corruptFile` naming what failed. Falling back past it
//   happens only when the options ask for it (`recoversToLastIntactVersion`).
// - Before the file is used, every stored page of the chosen version (every page below its page
//   count that the free space does not list) is verified — checksum and page number, or AES-GCM
//   tag — as `StorageOptions.openVerification` allows, so damage anywhere in the newest version is
//   an error at open, not a wrong answer later. Pages it does not cover are verified when first
//   read, as always.
//   Slots newer than the chosen version (torn commits) are zeroed only after all of this
//   succeeded, and only by a writable open: a later open could otherwise pair them with new
//   versions.
// - Open never trusts disk content for memory safety: every offset is range-checked before use.

#if canImport(Glibc)
import Glibc
#endif

extension FileCore {
    static let metaSeed: UInt64 = 0x5354_5241_5441_4D45  // "STRATAME"

    static func open(_ options: StorageOptions, registryKey: String) throws(StorageError) -> FileCore {
        var cipher: PageCipher? = nil
        if let key = options.encryptionKey {
            cipher = try PageCipher(key: key, path: options.path, sealsCompactly: !options.sealsPagesWhole)
        }
        if options.durability == .memOnly {
            let store = try PageStore(fd: -1, path: options.path, cipher: nil)
            var meta = MetaState()
            meta.version = 1
            meta.durableBase = 1
            return FileCore(options: options, registryKey: registryKey, fd: -1, store: store, cipher: nil,
                            lockFile: nil, meta: meta, fileSizePages: MetaLayout.headerPages)
        }
        let path = options.path
        if options.mustExist || options.readOnly {
            guard access(path, F_OK) == 0 else {
                throw StorageError(.notFound, "no file at this path", path: path)
            }
        }
        // The lock file first: creating and initialising the data file happens under the writer
        // lock so that two processes creating it at once cannot both initialise it.
        let (lockFile, fd) = try lockAndOpen(options, cipher: cipher)
        defer { lockFile?.writerLock.unlock() }
        do throws(StorageError) {
            var st = stat()
            guard fstat(fd, &st) == 0 else { throw ioError("fstat", errno, path: path) }
            var size = Int(st.st_size)
            // Empty, or what a power cut left of a creation that never returned (see
            // UnfinishedCreation.swift): nothing was committed, so the header is written again.
            if try UnfinishedCreation.isUnfinished(fd: fd, size: size, cipher: cipher, path: path) {
                guard !options.readOnly else { throw UnfinishedCreation.readOnlyError(size: size, path: path) }
                try initialize(fd: fd, cipher: cipher, path: path)
                size = MetaLayout.headerBytes
            }
            let recorded = try readDurabilityRecord(fd: fd, path: path)
            var below: UInt64? = nil
            while true {
                let chosen = try chooseSlot(fd: fd, size: size, cipher: cipher, path: path, recorded: recorded, below: below)
                if let recorded, chosen.meta.version < recorded, !options.recoversToLastIntactVersion {
                    let cause = chosen.newerFailure.map { ": \($0.message)" } ?? ""
                    throw StorageError(.corruptFile, "version \(recorded) was made durable but no longer verifies\(cause); "
                        + "the newest intact version is \(chosen.meta.version) (open with recoversToLastIntactVersion to use it)",
                        path: path)
                }
                // A fresh store per attempt: a failed verification leaves pages marked verified.
                let store = try PageStore(fd: fd, path: path, cipher: cipher)
                let core = FileCore(options: options, registryKey: registryKey, fd: fd, store: store, cipher: cipher,
                                    lockFile: lockFile, meta: chosen.meta, fileSizePages: size / PageLayout.pageSize)
                core.recordedDurableVersion = recorded ?? 0
                if chosen.meta.format >= MetaLayout.recordFormat { core.recordSlotsFrom = chosen.meta.version }
                do throws(StorageError) {
                    core.overflowPages = chosen.overflowPages
                    core.earlierFormatSlots = chosen.earlierFormatSlots
                    try core.loadFreeList(chosen.meta)
                    try core.verifyStoredPages(of: chosen.meta)
                } catch {
                    // The descriptor stays with this open: closed below, or used by the next attempt.
                    core.releaseDescriptor()
                    guard options.recoversToLastIntactVersion, error.code == .corruptPage || error.code == .corruptFile else {
                        throw error
                    }
                    below = chosen.meta.version
                    continue
                }
                do throws(StorageError) {
                    if !options.readOnly {
                        if !chosen.staleSlots.isEmpty {
                            // Slots of versions newer than the chosen one (a torn group of commits,
                            // or damaged versions given up by recovery) must not survive: a later
                            // open could otherwise pair them with new versions.
                            try clearSlots(chosen.staleSlots, keepingRecord: recorded.map { min($0, chosen.meta.version) },
                                           fd: fd, path: path)
                        }
                        if let recorded, chosen.meta.version < recorded {
                            // Recovery chose an older version: what the file holds from now on.
                            try DurabilityRecord.lower(to: chosen.meta.version, fd: fd, path: path)
                            guard fdatasync(fd) == 0 else { throw ioError("fdatasync", errno, path: path) }
                            core.recordedDurableVersion = chosen.meta.version
                        }
                    }
                } catch {
                    core.releaseDescriptor()
                    throw error
                }
                // Under the writer lock the chosen meta is the truth (it may be older than what the
                // lock file says when a damaged or torn newest slot was skipped).
                lockFile?.setLatestVersion(chosen.meta.version)
                lockFile?.setDurableVersion(chosen.meta.version)
                return core
            }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// The newest slot whose seal verifies (no commit-record check: used to follow commits of a
    /// live writer in another process, which wrote the meta after its pages). A slot of a later
    /// format newer than all of them is `.notAStrataFile`: a later build shares the file.
    static func readNewestMeta(fd: Int32, cipher: PageCipher?, path: String) throws(StorageError) -> (slot: Int, meta: MetaState) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: MetaLayout.ringBytes, alignment: PageLayout.pageSize)
        defer { buffer.deallocate() }
        let n = try preadFully(fd, buffer, MetaLayout.ringBytes, 0, path: path)
        guard n == MetaLayout.ringBytes else {
            throw StorageError(.truncatedFile, "the meta slots are cut short", path: path)
        }
        var best: (slot: Int, meta: MetaState)? = nil
        // The newest slot of a format this build cannot read: a later build's commit.
        var later: (format: UInt32, version: UInt64)? = nil
        for slot in 0..<MetaLayout.slotCount {
            let page = UnsafeRawPointer(buffer + slot * PageLayout.pageSize)
            switch MetaState.decode(page) {
            case .success(let meta):
                guard sealVerifies(page, cipher: cipher) else { continue }
                if meta.version > (best?.meta.version ?? 0) { best = (slot, meta) }
            case .failure:
                if let found = MetaState.laterFormat(page), found.version > (later?.version ?? 0) { later = found }
            }
        }
        if let later, later.version > (best?.meta.version ?? 0) {
            // Following the newest slot of ours would build on a version the later build has
            // replaced, and a commit would overwrite its slot: refuse, as open does.
            throw StorageError(.notAStrataFile, "version \(later.version) was committed in format version \(later.format) by a "
                + "later build; \(MetaLayout.readableFormatsPhrase)", path: path)
        }
        guard let best else {
            throw StorageError(.corruptFile, "no meta slot verifies", path: path)
        }
        return best
    }

    /// Zeroes meta slots, keeping `record` as their durability record when given (a cleared
    /// page must not take away the newest record), and flushes.
    static func clearSlots(_ slots: [Int], keepingRecord record: UInt64?, fd: Int32, path: String) throws(StorageError) {
        let zero = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { zero.deallocate() }
        zero.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.pageSize)
        DurabilityRecord.carry(record ?? 0, inSlotPage: zero)
        for slot in slots { try pwriteFully(fd, zero, PageLayout.pageSize, slot * PageLayout.pageSize, path: path) }
        guard fdatasync(fd) == 0 else { throw ioError("fdatasync", errno, path: path) }
    }

    /// Writes version 1 into slot 1 (version v lives in slot v % 8), empty slots around it and the
    /// durability record, then flushes file and directory.
    private static func initialize(fd: Int32, cipher: PageCipher?, path: String) throws(StorageError) {
        try writeHeader(of: UnfinishedCreation.newFileMeta(cipher: cipher), cipher: cipher, to: fd, path: path)
        guard fsync(fd) == 0 else { throw ioError("fsync", errno, path: path) }
        // Until the directory entry is durable a power cut may lose the whole file, so open must
        // not return as if it were there: the caller gets the error (nothing was committed yet).
        try syncDirectory(of: path)
    }

    /// Writes the first pages of a file that holds exactly one version, `meta` (a new file, a
    /// copy, a compacted file): its slot, zeroed slots around it, and the durability record
    /// naming it (the caller flushes before the file is used or renamed into place).
    static func writeHeader(of meta: MetaState, cipher: PageCipher?, to fd: Int32, path: String) throws(StorageError) {
        let header = UnsafeMutableRawPointer.allocate(byteCount: MetaLayout.headerBytes, alignment: PageLayout.pageSize)
        defer { header.deallocate() }
        header.initializeMemory(as: UInt8.self, repeating: 0, count: MetaLayout.headerBytes)
        let slot = header + Int(meta.version % UInt64(MetaLayout.slotCount)) * PageLayout.pageSize
        meta.encode(into: slot)
        try sealMeta(slot, cipher: cipher, path: path)
        DurabilityRecord.encode(version: meta.version, into: header + DurabilityRecord.offset)
        try pwriteFully(fd, header, MetaLayout.headerBytes, 0, path: path)
    }

    /// The newest version an intact durability record names; nil when none is intact.
    static func readDurabilityRecord(fd: Int32, path: String) throws(StorageError) -> UInt64? {
        try DurabilityRecord.newest(fd: fd, path: path)
    }

    /// Bytes of a meta page covered by its seal: the fixed fields and the inline commit entries in
    /// use (the rest of the page is ignored by decoding, so sealing it would only cost time —
    /// 4 KiB of HMAC-SHA256 per commit). nil when the entry count is out of range.
    static func sealedLength(_ page: UnsafeRawPointer) -> Int? {
        let inline = Int(UInt32(littleEndian: page.loadUnaligned(fromByteOffset: 108, as: UInt32.self)))
        let free = Int(UInt32(littleEndian: page.loadUnaligned(fromByteOffset: MetaLayout.freeRecordCountOffset, as: UInt32.self)))
        let data = Int(UInt32(littleEndian: page.loadUnaligned(fromByteOffset: MetaLayout.rootDataLengthOffset, as: UInt32.self)))
        guard inline <= MetaLayout.inlineCapacity, free <= MetaLayout.sealOffset / MetaLayout.freeRecordSize,
              data <= UserRoots.maxDataSize,
              MetaLayout.fits(inline: inline, freeRecords: free, rootData: data) else { return nil }
        return MetaLayout.sealedLength(inline: inline, freeRecords: free, rootData: data)
    }

    /// The format a meta page was encoded with (`MetaState.encode` writes it first).
    static func format(ofMeta page: UnsafeRawPointer) -> UInt32 {
        UInt32(littleEndian: page.loadUnaligned(fromByteOffset: MetaLayout.formatOffset, as: UInt32.self))
    }

    /// Seals an encoded meta page: a GMAC tag under a fresh nonce for encrypted files (`.io` if
    /// BoringSSL cannot draw the nonce's random bytes, which it does not expect), XXH64 for plain.
    static func sealMeta(_ page: UnsafeMutableRawPointer, cipher: PageCipher?, path: String?) throws(StorageError) {
        let length = sealedLength(UnsafeRawPointer(page)) ?? MetaLayout.sealOffset
        let seal = page + MetaLayout.sealOffset
        seal.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.pageSize - MetaLayout.sealOffset)
        if let cipher {
            guard cipher.sealTag(meta: UnsafeRawPointer(page), count: length, into: seal) else {
                throw StorageError(.io, "cannot seal the meta slot: no random bytes for its nonce", path: path)
            }
        } else {
            let sum = xxHash64(UnsafeRawPointer(page), count: length, seed: metaSeed)
            seal.storeBytes(of: sum.littleEndian, as: UInt64.self)
        }
    }

    static func sealVerifies(_ page: UnsafeRawPointer, cipher: PageCipher?) -> Bool {
        guard let length = sealedLength(page) else { return false }
        if let cipher {
            return cipher.tagVerifies(meta: page, count: length, seal: page + MetaLayout.sealOffset)
        }
        let stored = UInt64(littleEndian: page.loadUnaligned(fromByteOffset: MetaLayout.sealOffset, as: UInt64.self))
        return stored == xxHash64(page, count: length, seed: metaSeed)
    }

    /// fsync of the directory holding `path`, so a created or renamed file survives a crash.
    /// A failure is reported (until it succeeds, a power cut may take the new name away); a file
    /// system that cannot sync directories at all (EINVAL) has nothing to make durable.
    static func syncDirectory(of path: String) throws(StorageError) {
        let dir: String
        if let slash = path.lastIndex(of: "/") {
            dir = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            dir = "."
        }
        let dfd = Glibc.open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { throw ioError("open of the directory", errno, path: dir) }
        defer { Glibc.close(dfd) }
        guard fsync(dfd) == 0 else {
            let code = errno
            if code == EINVAL { return }
            throw ioError("fsync of the directory", code, path: dir)
        }
    }

    /// Reloads everything the writer keeps in memory from the latest meta (after another process
    /// committed). Called by the writer with the cross-process writer lock held.
    func reloadWriterState() throws(StorageError) {
        let meta = lock.withLock { latestMeta }
        try loadFreeList(meta)
        var pages: [UInt32] = []
        var next = meta.overflowHead
        while next != 0 {
            guard pages.count < Int(meta.pageCount) else {
                throw StorageError(.corruptFile, "commit record chain loops", path: path)
            }
            let payload = try store.payload(PageRef(next), limit: meta.pageCount)
            guard payload.load(as: UInt8.self) == PagerPageKind.commitRecord else {
                throw StorageError(.corruptFile, "commit record chain reaches a page of another kind", path: path)
            }
            pages.append(next)
            next = UInt32(littleEndian: payload.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        }
        overflowPages = pages
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ioError("fstat", errno, path: path) }
        fileSizePages = max(Int(st.st_size) / PageLayout.pageSize, Int(meta.pageCount))
        writerStateVersion = meta.version
    }

    /// Loads the persisted free list of `meta` into `freeSpace` (verifying each page on the way):
    /// a chain of free-list pages, or (format 5) a directory naming them (FreeListDirectory.swift).
    func loadFreeList(_ meta: MetaState) throws(StorageError) {
        var space = FreeSpace()
        var pages: [UInt32] = []
        var directory: FreeListDirectory? = nil
        let head = meta.freeListHead
        let headPayload = head == 0 ? nil : try store.payload(PageRef(head), limit: meta.pageCount)
        if let headPayload, headPayload.load(fromByteOffset: 0, as: UInt8.self) == PagerPageKind.freeListDirectory {
            guard meta.format >= MetaLayout.directoryFormat else {
                throw StorageError(.corruptFile, "a format-\(meta.format) meta names a free-list directory", path: path)
            }
            let refs = try FreeListDirectory.pageRefs(inDirectory: headPayload, path: path)
            guard refs.count + 1 == Int(meta.freeListPageCount) else {
                throw StorageError(.corruptFile, "the free-list directory names \(refs.count) pages; the meta says \(meta.freeListPageCount) with it", path: path)
            }
            var listed: [FreeListDirectory.Page] = []
            listed.reserveCapacity(refs.count)
            for ref in refs {
                let payload = try store.payload(PageRef(ref), limit: meta.pageCount)
                let records = try FreeSpace.pageRecords(payload: payload, path: path)
                guard records.next == 0 else {
                    throw StorageError(.corruptFile, "a page of the free-list directory names a next page", path: path)
                }
                for record in records.records { try space.add(record, pageCount: meta.pageCount, path: path) }
                listed.append(.init(ref: ref, records: records.records))
            }
            pages = [head] + refs
            guard Set(pages).count == pages.count else {
                throw StorageError(.corruptFile, "the free-list directory names a page twice", path: path)
            }
            directory = FreeListDirectory(directoryPage: head, pages: listed)
        } else {
            var next = head
            while next != 0 {
                guard pages.count < Int(meta.freeListPageCount) else {
                    throw StorageError(.corruptFile, "free-list chain is longer than the meta says", path: path)
                }
                let payload: UnsafeRawPointer
                if next == head, let headPayload { payload = headPayload } else {
                    payload = try store.payload(PageRef(next), limit: meta.pageCount)
                }
                pages.append(next)
                next = try space.load(payload: payload, pageCount: meta.pageCount, path: path)
            }
            guard pages.count == Int(meta.freeListPageCount) else {
                throw StorageError(.corruptFile, "free-list chain is shorter than the meta says", path: path)
            }
        }
        for record in meta.inlineFree { try space.add(record, pageCount: meta.pageCount, path: path) }
        freeSpace = space
        freeListPages = pages
        freeListDirectory = directory
    }
}
