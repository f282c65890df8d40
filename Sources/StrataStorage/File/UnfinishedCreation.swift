// A new file whose creation never finished, told apart from every file that could hold data.
//
// Creating a file writes its header (pages 0–8: version 1 in slot 1, the other slots zero, the
// durability record naming version 1) with one pwrite, then fsyncs the file and its directory,
// and only then does open return. A power cut before that fsync returned may leave any part of
// the write on disk: the file empty, cut short anywhere, or header-long with some sectors still
// zero. No open ever returned on such a file, so nothing was committed to it or acknowledged, and
// writing the header again loses nothing. Without this, such a file would never open again
// (`.notAStrataFile`, `.truncatedFile` or `.corruptFile`, depending on which sectors reached the disk).
//
// Invariants:
// - A file is an unfinished creation exactly when all of these hold:
//   1. It is no longer than the header and a whole number of 512-byte sectors long. A finished
//      creation's fsync made the whole header durable, and every commit that writes a page grows
//      the file past the header. A power cut leaves a write cut at a sector boundary (disks write
//      whole sectors, file systems grow a file by whole blocks): any other length was cut by
//      something else, and is damage for the ordinary open to report.
//   2. Every 512-byte sector is all zeros or exactly what a new file's header, written with the
//      opener's key, has there (a power cut leaves each sector of a write whole or unwritten):
//      slot 1 holds version 1 (durable base 1, empty roots, no root data, no pages, no commit
//      entries, the opener's encryption flag and key check), the durability record names version
//      1, everything else is zero. The one exception is an encrypted slot 1's seal, whose nonce
//      is random: its 28 nonce and tag bytes may be anything while the meta fields in front of it
//      are missing (those fields and the seal lie in different sectors), and must verify when
//      they are there.
//   3. It is not a finished creation: header-long, with slot 1 complete and its seal verifying.
//   A file meeting 1 and 2 holds at most version 1, which has no data, so writing the header over
//   it loses nothing. (The first sectors of a file that never reached version 9, so that slot 1
//   still holds version 1, cut back to such a length by something other than a power cut, look
//   the same: the bytes cannot tell them apart.) A file with any other slot, any other version, root data, a page, a byte no
//   new header has, or another key's key check is not one: the ordinary open handles it
//   (a file that is not ours stays `.notAStrataFile`, untouched byte for byte).
// - Only a writable open re-initialises one, under the writer lock like any creation (so a
//   creation in progress in another process is never seen half-written here); a read-only open
//   writes nothing and reports `.notAStrataFile` saying the creation never finished.

#if canImport(Glibc)
import Glibc
#endif

enum UnfinishedCreation {
    /// The unit a power cut leaves a write cut at.
    static let sectorSize = 512

    /// Whether the file open as `fd`, `size` bytes long, is an unfinished creation (see the
    /// invariants) for an opener with `cipher`.
    static func isUnfinished(fd: Int32, size: Int, cipher: PageCipher?, path: String) throws(StorageError) -> Bool {
        let headerBytes = MetaLayout.headerBytes
        guard size <= headerBytes, size % sectorSize == 0 else { return false }
        if size == 0 { return true }
        let found = UnsafeMutableRawPointer.allocate(byteCount: headerBytes, alignment: PageLayout.pageSize)
        let expected = UnsafeMutableRawPointer.allocate(byteCount: headerBytes, alignment: PageLayout.pageSize)
        defer { found.deallocate(); expected.deallocate() }
        found.initializeMemory(as: UInt8.self, repeating: 0, count: headerBytes)
        // Bytes past the end are compared as zeros: a cut write left them unwritten.
        let n = try preadFully(fd, found, size, 0, path: path)
        guard n == size else { return false }  // shrank meanwhile: leave it to the ordinary open

        // The header a new file gets, as FileCore.writeHeader builds it (a plain seal is computed
        // below; an encrypted one has a random nonce, so its bytes are exempt from the comparison).
        expected.initializeMemory(as: UInt8.self, repeating: 0, count: headerBytes)
        let slot = PageLayout.pageSize * 1
        let meta = newFileMeta(cipher: cipher)
        meta.encode(into: expected + slot)
        DurabilityRecord.encode(version: 1, into: expected + DurabilityRecord.offset)
        let metaLength = MetaLayout.sealedLength(inline: 0, freeRecords: 0, rootData: 0)
        let sealStart = slot + MetaLayout.sealOffset
        // An encrypted seal's nonce and tag; its last bytes are zero like the rest of the page.
        let randomSeal = sealStart..<(sealStart + PageCipher.metaTagSize)
        if cipher == nil {
            try FileCore.sealMeta(expected + slot, cipher: nil, path: path)
        }

        let f = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self)
        let e = UnsafeRawPointer(expected).assumingMemoryBound(to: UInt8.self)
        for sector in stride(from: 0, to: headerBytes, by: sectorSize) {
            var zero = true
            var matches = true
            for i in sector..<(sector + sectorSize) {
                if f[i] != 0 { zero = false }
                if f[i] != e[i], cipher == nil || !randomSeal.contains(i) { matches = false }
            }
            guard zero || matches else { return false }
        }
        let metaPresent = (0..<metaLength).allSatisfy { f[slot + $0] == e[slot + $0] }
        let sealPresent = (sealStart..<(sealStart + PageCipher.metaTagSize)).contains { f[$0] != 0 }
        if cipher != nil, metaPresent, sealPresent, !FileCore.sealVerifies(UnsafeRawPointer(found + slot), cipher: cipher) {
            return false  // a whole meta with a seal that fails: not a torn write of ours
        }
        let finished = size == headerBytes && metaPresent && sealPresent
            && FileCore.sealVerifies(UnsafeRawPointer(found + slot), cipher: cipher)
        return !finished
    }

    /// Version 1 of a new file: empty, durable, sealed with `cipher`'s key check.
    static func newFileMeta(cipher: PageCipher?) -> MetaState {
        var meta = MetaState()
        meta.version = 1
        meta.durableBase = 1
        meta.encrypted = cipher != nil
        meta.keyCheck = cipher?.keyCheck ?? []
        return meta
    }

    /// What a read-only open reports for an unfinished creation (it must not write the header).
    static func readOnlyError(size: Int, path: String) -> StorageError {
        if size == 0 { return StorageError(.notAStrataFile, "the file is empty", path: path) }
        return StorageError(.notAStrataFile, "the file's creation never finished (it holds only part of a new file's "
            + "header and nothing was ever committed to it); a writable open initialises it", path: path)
    }
}
