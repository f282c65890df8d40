// Which file a path names, whatever name reaches it, and where that file's lock file lives.
//
// A file can be reached under many names: a symbolic link (to the file or to a folder above
// it), a relative path, one with `.` or `..`, a hard link, a bind mount. What must belong to the
// file and not to the name goes through here: the lock file (and with it the writer lock and
// the reader slots), the in-process registry of open files, compaction's rename, `deleteFiles`.
// Two names that each had a lock of their own let two writers commit over each other.
//
// Invariants:
// - `canonicalPath` resolves every symbolic link on the way, the last component's included
//   (also when it dangles: the file a link names is the file `open(O_CREAT)` creates), and `.`
//   and `..`, and is absolute. Names that differ only by symlinks, relative form or `..` have one
//   canonical path, so one lock file: `<canonical path>.lock`.
// - Hard links and bind mounts keep distinct canonical paths: a file system records no name it
//   prefers. A file with more than one hard link (st_nlink > 1) therefore takes its lock file
//   from its identity (device, inode), the same from every name: `strata-<dev>-<ino>.lock` in
//   `/dev/shm` (memory, per machine, like the processes that share the lock).
// - What this cannot see — a bind mount, a hard link made or removed while the file is open —
//   the data file's own claim catches (DataFileClaim.swift): an open through a second lock file
//   is refused with `.lockFailed`, never run beside the first.

#if canImport(Glibc)
import Glibc
#endif

/// A file's identity on this machine: its device and inode, shared by all its names.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
    /// Names the file has in its file system (hard links).
    let linkCount: Int

    init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        linkCount = Int(st.st_nlink)
    }

    /// The identity of the file `path` names (symbolic links followed); nil when there is none.
    static func of(path: String) -> FileIdentity? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return FileIdentity(st)
    }

    /// The identity of an open descriptor's file.
    static func of(descriptor fd: Int32) -> FileIdentity? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return FileIdentity(st)
    }

    /// Device and inode only: equal for every name of one file, whatever its link count now.
    var key: String { "inode:\(device):\(inode)" }

    /// The lock file every name of a hard-linked file shares.
    var sharedLockPath: String { "\(FileIdentity.sharedLockDirectory)/strata-\(device)-\(inode).lock" }

    /// Where identity-named lock files live: shared memory, visible to every process of the
    /// machine that can see the file's device.
    static let sharedLockDirectory = "/dev/shm"

    /// Whether identity-named lock files can be made here.
    static var sharedLockDirectoryIsUsable: Bool { access(sharedLockDirectory, W_OK | X_OK) == 0 }
}

enum FilePath {
    /// The longest chain of symbolic links followed before giving up, as the kernel's ELOOP.
    static let maximumLinks = 40

    /// The absolute path with every symbolic link, `.` and `..` resolved; the file itself need
    /// not exist (then its folder is resolved and its name kept, after following a dangling
    /// link to the name it points at).
    static func canonical(_ path: String) -> String {
        if let resolved = realPath(path) { return resolved }
        var current = path
        for _ in 0..<maximumLinks {
            guard let target = linkTarget(current) else { break }
            current = target.hasPrefix("/") ? target : folder(of: current) + "/" + target
        }
        if let resolved = realPath(current) { return resolved }
        let (dir, name) = split(current)
        if let resolved = realPath(dir) { return resolved == "/" ? "/" + name : resolved + "/" + name }
        return current
    }

    /// The target of `path` when it is a symbolic link.
    static func linkTarget(_ path: String) -> String? {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func folder(of path: String) -> String { split(path).dir }

    private static func split(_ path: String) -> (dir: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let dir = slash == path.startIndex ? "/" : String(path[..<slash])
        return (dir, String(path[path.index(after: slash)...]))
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// Where the lock file of a data file is, and the other place it may be (see the invariants).
struct LockLocation: Equatable {
    let path: String

    /// The lock file for `dataPath`: beside its canonical path, or, for a file with several hard
    /// links, the identity-named one. `alternative` is the other of the two, which an open
    /// already running may be using (the file gained or lost a link since it was opened).
    static func candidates(forDataPath dataPath: String) -> (preferred: LockLocation, alternative: LockLocation?) {
        let beside = LockLocation(path: FilePath.canonical(dataPath) + ".lock")
        guard let identity = FileIdentity.of(path: dataPath), FileIdentity.sharedLockDirectoryIsUsable else {
            return (beside, nil)
        }
        let shared = LockLocation(path: identity.sharedLockPath)
        return identity.linkCount > 1 ? (shared, beside) : (beside, shared)
    }
}
