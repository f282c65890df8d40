// A power cut while the file grows: the crash states in which a commit's meta reached the disk
// but the growth of the file its pages needed did not, and those in which a new file's header
// write was cut before its fsync. Each image is made by running the storage API on a real file and
// then putting back what the disk could hold after the power cut (pread, pwrite, ftruncate):
// the bytes of the last flush plus some of the writes after it.
//
// What must hold: a torn commit never locks the data out (open falls back to the newest durable
// version, every page of which reads); a version known durable whose pages run past the end is
// damage (`.truncatedFile`); a creation that never finished is initialised by a writable open and
// reported by a read-only one; nothing that could hold data is re-initialised.

import Testing
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

/// The whole file.
private func contents(_ path: String) throws -> [UInt8] {
    let fd = open(path, O_RDONLY)
    try #require(fd >= 0)
    defer { close(fd) }
    var st = stat()
    try #require(fstat(fd, &st) == 0)
    var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
    let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
    try #require(n == bytes.count)
    return bytes
}

/// Makes the file at `path` hold exactly `image`, flushed.
private func writeImage(_ path: String, _ image: [UInt8]) throws {
    let fd = open(path, O_RDWR | O_CREAT, 0o644)
    try #require(fd >= 0)
    defer { close(fd) }
    let n = image.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    try #require(n == image.count)
    try #require(ftruncate(fd, off_t(image.count)) == 0)
    try #require(fsync(fd) == 0)
}

private func page(_ index: Int) -> Range<Int> {
    (index * PageLayout.pageSize)..<((index + 1) * PageLayout.pageSize)
}

/// The page count a meta slot's bytes name (plain in encrypted files too).
private func pageCount(ofSlot slot: Int, in image: [UInt8]) -> Int {
    let at = slot * PageLayout.pageSize + 104
    return (0..<4).reduce(0) { $0 | Int(image[at + $1]) << (8 * $1) }
}

/// One commit of a fresh stamped page referenced by root 1; returns its version and page.
private func commitOnePage(_ file: StorageFile, value: UInt64) throws -> (version: UInt64, ref: PageRef) {
    let txn = try file.beginWrite()
    let (ref, payload) = try txn.allocatePage()
    stamp(payload, value: value, marker: 0x44)
    txn.roots[1] = UInt64(ref.raw)
    return (try txn.commit(), ref)
}

/// A file whose durable version holds `refs` (stamped 0..<count), the image of that version's
/// flush, and the file after the next commit, which grew it (closed cleanly).
private struct GrowingCommit {
    var refs: [PageRef]
    var durable: UInt64
    var before: [UInt8]
    var after: [UInt8]
    var tornSlot: Int { Int((durable + 1) % UInt64(MetaLayout.slotCount)) }

    /// The previous flush plus the next commit's meta write, without the growth (nor anything else).
    var metaOnly: [UInt8] {
        var image = before
        image.replaceSubrange(page(tornSlot), with: after[page(tornSlot)])
        return image
    }

    /// Every write of the next commit that lies below the old end of the file, only the growth
    /// lost (and the durability record, written after the flush that never happened).
    var allBelowTheOldEnd: [UInt8] {
        var image = Array(after[0..<before.count])
        let record = page(MetaLayout.durabilityRecordPage)
        image.replaceSubrange(record, with: before[record])
        return image
    }

    /// A new file at `path` with `pages` stamped pages committed (none: the new file's version 1
    /// is the durable one), then a commit of more pages than the file has, which must grow it.
    static func make(_ path: String, key: [UInt8]?, pages: Int = 100) throws -> GrowingCommit {
        var refs: [PageRef] = []
        let durable: UInt64
        do {
            let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
            defer { file.close() }
            if pages == 0 {
                durable = try file.latestVersion()  // the new file's version 1
            } else {
                let txn = try file.beginWrite()
                for i in 0..<pages {
                    let (ref, payload) = try txn.allocatePage()
                    stamp(payload, value: UInt64(i), marker: 0x5A)
                    refs.append(ref)
                }
                txn.roots[0] = UInt64(pages)
                durable = try txn.commit()
            }
        }
        let before = try contents(path)
        do {
            let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
            defer { file.close() }
            let txn = try file.beginWrite()
            for _ in 0..<(before.count / PageLayout.pageSize) {
                let (_, payload) = try txn.allocatePage()
                stamp(payload, value: 7, marker: 0x77)
            }
            txn.roots[0] = 9999
            #expect(try txn.commit() == durable + 1)
        }
        let after = try contents(path)
        let made = GrowingCommit(refs: refs, durable: durable, before: before, after: after)
        try #require(after.count > before.count, "the second commit must grow the file")
        try #require(pageCount(ofSlot: made.tornSlot, in: after) * PageLayout.pageSize > before.count)
        return made
    }
}

/// Every page of the durable version reads back with its stamp.
private func expectDurableVersion(_ file: StorageFile, _ made: GrowingCommit, pages: Int = 100) throws {
    #expect(try file.latestVersion() == made.durable)
    let reader = try file.beginRead()
    defer { reader.end() }
    #expect(reader.version == made.durable)
    #expect(reader.roots[0] == UInt64(pages))
    for (i, ref) in made.refs.enumerated() {
        #expect(readStamp(try reader.readPage(ref))?.value == UInt64(i))
    }
}

@Suite("Torn growth")
struct TornGrowthTests {
    /// The slot page holds zeros, except a durability record no newer than `durable` (a cleared
    /// slot keeps the newest record open found, so that clearing never makes open less strict).
    private func isCleared(_ path: String, slot: Int, keeping durable: UInt64) throws -> Bool {
        var page = try readBytes(path, at: slot * PageLayout.pageSize, count: PageLayout.pageSize)
        let record = Array(page[MetaLayout.recordOffset..<(MetaLayout.recordOffset + DurabilityRecord.size)])
        if record.contains(where: { $0 != 0 }) {
            guard let named = record.withUnsafeBytes({ DurabilityRecord.decode($0.baseAddress!) }), named <= durable else {
                return false
            }
        }
        page.replaceSubrange(MetaLayout.recordOffset..<(MetaLayout.recordOffset + DurabilityRecord.size),
                             with: [UInt8](repeating: 0, count: DurabilityRecord.size))
        return page == [UInt8](repeating: 0, count: PageLayout.pageSize)
    }

    /// Commit k+1's meta reached the disk, the growth its pages needed did not: open gives
    /// version k with every page, a writable open clears the stale slot, the file goes on.
    @Test(arguments: [nil, testKey], [false, true])
    func aCommitWhoseGrowthWasLostFallsBack(key: [UInt8]?, keepsWritesBelowTheEnd: Bool) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let made = try GrowingCommit.make(path, key: key)
        try writeImage(path, keepsWritesBelowTheEnd ? made.allBelowTheOldEnd : made.metaOnly)
        let newer: (version: UInt64, ref: PageRef)
        do {
            let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
            defer { file.close() }
            try expectDurableVersion(file, made)
            #expect(try file.verify().balances)
            #expect(try isCleared(path, slot: made.tornSlot, keeping: made.durable), "the torn commit's slot is cleared")
            newer = try commitOnePage(file, value: 41)
            #expect(newer.version == made.durable + 1)
        }
        let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
        defer { file.close() }
        #expect(try file.latestVersion() == newer.version)
        let reader = try file.beginRead()
        #expect(readStamp(try reader.readPage(newer.ref))?.value == 41)
        #expect(readStamp(try reader.readPage(made.refs[99]))?.value == 99)
        reader.end()
        #expect(try file.verify().balances)
    }

    /// The same crash state opened read-only (which writes nothing) and with recovery asked for.
    @Test(arguments: [nil, testKey])
    func aCommitWhoseGrowthWasLostOpensReadOnlyAndWithRecovery(key: [UInt8]?) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let made = try GrowingCommit.make(path, key: key)
        try writeImage(path, made.metaOnly)
        do {
            let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key, readOnly: true))
            try expectDurableVersion(file, made)
            file.close()
        }
        #expect(try contents(path) == made.metaOnly, "a read-only open writes nothing")
        let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key, recoversToLastIntactVersion: true))
        defer { file.close() }
        try expectDurableVersion(file, made)
        #expect(try file.verify().balances)
    }

    /// A version known durable whose pages run past the end was cut after it was flushed: that is
    /// damage, reported as `.truncatedFile` by every kind of open, which changes nothing.
    @Test(arguments: [nil, testKey])
    func aDurableVersionPastTheEndIsStillTruncated(key: [UInt8]?) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let made = try GrowingCommit.make(path, key: key)
        // Version k+1 was flushed and recorded, then the file lost its growth.
        let cut = Array(made.after[0..<made.before.count])
        // Version k recorded, k+1 torn, and the file cut below what k needs.
        let durableSlot = Int(made.durable % UInt64(MetaLayout.slotCount))
        let short = Array(made.metaOnly[0..<(pageCount(ofSlot: durableSlot, in: made.before) - 10) * PageLayout.pageSize])
        for image in [cut, short] {
            try writeImage(path, image)
            for options in [StorageOptions(path: path, encryptionKey: key),
                            StorageOptions(path: path, encryptionKey: key, readOnly: true),
                            StorageOptions(path: path, encryptionKey: key, recoversToLastIntactVersion: true)] {
                #expect(storageErrorCode { _ = try StorageFile.open(options) } == .truncatedFile)
            }
            #expect(try contents(path) == image)
        }
    }

    /// The first commit after creation (the object layer's schema commit) grows the file from its
    /// header; its meta reached the disk, the growth did not. Version 1 opens, and the file goes on.
    @Test(arguments: [nil, testKey])
    func theFirstCommitsLostGrowthFallsBackToTheNewFile(key: [UInt8]?) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let made = try GrowingCommit.make(path, key: key, pages: 0)
        try #require(made.durable == 1 && made.before.count == MetaLayout.headerBytes)
        try writeImage(path, made.metaOnly)
        do {
            let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key, readOnly: true))
            try expectDurableVersion(file, made, pages: 0)
            file.close()
            #expect(try contents(path) == made.metaOnly)
        }
        do {
            let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key, recoversToLastIntactVersion: true))
            try expectDurableVersion(file, made, pages: 0)
            file.close()
        }
        try writeImage(path, made.metaOnly)
        let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
        defer { file.close() }
        try expectDurableVersion(file, made, pages: 0)
        #expect(try isCleared(path, slot: made.tornSlot, keeping: made.durable))
        let newer = try commitOnePage(file, value: 5)
        #expect(newer.version == 2)
        #expect(try file.verify().balances)
    }

    /// What a power cut can leave of the header write of a new file before its fsync: a writable
    /// open initialises it and the file works; a read-only open reports it and writes nothing.
    @Test(arguments: [nil, testKey])
    func anUnfinishedCreationIsInitialised(key: [UInt8]?) throws {
        let dir = TemporaryDirectory()
        let fresh = dir.file("fresh.strata")
        try StorageFile.open(StorageOptions(path: fresh, encryptionKey: key)).close()
        let header = try contents(fresh)
        try #require(header.count == MetaLayout.headerBytes)
        let slot1 = page(1)
        let zeros = [UInt8](repeating: 0, count: MetaLayout.headerBytes)
        var metaSectorOnly = zeros
        metaSectorOnly.replaceSubrange(slot1.lowerBound..<(slot1.lowerBound + 512), with: header[slot1.lowerBound..<(slot1.lowerBound + 512)])
        var sealSectorOnly = zeros
        sealSectorOnly.replaceSubrange((slot1.upperBound - 512)..<slot1.upperBound, with: header[(slot1.upperBound - 512)..<slot1.upperBound])
        var withoutSealSector = header
        withoutSealSector.replaceSubrange((slot1.upperBound - 512)..<slot1.upperBound, with: zeros[0..<512])
        let images: [(String, [UInt8])] = [
            ("first 512 bytes", Array(header[0..<512])),
            ("first 4096 bytes", Array(header[0..<4096])),
            ("first 4608 bytes", Array(header[0..<4608])),
            ("all but the last sector", Array(header[0..<(MetaLayout.headerBytes - 512)])),
            ("header-long, only slot 1's first sector", metaSectorOnly),
            ("header-long, only slot 1's seal sector", sealSectorOnly),
            ("header-long, slot 1's seal sector missing", withoutSealSector),
        ]
        for (index, (name, image)) in images.enumerated() {
            let path = dir.file("torn\(index).strata")
            try writeImage(path, image)
            do {
                _ = try StorageFile.open(StorageOptions(path: path, encryptionKey: key, readOnly: true))
                Issue.record("\(name): a read-only open must not open an unfinished creation")
            } catch let error as StorageError {
                #expect(error.code == .notAStrataFile, "\(name)")
                #expect(error.message.contains("never finished"), "\(name): \(error.message)")
            }
            #expect(try contents(path) == image, "\(name): a read-only open writes nothing")
            let written: (version: UInt64, ref: PageRef)
            do {
                let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
                defer { file.close() }
                #expect(try file.latestVersion() == 1, "\(name)")
                written = try commitOnePage(file, value: UInt64(index))
                #expect(written.version == 2, "\(name)")
            }
            let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key, readOnly: true))
            defer { file.close() }
            let reader = try file.beginRead()
            #expect(reader.version == 2, "\(name)")
            #expect(readStamp(try reader.readPage(written.ref))?.value == UInt64(index), "\(name)")
            reader.end()
        }
    }

    /// Files that could hold data, or are not ours, are never initialised: the open fails and
    /// every byte stays as it was.
    @Test func onlyAnUnfinishedCreationIsInitialised() throws {
        let dir = TemporaryDirectory()
        // Zeros, but for one byte no new file's header has.
        var foreign = [UInt8](repeating: 0, count: 20_000)
        foreign[10_000] = 0x41
        // A file with commits, cut back to the length of a header.
        let committed = dir.file("committed.strata")
        _ = try makeTwoCommitFile(committed)
        let cut = Array(try contents(committed)[0..<MetaLayout.headerBytes])
        // The start of a new file's header under another key.
        let other = dir.file("other.strata")
        var otherKey = testKey
        otherKey[0] ^= 1
        try StorageFile.open(StorageOptions(path: other, encryptionKey: otherKey)).close()
        let otherStart = Array(try contents(other)[0..<4608])
        // A plain new file, whole and cut short, opened with a key.
        let plain = dir.file("plain.strata")
        try StorageFile.open(StorageOptions(path: plain)).close()
        let plainHeader = try contents(plain)
        // A new file whose version 2 is in its slot (commits happened), cut to the header.
        let grown = dir.file("grown.strata")
        let made = try GrowingCommit.make(grown, key: nil, pages: 0)
        var withVersion2 = made.metaOnly
        withVersion2.replaceSubrange(page(1), with: [UInt8](repeating: 0, count: PageLayout.pageSize))
        let cases: [(String, [UInt8], [UInt8]?, StorageError.Code)] = [
            ("foreign", foreign, nil, .notAStrataFile),
            ("committed, cut", cut, nil, .truncatedFile),
            ("another key's header", otherStart, testKey, .truncatedFile),
            ("a plain header opened with a key", plainHeader, testKey, .wrongKey),
            ("a plain header's start opened with a key", Array(plainHeader[0..<4608]), testKey, .truncatedFile),
            ("version 2 without version 1", withVersion2, nil, .corruptFile),
        ]
        for (index, (name, image, key, code)) in cases.enumerated() {
            let path = dir.file("case\(index).strata")
            try writeImage(path, image)
            #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: path, encryptionKey: key)) } == code, "\(name)")
            #expect(try contents(path) == image, "\(name) is left as it was")
        }
    }
}
