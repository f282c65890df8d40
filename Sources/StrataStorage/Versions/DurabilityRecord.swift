// The durability record (page 8): the newest version this file is known to have made durable.
//
// Why it exists: open falls back to an older version when the newest one does not verify, which
// is right for a commit torn by a crash (it was never acknowledged) and data loss for a commit
// that was flushed, acknowledged, and damaged afterwards. The meta ring alone cannot tell the two
// apart: a meta names the durable base it was written on, so nothing names the newest version
// durable. This record does. It is written after a flush returns and before the committers that
// flush covers are told their commits are durable (FileCore.awaitDurable), after the flush a
// clean close makes, and with a new file or copy. Open then never chooses a version below it
// unless asked (`StorageOptions.recoversToLastIntactVersion`): damage to a recorded version is a
// typed error naming what failed.
//
// Layout (little endian, plain in encrypted files too: a version number, as in the meta slots):
//   0 magic "STRATADR" u64   8 version u64   16 XXH64 of bytes [0, 16) u64   24… zeros
//
// Invariants:
// - The record never names a version that was not durable when it was written (it is written
//   only after a successful fdatasync or fsync that covered that version), so it can only make
//   open stricter than the meta ring, never choose a version the ring would not.
// - A torn or damaged record fails its checksum and is ignored: open then follows the ring alone
//   (a crash while writing it loses nothing: the flush before it made its version durable, and
//   that version's slot and pages are intact).
// - Written with pwrite of its 24 bytes (one sector): no flush of its own; a record lost with the
//   page cache names an older version, which is only less strict.

#if canImport(Glibc)
import Glibc
#endif

enum DurabilityRecord {
    static let magic: UInt64 = 0x5244_4154_4152_5453  // "STRATADR" little endian
    static let offset = MetaLayout.durabilityRecordPage * PageLayout.pageSize
    static let size = 24
    private static let seed: UInt64 = 0x5354_5241_5441_4452  // "STRATADR"

    /// Encodes the record for `version` into `bytes` (at least `size` bytes).
    static func encode(version: UInt64, into bytes: UnsafeMutableRawPointer) {
        bytes.storeBytes(of: magic.littleEndian, toByteOffset: 0, as: UInt64.self)
        bytes.storeBytes(of: version.littleEndian, toByteOffset: 8, as: UInt64.self)
        let sum = xxHash64(UnsafeRawPointer(bytes), count: 16, seed: seed)
        bytes.storeBytes(of: sum.littleEndian, toByteOffset: 16, as: UInt64.self)
    }

    /// The version a record names, or nil when the bytes are not an intact record.
    static func decode(_ bytes: UnsafeRawPointer) -> UInt64? {
        guard UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)) == magic else { return nil }
        let stored = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        guard stored == xxHash64(bytes, count: 16, seed: seed) else { return nil }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    /// Writes the record for `version` into the file (no flush: see the invariants).
    static func write(version: UInt64, fd: Int32, path: String, counting counters: StorageCounters? = nil) throws(StorageError) {
        var bytes = (UInt64(0), UInt64(0), UInt64(0))
        try withUnsafeMutableBytes(of: &bytes) { (buffer) throws(StorageError) in
            guard let base = buffer.baseAddress else { return }
            encode(version: version, into: base)
            try pwriteFully(fd, UnsafeRawPointer(base), size, offset, path: path, counting: counters)
        }
    }
}

extension FileCore {
    /// Records `version` as durable in the file, unless a newer version is recorded already.
    /// Best effort: a failed write leaves an older record, which only makes open less strict.
    func recordDurable(_ version: UInt64) {
        guard fd >= 0, !options.readOnly else { return }
        recordLock.withLock {
            guard version > recordedDurableVersion else { return }
            if (try? DurabilityRecord.write(version: version, fd: fd, path: path, counting: counters)) != nil {
                recordedDurableVersion = version
            }
        }
    }
}

extension FileCore {
    /// When the last handle closes: flush commits no flush has covered yet (`.unsafe` ones) and
    /// record the newest version, so that a cleanly closed file never falls back silently.
    /// Best effort, like the record itself: a failed flush leaves the older record.
    func recordDurabilityAtClose() {
        guard fd >= 0, !options.readOnly, flushLock.withLock({ flushError == nil }) else { return }
        let newest = lock.withLock { latest.version }
        guard newest > recordLock.withLock({ recordedDurableVersion }) else { return }
        counters.flushed()
        guard fdatasync(fd) == 0 else { return }
        recordDurable(newest)
    }
}
