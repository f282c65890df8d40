// The companion lock file (`<canonical path>.lock`, or for a hard-linked file the identity-named
// one: FileIdentity.swift): the cross-process writer lock, the "open" marker, the
// newest committed version, and the reader registry, all shared by every process using the file.
//
// Layout (mapped shared, 4096 + 256 × 64 bytes; magic "STRATAL3", the only layout this build
// reads):
//   0 magic u64   8 latest committed version u64   16 durable version u64   24 reserved
//   64 occupancy bitmap, 4 × u64 (bit i set: reader slot i has been claimed by a core that may
//      still be open)
//   128 writer word u32 (alone on its cache line: WriterLock.swift)
//   1024 + 4·i: token of the core owning reader slot i, u32
//   4096 + 64·i: reader slot i: seq u64 (odd while being rewritten — a seqlock), pid u64,
//                count u64 (number of exact versions, or `rangeMarker`), versions 5 × u64
//                (with `rangeMarker`: versions[0]...versions[1] is a conservative closed range).
//
// Locks (open file description locks, F_OFD_*: per open file, so two cores in one process or two
// processes exclude each other, unlike classic fcntl locks which belong to the process):
//   byte 1        open marker, shared by every open core; exclusive only for compaction/deletion
//                 and while a core that found itself alone (re)initialises the header;
//   byte 1024 + i ownership of reader slot i, exclusive while the owning core is open. A slot whose
//                 byte is not locked belongs to a dead process (OFD locks die with their process).
// The writer lock is the writer word, not an OFD lock: no system call per transaction when it is
// free (WriterLock.swift).
//
// Invariants:
// - A reader publishes its version in its slot before trusting it, then re-reads the latest
//   version; a writer promotes freed pages only after reading every live slot.
// - Only the owner writes a slot; others read it through the seqlock.
// - Occupancy: a core sets its slot's bit (a full-fence RMW) when it claims the slot, before it
//   ever publishes a version there, and clears it on close after emptying the slot. So a writer
//   that scans only the set bits sees every slot whose versions it could need, and a transaction
//   costs a read of 4 words instead of 256 slot headers. Nobody clears another core's bit: a dead
//   process's bit stays set (its slot then costs one lock probe per scan) until the slot is
//   claimed again.
// - The header is (re)written only when no other core has the file open: a core that can turn
//   its shared open marker exclusive is alone, and nobody can open the file until it is shared
//   again. Alone, a core writes an empty bitmap, a free writer word and the magic; so a writer
//   word left by a process that died holding it is cleared by the next lone opener. A new lock
//   file found by two openers at once (magic 0, neither alone) is all zeros, which is already an
//   empty header: the first of them to compare-exchange the magic in makes it valid.
// - A lock file with any other magic — the earlier layouts "STRATALK" (no bitmap) and "STRATAL2"
//   (fcntl writer lock), or anything else — is refused with `.lockFailed` naming what was found,
//   and left untouched: a process of an earlier build may be using it with rules this build does
//   not follow.

import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// Linux open-file-description lock commands (fcntl.h; not exported by the Glibc module).
let ofdGetLock: Int32 = 36
let ofdSetLock: Int32 = 37
let ofdSetLockWait: Int32 = 38

final class LockFile: @unchecked Sendable {
    // @unchecked: the mapped words are accessed through Atomic operations only; `fd` and the
    // pointers are immutable; fcntl lock/unlock calls are serialised by the core lock; the writer
    // word is itself the lock (WriterLock.swift).
    static let magic: UInt64 = 0x334C_4154_4152_5453  // "STRATAL3"
    static let occupancyWord = 8
    static let occupancyWords = slotCount / 64
    static let slotCount = 256
    static let slotSize = 64
    static let slotsOffset = 4096
    static let mappedSize = slotsOffset + slotCount * slotSize
    static let rangeMarker = UInt64.max
    static let exactCapacity = 5
    static let writerWordOffset = 128
    static let slotTokensOffset = 1024

    let fd: Int32
    let path: String
    private let words: UnsafeMutablePointer<Atomic<UInt64>>
    let slot: Int
    /// The writer lock shared by every core and process using the file, held in this core's name.
    let writerLock: WriterLock
    /// This core's token in the writer word.
    var token: UInt32 { writerLock.token }

    /// The lock file's own identity: its marker in the data file's claim (DataFileClaim.swift).
    let identity: FileIdentity

    init(lockPath: String) throws(StorageError) {
        path = lockPath
        fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ioError("open lock file", errno, path: path) }
        var st = stat()
        if fstat(fd, &st) != 0 {
            let e = errno; Glibc.close(fd); throw ioError("fstat lock file", e, path: path)
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(fd)
            throw StorageError(.lockFailed, "the lock file is not a regular file", path: path)
        }
        identity = FileIdentity(st)
        // Disk space behind every byte before the file is mapped: a store into a mapped hole on
        // a full file system is SIGBUS, not an error. posix_fallocate reports ENOSPC (`.diskFull`)
        // and leaves ranges that are already allocated alone, so an existing file costs nothing.
        let allocation = posix_fallocate(fd, 0, off_t(LockFile.mappedSize))
        if allocation != 0 {
            let fallback = allocation == EOPNOTSUPP || allocation == EINVAL
                ? LockFile.writeZeros(fd, from: Int(st.st_size), to: LockFile.mappedSize) : allocation
            if fallback != 0 { Glibc.close(fd); throw ioError("allocate lock file", fallback, path: path) }
        }
        let raw = mmap(nil, LockFile.mappedSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let raw, raw != MAP_FAILED else {
            let e = errno; Glibc.close(fd); throw ioError("mmap lock file", e, path: path)
        }
        words = raw.bindMemory(to: Atomic<UInt64>.self, capacity: LockFile.mappedSize / 8)
        // Mark the file as open (shared), then claim a reader slot.
        guard LockFile.setLock(fd, type: F_RDLCK, byte: 1, wait: true) else {
            let e = errno; munmap(raw, LockFile.mappedSize); Glibc.close(fd)
            throw StorageError(.lockFailed, "cannot take the open marker: \(errnoText(e))", path: path)
        }
        var claimed = -1
        for i in 0..<LockFile.slotCount where LockFile.setLock(fd, type: F_WRLCK, byte: 1024 + i, wait: false) {
            claimed = i
            break
        }
        guard claimed >= 0 else {
            munmap(raw, LockFile.mappedSize); Glibc.close(fd)
            throw StorageError(.lockFailed, "all \(LockFile.slotCount) reader slots are in use", path: path)
        }
        slot = claimed
        var magicWord = words[0].load(ordering: .acquiring)
        // Alone (open marker exclusive): rewrite the header, which also clears a writer word left
        // by a process that died holding it. One try, so that opening a file others have open
        // costs no wait.
        if magicWord == 0 || magicWord == LockFile.magic, LockFile.becomeAlone(fd, attempts: 1) {
            for i in 0..<LockFile.occupancyWords { words[LockFile.occupancyWord + i].store(0, ordering: .relaxed) }
            LockFile.wordPointer(raw, LockFile.writerWordOffset).pointee.store(0, ordering: .relaxed)
            words[0].store(LockFile.magic, ordering: .releasing)
            magicWord = LockFile.magic
            _ = LockFile.setLock(fd, type: F_RDLCK, byte: 1, wait: true)
        } else if magicWord == 0 {
            // Another core is opening a new (all-zero) lock file at the same moment.
            magicWord = words[0].compareExchange(expected: 0, desired: LockFile.magic,
                                                 ordering: .acquiringAndReleasing).original
            if magicWord == 0 { magicWord = LockFile.magic }
        }
        guard magicWord == LockFile.magic else {
            munmap(raw, LockFile.mappedSize); Glibc.close(fd)
            throw StorageError(.lockFailed, "the lock file has \(LockFile.describe(magic: magicWord)); this build uses only "
                               + "layout \"STRATAL3\". Remove the lock file once no process has the data file open",
                               path: path)
        }
        let tokens = LockFile.wordPointer(raw, LockFile.slotTokensOffset, count: LockFile.slotCount)
        // Only the owner of slot `claimed` (us, holding its byte) writes its token cell.
        let token = WriterLock.newToken(slot: claimed, previous: tokens[claimed].load(ordering: .relaxed))
        tokens[claimed].store(token, ordering: .releasing)
        writerLock = WriterLock(sharedWord: LockFile.wordPointer(raw, LockFile.writerWordOffset), token: token,
                                slotTokens: tokens, lockFileDescriptor: fd)
        // Claimed before the first publish (a full fence), so a writer that could need this slot's
        // versions finds its bit.
        words[LockFile.occupancyWord + claimed / 64].bitwiseOr(1 << UInt64(claimed % 64), ordering: .sequentiallyConsistent)
        publish(versions: [])
        words[slotBase(slot) + 1].store(UInt64(getpid()), ordering: .releasing)
    }

    deinit {
        // A core is closed only once its writer is released; a holder's word is freed anyway, so
        // waiters need not find out that this core is gone.
        writerLock.unlockIfHeld()
        publish(versions: [])
        // A zero sequence tells writers the slot is unused, sparing them a liveness check.
        words[slotBase(slot)].store(0, ordering: .releasing)
        words[LockFile.occupancyWord + slot / 64].bitwiseAnd(~(1 << UInt64(slot % 64)), ordering: .releasing)
        munmap(UnsafeMutableRawPointer(words), LockFile.mappedSize)
        Glibc.close(fd)  // releases every OFD lock of this description
    }

    /// Allocates [from, to) by writing zeros (file systems without fallocate); 0 or an errno.
    static func writeZeros(_ fd: Int32, from: Int, to: Int) -> Int32 {
        guard from < to else { return 0 }
        let zeros = [UInt8](repeating: 0, count: to - from)
        var done = 0
        while done < zeros.count {
            let n = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, zeros.count - done, off_t(from + done)) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += n
        }
        return 0
    }

    /// An open-file-description lock record of `type` on the single byte `byte`.
    static func byteLock(type: Int32, byte: Int) -> flock {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(byte)
        lock.l_len = 1
        lock.l_pid = 0
        return lock
    }

    static func setLock(_ fd: Int32, type: Int32, byte: Int, wait: Bool) -> Bool {
        var lock = byteLock(type: type, byte: byte)
        while true {
            if fcntl(fd, wait ? ofdSetLockWait : ofdSetLock, &lock) == 0 { return true }
            if errno == EINTR { continue }
            return false
        }
    }

    /// The u32 cells at `offset` of the mapping (rebound from the u64 view, which never touches
    /// the writer word or the token cells).
    static func wordPointer(_ raw: UnsafeMutableRawPointer, _ offset: Int, count: Int = 1) -> UnsafeMutablePointer<Atomic<UInt32>> {
        (raw + offset).bindMemory(to: Atomic<UInt32>.self, capacity: count)
    }

    /// Turns this description's shared open marker exclusive if no other core has the file open,
    /// trying `attempts` times 5 ms apart.
    static func becomeAlone(_ fd: Int32, attempts: Int) -> Bool {
        for attempt in 0..<attempts {
            if setLock(fd, type: F_WRLCK, byte: 1, wait: false) { return true }
            if attempt < attempts - 1 { usleep(5_000) }
        }
        return false
    }

    /// Whether some other open file description holds a lock conflicting with `type` on `byte`.
    static func isLocked(_ fd: Int32, type: Int32, byte: Int) -> Bool {
        var lock = byteLock(type: type, byte: byte)
        guard fcntl(fd, ofdGetLock, &lock) == 0 else { return true }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// What a lock-file magic other than "STRATAL3" is, for the refusal's message.
    static func describe(magic: UInt64) -> String {
        switch magic {
        case 0x4B43_4F4C_4154_5253: return "layout \"STRATALK\" (an earlier build's, without occupancy bitmap)"
        case 0x324C_4154_4152_5453: return "layout \"STRATAL2\" (an earlier build's, with an fcntl writer lock)"
        default:
            let bytes = withUnsafeBytes(of: magic.littleEndian) { Array($0) }
            if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
                return "the unknown magic \"\(String(decoding: bytes, as: UTF8.self))\""
            }
            return "the unknown magic 0x\(String(magic, radix: 16))"
        }
    }

    // MARK: - Exclusive use

    /// Tries to turn this core's shared open marker into an exclusive one: succeeds only when no
    /// other core (in this or another process) has the file open.
    ///
    /// A refusal is retried for up to ~50 ms: a child process this program is spawning holds
    /// copies of every descriptor between its fork and its exec (O_CLOEXEC closes them only at
    /// the exec), and an OFD lock lives as long as any copy does. So a file closed a moment ago
    /// can look open for that window when another thread starts a process (seen in the test
    /// suite, which starts probe processes in parallel with compaction tests).
    func tryExclusive() -> Bool {
        for attempt in 0..<11 {
            if LockFile.setLock(fd, type: F_WRLCK, byte: 1, wait: false) { return true }
            if attempt < 10 { usleep(5_000) }
        }
        return false
    }

    func endExclusive() { _ = LockFile.setLock(fd, type: F_RDLCK, byte: 1, wait: true) }

    /// Retried for up to ~50 ms like `tryExclusive` (a spawning child's inherited descriptors).
    static func isOpenByAnotherProcess(lockPath: String) -> Bool {
        let fd = Glibc.open(lockPath, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        for attempt in 0..<11 {
            if !isLocked(fd, type: F_WRLCK, byte: 1) { return false }
            if attempt < 10 { usleep(5_000) }
        }
        return true
    }

    // MARK: - Latest version

    var latestVersion: UInt64 { words[1].load(ordering: .acquiring) }

    func setLatestVersion(_ version: UInt64) { words[1].store(version, ordering: .releasing) }

    /// The newest version some process made durable (group commit across processes).
    var durableVersion: UInt64 { words[2].load(ordering: .acquiring) }

    func setDurableVersion(_ version: UInt64) { words[2].store(version, ordering: .releasing) }

    func raiseDurableVersion(to version: UInt64) { _ = words[2].max(version, ordering: .acquiringAndReleasing) }

    // MARK: - Reader slots

    @inline(__always) private func slotBase(_ i: Int) -> Int { (LockFile.slotsOffset + i * LockFile.slotSize) / 8 }

    /// Publishes this core's pinned versions (sorted ascending). Called under the core lock.
    func publish(versions: [UInt64]) {
        let base = slotBase(slot)
        let seq = words[base].load(ordering: .relaxed)
        words[base].store(seq | 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .acquiringAndReleasing)
        if versions.count <= LockFile.exactCapacity {
            words[base + 2].store(UInt64(versions.count), ordering: .relaxed)
            for (i, v) in versions.enumerated() { words[base + 3 + i].store(v, ordering: .relaxed) }
        } else {
            words[base + 2].store(LockFile.rangeMarker, ordering: .relaxed)
            words[base + 3].store(versions[0], ordering: .relaxed)
            words[base + 4].store(versions[versions.count - 1], ordering: .relaxed)
        }
        words[base].store((seq | 1) &+ 1, ordering: .releasing)
    }

    /// Version ranges pinned by live cores other than this one. Reads only the slots whose
    /// occupancy bit is set.
    func foreignPins() -> [ClosedRange<UInt64>] {
        var result: [ClosedRange<UInt64>] = []
        for w in 0..<LockFile.occupancyWords {
            var bits = words[LockFile.occupancyWord + w].load(ordering: .acquiring)
            while bits != 0 {
                let i = w * 64 + bits.trailingZeroBitCount
                bits &= bits &- 1
                if i != slot { readPins(ofSlot: i, into: &result) }
            }
        }
        return result
    }

    /// Appends the versions pinned by slot `i` if its owner is alive.
    private func readPins(ofSlot i: Int, into result: inout [ClosedRange<UInt64>]) {
        if let pins = livePins(ofSlot: i) { result.append(contentsOf: pins.versions) }
    }

    /// The other cores that have the file open (in this process or others), with the process
    /// that owns each and the versions it pins (empty when it pins none). For inspection.
    func liveReaders() -> [(pid: Int, versions: [ClosedRange<UInt64>])] {
        var result: [(pid: Int, versions: [ClosedRange<UInt64>])] = []
        for w in 0..<LockFile.occupancyWords {
            var bits = words[LockFile.occupancyWord + w].load(ordering: .acquiring)
            while bits != 0 {
                let i = w * 64 + bits.trailingZeroBitCount
                bits &= bits &- 1
                if i != slot, let pins = livePins(ofSlot: i) { result.append(pins) }
            }
        }
        return result
    }

    /// The owner's pid and pinned versions of slot `i`; nil when no live core owns the slot.
    private func livePins(ofSlot i: Int) -> (pid: Int, versions: [ClosedRange<UInt64>])? {
        let base = slotBase(i)
        if words[base].load(ordering: .acquiring) == 0 { return nil }  // never used, or closed
        // A slot whose ownership byte is unlocked belongs to a closed core or a dead process.
        guard LockFile.isLocked(fd, type: F_WRLCK, byte: 1024 + i) else { return nil }
        let pid = Int(truncatingIfNeeded: words[base + 1].load(ordering: .relaxed))
        for _ in 0..<10_000 {
            let before = words[base].load(ordering: .acquiring)
            if before & 1 == 1 { continue }
            let count = words[base + 2].load(ordering: .relaxed)
            var ranges: [ClosedRange<UInt64>] = []
            if count == LockFile.rangeMarker {
                let low = words[base + 3].load(ordering: .relaxed)
                let high = words[base + 4].load(ordering: .relaxed)
                ranges.append(min(low, high)...max(low, high))
            } else {
                for k in 0..<min(Int(count), LockFile.exactCapacity) {
                    let v = words[base + 3 + k].load(ordering: .relaxed)
                    ranges.append(v...v)
                }
            }
            atomicMemoryFence(ordering: .acquiringAndReleasing)
            if words[base].load(ordering: .relaxed) != before { continue }
            return (pid, ranges)
        }
        // A live owner that never settles: be conservative and assume it pins everything.
        return (pid, [0...UInt64.max])
    }
}
