// Where committed pages live for reading, and how a commit puts pages there.
//
// Three backings share one shape — a reserved address range with page p at `base + p * 4096`:
// - plain file: the file mapped shared (MAP_SHARED) over a large reserved range, so file growth
//   never remaps and readers never take a lock (LMDB's way). Mapped writable when the descriptor
//   allows it: a commit then puts its sealed pages into the mapping (`writeWindow`) instead of
//   calling pwrite per page run — built there from the start when the file is not flushed per
//   commit (FileCore.buildsInPlace), else copied in at commit; the page cache is the same, so pread/pwrite users, other
//   processes' mappings and fdatasync see the bytes exactly as if written with pwrite (Linux's
//   page cache is unified), but an already-dirty page costs a memcpy instead of a syscall and
//   ext4's per-page write_begin/write_end (~20% of a small commit's CPU in profiles). Like LMDB's
//   MDB_WRITEMAP, the price is that a stray write through a page pointer would reach the file;
//   readers only ever get `UnsafeRawPointer`s, and the writer only writes pages no reader sees.
// - memOnly: anonymous memory; commits copy pages in.
// - encrypted file: anonymous memory holding decrypted pages (the page cache); a page is read
//   and decrypted once, on first access, then served from memory. The file itself is mapped
//   shared as well (`sealedBase`, writable when allowed: it is then the write window).
//
// Page header (pager-owned, 32 bytes):
//   plain/memOnly: checksum u64 @0 (of bytes [8, 4096) seeded with the page number),
//                  version u64 @8 (the commit that wrote the page), page number u32 @16,
//                  checksum kind u8 @20: 0 = XXH64 (pages of older builds), 1 = stripe hash
//                  (StripeHash.swift, ~2× faster; every page written now). The kind byte lies
//                  inside the hashed range, so a flipped kind fails like any flipped byte, and
//                  each page says how to verify it: files of older builds open unchanged.
//   encrypted:     nonce 12 bytes @0, GCM tag 16 bytes @12, low 32 bits of the version @28
//                  (on disk); in memory the header keeps the version u64 @8 like a plain page.
//
// Invariants:
// - A pointer handed out stays valid until the store is deinitialised (the range never moves).
// - `payload(_:limit:)` returns only verified pages (see VerifiedPages).
// - Pages are written only by the writer and only when no reader can see them.
// - The write window is written only below the file's size (the writer grows the file first):
//   a store past the end of a shared mapping would raise SIGBUS. The file grows by written zeros
//   (FileCore.ensureCapacity), never by ftruncate, and the holes a file may have been given
//   outside Strata (a sparse copy by another tool, an extending truncate) are
//   allocated when the store opens (`hasNoHoles`, else no window), so the window never covers a
//   hole: a full disk is reported by the growth's pwrite (a typed error), not by SIGBUS.
// - After another process commits, the verified map is cleared; an encrypted page still in use by
//   a reader of this process may then be decrypted again into the cache, which rewrites the same
//   bytes (that page cannot have changed on disk: the reader's pin protects it).

import Synchronization
#if canImport(Glibc)
import Glibc
#endif

enum PageHeader {
    static let checksumOffset = 0
    static let versionOffset = 8
    static let pageNumberOffset = 16
    static let checksumKindOffset = 20
    /// The checksum kind of plain pages: the stripe hash (StripeHash.swift), the only kind this
    /// build writes or reads. Kind 0 (XXH64) was an earlier build's; any other kind fails to
    /// verify, with a message naming it (`PageStore.checksumFailure`).
    static let kindStripe: UInt8 = 1
}

final class PageStore: @unchecked Sendable {
    // @unchecked: the range is written only for pages no reader can see (writer-confined) or, for
    // encrypted loads, under a stripe lock before the verified bit is published with release order.
    let fd: Int32
    let path: String?
    let base: UnsafeMutableRawPointer
    let reservedBytes: Int
    let reservedPages: Int
    let verified: VerifiedPages
    let cipher: PageCipher?
    /// Encrypted files: the file itself mapped read-only, so a first read decrypts straight from
    /// the page cache without a pread per page (nil if the mapping was refused: pread then).
    private let sealedBase: UnsafeRawPointer?
    private let sealedBytes: Int
    /// The file mapped shared and writable (the plain mapping or the sealed one), where a commit
    /// copies sealed page images; nil when only a read-only mapping was possible (then pwrite).
    let writeWindow: UnsafeMutableRawPointer?
    let writeWindowBytes: Int
    private let loadLocks: [PosixLock]

    var isMemory: Bool { fd < 0 }

    /// `fd < 0`: memOnly. A cipher: encrypted file (decrypted pages kept in memory).
    init(fd: Int32, path: String?, cipher: PageCipher?) throws(StorageError) {
        self.fd = fd
        self.path = path
        self.cipher = cipher
        let anonymous = fd < 0 || cipher != nil
        // Reserve address space, not memory: 64 GiB for anonymous ranges (MAP_NORESERVE), 1 TiB for
        // a shared file mapping (file pages are backed by the file). Halve on refusal.
        var size = anonymous ? (1 << 36) : (1 << 40)
        var mapped: UnsafeMutableRawPointer? = nil
        var plainWritable = false
        while size >= (1 << 28) {
            let r: UnsafeMutableRawPointer?
            if anonymous {
                r = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
            } else {
                r = PageStore.mapFile(fd, size, writable: &plainWritable)
            }
            if let r, r != MAP_FAILED { mapped = r; break }
            size /= 2
        }
        guard let mapped else {
            throw StorageError(.io, "cannot reserve address space for the file: \(errnoText(errno))", path: path)
        }
        base = mapped
        reservedBytes = size
        reservedPages = size / PageLayout.pageSize
        verified = try VerifiedPages(capacityPages: reservedPages)
        loadLocks = cipher == nil ? [] : (0..<64).map { _ in PosixLock() }
        var sealedWritable = false
        if cipher != nil && fd >= 0, let sealed = PageStore.mapFile(fd, size, writable: &sealedWritable), sealed != MAP_FAILED {
            sealedBase = UnsafeRawPointer(sealed)
            sealedBytes = size
            writeWindow = sealedWritable && PageStore.hasNoHoles(fd) ? sealed : nil
        } else {
            sealedBase = nil
            sealedBytes = 0
            writeWindow = cipher == nil && fd >= 0 && plainWritable && PageStore.hasNoHoles(fd) ? mapped : nil
        }
        writeWindowBytes = writeWindow == nil ? 0 : size
    }

    /// Makes sure every byte of the file has disk space behind it, so that a store through the
    /// write window can never need an allocation (which, on a full disk, is SIGBUS rather than an
    /// error). Files grow by written zeros and copies have no free pages, but a file may have
    /// been made sparse outside Strata (another tool's sparse copy). posix_fallocate allocates
    /// only the holes (allocated ranges are left alone). On failure the caller keeps pwrite,
    /// which reports a full disk as a typed error.
    private static func hasNoHoles(_ fd: Int32) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        if info.st_size == 0 { return true }
        return posix_fallocate(fd, 0, info.st_size) == 0
    }

    /// Maps `size` bytes of the file shared, writable if the descriptor allows it (read-only
    /// descriptors get a read-only mapping). Tells through `writable` which it got.
    private static func mapFile(_ fd: Int32, _ size: Int, writable: inout Bool) -> UnsafeMutableRawPointer? {
        if let r = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), r != MAP_FAILED {
            writable = true
            return r
        }
        writable = false
        return mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0)
    }

    deinit {
        munmap(base, reservedBytes)
        if let sealedBase { munmap(UnsafeMutableRawPointer(mutating: sealedBase), sealedBytes) }
    }

    @inline(__always)
    func pageAddress(_ page: Int) -> UnsafeMutableRawPointer { base + page * PageLayout.pageSize }

    /// The verified payload of `page`, which must be below `limit` (the reader's page count).
    @inline(__always)
    func payload(_ ref: PageRef, limit: UInt32) throws(StorageError) -> UnsafeRawPointer {
        let page = Int(ref.raw)
        guard ref.raw >= MetaLayout.firstDataPage, ref.raw < limit else {
            throw StorageError(.corruptFile, "reference to \(ref) outside the version's \(limit) pages", path: path)
        }
        if !verified.contains(page) { try load(page) }
        return UnsafeRawPointer(pageAddress(page) + PageLayout.headerSize)
    }

    private func load(_ page: Int) throws(StorageError) {
        guard page < reservedPages else {
            throw StorageError(.tooLarge, "page \(page) beyond the reserved range", path: path)
        }
        if let cipher {
            let lock = loadLocks[page & 63]
            try lock.withLock { () throws(StorageError) in
                if verified.contains(page) { return }
                try decryptStoredPage(page, cipher: cipher, into: pageAddress(page))
                verified.insert(page)
            }
            return
        }
        let address = UnsafeRawPointer(pageAddress(page))
        guard PageStore.checksumMatches(address, page: page) else {
            throw StorageError(.corruptPage, PageStore.checksumFailure(address, page: page), path: path)
        }
        verified.insert(page)
    }

    /// Verifies `page` without handing it out (open's verification, OpenVerification.swift): a
    /// plain page is checked and marked verified; an encrypted page is authenticated by
    /// decrypting it into `scratch` (a page-sized buffer), leaving the decrypted cache untouched.
    func verify(_ page: Int, scratch: UnsafeMutableRawPointer) throws(StorageError) {
        if verified.contains(page) { return }
        guard let cipher else { return try load(page) }
        guard page < reservedPages else {
            throw StorageError(.tooLarge, "page \(page) beyond the reserved range", path: path)
        }
        try decryptStoredPage(page, cipher: cipher, into: scratch)
    }

    /// Authenticates and decrypts stored page `page` into `destination` (page-sized): straight
    /// from the read-only mapping of the file when it covers the page, else through a pread.
    /// Callers pass pages below the version's page count, which never exceeds the file size, so
    /// reading through the mapping cannot fault.
    private func decryptStoredPage(_ page: Int, cipher: PageCipher,
                                   into destination: UnsafeMutableRawPointer) throws(StorageError) {
        if let sealedBase, (page + 1) * PageLayout.pageSize <= sealedBytes {
            try cipher.decrypt(page: UInt32(page), from: sealedBase + page * PageLayout.pageSize, into: destination, path: path)
            return
        }
        let sealed = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: 16)
        defer { sealed.deallocate() }
        let n = try preadFully(fd, sealed, PageLayout.pageSize, page * PageLayout.pageSize, path: path)
        guard n == PageLayout.pageSize else {
            throw StorageError(.truncatedFile, "page \(page) lies beyond the end of the file", path: path)
        }
        try cipher.decrypt(page: UInt32(page), from: UnsafeRawPointer(sealed), into: destination, path: path)
    }

    /// Whether a plain page image verifies: checksum kind, page number and stripe-hash checksum.
    static func checksumMatches(_ image: UnsafeRawPointer, page: Int) -> Bool {
        let stored = UInt64(littleEndian: image.loadUnaligned(fromByteOffset: PageHeader.checksumOffset, as: UInt64.self))
        let number = UInt32(littleEndian: image.loadUnaligned(fromByteOffset: PageHeader.pageNumberOffset, as: UInt32.self))
        guard number == UInt32(truncatingIfNeeded: page),
              image.load(fromByteOffset: PageHeader.checksumKindOffset, as: UInt8.self) == PageHeader.kindStripe else {
            return false
        }
        return stored == stripeHash64(image + 8, count: PageLayout.pageSize - 8, seed: UInt64(page))
    }

    /// Why a plain page image that does not verify was refused, naming a checksum kind this build
    /// does not read (a page of an earlier build, or a damaged header).
    static func checksumFailure(_ image: UnsafeRawPointer, page: Int) -> String {
        let kind = image.load(fromByteOffset: PageHeader.checksumKindOffset, as: UInt8.self)
        guard kind == PageHeader.kindStripe else {
            let earlier = kind == 0 ? " (XXH64, an earlier build's)" : ""
            return "page \(page) has checksum kind \(kind)\(earlier); this build reads only kind \(PageHeader.kindStripe), the stripe hash"
        }
        return "page \(page) fails its checksum"
    }

    /// The version that wrote a committed page (0 if its header cannot be trusted).
    func writtenVersion(_ page: Int) -> UInt64 {
        guard page < reservedPages else { return 0 }
        if !verified.contains(page) {
            do { try load(page) } catch { return 0 }
        }
        return UInt64(littleEndian: pageAddress(page).loadUnaligned(fromByteOffset: PageHeader.versionOffset, as: UInt64.self))
    }

    /// Fills the header of a page image about to be written and returns its commit checksum.
    /// Plain: the stripe-hash checksum (kind 1). Encrypted: encrypts into `sealed` and returns the
    /// tag prefix.
    func seal(_ image: UnsafeMutableRawPointer, page: UInt32, version: UInt64,
              sealed: UnsafeMutableRawPointer) throws(StorageError) -> UInt64 {
        try PageStore.seal(image, page: page, version: version, cipher: cipher, sealed: sealed, path: path)
    }

    static func seal(_ image: UnsafeMutableRawPointer, page: UInt32, version: UInt64, cipher: PageCipher?,
                     sealed: UnsafeMutableRawPointer, path: String?) throws(StorageError) -> UInt64 {
        image.storeBytes(of: version.littleEndian, toByteOffset: PageHeader.versionOffset, as: UInt64.self)
        image.storeBytes(of: page.littleEndian, toByteOffset: PageHeader.pageNumberOffset, as: UInt32.self)
        for i in 20..<PageLayout.headerSize { image.storeBytes(of: 0, toByteOffset: i, as: UInt8.self) }
        if let cipher {
            // The in-memory copy is trusted (verified bit set on install); the tag protects the disk copy.
            image.storeBytes(of: UInt64(0), toByteOffset: PageHeader.checksumOffset, as: UInt64.self)
            return try cipher.encrypt(page: page, version: version, from: UnsafeRawPointer(image), into: sealed, path: path)
        }
        image.storeBytes(of: PageHeader.kindStripe, toByteOffset: PageHeader.checksumKindOffset, as: UInt8.self)
        let sum = stripeHash64(UnsafeRawPointer(image) + 8, count: PageLayout.pageSize - 8, seed: UInt64(page))
        image.storeBytes(of: sum.littleEndian, toByteOffset: PageHeader.checksumOffset, as: UInt64.self)
        return sum
    }

    /// Makes a sealed page visible to readers of this process after it was written to the file
    /// (or, for memOnly, copies it in).
    func install(_ image: UnsafeRawPointer, page: UInt32) {
        let p = Int(page)
        if buildsPagesInPlace, image != UnsafeRawPointer(pageAddress(p)) {
            pageAddress(p).copyMemory(from: image, byteCount: PageLayout.pageSize)
        }
        verified.insert(p)
    }

    /// Whether the writer always builds new pages directly in their slot of the range (memOnly
    /// and encrypted stores: the range is private memory, and a page being allocated is one no
    /// reader can see), so `install` has nothing to copy. A plain file's range is the file
    /// mapping: its writer builds there only when commits go through the writable mapping and
    /// the page lies in the file (FileCore.buildsInPlace), else in pooled buffers.
    var buildsPagesInPlace: Bool { isMemory || cipher != nil }

    /// Maps in the memory behind pages the file just grew by, in one call, where the writer will
    /// build them (the private range of an encrypted store). Without it each new page costs a
    /// page fault on first touch (trap, allocation, zeroing): in a bulk insert of 1,000,000
    /// encrypted objects the faults cost about twice the AES-GCM sealing. MADV_POPULATE_WRITE
    /// (Linux 5.14) does the same allocation without a trap per page; on older kernels it fails
    /// with EINVAL and pages fault in on first touch.
    func prefault(pages range: Range<Int>) {
        guard cipher != nil, !range.isEmpty, range.upperBound <= reservedPages else { return }
        _ = madvise(pageAddress(range.lowerBound), range.count * PageLayout.pageSize, PageStore.populateWrite)
    }

    private static let populateWrite: Int32 = 23   // MADV_POPULATE_WRITE

    /// Whether `pointer` lies in the range (a page slot, not a pooled buffer).
    func contains(_ pointer: UnsafeMutableRawPointer) -> Bool {
        pointer >= base && pointer < base + reservedPages * PageLayout.pageSize
    }
}
