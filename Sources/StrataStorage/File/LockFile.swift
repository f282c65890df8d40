// The companion lock file `<path>.lock`: the cross-process writer lock, the "open" marker, the
// newest committed version, and the reader registry, all shared by every process using the file.
//
// Layout (mapped shared, 4096 + 256 × 64 bytes):
//   0 magic u64   8 latest committed version u64   16 durable version u64   24 reserved
//   64 occupancy bitmap, 4 × u64 (bit i set: reader slot i has been claimed by a core that may
//      still be open; "STRATAL2" lock files only)
//   4096 + 64·i: reader slot i: seq u64 (odd while being rewritten — a seqlock), pid u64,
//                count u64 (number of exact versions, or `rangeMarker`), versions 5 × u64
//                (with `rangeMarker`: versions[0]...versions[1] is a conservative closed range).
//
// Locks (open file description locks, F_OFD_*: per open file, so two cores in one process or two
// processes exclude each other, unlike classic fcntl locks which belong to the process):
//   byte 0        writer lock, exclusive, held for a write transaction (and while creating the file);
//   byte 1        open marker, shared by every open core; exclusive only for compaction/deletion;
//   byte 1024 + i ownership of reader slot i, exclusive while the owning core is open. A slot whose
//                 byte is not locked belongs to a dead process (OFD locks die with their process).
//
// Invariants:
// - A reader publishes its version in its slot before trusting it, then re-reads the latest
//   version; a writer promotes freed pages only after reading every live slot.
// - Only the owner writes a slot; others read it through the seqlock.
// - Occupancy (magic "STRATAL2"): a core sets its slot's bit (a full-fence RMW) when it claims the
//   slot, before it ever publishes a version there, and clears it on close after emptying the slot.
//   So a writer that scans only the set bits sees every slot whose versions it could need, and a
//   transaction costs a read of 4 words instead of 256 slot headers (~10% of a small commit's CPU
//   in profiles). Nobody clears another core's bit: a dead process's bit stays set (its slot then
//   costs one lock probe per scan, as before) until the slot is claimed again.
// - Lock files of the first layout (magic "STRATALK", no bitmap) are upgraded on open only when no
//   other core has the file open (checked by taking the open marker exclusively for the upgrade,
//   which also keeps openers out until it is done). Otherwise this core scans every slot like the
//   first layout did (`scansAllSlots`), so a process of an older build is never overlooked; older
//   builds refuse an upgraded lock file ("not a Strata lock file") rather than ignore the bitmap.

import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// Linux open-file-description lock commands (fcntl.h; not exported by the Glibc module).
let ofdGetLock: Int32 = 36
let ofdSetLock: Int32 = 37
let ofdSetLockWait: Int32 = 38

final class LockFile: @unchecked Sendable {
    // @unchecked: the mapped words are accessed through Atomic operations only; `fd` is immutable;
    // lock/unlock calls are serialised by the core (writer gate, core lock).
    static let magic: UInt64 = 0x324C_4154_4152_5453  // "STRATAL2"
    /// The first layout (no occupancy bitmap); upgraded when nobody else has the file open.
    static let magicWithoutBitmap: UInt64 = 0x4B43_4F4C_4154_5253  // "STRATALK"
    static let occupancyWord = 8
    static let occupancyWords = slotCount / 64
    static let slotCount = 256
    static let slotSize = 64
    static let slotsOffset = 4096
    static let mappedSize = slotsOffset + slotCount * slotSize
    static let rangeMarker = UInt64.max
    static let exactCapacity = 5

    let fd: Int32
    let path: String
    private let words: UnsafeMutablePointer<Atomic<UInt64>>
    let slot: Int
    /// True when the lock file could not be upgraded to the bitmap layout (another core had it
    /// open): `foreignPins` then reads every slot, as the first layout requires.
    let scansAllSlots: Bool

    init(dataPath: String) throws(StorageError) {
        path = dataPath + ".lock"
        fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ioError("open lock file", errno, path: path) }
        var st = stat()
        if fstat(fd, &st) != 0 {
            let e = errno; Glibc.close(fd); throw ioError("fstat lock file", e, path: path)
        }
        if Int(st.st_size) < LockFile.mappedSize {
            if ftruncate(fd, off_t(LockFile.mappedSize)) != 0 {
                let e = errno; Glibc.close(fd); throw ioError("ftruncate lock file", e, path: path)
            }
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
        if magicWord == 0 {
            magicWord = words[0].compareExchange(expected: 0, desired: LockFile.magic, ordering: .acquiringAndReleasing).original
            if magicWord == 0 { magicWord = LockFile.magic }
        }
        if magicWord == LockFile.magicWithoutBitmap,
           LockFile.setLock(fd, type: F_WRLCK, byte: 1, wait: false) {
            // Nobody else has the file open, and nobody can open it until the marker is shared
            // again: no slot is in use, so an empty bitmap is exact.
            for i in 0..<LockFile.occupancyWords { words[LockFile.occupancyWord + i].store(0, ordering: .relaxed) }
            words[0].store(LockFile.magic, ordering: .releasing)
            magicWord = LockFile.magic
            _ = LockFile.setLock(fd, type: F_RDLCK, byte: 1, wait: true)
        }
        guard magicWord == LockFile.magic || magicWord == LockFile.magicWithoutBitmap else {
            munmap(raw, LockFile.mappedSize); Glibc.close(fd)
            throw StorageError(.lockFailed, "the lock file is not a Strata lock file", path: path)
        }
        scansAllSlots = magicWord != LockFile.magic
        // Claimed before the first publish (a full fence), so a writer that could need this slot's
        // versions finds its bit. Set in the first layout too: harmless, and exact if it is upgraded later.
        words[LockFile.occupancyWord + claimed / 64].bitwiseOr(1 << UInt64(claimed % 64), ordering: .sequentiallyConsistent)
        publish(versions: [])
        words[slotBase(slot) + 1].store(UInt64(getpid()), ordering: .releasing)
    }

    deinit {
        publish(versions: [])
        // A zero sequence tells writers the slot is unused, sparing them a liveness check.
        words[slotBase(slot)].store(0, ordering: .releasing)
        words[LockFile.occupancyWord + slot / 64].bitwiseAnd(~(1 << UInt64(slot % 64)), ordering: .releasing)
        munmap(UnsafeMutableRawPointer(words), LockFile.mappedSize)
        Glibc.close(fd)  // releases every OFD lock of this description
    }

    static func setLock(_ fd: Int32, type: Int32, byte: Int, wait: Bool) -> Bool {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(byte)
        lock.l_len = 1
        lock.l_pid = 0
        while true {
            if fcntl(fd, wait ? ofdSetLockWait : ofdSetLock, &lock) == 0 { return true }
            if errno == EINTR { continue }
            return false
        }
    }

    /// Whether some other open file description holds a lock conflicting with `type` on `byte`.
    static func isLocked(_ fd: Int32, type: Int32, byte: Int) -> Bool {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(byte)
        lock.l_len = 1
        lock.l_pid = 0
        guard fcntl(fd, ofdGetLock, &lock) == 0 else { return true }
        return lock.l_type != Int16(F_UNLCK)
    }

    // MARK: - Writer lock

    func lockWriter() throws(StorageError) {
        guard LockFile.setLock(fd, type: F_WRLCK, byte: 0, wait: true) else {
            throw StorageError(.lockFailed, "cannot take the writer lock: \(errnoText(errno))", path: path)
        }
    }

    func unlockWriter() { _ = LockFile.setLock(fd, type: F_UNLCK, byte: 0, wait: false) }

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
    static func isOpenByAnotherProcess(path: String) -> Bool {
        let fd = Glibc.open(path + ".lock", O_RDWR | O_CLOEXEC)
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

    /// Version ranges pinned by live cores other than this one. Reads only the slots whose occupancy bit is set (every slot in `scansAllSlots` mode).
    func foreignPins() -> [ClosedRange<UInt64>] {
        var result: [ClosedRange<UInt64>] = []
        for w in 0..<LockFile.occupancyWords {
            var bits = scansAllSlots ? UInt64.max : words[LockFile.occupancyWord + w].load(ordering: .acquiring)
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
        let base = slotBase(i)
        if words[base].load(ordering: .acquiring) == 0 { return }  // never used, or closed
        // A slot whose ownership byte is unlocked belongs to a closed core or a dead process.
        guard LockFile.isLocked(fd, type: F_WRLCK, byte: 1024 + i) else { return }
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
            result.append(contentsOf: ranges)
            return
        }
        // A live owner that never settles: be conservative and assume it pins everything.
        result.append(0...UInt64.max)
    }
}
