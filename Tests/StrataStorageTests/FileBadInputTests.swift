// Bad input: files that are not ours, truncated, flipped bytes in meta and pages, torn commits,
// bad keys, and I/O errors during commit. Each case checks the typed error, and that the last
// committed version is untouched.

import Foundation
import Testing
@testable import StrataStorage

/// Writes bytes at `offset` of the file at `path`.
func overwrite(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(offset))
    handle.write(Data(bytes))
}

/// Rewrites the durability record to name `version`: the state a process leaves when it dies
/// before its newest commit was flushed and acknowledged (the record then names an older one).
/// Page 8 names `version`, and every slot page's record naming a newer one names it too.
func setDurabilityRecord(_ path: String, version: UInt64) throws {
    let fd = open(path, O_RDWR)
    try #require(fd >= 0)
    defer { close(fd) }
    try DurabilityRecord.lower(to: version, fd: fd, path: path)
}

func readBytes(_ path: String, at offset: Int, count: Int) throws -> [UInt8] {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(offset))
    return [UInt8](handle.readData(ofLength: count))
}

/// Creates a file at version 3: version 2 = 50 stamped pages (refs in the returned array,
/// roots[0] = 50), version 3 = one more page with value 3 at roots[1].
func makeTwoCommitFile(_ path: String, key: [UInt8]? = nil) throws -> (refs: [PageRef], last: PageRef) {
    let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
    defer { file.close() }
    var refs: [PageRef] = []
    let txn = try file.beginWrite()
    for i in 0..<50 {
        let (ref, payload) = try txn.allocatePage()
        stamp(payload, value: UInt64(i), marker: 0x5A)
        refs.append(ref)
    }
    txn.roots[0] = 50
    try txn.commit()
    let second = try file.beginWrite()
    let (last, payload) = try second.allocatePage()
    stamp(payload, value: 3, marker: 0x33)
    second.roots[1] = UInt64(last.raw)
    try second.commit()
    return (refs, last)
}

/// The slot holding the newest version and its meta.
func newestSlot(_ path: String) throws -> (slot: Int, meta: MetaState) {
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    let result = try FileCore.readNewestMeta(fd: fd, cipher: nil, path: path)
    return (result.slot, result.meta)
}

@Suite("Bad input")
struct FileBadInputTests {
    @Test func aFileThatIsNotOursIsRejected() throws {
        let dir = TemporaryDirectory()
        let big = dir.file("text.txt")
        _ = FileManager.default.createFile(atPath: big, contents: Data(repeating: 0x41, count: 20_000))
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: big)) } == .notAStrataFile)
        let small = dir.file("small.txt")
        _ = FileManager.default.createFile(atPath: small, contents: Data("hello".utf8))
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: small)) } == .notAStrataFile)
        // The rejected files are left as they were.
        #expect(fileSize(big) == 20_000)
        #expect(fileSize(small) == 5)
    }

    @Test func missingFileWithMustExistIsNotFound() {
        let dir = TemporaryDirectory()
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: dir.file(), mustExist: true)) } == .notFound)
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: dir.file(), readOnly: true)) } == .notFound)
        #expect(access(dir.file(), F_OK) != 0)
    }

    @Test func truncatedFilesAreReportedAsTruncated() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        _ = try makeTwoCommitFile(path)
        let meta = try newestSlot(path).meta
        // Cut the file inside its pages, then inside the meta slots.
        #expect(truncate(path, off_t(Int(meta.pageCount - 10) * PageLayout.pageSize)) == 0)
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: path)) } == .truncatedFile)
        #expect(truncate(path, 6000) == 0)
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: path)) } == .truncatedFile)
    }

    /// Version 3 was flushed and recorded durable, then its meta was damaged: open reports it
    /// instead of silently opening version 2; falling back is the caller's explicit choice.
    @Test func aFlippedByteInADurableNewestMetaIsReportedAndRecoveryIsExplicit() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let (refs, _) = try makeTwoCommitFile(path)
        let slot = try newestSlot(path).slot
        let offset = slot * PageLayout.pageSize + 40
        let original = try readBytes(path, at: offset, count: 1)
        try overwrite(path, at: offset, with: [original[0] ^ 0x10])
        do {
            _ = try StorageFile.open(StorageOptions(path: path))
            Issue.record("a damaged durable version must not open as the previous one")
        } catch let error as StorageError {
            #expect(error.code == .corruptFile)
            #expect(error.message.contains("version 3 was made durable"))
        }
        #expect(try readBytes(path, at: offset, count: 1) == [original[0] ^ 0x10], "a failed open changes nothing")
        do {
            let file = try StorageFile.open(StorageOptions(path: path, recoversToLastIntactVersion: true))
            defer { file.close() }
            let reader = try file.beginRead()
            #expect(reader.version == 2)
            #expect(reader.roots[0] == 50)
            #expect(readStamp(try reader.readPage(refs[7]))?.value == 7)
        }
        // Recovery made version 2 what the file holds: it now opens without the option.
        do {
            let file = try StorageFile.open(StorageOptions(path: path))
            #expect(try file.latestVersion() == 2)
            file.close()
        }
        // Damage the other slot too: now neither verifies.
        let other = ((slot + MetaLayout.slotCount - 1) % MetaLayout.slotCount) * PageLayout.pageSize + 40
        let o = try readBytes(path, at: other, count: 1)
        try overwrite(path, at: other, with: [o[0] ^ 0x01])
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: path)) } == .corruptFile)
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: path, recoversToLastIntactVersion: true)) } == .corruptFile)
    }

    /// A flipped byte in the newest meta of a version nothing recorded durable (its writer died
    /// before its flush returned) is a torn commit: open falls back to the previous version.
    @Test func aFlippedByteInAnUnacknowledgedNewestMetaFallsBack() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let (refs, _) = try makeTwoCommitFile(path)
        try setDurabilityRecord(path, version: 2)
        let slot = try newestSlot(path).slot
        let offset = slot * PageLayout.pageSize + 40
        try overwrite(path, at: offset, with: [try readBytes(path, at: offset, count: 1)[0] ^ 0x10])
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        let reader = try file.beginRead()
        #expect(reader.version == 2)
        #expect(readStamp(try reader.readPage(refs[7]))?.value == 7)
    }

    @Test func aTornNewestCommitFallsBackToThePreviousVersionIntact() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let (refs, last) = try makeTwoCommitFile(path)
        // Simulate a crash that wrote version 3's meta but not its page: damage that page. The
        // writer died before its flush returned, so the durability record names version 2.
        try overwrite(path, at: Int(last.raw) * PageLayout.pageSize + 1000, with: [0xDE, 0xAD])
        try setDurabilityRecord(path, version: 2)
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        let reader = try file.beginRead()
        #expect(reader.version == 2)
        for (i, ref) in refs.enumerated() {
            #expect(readStamp(try reader.readPage(ref))?.value == UInt64(i))
        }
        reader.end()
        #expect(try file.verify().balances)
        // And the file keeps working from there.
        try commitCounter(file, value: 9)
        #expect(try file.latestVersion() == 3)
    }

    /// Damage to a page the newest commits did not write: found at open (every stored page is
    /// verified there), naming the page; with open verification limited to the newest commits,
    /// found by the first read of that page instead, and never cached as verified.
    @Test func aFlippedByteInAnOlderPageFailsAtOpenOrOnRead() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let (refs, _) = try makeTwoCommitFile(path)
        try overwrite(path, at: Int(refs[20].raw) * PageLayout.pageSize + 2000, with: [0x00, 0xFF])
        do {
            _ = try StorageFile.open(StorageOptions(path: path))
            Issue.record("open must verify every stored page")
        } catch let error as StorageError {
            #expect(error.code == .corruptPage)
            #expect(error.message.contains("page \(refs[20].raw)"))
        }
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: path, openVerification: .allPagesUpTo(bytes: 1 << 20))) } == .corruptPage)
        let file = try StorageFile.open(StorageOptions(path: path, openVerification: .newestCommitsOnly))
        defer { file.close() }
        let reader = try file.beginRead()
        #expect(reader.version == 3)
        #expect(readStamp(try reader.readPage(refs[19]))?.value == 19)
        #expect(storageErrorCode { _ = try reader.readPage(refs[20]) } == .corruptPage)
        // Still detected on a second read (never cached as verified).
        #expect(storageErrorCode { _ = try reader.readPage(refs[20]) } == .corruptPage)
        // A reference outside the version is a typed error, not a crash.
        #expect(storageErrorCode { _ = try reader.readPage(PageRef(1_000_000)) } == .corruptFile)
        #expect(storageErrorCode { _ = try reader.readPage(PageRef(1)) } == .corruptFile)
    }

    /// A file larger than the open-verification limit is verified as reads touch it.
    @Test func theOpenVerificationLimitIsRespected() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let (refs, _) = try makeTwoCommitFile(path)
        try overwrite(path, at: Int(refs[20].raw) * PageLayout.pageSize + 2000, with: [0x00, 0xFF])
        let file = try StorageFile.open(StorageOptions(path: path, openVerification: .allPagesUpTo(bytes: 4 * PageLayout.pageSize)))
        defer { file.close() }
        let reader = try file.beginRead()
        #expect(storageErrorCode { _ = try reader.readPage(refs[20]) } == .corruptPage)
    }

    @Test func badKeysAreTypedErrors() throws {
        let dir = TemporaryDirectory()
        let plain = dir.file("plain.strata")
        let secret = dir.file("secret.strata")
        let key = [UInt8](repeating: 7, count: 64)
        var other = key
        other[63] = 8
        try StorageFile.open(StorageOptions(path: plain)).close()
        try StorageFile.open(StorageOptions(path: secret, encryptionKey: key)).close()
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: secret, encryptionKey: [1, 2, 3])) } == .invalidKey)
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: secret, encryptionKey: other)) } == .wrongKey)
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: secret)) } == .wrongKey)
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: plain, encryptionKey: key)) } == .wrongKey)
        // The right key still opens it.
        let file = try StorageFile.open(StorageOptions(path: secret, encryptionKey: key))
        #expect(try file.latestVersion() == 1)
        file.close()
    }

    @Test(arguments: [(ENOSPC, StorageError.Code.diskFull), (EIO, StorageError.Code.io)])
    func anIOErrorDuringCommitLeavesTheLastVersion(errnoValue: Int32, expected: StorageError.Code) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            let file = try StorageFile.open(StorageOptions(path: path))
            defer { file.close() }
            try commitCounter(file, value: 1)
            file.core.injectedWriteErrno = errnoValue
            #expect(storageErrorCode { try commitCounter(file, value: 2) } == expected)
            #expect(try file.latestVersion() == 2)
            let reader = try file.beginRead()
            #expect(try readCounter(reader, roots: reader.roots) == 1)
            reader.end()
            #expect(try file.verify().balances)
        }
        // After reopen the failed commit is not there, and the file accepts new ones.
        do {
            let file = try StorageFile.open(StorageOptions(path: path))
            defer { file.close() }
            #expect(try file.latestVersion() == 2)
            // A failed flush is reported; the file then refuses commits until reopened (what
            // reached the disk is unknown after a failed fdatasync).
            file.core.injectedFlushErrno = errnoValue
            #expect(storageErrorCode { try commitCounter(file, value: 3) } == expected)
            #expect(storageErrorCode { try commitCounter(file, value: 4) } == expected)
        }
        // Reopened, the file holds version 2 or the unflushed version 3 (the data did reach the page
        // cache; only the flush was made to fail), never anything partial, and accepts commits.
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        let version = try file.latestVersion()
        #expect(version == 2 || version == 3)
        let reader = try file.beginRead()
        #expect(try readCounter(reader, roots: reader.roots) == (version == 2 ? 1 : 3))
        reader.end()
        try commitCounter(file, value: 9)
        #expect(try file.latestVersion() == version + 1)
        #expect(try file.verify().balances)
    }
}
