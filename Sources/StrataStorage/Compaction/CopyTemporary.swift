// The temporary file a copy or compaction is written to, beside its destination, and how it
// becomes the destination.
//
// Invariants:
// - A copy never writes its destination's name: it writes `destination + suffix` (`.copy` for
//   `writeCopy`, `.compact` for compaction) in the same directory, and only a complete, fsynced
//   copy is given the destination's name — by `link` (a copy: fails if the destination appeared
//   meanwhile, so an existing file is never replaced) or `rename` (compaction: atomically over
//   the original) — after which the directory is fsynced. A failed or killed copy therefore
//   leaves no file under the destination's name, never a 0-byte or partial one.
// - While a copy is written its temporary is held with an exclusive lock (an OFD write lock on its
//   first byte, released when the copier's descriptor closes or the process dies). A temporary nobody
//   holds is the leftover of a killed process: `removeStale` deletes it (at the next open of the
//   file, before the next copy to the same destination). One held by a live copier is left alone.
// - The copier checks after taking the lock that the name still refers to its file: a cleaner
//   that opened the temporary between its creation and its lock may have removed it.

#if canImport(Glibc)
import Glibc
#endif

/// A temporary being written; the creator closes it (`install` or `discard`).
struct CopyTemporary {
    static let copySuffix = ".copy"
    static let compactionSuffix = ".compact"

    let path: String
    let fd: Int32

    /// Creates `destination + suffix`, exclusively and locked. A stale temporary of that name is
    /// removed first; one held by a live copier is `.fileInUse`.
    static func create(for destination: String, suffix: String) throws(StorageError) -> CopyTemporary {
        let path = destination + suffix
        for _ in 0..<2 {
            let fd = Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd < 0 {
                let e = errno
                guard e == EEXIST else { throw ioError("open", e, path: path) }
                if removeStale(path) { continue }
                throw StorageError(.fileInUse, "another copy to this destination is in progress", path: destination)
            }
            guard CopyTemporary.tryLock(fd), refersToSameFile(fd, path) else {
                // Taken or removed by a cleaner in the instant since the creation: start again.
                Glibc.close(fd)
                continue
            }
            return CopyTemporary(path: path, fd: fd)
        }
        throw StorageError(.fileInUse, "another copy to this destination is in progress", path: destination)
    }

    /// Gives the complete copy the name `destination`, which must not exist (`.alreadyExists`),
    /// then fsyncs the directory. The caller fsynced the copy. When the directory cannot be
    /// flushed the new name is removed again and the failure reported: a copy the caller is told
    /// failed leaves no file under the destination's name (after a power cut a complete copy may
    /// still appear there, never a partial one).
    func installAsNewFile(at destination: String) throws(StorageError) {
        defer { discard() }
        if Glibc.link(path, destination) != 0 {
            let e = errno
            if e == EEXIST { throw StorageError(.alreadyExists, "the destination of the copy exists", path: destination) }
            // File systems without hard links: the existence check and the rename are two steps.
            guard e == EPERM || e == EOPNOTSUPP || e == EXDEV else { throw ioError("link", e, path: destination) }
            guard access(destination, F_OK) != 0 else {
                throw StorageError(.alreadyExists, "the destination of the copy exists", path: destination)
            }
            guard Glibc.rename(path, destination) == 0 else { throw ioError("rename", errno, path: destination) }
        }
        do throws(StorageError) {
            try CopyTemporary.syncDirectory(of: destination)
        } catch {
            unlink(destination)
            throw error
        }
    }

    /// Renames the complete copy over `destination` (atomically replacing it). The caller fsynced
    /// the copy, and fsyncs the directory after this returns (`syncDirectory`): by then the file
    /// is replaced whatever that reports, and the caller must move to the new file first. On
    /// failure of the rename the temporary is removed and `destination` is unchanged.
    func installReplacing(_ destination: String) throws(StorageError) {
        guard Glibc.rename(path, destination) == 0 else {
            let e = errno
            discard()
            throw ioError("rename", e, path: destination)
        }
        Glibc.close(fd)
    }

    /// Closes and removes the temporary (a no-op for the name once installed).
    func discard() {
        if refersToSameFile(fd, path) { unlink(path) }
        Glibc.close(fd)
    }

    /// Removes `path` if it is a temporary nobody holds, with the lock file a temporary opened as
    /// a page file (`StorageFile.createAtomically`) has. Returns whether it is gone.
    @discardableResult
    static func removeStale(_ path: String) -> Bool {
        let fd = Glibc.open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT }
        defer { Glibc.close(fd) }
        guard CopyTemporary.tryLock(fd) else { return false }
        // Still the file we locked (not a fresh temporary created after our open).
        guard refersToSameFile(fd, path) else { return false }
        guard unlink(path) == 0 || errno == ENOENT else { return false }
        unlink(path + ".lock")
        return true
    }

    /// Takes the exclusive lock of a temporary without waiting.
    private static func tryLock(_ fd: Int32) -> Bool {
        LockFile.setLock(fd, type: Int32(F_WRLCK), byte: 0, wait: false)
    }

    /// Whether `path` names the file open as `fd`.
    private static func refersToSameFile(_ fd: Int32, _ path: String) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(fd, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    private func refersToSameFile(_ fd: Int32, _ path: String) -> Bool {
        CopyTemporary.refersToSameFile(fd, path)
    }

    static func syncDirectory(of path: String) throws(StorageError) {
        try FileCore.syncDirectory(of: path)
    }
}

extension StorageFile {
    /// Removes the temporaries that killed copies and compactions left beside `path` (see
    /// CopyTemporary.swift), when no handle in this process or another has the file open; a
    /// temporary a live copier holds is kept. Call before opening the file.
    public static func removeStaleCopies(besideFileAt path: String) {
        guard !isOpenAnywhere(path: path) else { return }
        // Compaction writes its temporary beside the file's canonical name (Compaction.swift).
        let names = Set([path, canonicalPath(path)])
        for name in names {
            for suffix in [CopyTemporary.compactionSuffix, CopyTemporary.copySuffix] {
                CopyTemporary.removeStale(name + suffix)
            }
        }
    }

    /// Creates the file `options.path` (which must not exist: `.alreadyExists`) all at once:
    /// `body` fills a new file opened under a temporary name beside it (its commits must be
    /// durable: `options.durability` is `.full`), which gets the destination's name only when
    /// `body` returned; on any failure, or if the process is killed, no file of that name appears.
    /// For copies the object layer writes itself (a copy of an uncommitted write).
    public static func createAtomically(_ options: StorageOptions, _ body: (StorageFile) throws -> Void) throws {
        let destination = options.path
        guard access(destination, F_OK) != 0 else {
            throw StorageError(.alreadyExists, "the destination of the copy exists", path: destination)
        }
        guard options.durability == .full else {
            throw StorageError(.invalidArgument, "a file created atomically must be written with full durability", path: destination)
        }
        let temporary = try CopyTemporary.create(for: destination, suffix: CopyTemporary.copySuffix)
        var inner = options
        inner.path = temporary.path
        // The temporary's own lock file goes with it.
        defer { unlink(temporary.path + ".lock") }
        do {
            let file = try StorageFile.openTyped(inner)
            do {
                try body(file)
                file.close()
            } catch {
                file.close()
                throw error
            }
            guard fsync(temporary.fd) == 0 else { throw ioError("fsync", errno, path: temporary.path) }
        } catch {
            temporary.discard()
            throw error
        }
        try temporary.installAsNewFile(at: destination)
    }
}
