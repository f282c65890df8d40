// Verifying a dense copy before it replaces anything: the new file is read back from disk (through
// the page cache) and walked through the same relocation plan, independently of the copier.
//
// Invariants:
// - Every page the walk reaches verifies on its own (checksum and page number, or AEAD tag with
//   the destination key), lies in [8, pageCount) and is reached once; the walk reaches exactly
//   pageCount − 8 pages (a dense file has no free page). Otherwise `.corruptFile`, and the caller
//   removes the copy: a copier bug can never replace a good file with a bad one.
// - The plan is made again from the copy's own roots and pages, so a reference the copier failed
//   to rewrite points at a page of the wrong kind or outside the file and fails here.

#if canImport(Glibc)
import Glibc
#endif

/// The pages of a copy just written, read through a read-only mapping and checked on first read.
/// Confined to the verifying thread.
final class CopiedFilePages: PageReading {
    private let base: UnsafeMutableRawPointer
    private let bytes: Int
    private let pageCount: Int
    private let cipher: PageCipher?
    private let path: String
    /// Encrypted copies: decrypted pages (anonymous memory), filled on first read.
    private let plain: UnsafeMutableRawPointer?
    private var checked: [Bool]

    init(fd: Int32, pageCount: Int, cipher: PageCipher?, path: String) throws(StorageError) {
        self.pageCount = pageCount
        self.cipher = cipher
        self.path = path
        bytes = max(1, pageCount) * PageLayout.pageSize
        guard let mapped = mmap(nil, bytes, PROT_READ, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            throw ioError("mmap", errno, path: path)
        }
        base = mapped
        if cipher != nil {
            guard let anonymous = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
                  anonymous != MAP_FAILED else {
                munmap(mapped, bytes)
                throw ioError("mmap", errno, path: path)
            }
            plain = anonymous
        } else {
            plain = nil
        }
        checked = [Bool](repeating: false, count: pageCount)
    }

    deinit {
        munmap(base, bytes)
        if let plain { munmap(plain, bytes) }
    }

    func readPage(_ ref: PageRef) throws(StorageError) -> UnsafeRawPointer {
        let page = Int(ref.raw)
        guard ref.raw >= MetaLayout.firstDataPage, page < pageCount else {
            throw StorageError(.corruptFile, "the copy references \(ref) outside its \(pageCount) pages", path: path)
        }
        let sealed = UnsafeRawPointer(base + page * PageLayout.pageSize)
        if let cipher, let plain {
            let image = plain + page * PageLayout.pageSize
            if !checked[page] {
                try cipher.decrypt(page: ref.raw, from: sealed, into: image, path: path)
                checked[page] = true
            }
            return UnsafeRawPointer(image + PageLayout.headerSize)
        }
        if !checked[page] {
            guard PageStore.checksumMatches(sealed, page: page) else {
                throw StorageError(.corruptPage, "page \(page) of the copy fails its checksum", path: path)
            }
            checked[page] = true
        }
        return sealed + PageLayout.headerSize
    }
}

extension FileCore {
    /// Walks the dense copy in `fd` (`pageCount` pages, newest roots `roots`) through `relocator`
    /// and checks that it reaches every data page exactly once. Throws `.corruptFile`/`.corruptPage`.
    static func verifyDenseCopy(fd: Int32, pageCount: Int, roots: UserRoots, cipher: PageCipher?,
                                relocator: any PageRelocating, path: String) throws(StorageError) {
        let pages = try CopiedFilePages(fd: fd, pageCount: pageCount, cipher: cipher, path: path)
        var seen = [Bool](repeating: false, count: pageCount)
        var reached = 0
        let walker = PageWalk.reachabilityWalker(using: relocator)
        do {
            try walker(roots, pages) { ref in
                let page = Int(ref.raw)
                guard page >= Int(MetaLayout.firstDataPage), page < pageCount, !seen[page] else {
                    throw StorageError(.corruptFile, "the copy reaches \(ref) twice or outside its pages", path: path)
                }
                seen[page] = true
                reached += 1
            }
        } catch {
            throw walkError(error, path: path)
        }
        guard reached == pageCount - Int(MetaLayout.firstDataPage) else {
            throw StorageError(.corruptFile, "the copy's walk reaches \(reached) of its \(pageCount - Int(MetaLayout.firstDataPage)) data pages", path: path)
        }
    }
}
