// The locks an open takes on the data file itself. They belong to the file (its inode), so every
// name that reaches it sees them — unlike the lock file, which is found by a name. They are what
// makes an open through a second lock file (a bind mount; a hard link made or removed while the
// file is open) fail instead of running with a writer lock of its own.
//
// Layout (open file description locks on single bytes far past any page: locking a range beyond
// the end of a file is allowed and changes nothing in it):
//   claimBase              open marker: shared by every open core; exclusive only for compaction
//                          and deletion, which need the file unused under every name.
//   claimBase + 1 + h      lock-file marker: shared by every core using the lock file whose
//                          identity (device, inode) hashes to h, h < 2^39.
//
// Invariants:
// - A core takes both markers before it reads or writes the data file, on its own descriptor,
//   and keeps them until that descriptor closes (or its process dies).
// - A core that finds another lock-file marker held does not use the file: two lock files mean
//   two writer locks and two reader registries, and commits through one would overwrite pages the
//   other still reads. Cores of one lock file never see each other's marker as a conflict (the
//   query skips their shared byte).

#if canImport(Glibc)
import Glibc
#endif

enum DataFileClaim {
    static let claimBase: off_t = 1 << 50
    static let markerSpace: UInt64 = 1 << 39

    /// What taking the claim found.
    enum Outcome {
        case claimed
        /// Another lock file's marker is held: `marker` is that lock file's hash.
        case otherLockFile(marker: UInt64)
    }

    /// The marker of a lock file: an FNV-1a hash of its identity, in [0, 2^39).
    static func marker(of lock: FileIdentity) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for word in [lock.device, lock.inode] {
            for shift in stride(from: 0, to: 64, by: 8) {
                hash ^= (word >> UInt64(shift)) & 0xFF
                hash = hash &* 0x0000_0100_0000_01B3
            }
        }
        return hash % markerSpace
    }

    /// Takes the open marker (shared) and, with a lock file, its marker (shared), then checks that
    /// no other lock file's marker is held. On `.otherLockFile` the lock-file marker taken here is
    /// released again (the open marker goes with the descriptor, which the caller closes).
    static func take(_ fd: Int32, lock: FileIdentity?, path: String) throws(StorageError) -> Outcome {
        // Waits while a compaction or deletion holds the file exclusively (briefly).
        guard setLock(fd, type: F_RDLCK, start: claimBase, length: 1, wait: true) else {
            throw StorageError(.lockFailed, "cannot claim the file: \(errnoText(errno))", path: path)
        }
        guard let lock else { return .claimed }
        let own = claimBase + 1 + off_t(marker(of: lock))
        guard setLock(fd, type: F_RDLCK, start: own, length: 1) else {
            throw StorageError(.lockFailed, "cannot claim the file: \(errnoText(errno))", path: path)
        }
        let end = claimBase + 1 + off_t(markerSpace)
        for (start, length) in [(claimBase + 1, own - claimBase - 1), (own + 1, end - own - 1)] where length > 0 {
            if let held = heldLock(fd, start: start, length: length) {
                _ = setLock(fd, type: F_UNLCK, start: own, length: 1)
                return .otherLockFile(marker: UInt64(held - claimBase - 1))
            }
        }
        return .claimed
    }

    /// Turns this descriptor's shared open marker exclusive if no other core, through any name,
    /// has the file open; retried for ~50 ms like `LockFile.tryExclusive` (a child process being
    /// spawned holds copies of every descriptor until its exec).
    static func tryExclusive(_ fd: Int32) -> Bool {
        for attempt in 0..<11 {
            if setLock(fd, type: F_WRLCK, start: claimBase, length: 1) { return true }
            if attempt < 10 { usleep(5_000) }
        }
        return false
    }

    static func endExclusive(_ fd: Int32) { _ = setLock(fd, type: F_RDLCK, start: claimBase, length: 1) }

    /// Whether some core, in any process and through any name, has the file at `path` open.
    /// Retried for ~50 ms like `tryExclusive`.
    static func isOpen(path: String) -> Bool {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
        for attempt in 0..<11 {
            if heldLock(fd, start: claimBase, length: 1) == nil { return false }
            if attempt < 10 { usleep(5_000) }
        }
        return true
    }

    /// The start of a lock another open file description holds in [start, start + length) that
    /// would conflict with an exclusive one; nil when there is none.
    private static func heldLock(_ fd: Int32, start: off_t, length: off_t) -> off_t? {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = start
        lock.l_len = length
        guard fcntl(fd, ofdGetLock, &lock) == 0 else { return start }
        return lock.l_type == Int16(F_UNLCK) ? nil : lock.l_start
    }

    private static func setLock(_ fd: Int32, type: Int32, start: off_t, length: off_t, wait: Bool = false) -> Bool {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = start
        lock.l_len = length
        while true {
            if fcntl(fd, wait ? ofdSetLockWait : ofdSetLock, &lock) == 0 { return true }
            if errno == EINTR { continue }
            return false
        }
    }
}
