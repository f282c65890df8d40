// The first step of opening a page file: check what the path names, find the file's lock file,
// take its writer lock, open the data file and claim it.
//
// Invariants:
// - Nothing is created beside a path that is not a page file: a folder, FIFO, device or socket
//   (`.badPath`), or a non-empty file that does not begin like one (`.notAStrataFile`), is refused
//   before the lock file is made. What a new file's creation left when it was cut short before its
//   first flush (UnfinishedCreation.swift; an empty file too) passes a writable open, which
//   initialises it; a read-only open, which cannot, refuses it here.
// - One lock file per data file, whatever name reached it (FileIdentity.swift). The data file is
//   claimed (DataFileClaim.swift) before anything reads or writes it; an open that finds the file
//   claimed through another lock file moves to it when it is the file's other lock location, and
//   otherwise gives up with `.lockFailed`, leaving the file as it was.
// - On return the writer lock is held (the caller releases it) and the descriptor is the caller's.

#if canImport(Glibc)
import Glibc
#endif

extension FileCore {
    /// How often an open retries when two opens through different lock files claimed the file at
    /// the same instant (each then sees the other and steps back), ~1–5 ms apart.
    static let claimAttempts = 20

    /// Checks the path, opens the lock file and the data file, and claims it. Returns with the
    /// writer lock held (when there is a lock file).
    static func lockAndOpen(_ options: StorageOptions, cipher: PageCipher?) throws(StorageError) -> (lockFile: LockFile?, fd: Int32) {
        let path = options.path
        try checkIsPageFileOrAbsent(path, readOnly: options.readOnly, cipher: cipher)
        let candidates = LockLocation.candidates(forDataPath: path)
        var location = candidates.preferred
        var attempts = 0
        while true {
            var lockFile: LockFile? = nil
            do throws(StorageError) {
                lockFile = try LockFile(lockPath: location.path)
            } catch {
                // A read-only open goes on without a lock file only when it cannot have one (a
                // read-only directory or medium); a lock file it could open but refuses stays refused.
                if !options.readOnly || error.code == .lockFailed { throw error }
            }
            lockFile?.writerLock.lock()
            var flags = O_CLOEXEC
            flags |= options.readOnly ? O_RDONLY : O_RDWR
            if !options.readOnly && !options.mustExist { flags |= O_CREAT }
            let fd = Glibc.open(path, flags, 0o644)
            guard fd >= 0 else {
                let code = errno
                lockFile?.writerLock.unlock()
                if code == ENOENT { throw StorageError(.notFound, "no file at this path", path: path) }
                throw ioError("open", code, path: path)
            }
            let outcome: DataFileClaim.Outcome
            do throws(StorageError) {
                outcome = try DataFileClaim.take(fd, lock: lockFile?.identity, path: path)
            } catch {
                Glibc.close(fd)
                lockFile?.writerLock.unlock()
                throw error
            }
            guard case .otherLockFile(let marker) = outcome else { return (lockFile, fd) }
            Glibc.close(fd)
            lockFile?.writerLock.unlock()
            if let other = candidates.alternative, other != location,
               let identity = FileIdentity.of(path: other.path), DataFileClaim.marker(of: identity) == marker {
                location = other
                continue
            }
            attempts += 1
            if attempts < claimAttempts {
                usleep(UInt32.random(in: 1_000...5_000))
                continue
            }
            throw StorageError(.lockFailed, "the file is open under another name (a hard link or a bind mount) whose lock file "
                               + "is not this one; while it is open there, open it by that name", path: path)
        }
    }

    /// Refuses, before anything is created beside it, a path that names something other than a
    /// page file (see the invariants). An absent path, or one this process may not read, is left
    /// to the open itself to report.
    static func checkIsPageFileOrAbsent(_ path: String, readOnly: Bool, cipher: PageCipher?) throws(StorageError) {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { Glibc.close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return }
        let kind = st.st_mode & S_IFMT
        guard kind == S_IFREG else {
            let what = kind == S_IFDIR ? "a folder" : kind == S_IFIFO ? "a FIFO" : kind == S_IFSOCK ? "a socket" : "a device"
            throw StorageError(.badPath, "the path names \(what), not a file", path: path)
        }
        let count = min(Int(st.st_size), MetaLayout.ringBytes)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(count, 8), alignment: 8)
        defer { buffer.deallocate() }
        let n = (try? preadFully(fd, buffer, count, 0, path: path)) ?? 0
        var slot = 0
        while slot * PageLayout.pageSize + 8 <= n {
            let magic = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: slot * PageLayout.pageSize, as: UInt64.self))
            if magic == MetaLayout.magic { return }
            slot += 1
        }
        // Empty, or part of a new file's header: a writable open initialises it, a read-only one
        // cannot (UnfinishedCreation.swift).
        if try UnfinishedCreation.isUnfinished(fd: fd, size: Int(st.st_size), cipher: cipher, path: path) {
            if readOnly { throw UnfinishedCreation.readOnlyError(size: Int(st.st_size), path: path) }
            return
        }
        throw StorageError(.notAStrataFile, "the file does not begin like a Strata file", path: path)
    }
}
