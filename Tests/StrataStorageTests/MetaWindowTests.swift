// Meta slots copied into the write window (files not flushed per commit): a copy cut short by a
// process kill leaves the committing version's slot torn; open must fall back to the previous
// version, intact, for a tear at any length. Also: the window path is the one taken, and files
// flushed per commit keep the pwrite.

import Testing
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

@Suite("Meta slots through the write window")
struct MetaWindowTests {
    private static let slotBytes = PageLayout.pageSize

    /// Commits values 1...n under `.unsafe`; returns the slot of version n's meta as written and
    /// the bytes that slot held before (version n − 8's meta, or zeros).
    private func makeFile(_ path: String, commits n: UInt64, key: [UInt8]?) throws -> (slot: Int, before: [UInt8], after: [UInt8]) {
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe, encryptionKey: key))
        defer { file.close() }
        #expect(file.core.metaGoesThroughWindow)
        #expect(file.core.store.writeWindow != nil)
        for value in 1..<n { try commitCounter(file, value: value) }
        let version = try file.latestVersion() + 1
        let slot = Int(version % UInt64(MetaLayout.slotCount))
        let before = try readBytes(path, at: slot * Self.slotBytes, count: Self.slotBytes)
        try commitCounter(file, value: n)
        #expect(try file.latestVersion() == version)
        let after = try readBytes(path, at: slot * Self.slotBytes, count: Self.slotBytes)
        #expect(before != after, "the commit wrote its slot through the mapping (visible to pread)")
        return (slot, before, after)
    }

    @Test(arguments: [nil, [UInt8](repeating: 0x5A, count: 64)])
    func aSlotTornAtAnyLengthFallsBackToThePreviousVersion(key: [UInt8]?) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        // 13 commits: version 14's slot (6) held version 6's meta, so the tear mixes two real metas.
        let (slot, before, after) = try makeFile(path, commits: 13, key: key)
        // A process killed while copying its slot never flushed or recorded version 14.
        try setDurabilityRecord(path, version: 13)
        let sealed = after.withUnsafeBytes { FileCore.sealedLength($0.baseAddress!) } ?? Self.slotBytes
        var lengths: Set<Int> = [1, 8, 12, 16, 40, 64, 100, sealed / 2, sealed - 1]
        lengths = lengths.filter { $0 > 0 && $0 < sealed }
        for length in lengths.sorted() {
            // The new meta's first `length` bytes over the old slot: what a copy killed part way
            // leaves (memcpy runs front to back in chunks; any prefix is possible).
            let torn = Array(after[0..<length]) + Array(before[length...])
            try overwrite(path, at: slot * Self.slotBytes, with: torn)
            let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe, encryptionKey: key))
            let reader = try file.beginRead()
            #expect(reader.version == 13, "tear at \(length) bytes")
            #expect(try readCounter(reader, roots: reader.roots) == 12)
            reader.end()
            #expect(try file.verify().balances)
            file.close()
            // Put the intact slot back before the next length.
            try overwrite(path, at: slot * Self.slotBytes, with: after)
        }
        // Intact, the file opens at the newest version; and it keeps committing.
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe, encryptionKey: key))
        defer { file.close() }
        #expect(try file.latestVersion() == 14)
        try commitCounter(file, value: 99)
        let reader = try file.beginRead()
        #expect(try readCounter(reader, roots: reader.roots) == 99)
        reader.end()
    }

    @Test func aTornSlotDoesNotSurviveTheNextCommits() throws {
        // After falling back to version 13, new commits reuse version numbers 14...; their metas
        // replace the torn slot and the file verifies at every step.
        let dir = TemporaryDirectory()
        let path = dir.file()
        let (slot, before, after) = try makeFile(path, commits: 13, key: nil)
        try setDurabilityRecord(path, version: 13)
        let torn = Array(after[0..<64]) + Array(before[64...])
        try overwrite(path, at: slot * Self.slotBytes, with: torn)
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
        for value in UInt64(100)..<120 {
            try commitCounter(file, value: value)
            #expect(try file.verify().balances)
        }
        file.close()
        let reopened = try StorageFile.open(StorageOptions(path: path))
        defer { reopened.close() }
        let reader = try reopened.beginRead()
        #expect(reader.version == 33)
        #expect(try readCounter(reader, roots: reader.roots) == 119)
        reader.end()
    }

    @Test func filesFlushedPerCommitKeepThePwrite() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .full))
        defer { file.close() }
        #expect(!file.core.metaGoesThroughWindow)
        try commitCounter(file, value: 1)
        #expect(try file.latestVersion() == 2)
    }
}
