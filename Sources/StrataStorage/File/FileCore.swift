// The shared state of one open page file in this process. Every `StorageFile` handle to the same
// path shares one core: one writer gate, one reader registry, one page store (and so one mapping
// and one page cache).
//
// Invariants:
// - `latest`, `readers`, `handleCount` are read and written only under `lock`.
// - `freeSpace`, `freeListPages`, `overflowPages`, `fileSizePages`, `activeSlot`, the buffer pool
//   and the fault-injection hooks belong to the writer: touched only while holding `writerGate`
//   (or during open, before the core is shared).
// - `latest.pageCount` pages exist in the file (fileSizePages ≥ latest.pageCount).

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
    // the holder of `writerGate`.
    let options: StorageOptions
    let registryKey: String
    let fd: Int32
    let store: PageStore
    let cipher: PageCipher?
    var path: String { options.path }

    // Guarded by `lock`.
    let lock = PosixLock()
    var latest: CommittedVersion
    var readers: [UInt64: Int] = [:]
    var handleCount = 0

    // Owned by the writer.
    let writerGate = WriterGate()
    var freeSpace = FreeSpace()
    var freeListPages: [UInt32] = []
    var overflowPages: [UInt32] = []
    var fileSizePages: Int
    var activeSlot: Int
    var bufferPool: [UnsafeMutableRawPointer] = []
    /// Test hook: when non-zero, the next commit's page write fails with this errno.
    var injectedWriteErrno: Int32 = 0
    /// Test hook: when non-zero, the next commit's flush fails with this errno.
    var injectedFlushErrno: Int32 = 0

    init(options: StorageOptions, registryKey: String, fd: Int32, store: PageStore, cipher: PageCipher?,
         latest: CommittedVersion, activeSlot: Int, fileSizePages: Int) {
        self.options = options
        self.registryKey = registryKey
        self.fd = fd
        self.store = store
        self.cipher = cipher
        self.latest = latest
        self.activeSlot = activeSlot
        self.fileSizePages = fileSizePages
    }

    deinit {
        for buffer in bufferPool { buffer.deallocate() }
        if fd >= 0 { Glibc.close(fd) }
    }

    // MARK: - Readers

    func beginRead() throws(StorageError) -> CommittedVersion {
        try lock.withLock { () throws(StorageError) -> CommittedVersion in
            let current = latest
            if readers[current.version] == nil, let limit = options.maximumActiveVersions, readers.count >= limit {
                throw StorageError(.tooManyActiveVersions,
                                   "\(readers.count) versions are pinned, the limit is \(limit)", path: path)
            }
            readers[current.version, default: 0] += 1
            return current
        }
    }

    func endRead(_ version: UInt64) {
        lock.withLock {
            if let n = readers[version] {
                if n <= 1 { readers[version] = nil } else { readers[version] = n - 1 }
            }
        }
    }

    /// Versions pinned by live readers of this process, ascending.
    func pinnedVersions() -> [UInt64] {
        lock.withLock { readers.keys.sorted() }
    }

    func currentVersion() -> CommittedVersion { lock.withLock { latest } }

    // MARK: - Writer resources

    /// A page-sized, page-aligned buffer (contents undefined).
    func takeBuffer() -> UnsafeMutableRawPointer {
        if let buffer = bufferPool.popLast() { return buffer }
        return UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
    }

    func returnBuffer(_ buffer: UnsafeMutableRawPointer) {
        if bufferPool.count < 4096 { bufferPool.append(buffer) } else { buffer.deallocate() }
    }

    /// Grows the file so that `pages` pages exist, in amortised steps: max(1 MiB, 1/8 of the file),
    /// so that commits rarely extend the file and fdatasync rarely has metadata to flush.
    func ensureCapacity(pages: Int) throws(StorageError) {
        guard pages <= store.reservedPages else {
            throw StorageError(.tooLarge, "the file would exceed \(store.reservedPages) pages", path: path)
        }
        guard pages > fileSizePages else { return }
        if fd < 0 { fileSizePages = pages; return }
        let step = max(256, fileSizePages / 8)
        var target = max(pages, fileSizePages + step)
        target = (target + 255) / 256 * 256
        target = min(target, store.reservedPages)
        let rc = posix_fallocate(fd, 0, off_t(target) * off_t(PageLayout.pageSize))
        if rc != 0 {
            if rc == EOPNOTSUPP || rc == EINVAL {
                if ftruncate(fd, off_t(target) * off_t(PageLayout.pageSize)) != 0 {
                    throw ioError("ftruncate", errno, path: path)
                }
            } else {
                throw ioError("posix_fallocate", rc, path: path)
            }
        }
        fileSizePages = target
    }
}
