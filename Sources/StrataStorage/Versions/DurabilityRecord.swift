// The durability record: the newest version this file is known to have made durable.
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
// Where it lives (format 7): in page 8, and in the 24 bytes before the seal of every meta slot
// page (MetaLayout.recordOffset). Open takes the newest intact record of the nine.
// - After the flush that made version T durable, the record goes into the page of slot
//   (T + 1) % 8: the page the next commit rewrites with its meta. That commit's meta image
//   carries the newest record this process knows in the same bytes (FileCore.writeMeta), so the
//   record rides in a page the next flush writes anyway. In page 8 it made every flush write
//   three places (the commit's pages, its slot, page 8); in the slot page, two.
// - The slot page takes the record only when the meta it may hold is of format 7 (which never
//   covers those bytes): a version at least `recordSlotsFrom` (FileCore), the first version
//   this process knows was written in format 7. The page of slot (T + 1) % 8 holds version
//   T + 1 or T − 7 (or zeros), so from T ≥ recordSlotsFrom + 7 on. Before that (a file of an
//   earlier format, the first versions after open) the record goes to page 8. No build that
//   cannot read format 7 writes to the file once it holds a format-7 meta: it refuses the
//   file, and a writer always builds on the newest meta.
// - A new file, a copy, and a recovery to an older version write page 8 (and lower every newer
//   record: a record never names a version the file no longer holds).
//
// Layout (little endian, plain in encrypted files too: a version number, as in the meta slots):
//   0 magic "STRATADR" u64   8 version u64   16 XXH64 of bytes [0, 16) u64   (page 8: then zeros)
//
// Invariants:
// - A record never names a version that was not durable when it was written (it is written
//   only after a successful fdatasync or fsync that covered that version, or copied from such a
//   record), so it can only make open stricter than the meta ring, never choose a version the
//   ring would not.
// - A torn, damaged or overwritten record fails its checksum and is ignored: open then follows
//   the other records and the ring (a crash while writing one loses nothing: the flush before it
//   made its version durable, and that version's slot and pages are intact). A meta image written
//   concurrently with a record may carry an older record over it: that too is only less strict,
//   and the next flush records again.
// - A record write changes only its 24 bytes, never a meta's sealed bytes or seal: the page of
//   slot (T + 1) % 8 holds no meta that is durable and newest (T is), and even a torn write of
//   that sector cannot turn an acknowledged version into a fallback.
// - Written with pwrite of its 24 bytes: no flush of its own; a record lost with the page cache
//   names an older version, which is only less strict.

#if canImport(Glibc)
import Glibc
#endif

enum DurabilityRecord {
    static let magic: UInt64 = 0x5244_4154_4152_5453  // "STRATADR" little endian
    /// The record of page 8.
    static let offset = MetaLayout.durabilityRecordPage * PageLayout.pageSize
    static let size = 24

    /// Puts the record of `version` into the tail of a slot page image (nothing for 0: no record).
    static func carry(_ version: UInt64, inSlotPage page: UnsafeMutableRawPointer) {
        if version > 0 { encode(version: version, into: page + MetaLayout.recordOffset) }
    }

    /// The record area of meta slot `slot`'s page.
    static func offset(inSlot slot: Int) -> Int { slot * PageLayout.pageSize + MetaLayout.recordOffset }

    /// Every place a record may be: page 8, then the eight slot pages.
    static var places: [Int] { [offset] + (0..<MetaLayout.slotCount).map { offset(inSlot: $0) } }

    /// Where the record of `version` goes: the page of the slot after it when that page holds
    /// only format-7 metas (versions from `recordSlotsFrom` on), else page 8.
    static func place(of version: UInt64, recordSlotsFrom: UInt64?) -> Int {
        guard let from = recordSlotsFrom, version >= from &+ UInt64(MetaLayout.slotCount - 1) else { return offset }
        return offset(inSlot: Int((version &+ 1) % UInt64(MetaLayout.slotCount)))
    }
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

    /// Writes the record for `version` at `place` (default page 8; no flush: see the invariants).
    static func write(version: UInt64, at place: Int = offset, fd: Int32, path: String,
                      counting counters: StorageCounters? = nil) throws(StorageError) {
        var bytes = (UInt64(0), UInt64(0), UInt64(0))
        try withUnsafeMutableBytes(of: &bytes) { (buffer) throws(StorageError) in
            guard let base = buffer.baseAddress else { return }
            encode(version: version, into: base)
            try pwriteFully(fd, UnsafeRawPointer(base), size, place, path: path, counting: counters)
        }
    }

    /// The intact records of the file's first nine pages: place and version.
    static func readAll(fd: Int32, path: String) throws(StorageError) -> [(place: Int, version: UInt64)] {
        let bytes = MetaLayout.headerBytes
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: PageLayout.pageSize)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        let n = try preadFully(fd, buffer, bytes, 0, path: path)
        return places.compactMap { place in
            guard place + size <= n, let version = decode(UnsafeRawPointer(buffer + place)) else { return nil }
            return (place, version)
        }
    }

    /// The newest version any intact record names; nil when none is intact.
    static func newest(fd: Int32, path: String) throws(StorageError) -> UInt64? {
        try readAll(fd: fd, path: path).map(\.version).max()
    }

    /// After recovery chose `version` below what the records name: every record newer than it
    /// is rewritten to name it (page 8 always), so that the next open does not refuse the
    /// file for a version it no longer holds. The caller flushes.
    static func lower(to version: UInt64, fd: Int32, path: String) throws(StorageError) {
        try write(version: version, fd: fd, path: path)
        for record in try readAll(fd: fd, path: path) where record.version > version {
            try write(version: version, at: record.place, fd: fd, path: path)
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
            let place = DurabilityRecord.place(of: version, recordSlotsFrom: recordSlotsFrom)
            if (try? DurabilityRecord.write(version: version, at: place, fd: fd, path: path, counting: counters)) != nil {
                recordedDurableVersion = version
            }
        }
    }

    /// The record a slot page written now carries: the newest this process wrote, so that
    /// rewriting a slot never drops the newest record (0: none).
    var recordForSlotPage: UInt64 { recordLock.withLock { recordedDurableVersion } }

    /// After this process wrote the format-7 meta of `version` into its slot.
    func noteRecordSlots(from version: UInt64) {
        recordLock.withLock { if recordSlotsFrom == nil { recordSlotsFrom = version } }
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
