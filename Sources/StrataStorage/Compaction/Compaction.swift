// Copies and compaction of a page file. There is one copy, the dense one (DenseCopy.swift):
// every live page is renumbered into [8, 8 + live), child references and the references inside
// values are rewritten, the new file has no free space. It needs the relocator of the layer above
// (`StorageFile.setRelocator`), which says which user roots and value bytes are page references;
// without one, copies and compaction are refused with `.invalidState` and nothing is written.
//
// Invariants:
// - The copy writes a temporary beside the destination (CopyTemporary.swift), never the destination's
//   name: the copy is written fully and flushed before its meta is written and fsynced; then
//   `writeCopy` links it to its destination (which must not exist) and compaction renames it over
//   the original, and the directory is fsynced. A crash leaves either the old or the new file,
//   never a mix, and never a partial or 0-byte destination; a failure before the rename removes
//   the temporary and leaves the original; a killed copy's temporary is removed at the next open.
// - Compaction needs exclusive use: no other handle in this process (`.fileInUse`), no reader or
//   writer on this handle, and no other process under any name (the lock file's open marker and
//   the data file's claim, both taken exclusively). It replaces the file's canonical name, so a
//   symbolic link to it keeps naming the compacted file; a file with several hard links is
//   refused (`.invalidState`), since a rename can replace only one of its names.
// - Compaction holds the handle registry's lock and therefore never waits: not for another
//   process (exclusive use is tried before the writer lock, which then cannot be contended), nor
//   for a write transaction of this process (the writer lock is only tried: `.fileInUse`).
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
        _ = try acquireWriter(toRead: true)
        defer { releaseWriter() }
        let temporary = try CopyTemporary.create(for: destination, suffix: CopyTemporary.copySuffix)
        do throws(StorageError) {
            try copyNewestVersion(into: temporary, cipher: targetCipher)
        } catch {
            temporary.discard()
            throw error
        }
        try temporary.installAsNewFile(at: destination)
    }

    /// The dense copy of the newest version, written into `temporary` and fsynced; the caller
    /// holds the writer and installs or discards it.
    func copyNewestVersion(into temporary: CopyTemporary, cipher target: PageCipher?) throws(StorageError) {
        guard let relocator = lock.withLock({ relocator }) else {
            throw StorageError(.invalidState, "copies and compaction need the relocator of the layer above "
                               + "(StorageFile.setRelocator): without it page references cannot be rewritten", path: path)
        }
        try copyDensely(into: temporary.fd, path: temporary.path, cipher: target, relocator: relocator)
    }
}

extension CoreRegistry {
    /// Compacts the file of `core` (held by exactly one handle) and returns the core of the new
    /// file, with the error of the directory flush after the rename when it failed (the file is
    /// replaced either way, so the handle must move to the new core before that is reported).
    func compact(_ core: FileCore) throws(StorageError) -> (core: FileCore, directoryFlush: StorageError?) {
        try withRegistryLock { () throws(StorageError) -> (core: FileCore, directoryFlush: StorageError?) in
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
            // Through every other name too (a bind mount, a link made since the open): the data
            // file's own claim.
            guard DataFileClaim.tryExclusive(core.fd) else {
                throw StorageError(.fileInUse, "another process has the file open under another name", path: path)
            }
            defer { DataFileClaim.endExclusive(core.fd) }
            // The compacted copy replaces one name by a rename: a file with several hard links
            // would be split in two, the other names keeping the old file and its writers.
            if let identity = FileIdentity.of(descriptor: core.fd), identity.linkCount > 1 {
                throw StorageError(.invalidState, "the file has \(identity.linkCount) names (hard links); compacting it would "
                                   + "replace one of them with a new file and leave the others on the old one", path: path)
            }
            // The file's own name, not a symbolic link to it: the link must keep naming the file.
            let target = CoreRegistry.canonicalPath(path)
            _ = try core.acquireWriter(waiting: false)
            var writerHeld = true
            defer { if writerHeld { core.releaseWriter() } }
            guard core.lock.withLock({ core.readers.isEmpty }) else {
                throw StorageError(.fileInUse, "a read transaction of this handle is open", path: path)
            }
            // Exclusive use: a `.compact` file left here is a killed compaction's (removed by create).
            let temporary = try CopyTemporary.create(for: target, suffix: CopyTemporary.compactionSuffix)
            do throws(StorageError) {
                try core.copyNewestVersion(into: temporary, cipher: core.cipher)
                if core.injectedCompactionFailureBeforeRename {
                    core.injectedCompactionFailureBeforeRename = false
                    throw StorageError(.io, "injected failure before the rename", path: path)
                }
            } catch {
                temporary.discard()
                throw error
            }
            try temporary.installReplacing(target)
            var directoryFlush: StorageError? = nil
            do throws(StorageError) {
                try CopyTemporary.syncDirectory(of: target)
            } catch {
                directoryFlush = error
            }
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
            return (fresh, directoryFlush)
        }
    }
}

extension StorageFile {
    /// Registers how compaction, `writeCopy` and `verify()` find the trees of a version (see
    /// `PageRelocating`). Copies and compaction need one (they renumber pages and rewrite the
    /// references to them); nil unregisters it. Shared by every handle to the file in this
    /// process and kept across `compact()`.
    public func setRelocator(_ relocator: (any PageRelocating)?) {
        let core = self.core
        core.lock.withLock { core.relocator = relocator }
    }
}

