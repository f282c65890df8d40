// Compaction and copies: the free tail is dropped, live data is unchanged, the file keeps
// working, exclusive use is enforced, and copies re-key (same, new, or no key).

import Foundation
import Testing
@testable import StrataStorage

/// Writes 1,500 stamped pages, then frees all but the first 40 (and keeps those refs in roots
/// as a count only): a file whose data shrank by 97%.
func makeShrunkFile(_ path: String, key: [UInt8]? = nil) throws -> [PageRef] {
    let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe, encryptionKey: key))
    defer { file.close() }
    let txn = try file.beginWrite()
    var refs: [PageRef] = []
    for i in 0..<1500 {
        let (ref, payload) = try txn.allocatePage()
        stamp(payload, value: UInt64(i), marker: 0x61)
        refs.append(ref)
    }
    txn.roots[5] = 1500
    try txn.commit()
    let w = try file.beginWrite()
    for ref in refs.dropFirst(40) { w.freePage(ref) }
    w.roots[5] = 40
    try w.commit()
    try commitCounter(file, value: 1)
    try commitCounter(file, value: 2)
    return Array(refs.prefix(40))
}

func checkShrunkFile(_ file: StorageFile, _ refs: [PageRef]) throws {
    let reader = try file.beginRead()
    defer { reader.end() }
    #expect(reader.roots[5] == 40)
    #expect(try readCounter(reader, roots: reader.roots) == 2)
    for (i, ref) in refs.enumerated() {
        let seen = readStamp(try reader.readPage(ref))
        #expect(seen?.value == UInt64(i))
        #expect(seen?.marker == 0x61)
    }
}

@Suite("Compaction", .serialized)
struct CompactionTests {
    @Test(arguments: [false, true])
    func compactionDropsTheFreeSpaceAndKeepsTheData(encrypted: Bool) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let key: [UInt8]? = encrypted ? testKey : nil
        let refs = try makeShrunkFile(path, key: key)
        let before = fileSize(path)
        #expect(before >= 1500 * PageLayout.pageSize)
        let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
        defer { file.close() }
        let version = try file.latestVersion()
        try file.compact()
        let after = fileSize(path)
        #expect(after <= 60 * PageLayout.pageSize)
        #expect(try file.latestVersion() == version)
        try checkShrunkFile(file, refs)
        #expect(try file.verify().balances)
        #expect(try file.sizes().totalBytes <= 60 * PageLayout.pageSize)
        // The handle keeps working on the new file, and a reopen sees the same.
        try commitCounter(file, value: 3)
        #expect(try file.latestVersion() == version + 1)
        file.close()
        #expect(access(path + ".compact", F_OK) != 0)
        let again = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
        defer { again.close() }
        let reader = try again.beginRead()
        #expect(try readCounter(reader, roots: reader.roots) == 3)
        reader.end()
        #expect(try again.verify().balances)
    }

    @Test func compactionRefusesWhileTheFileIsInUse() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        _ = try makeShrunkFile(path)
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        do {
            let other = try StorageFile.open(StorageOptions(path: path))
            #expect(storageErrorCode { try file.compact() } == .fileInUse)
            other.close()
        }
        do {
            let reader = try file.beginRead()
            #expect(storageErrorCode { try file.compact() } == .fileInUse)
            reader.end()
        }
        do {
            // An open write transaction (here on the same thread, which used to wait forever for
            // itself while holding the handle registry) makes compaction refuse, not wait.
            let writer = try file.beginWrite()
            #expect(storageErrorCode { try file.compact() } == .fileInUse)
            writer.rollback()
        }
        let holder = try Probe(["hold", path])
        #expect(holder.waitForLine { $0 == "open" } == "open")
        #expect(storageErrorCode { try file.compact() } == .fileInUse)
        holder.sendLine()
        #expect(holder.waitForExit() == 0)
        let size = fileSize(path)
        try file.compact()
        #expect(fileSize(path) < size)
    }

    @Test func copiesKeepTheKeyChangeItOrDropIt() throws {
        let dir = TemporaryDirectory()
        let plainPath = dir.file("plain.strata")
        let refs = try makeShrunkFile(plainPath)
        var newKey = testKey
        newKey[0] ^= 0xFF
        let source = try StorageFile.open(StorageOptions(path: plainPath))
        defer { source.close() }
        let toSecret = dir.file("secret.strata")
        try source.writeCopy(toPath: toSecret, encryptionKey: testKey)
        let plainAgain = dir.file("plain-again.strata")
        let rekeyed = dir.file("rekeyed.strata")
        do {
            let secret = try StorageFile.open(StorageOptions(path: toSecret, encryptionKey: testKey))
            defer { secret.close() }
            try checkShrunkFile(secret, refs)
            #expect(try secret.verify().balances)
            try secret.writeCopy(toPath: plainAgain, encryptionKey: nil)
            try secret.writeCopy(toPath: rekeyed, encryptionKey: newKey)
        }
        // The copies are small (measured before the commit below, which may grow the file by one
        // growth step when the copy has no free page left).
        #expect(fileSize(plainAgain) <= 60 * PageLayout.pageSize)
        #expect(fileSize(rekeyed) <= 60 * PageLayout.pageSize)
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: toSecret)) } == .wrongKey)
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: rekeyed, encryptionKey: testKey)) } == .wrongKey)
        for (path, key) in [(plainAgain, nil), (rekeyed, Optional(newKey))] as [(String, [UInt8]?)] {
            let copy = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
            try checkShrunkFile(copy, refs)
            #expect(try copy.verify().balances)
            try commitCounter(copy, value: 10)
            copy.close()
        }
        // The source is untouched.
        try checkShrunkFile(source, refs)
        #expect(storageErrorCode { try source.writeCopy(toPath: plainAgain, encryptionKey: nil) } == .alreadyExists)
        #expect(storageErrorCode { try source.writeCopy(toPath: dir.file("bad.strata"), encryptionKey: [1]) } == .invalidKey)
    }
}
