// Encryption: AES-256-GCM pages, authenticated meta, key checks, no plaintext on disk.

import Foundation
import Testing
@testable import StrataStorage

let testKey: [UInt8] = (0..<64).map { UInt8(($0 * 37 + 11) & 0xFF) }

func fileContains(_ path: String, _ needle: String) -> Bool {
    guard let data = FileManager.default.contents(atPath: path) else { return false }
    return data.range(of: Data(needle.utf8)) != nil
}

/// Writes `text` repeated across 20 pages and commits; returns the refs.
func writeText(_ file: StorageFile, _ text: String) throws -> [PageRef] {
    let txn = try file.beginWrite()
    var refs: [PageRef] = []
    let bytes = Array(text.utf8)
    for _ in 0..<20 {
        let (ref, payload) = try txn.allocatePage()
        var offset = 1
        while offset + bytes.count <= PageLayout.payloadSize {
            for (i, b) in bytes.enumerated() { payload.storeBytes(of: b, toByteOffset: offset + i, as: UInt8.self) }
            offset += bytes.count
        }
        refs.append(ref)
    }
    txn.roots[2] = UInt64(refs[0].raw)
    try txn.commit()
    return refs
}

func pageText(_ pages: some PageReading, _ ref: PageRef, length: Int) throws -> String {
    let payload = try pages.readPage(ref)
    return String(decoding: UnsafeRawBufferPointer(start: payload + 1, count: length), as: UTF8.self)
}

@Suite("Encryption")
struct EncryptionTests {
    static let marker = "Strata-known-plaintext-7f3a"

    @Test func noPlaintextReachesTheDiskAndTheKeyReadsItBack() throws {
        let dir = TemporaryDirectory()
        let secret = dir.file("secret.strata")
        let plain = dir.file("plain.strata")
        var refs: [PageRef] = []
        do {
            let file = try StorageFile.open(StorageOptions(path: secret, encryptionKey: testKey))
            refs = try writeText(file, Self.marker)
            for value in 1...30 { try commitCounter(file, value: UInt64(value)) }
            file.close()
            let control = try StorageFile.open(StorageOptions(path: plain))
            _ = try writeText(control, Self.marker)
            control.close()
        }
        // The same test on a plain file finds the text: the search works.
        #expect(fileContains(plain, Self.marker))
        #expect(!fileContains(secret, Self.marker))
        #expect(!fileContains(secret + ".lock", Self.marker))
        let file = try StorageFile.open(StorageOptions(path: secret, encryptionKey: testKey))
        defer { file.close() }
        let reader = try file.beginRead()
        #expect(reader.version == 32)
        for ref in refs {
            #expect(try pageText(reader, ref, length: Self.marker.utf8.count) == Self.marker)
        }
        #expect(try readCounter(reader, roots: reader.roots) == 30)
        reader.end()
        #expect(try file.verify().balances)
    }

    @Test func aModifiedEncryptedPageFailsOnRead() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var refs: [PageRef] = []
        do {
            let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: testKey))
            refs = try writeText(file, Self.marker)
            try commitCounter(file, value: 1)  // so the text pages are not in the newest commit
            file.close()
        }
        // Flip one ciphertext byte of page refs[3], and one tag byte of refs[4].
        let at = Int(refs[3].raw) * PageLayout.pageSize + 3000
        try overwrite(path, at: at, with: [try readBytes(path, at: at, count: 1)[0] ^ 0x01])
        let tagAt = Int(refs[4].raw) * PageLayout.pageSize + 14
        try overwrite(path, at: tagAt, with: [try readBytes(path, at: tagAt, count: 1)[0] ^ 0x80])
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: path, encryptionKey: testKey)) } == .corruptPage)
        // Verified page by page when open checks only the newest commits.
        let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: testKey, openVerification: .newestCommitsOnly))
        defer { file.close() }
        let reader = try file.beginRead()
        #expect(try pageText(reader, refs[2], length: 4) == "Stra")
        #expect(storageErrorCode { _ = try reader.readPage(refs[3]) } == .corruptPage)
        #expect(storageErrorCode { _ = try reader.readPage(refs[4]) } == .corruptPage)
    }

    @Test func aPageCopiedToAnotherOffsetDoesNotAuthenticate() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var refs: [PageRef] = []
        do {
            let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: testKey))
            refs = try writeText(file, Self.marker)
            try commitCounter(file, value: 1)
            file.close()
        }
        let source = try readBytes(path, at: Int(refs[5].raw) * PageLayout.pageSize, count: PageLayout.pageSize)
        try overwrite(path, at: Int(refs[6].raw) * PageLayout.pageSize, with: source)
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: path, encryptionKey: testKey)) } == .corruptPage)
        let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: testKey, openVerification: .newestCommitsOnly))
        defer { file.close() }
        let reader = try file.beginRead()
        #expect(try pageText(reader, refs[5], length: 4) == "Stra")
        #expect(storageErrorCode { _ = try reader.readPage(refs[6]) } == .corruptPage)
    }

    @Test func encryptedFilesReusePagesAndSurviveReopen() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe, encryptionKey: testKey))
            let pinned = try file.beginRead()
            for value in 1...300 { try commitCounter(file, value: UInt64(value)) }
            #expect(pinned.version == 1)
            pinned.end()
            #expect(try file.sizes().usedBytes <= 16 * PageLayout.pageSize)
            #expect(try file.verify().balances)
            file.close()
        }
        let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: testKey))
        defer { file.close() }
        let reader = try file.beginRead()
        #expect(try readCounter(reader, roots: reader.roots) == 300)
        reader.end()
        try commitCounter(file, value: 301)
        #expect(try file.verify().balances)
    }

    /// A damaged newest meta: reported when its version was recorded durable, a fallback to the
    /// other slot when it was not (a torn commit).
    @Test func aDamagedEncryptedMetaIsReportedOrFallsBackWhenTorn() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: testKey))
            try commitCounter(file, value: 1)
            try commitCounter(file, value: 2)
            file.close()
        }
        let fd = open(path, O_RDONLY)
        let cipher = try PageCipher(key: testKey, path: path)
        let newest = try FileCore.readNewestMeta(fd: fd, cipher: cipher, path: path)
        close(fd)
        #expect(newest.meta.version == 3)
        // Change a user root in the newest meta: its GMAC tag no longer matches.
        try overwrite(path, at: newest.slot * PageLayout.pageSize + 40, with: [0x99])
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: path, encryptionKey: testKey)) } == .corruptFile)
        try setDurabilityRecord(path, version: 2)
        let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: testKey))
        defer { file.close() }
        let reader = try file.beginRead()
        #expect(reader.version == 2)
        #expect(try readCounter(reader, roots: reader.roots) == 1)
    }
}
