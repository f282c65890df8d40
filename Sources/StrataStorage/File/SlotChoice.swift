// Choosing the version a file opens at: the newest meta slot whose commit, and every commit since
// its durable base, fully verifies, falling back past torn commits and never past durable ones.
//
// Invariants:
// - A slot is a candidate only if its seal verifies and it sits in slot version % 8. The newest
//   candidate v is chosen only if every version in (durableBase(v), v] is present and every page its
//   commit record lists verifies (a torn commit or torn group otherwise falls back to an older
//   candidate). No version older than the largest durable base any slot names is ever chosen.
// - A candidate whose page count runs past the end of the file: when its version is newer than
//   every version known durable (the one the durability record names, and the largest durable
//   base any slot names), it is a torn commit — its meta reached the disk but the growth of the
//   file its pages needed did not, which fdatasync and disk caches allow — and the choice falls
//   back to the next older candidate like for any torn commit (its slot is stale: a writable open
//   clears it). At or below a version known durable it is damage: that version was flushed with
//   the file long enough for it, so the file was cut, and open fails with `.truncatedFile` (no
//   fallback, not even with `recoversToLastIntactVersion`).
// - No candidate verifies: `.corruptFile`. A slot of another format version and none of ours:
//   `.notAStrataFile` naming that version. No slot with the Strata magic: `.notAStrataFile`.
// - Disk content is never trusted for memory safety: every offset is range-checked before use.

#if canImport(Glibc)
import Glibc
#endif

extension FileCore {
    struct ChosenSlot {
        var slot: Int
        var meta: MetaState
        var overflowPages: [UInt32]
        /// Slots holding versions newer than the chosen one.
        var staleSlots: [Int]
        /// Why the newest newer candidate was not chosen (nil when the chosen one is the newest).
        var newerFailure: StorageError?
        /// Slots at or below the chosen version that hold a meta of an earlier format.
        var earlierFormatSlots: [EarlierFormatSlot] = []
    }

    /// Reads the meta ring and returns the newest version (below `below`, when given) whose commits
    /// since its durable base all verify. `recorded`: the version the durability record names.
    static func chooseSlot(fd: Int32, size: Int, cipher: PageCipher?, path: String, recorded: UInt64?,
                           below: UInt64? = nil) throws(StorageError) -> ChosenSlot {
        let ringBytes = MetaLayout.ringBytes
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: ringBytes, alignment: PageLayout.pageSize)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: ringBytes)
        let n = try preadFully(fd, buffer, ringBytes, 0, path: path)
        var sawMagic = false
        for slot in 0..<MetaLayout.slotCount where slot * PageLayout.pageSize + 8 <= n {
            let magic = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: slot * PageLayout.pageSize, as: UInt64.self))
            if magic == MetaLayout.magic { sawMagic = true }
        }
        if n < ringBytes {
            if sawMagic {
                throw StorageError(.truncatedFile, "the file is \(n) bytes, shorter than its meta slots", path: path)
            }
            throw StorageError(.notAStrataFile, "the file is \(n) bytes and has no Strata header", path: path)
        }
        var decoded: [(slot: Int, meta: MetaState)] = []
        var sawWrongKey = false
        var otherFormat: UInt32? = nil
        // The latest slot of a later format (a later build's commit), and its version.
        var newer: UInt32? = nil
        var newerVersion: UInt64 = 0
        var sawOurFormat = false
        // No version older than a durable base that any slot names may be chosen: pages of older
        // versions may have been reused since. Slots whose seal fails still count (a torn meta
        // names a base no newer than what was durable, so it never forbids a legitimate fallback;
        // a damaged newest meta must not send open back to a version whose pages were reused).
        var floor: UInt64 = 0
        for slot in 0..<MetaLayout.slotCount {
            let page = UnsafeRawPointer(buffer + slot * PageLayout.pageSize)
            switch MetaState.decode(page) {
            case .failure(let failure):
                switch failure.kind {
                case .damaged: sawMagic = true; sawOurFormat = true
                case .otherFormat(let format):
                    otherFormat = format
                    if let later = MetaState.laterFormat(page), later.version >= newerVersion {
                        (newer, newerVersion) = later
                    }
                case .notOurs: break
                }
            case .success(let meta):
                sawMagic = true
                sawOurFormat = true
                if meta.durableBase <= meta.version, meta.version - meta.durableBase < UInt64(MetaLayout.slotCount) {
                    floor = max(floor, meta.durableBase)
                }
                if meta.encrypted != (cipher != nil) || (cipher != nil && meta.keyCheck != cipher?.keyCheck) {
                    sawWrongKey = true
                    continue
                }
                if sealVerifies(page, cipher: cipher), meta.version % UInt64(MetaLayout.slotCount) == UInt64(slot) {
                    decoded.append((slot, meta))
                }
            }
        }
        let readable = MetaLayout.readableFormatsPhrase
        if let newer, decoded.allSatisfy({ $0.meta.version < newerVersion }) {
            // Opening at an older slot of ours would silently drop the later build's commits. (A
            // slot of a later format older than one of ours is not such a commit: a damaged slot.)
            throw StorageError(.notAStrataFile, "the file has format version \(newer), written by a later build; \(readable)", path: path)
        }
        if let otherFormat, !sawOurFormat {
            throw StorageError(.notAStrataFile, "the file has format version \(otherFormat); \(readable)", path: path)
        }
        guard sawMagic else {
            throw StorageError(.notAStrataFile, "no meta slot carries the Strata magic", path: path)
        }
        if decoded.isEmpty && sawWrongKey {
            throw StorageError(.wrongKey, cipher == nil
                ? "the file is encrypted and no key was given (or its meta is damaged)"
                : "the key does not open this file (wrong key, or the file is not encrypted)", path: path)
        }
        decoded.sort { $0.meta.version > $1.meta.version }
        var byVersion: [UInt64: MetaState] = [:]
        for item in decoded { byVersion[item.meta.version] = item.meta }
        var lastError: StorageError? = nil
        var newestFailure: StorageError? = nil
        for candidate in decoded {
            let meta = candidate.meta
            if let below, meta.version >= below {
                if newestFailure == nil {
                    newestFailure = StorageError(.corruptFile, "version \(meta.version) does not verify", path: path)
                }
                continue
            }
            if meta.version < floor {
                let newer = lastError.map { "; newer versions failed: \($0.message)" } ?? ""
                lastError = StorageError(.corruptFile, "version \(meta.version) is older than durable version \(floor)\(newer)", path: path)
                break
            }
            if Int(meta.pageCount) * PageLayout.pageSize > size {
                // A version known durable (recorded, or the durable base of a slot) was flushed
                // with the file long enough for it: a shorter file was cut, which is damage to
                // report, never a reason to fall back. A newer one was never acknowledged: its meta
                // reached the disk without the growth its pages needed (fdatasync may write the
                // meta's block before the journal commit that records the new size, and a disk
                // cache may reorder them), a torn commit like any other.
                guard meta.version > max(recorded ?? 0, floor) else {
                    throw StorageError(.truncatedFile,
                                       "the file is \(size) bytes, shorter than its newest valid version needs", path: path)
                }
                let torn = StorageError(.corruptFile, "version \(meta.version) needs \(meta.pageCount) pages and the file "
                    + "has \(size / PageLayout.pageSize): its commit was torn before the file's growth reached the disk", path: path)
                lastError = torn
                if newestFailure == nil { newestFailure = torn }
                continue
            }
            guard meta.version - meta.durableBase < UInt64(MetaLayout.slotCount) else {
                lastError = StorageError(.corruptFile, "version \(meta.version) claims an impossible durable base", path: path)
                continue
            }
            do throws(StorageError) {
                var overflow: [UInt32] = []
                var version = meta.version
                // Versions up to the floor are durable (a meta on disk says so), so their pages
                // need no check; their slots may already hold newer versions.
                let chainBase = max(meta.durableBase, floor)
                while version > chainBase || version == meta.version {
                    guard let step = byVersion[version] else {
                        throw StorageError(.corruptFile, "version \(version), needed by \(meta.version), is missing", path: path)
                    }
                    let pages = try verifyCommit(step, fd: fd, cipher: cipher, path: path)
                    if version == meta.version { overflow = pages }
                    if version == 0 { break }
                    version -= 1
                }
                let stale = decoded.filter { $0.meta.version > meta.version }.map(\.slot)
                let earlier = decoded.filter { $0.meta.version <= meta.version && $0.meta.format < MetaLayout.formatVersion }
                    .map { EarlierFormatSlot(slot: $0.slot, version: $0.meta.version) }
                return ChosenSlot(slot: candidate.slot, meta: meta, overflowPages: overflow, staleSlots: stale,
                                  newerFailure: newestFailure, earlierFormatSlots: earlier)
            } catch {
                lastError = error
                if newestFailure == nil { newestFailure = error }
            }
        }
        if let lastError {
            throw StorageError(.corruptFile, "no meta slot's commit verifies (last failure: \(lastError.message))", path: path)
        }
        throw StorageError(.corruptFile, "no meta slot verifies its checksum", path: path)
    }

    /// Checks every page a commit wrote; returns its commit-record overflow pages.
    static func verifyCommit(_ meta: MetaState, fd: Int32, cipher: PageCipher?, path: String) throws(StorageError) -> [UInt32] {
        let page = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        let plain = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { page.deallocate(); plain.deallocate() }

        /// Reads page `ref`, checks its commit checksum, leaves its plain image in `plain`.
        func check(_ ref: UInt32, _ expected: UInt64) throws(StorageError) {
            guard ref >= MetaLayout.firstDataPage, ref < meta.pageCount else {
                throw StorageError(.corruptFile, "commit record names page \(ref) outside the file", path: path)
            }
            let n = try preadFully(fd, page, PageLayout.pageSize, Int(ref) * PageLayout.pageSize, path: path)
            guard n == PageLayout.pageSize else {
                throw StorageError(.truncatedFile, "page \(ref) lies beyond the end of the file", path: path)
            }
            if let cipher {
                guard PageCipher.commitChecksum(ofSealed: UnsafeRawPointer(page)) == expected else {
                    throw StorageError(.corruptPage, "page \(ref) is not the one its commit wrote", path: path)
                }
                try cipher.decrypt(page: ref, from: UnsafeRawPointer(page), into: plain, path: path)
            } else {
                guard PageStore.checksumMatches(UnsafeRawPointer(page), page: Int(ref)) else {
                    throw StorageError(.corruptPage, PageStore.checksumFailure(UnsafeRawPointer(page), page: Int(ref)), path: path)
                }
                guard UInt64(littleEndian: page.loadUnaligned(as: UInt64.self)) == expected else {
                    throw StorageError(.corruptPage, "page \(ref) is not the one its commit wrote", path: path)
                }
                plain.copyMemory(from: UnsafeRawPointer(page), byteCount: PageLayout.pageSize)
            }
        }

        var entries = meta.inlineEntries
        var overflow: [UInt32] = []
        var next = meta.overflowHead
        var expected = meta.overflowChecksum
        while next != 0 {
            guard overflow.count < Int(meta.pageCount) else {
                throw StorageError(.corruptFile, "commit record chain loops", path: path)
            }
            try check(next, expected)
            overflow.append(next)
            let payload = UnsafeRawPointer(plain + PageLayout.headerSize)
            guard payload.load(as: UInt8.self) == PagerPageKind.commitRecord else {
                throw StorageError(.corruptFile, "commit record chain reaches a page of another kind", path: path)
            }
            let count = Int(UInt32(littleEndian: payload.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
            guard count <= CommitRecordLayout.capacity else {
                throw StorageError(.corruptFile, "commit record page claims \(count) entries", path: path)
            }
            var offset = CommitRecordLayout.entriesOffset
            for _ in 0..<count {
                entries.append(CommitEntry(
                    page: UInt32(littleEndian: payload.loadUnaligned(fromByteOffset: offset, as: UInt32.self)),
                    checksum: UInt64(littleEndian: payload.loadUnaligned(fromByteOffset: offset + 4, as: UInt64.self))))
                offset += MetaLayout.entrySize
            }
            next = UInt32(littleEndian: payload.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            expected = UInt64(littleEndian: payload.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        }
        guard entries.count == Int(meta.totalEntries) else {
            throw StorageError(.corruptFile, "commit record lists \(entries.count) pages, meta says \(meta.totalEntries)", path: path)
        }
        for entry in entries { try check(entry.page, entry.checksum) }
        return overflow
    }
}
