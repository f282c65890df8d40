// Thin wrappers over the POSIX calls the page file uses: positioned I/O that retries short
// transfers and EINTR, errno → typed `StorageError`, and a pthread mutex/condition pair.
//
// Invariants:
// - Every failing system call becomes a `StorageError` naming the call, the errno text and the
//   path; ENOSPC/EDQUOT/EFBIG map to `.diskFull`, ENOENT to `.notFound`, EACCES/EPERM to
//   `.permissionDenied`, ENOTDIR/EISDIR/ENAMETOOLONG/ELOOP to `.badPath`, everything else to `.io`.
// - `PosixLock` may be unlocked only by the thread that locked it (pthread rule); the writer
//   gate, which is held across calls, is built from a flag + condition instead.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func errnoText(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return String(cString: text)
}

func ioError(_ call: String, _ code: Int32, path: String?) -> StorageError {
    switch code {
    case ENOSPC, EDQUOT, EFBIG:
        return StorageError(.diskFull, "\(call) failed: \(errnoText(code))", path: path)
    case ENOENT:
        return StorageError(.notFound, "\(call) failed: \(errnoText(code))", path: path)
    case EACCES, EPERM:
        return StorageError(.permissionDenied, "\(call) failed: \(errnoText(code))", path: path)
    case ENOTDIR, EISDIR, ENAMETOOLONG, ELOOP:
        return StorageError(.badPath, "\(call) failed: \(errnoText(code))", path: path)
    default:
        return StorageError(.io, "\(call) failed: \(errnoText(code))", path: path)
    }
}

/// pread of exactly `count` bytes; returns the number read (< count only at end of file).
func preadFully(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: Int,
                path: String?) throws(StorageError) -> Int {
    var done = 0
    while done < count {
        let n = pread(fd, buffer + done, count - done, off_t(offset + done))
        if n < 0 {
            if errno == EINTR { continue }
            throw ioError("pread", errno, path: path)
        }
        if n == 0 { break }
        done += n
    }
    return done
}

/// pwrite of exactly `count` bytes; each call and the bytes it wrote go to `counters` (the
/// file's statistics) when given.
func pwriteFully(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ offset: Int,
                 path: String?, counting counters: StorageCounters? = nil) throws(StorageError) {
    var done = 0
    while done < count {
        let n = pwrite(fd, buffer + done, count - done, off_t(offset + done))
        counters?.wrote(bytes: max(0, n), calls: 1)
        if n < 0 {
            if errno == EINTR { continue }
            throw ioError("pwrite", errno, path: path)
        }
        if n == 0 { throw StorageError(.io, "pwrite wrote nothing", path: path) }
        done += n
    }
}

/// A pthread mutex. Lock and unlock on the same thread.
final class PosixLock: @unchecked Sendable {
    // @unchecked: the pthread mutex is the synchronisation; its storage never moves.
    let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always) func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always)
    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A condition variable used with a `PosixLock`.
final class PosixCondition: @unchecked Sendable {
    // @unchecked: used only while holding its PosixLock; pthread synchronises.
    let cond: UnsafeMutablePointer<pthread_cond_t>

    init() {
        cond = .allocate(capacity: 1)
        pthread_cond_init(cond, nil)
    }

    deinit {
        pthread_cond_destroy(cond)
        cond.deallocate()
    }

    func wait(_ lock: PosixLock) { pthread_cond_wait(cond, lock.mutex) }
    func broadcast() { pthread_cond_broadcast(cond) }
    func signal() { pthread_cond_signal(cond) }
}
