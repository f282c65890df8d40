// The meta seal and the one format: encrypted slots carry a GMAC tag under a fresh nonce, plain
// slots an XXH64 seal. Any change to sealed bytes, nonce or tag, or another key, fails the slot;
// a file whose slots have another format version is refused, naming the version.

import Testing
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

@Suite struct MetaSealFormatTests {
    /// Reads all eight meta slots of a file (4 KiB each).
    private func readRing(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var ring = [UInt8](repeating: 0, count: MetaLayout.ringBytes)
        let n = ring.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        try #require(n == MetaLayout.ringBytes)
        return ring
    }

    private func writeRing(_ path: String, _ ring: [UInt8]) throws {
        let fd = open(path, O_RDWR)
        try #require(fd >= 0)
        defer { close(fd) }
        let n = ring.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        try #require(n == MetaLayout.ringBytes)
    }

    /// The slots of the ring that carry the Strata magic, with their format.
    private func formats(_ ring: [UInt8]) -> [Int: UInt32] {
        var result: [Int: UInt32] = [:]
        ring.withUnsafeBytes { raw in
            for slot in 0..<MetaLayout.slotCount {
                let page = raw.baseAddress! + slot * PageLayout.pageSize
                if page.loadUnaligned(as: UInt64.self) == MetaLayout.magic { result[slot] = FileCore.format(ofMeta: page) }
            }
        }
        return result
    }

    /// A file with a few committed counters; returns the last value.
    private func makeFile(_ path: String, key: [UInt8]?, commits: Int = 5) throws -> UInt64 {
        let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
        defer { file.close() }
        for value in 1...commits { try commitCounter(file, value: UInt64(value)) }
        return UInt64(commits)
    }

    private func counter(_ path: String, key: [UInt8]?) throws -> UInt64? {
        let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
        defer { file.close() }
        let txn = try file.beginRead()
        defer { txn.end() }
        return try readCounter(txn, roots: txn.roots)
    }

    @Test func newSlotsHaveTheOneFormat() throws {
        let dir = TemporaryDirectory()
        _ = try makeFile(dir.file("e.strata"), key: testKey)
        _ = try makeFile(dir.file("p.strata"), key: nil)
        let encrypted = formats(try readRing(dir.file("e.strata")))
        let plain = formats(try readRing(dir.file("p.strata")))
        #expect(encrypted.count >= 5 && encrypted.values.allSatisfy { $0 == MetaLayout.formatVersion })
        #expect(plain.count >= 5 && plain.values.allSatisfy { $0 == MetaLayout.formatVersion })
    }

    @Test func aGMACSealFailsOnAnyChangedByteAndUnderAnotherKey() throws {
        let dir = TemporaryDirectory()
        _ = try makeFile(dir.file(), key: testKey)
        let ring = try readRing(dir.file())
        let cipher = try PageCipher(key: testKey, path: nil)
        let otherKey = testKey.map { $0 ^ 0x5A }
        let other = try PageCipher(key: otherKey, path: nil)
        // The newest slot: its commit record has entries, so the seal covers bytes past 192.
        let slot = try #require(formats(ring).keys.max())
        var page = Array(ring[(slot * PageLayout.pageSize)..<((slot + 1) * PageLayout.pageSize)])
        let length = try #require(page.withUnsafeBytes { FileCore.sealedLength($0.baseAddress!) })
        try #require(length > MetaLayout.entriesOffset)
        #expect(page.withUnsafeBytes { FileCore.sealVerifies($0.baseAddress!, cipher: cipher) })
        #expect(!page.withUnsafeBytes { FileCore.sealVerifies($0.baseAddress!, cipher: other) })
        #expect(!page.withUnsafeBytes { FileCore.sealVerifies($0.baseAddress!, cipher: nil) })
        // Sealed bytes (version, an entry, the last covered byte), nonce and tag.
        for offset in [24, MetaLayout.entriesOffset, length - 1, MetaLayout.sealOffset, MetaLayout.sealOffset + 11,
                       MetaLayout.sealOffset + 12, MetaLayout.sealOffset + 27] {
            page[offset] ^= 0x01
            #expect(!page.withUnsafeBytes { FileCore.sealVerifies($0.baseAddress!, cipher: cipher) }, "flip at \(offset)")
            page[offset] ^= 0x01
        }
        // Another format number does not verify either: the format byte is sealed.
        page[MetaLayout.formatOffset] = 2
        #expect(!page.withUnsafeBytes { FileCore.sealVerifies($0.baseAddress!, cipher: cipher) })
    }

    @Test func everySealDrawsAFreshNonce() throws {
        let cipher = try PageCipher(key: testKey, path: nil)
        var meta = MetaState()
        meta.version = 9
        meta.durableBase = 9
        meta.encrypted = true
        meta.keyCheck = cipher.keyCheck
        let a = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: 16)
        let b = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: 16)
        defer { a.deallocate(); b.deallocate() }
        meta.encode(into: a)
        meta.encode(into: b)
        try FileCore.sealMeta(a, cipher: cipher, path: nil)
        try FileCore.sealMeta(b, cipher: cipher, path: nil)
        let nonceA = Array(UnsafeRawBufferPointer(start: a + MetaLayout.sealOffset, count: 12))
        let nonceB = Array(UnsafeRawBufferPointer(start: b + MetaLayout.sealOffset, count: 12))
        #expect(nonceA != nonceB)
        #expect(FileCore.sealVerifies(UnsafeRawPointer(a), cipher: cipher))
        #expect(FileCore.sealVerifies(UnsafeRawPointer(b), cipher: cipher))
    }

    /// Earlier builds of this project wrote formats 1–3: such files are refused with a typed
    /// error that names the format, plain or encrypted, and the file is left as it was.
    @Test(arguments: [false, true])
    func aFileOfAnotherFormatIsRefusedNamingItsVersion(encrypted: Bool) throws {
        let dir = TemporaryDirectory()
        let key = encrypted ? testKey : nil
        _ = try makeFile(dir.file(), key: key)
        let cipher = try key.map { try PageCipher(key: $0, path: nil) }
        var ring = try readRing(dir.file())
        try ring.withUnsafeMutableBytes { raw in
            for slot in 0..<MetaLayout.slotCount {
                let page = raw.baseAddress! + slot * PageLayout.pageSize
                guard page.loadUnaligned(as: UInt64.self) == MetaLayout.magic else { continue }
                page.storeBytes(of: UInt32(3).littleEndian, toByteOffset: MetaLayout.formatOffset, as: UInt32.self)
                try FileCore.sealMeta(page, cipher: cipher, path: nil)
            }
        }
        try writeRing(dir.file(), ring)
        do {
            _ = try counter(dir.file(), key: key)
            Issue.record("a format 3 file must be refused")
        } catch let error as StorageError {
            #expect(error.code == .notAStrataFile)
            #expect(error.message.contains("format version 3"))
        }
        #expect(try readRing(dir.file()) == ring)
    }
}
