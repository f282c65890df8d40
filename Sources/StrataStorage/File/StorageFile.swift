// The public handle to a page file, and the per-process registry that makes handles to one path
// share one core.
//
// Invariants:
// - The registry maps a key (canonical path, or "mem:" + identifier for memOnly) to the core of
//   every path open in this process; a core leaves the registry when its last handle closes.
//   Transactions keep their core alive (not registered) until they end.
// - A closed handle refuses new transactions with `.closed`.

import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The cores of the files open in this process.
final class CoreRegistry: @unchecked Sendable {
    // @unchecked: `cores` is only touched under `lock`.
    static let shared = CoreRegistry()
    private let lock = PosixLock()
    private var cores: [String: FileCore] = [:]

    /// Cores by the identity (device, inode) of their file: a hard link or bind mount of a file
    /// open here shares its core, as another symlink or relative name of it does through `cores`.
    private var coresByFile: [String: FileCore] = [:]

    static func key(for options: StorageOptions) -> String {
        if options.durability == .memOnly { return "mem:" + options.path }
        return canonicalPath(options.path)
    }

    /// The absolute path with every symbolic link, `.` and `..` resolved (FileIdentity.swift);
    /// the file itself may not exist yet.
    static func canonicalPath(_ path: String) -> String { FilePath.canonical(path) }

    func acquire(_ options: StorageOptions) throws(StorageError) -> FileCore {
        let key = CoreRegistry.key(for: options)
        return try lock.withLock { () throws(StorageError) -> FileCore in
            let sameFile = options.durability == .memOnly ? nil : FileIdentity.of(path: options.path).flatMap { coresByFile[$0.key] }
            if let core = cores[key] ?? sameFile {
                let existing = core.options
                if existing.encryptionKey != options.encryptionKey {
                    throw StorageError(.wrongKey, "the file is already open in this process with another key", path: options.path)
                }
                if existing.durability != options.durability,
                   existing.durability == .memOnly || options.durability == .memOnly {
                    throw StorageError(.invalidArgument, "the file is already open with durability \(existing.durability)", path: options.path)
                }
                if existing.readOnly && !options.readOnly {
                    throw StorageError(.readOnly, "the file is already open read-only in this process", path: options.path)
                }
                core.lock.withLock { core.handleCount += 1 }
                return core
            }
            let core = try FileCore.open(options, registryKey: key)
            core.handleCount = 1
            register(core)
            return core
        }
    }

    /// Enters `core` under its key and its file's identity; the caller holds the registry lock.
    private func register(_ core: FileCore) {
        cores[core.registryKey] = core
        if core.fd >= 0, let identity = FileIdentity.of(descriptor: core.fd) { coresByFile[identity.key] = core }
    }

    /// Removes `core`'s entries; the caller holds the registry lock.
    private func unregister(_ core: FileCore) {
        if cores[core.registryKey] === core { cores[core.registryKey] = nil }
        if core.fd >= 0, let identity = FileIdentity.of(descriptor: core.fd), coresByFile[identity.key] === core {
            coresByFile[identity.key] = nil
        }
    }

    func release(_ core: FileCore) {
        let closed = lock.withLock { () -> Bool in
            let remaining = core.lock.withLock { () -> Int in
                core.handleCount -= 1
                return core.handleCount
            }
            if remaining == 0, cores[core.registryKey] === core {
                unregister(core)
                return true
            }
            return false
        }
        if closed { core.recordDurabilityAtClose() }
    }

    func withRegistryLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        try lock.withLock(body)
    }

    /// Swaps a core for its successor; the caller holds the registry lock.
    func replaceUnlocked(_ old: FileCore, with fresh: FileCore) {
        old.lock.withLock { old.handleCount = 0 }
        unregister(old)
        register(fresh)
    }

    /// Whether a core of the file `path` names is open in this process, under any of its names.
    func isOpen(path: String) -> Bool {
        let key = CoreRegistry.canonicalPath(path)
        let identity = FileIdentity.of(path: path)
        return lock.withLock { cores[key] != nil || identity.map { coresByFile[$0.key] != nil } == true }
    }
}

/// A handle to one page file. Handles to the same file in one process share its state
/// (writer lock, reader registry, page cache); other processes coordinate through the lock file.
/// Thread-safe: any thread may begin transactions on it.
public final class StorageFile: @unchecked Sendable {
    // @unchecked: `closed` is atomic; `currentCore` is guarded by `coreLock` (it changes only when
    // compaction replaces the file); the core is thread-safe.
    public let options: StorageOptions
    private let coreLock = PosixLock()
    private var currentCore: FileCore
    private let closed = Atomic<Bool>(false)

    /// The shared state of the file this handle has open.
    var core: FileCore { coreLock.withLock { currentCore } }

    private init(options: StorageOptions, core: FileCore) {
        self.options = options
        self.currentCore = core
    }

    deinit { close() }

    /// Opens (creating unless `mustExist`) the file.
    ///
    /// Throws `.notFound` (mustExist and no file), `.notAStrataFile`, `.truncatedFile`,
    /// `.corruptFile`, `.wrongKey`, `.invalidKey` (key not 64 bytes), `.io`.
    public static func open(_ options: StorageOptions) throws -> StorageFile {
        try openTyped(options)
    }

    /// `open(_:)` with a typed error.
    public static func openTyped(_ options: StorageOptions) throws(StorageError) -> StorageFile {
        if let key = options.encryptionKey, key.count != 64 {
            throw StorageError(.invalidKey, "an encryption key must be 64 bytes, got \(key.count)", path: options.path)
        }
        let core = try CoreRegistry.shared.acquire(options)
        return StorageFile(options: options, core: core)
    }

    private func ensureOpen() throws(StorageError) {
        if closed.load(ordering: .relaxed) {
            throw StorageError(.closed, "the file handle is closed", path: options.path)
        }
    }

    /// A snapshot of the newest committed version. Never blocks on writers.
    public func beginRead() throws -> ReadTransaction {
        try ensureOpen()
        let snapshot = try core.beginRead()
        return ReadTransaction(core: core, snapshot: snapshot)
    }

    /// The single write transaction; blocks until other writers (threads or processes) finish.
    public func beginWrite() throws -> WriteTransaction {
        try ensureOpen()
        let base = try core.acquireWriter()
        return WriteTransaction(core: core, base: base)
    }

    /// `beginWrite()` without waiting: `nil` while another writer (thread or process) holds the
    /// file, for callers that wait by other means (an asynchronous write suspends its task).
    public func beginWriteIfFree() throws -> WriteTransaction? {
        try ensureOpen()
        do {
            let base = try core.acquireWriter(waiting: false)
            return WriteTransaction(core: core, base: base)
        } catch where error.code == .fileInUse {
            return nil
        }
    }

    /// The newest committed version number (including commits by other processes).
    public func latestVersion() throws -> UInt64 {
        try ensureOpen()
        return try core.currentVersion().version
    }

    /// Returns once `version` is durable, making (or sharing) a flush if it is not yet. Used to
    /// complete commits made with `WriteTransaction.durability = .unsafe` on a `.full` file
    /// later, several at once (grouped asynchronous commits). Immediate for files opened
    /// `.unsafe` or `.memOnly`, whose promise covers process crashes only.
    public func waitUntilDurable(_ version: UInt64) throws {
        try ensureOpen()
        guard core.fd >= 0, core.options.durability == .full else { return }
        try core.awaitDurable(version)
    }

    /// Flushes (fdatasync) this process has made on this file since it was opened.
    public var flushCount: Int { core.flushLock.withLock { core.flushCount } }

    /// The work this process's commits did on this file since it was opened (all handles).
    /// A compaction replaces the file, and the counters start again from zero.
    public var statistics: StorageStatistics { core.counters.snapshot() }

    public func sizes() throws -> FileSizes {
        try ensureOpen()
        return try core.sizes()
    }

    /// Walks the newest version and the free lists; throws `.corruptFile` when accounting fails.
    public func verify() throws -> PageAccounting {
        try ensureOpen()
        return try core.verify()
    }

    /// Rewrites the newest version densely and atomically replaces the file.
    /// Throws `.fileInUse` when another handle or process has the file open, `.invalidState`
    /// when no relocator is registered (`setRelocator`). When the directory cannot be flushed
    /// after the replacement it throws that error (`.io` and friends) with the file already
    /// replaced and this handle using it: until a later directory flush succeeds, a power cut may
    /// bring back the file as it was before compaction.
    public func compact() throws {
        try ensureOpen()
        try coreLock.withLock { () throws(StorageError) in
            let result = try CoreRegistry.shared.compact(currentCore)
            currentCore = result.core
            if let failure = result.directoryFlush { throw failure }
        }
    }

    /// Writes the newest committed version densely to `path` (must not exist), encrypted with
    /// `encryptionKey` (nil: plain). Throws `.invalidState` when no relocator is registered
    /// (`setRelocator`).
    public func writeCopy(toPath path: String, encryptionKey: [UInt8]?) throws {
        try ensureOpen()
        try core.writeCopy(toPath: path, encryptionKey: encryptionKey)
    }

    /// Releases this handle; the file closes when its last handle does.
    public func close() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) {
            CoreRegistry.shared.release(core)
        }
    }

    /// Whether any handle in this process or any other process has the file `path` names open,
    /// through this name or any other (a symbolic or hard link, a relative path, a bind mount).
    public static func isOpenAnywhere(path: String) -> Bool {
        if CoreRegistry.shared.isOpen(path: path) { return true }
        let (preferred, alternative) = LockLocation.candidates(forDataPath: path)
        for location in [preferred, alternative].compactMap({ $0 }) where LockFile.isOpenByAnotherProcess(lockPath: location.path) {
            return true
        }
        return DataFileClaim.isOpen(path: path)
    }

    /// The absolute path of the file `path` names, with every symbolic link, `.` and `..`
    /// resolved: the name compaction replaces and `deleteFiles` removes. The file need not exist.
    public static func canonicalPath(_ path: String) -> String { FilePath.canonical(path) }

    /// Removes the file and its companions; `.fileInUse` while open anywhere. A symbolic link is
    /// removed with the file it names (and that file's companions), so that the path names no
    /// file afterwards, as for any other path. A hard link is one name of its file: the file stays
    /// under its other names.
    public static func deleteFiles(path: String) throws {
        guard !isOpenAnywhere(path: path) else {
            throw StorageError(.fileInUse, "the file is open", path: path)
        }
        let canonical = canonicalPath(path)
        let identity = FileIdentity.of(path: canonical)
        var names = [canonical, canonical + ".lock", canonical + ".compact"]
        if canonical != path { names += [path, path + ".lock", path + ".compact"] }
        // The identity-named lock file goes with the file's last name.
        if let identity, identity.linkCount <= 1 { names.append(identity.sharedLockPath) }
        for name in names {
            if unlink(name) != 0 && errno != ENOENT {
                throw ioError("unlink", errno, path: name)
            }
        }
    }
}
