// The lock file's occupancy bitmap: a writer reads only claimed reader slots, yet never misses a
// live core's pins — across bitmap words, after closes and for dead owners. A lock file of
// another magic is refused.

import Testing
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

@Suite struct LockFileOccupancyTests {
    /// The lock file of `dataPath` (beside it: a file of one name).
    private func lockPath(_ dataPath: String) -> String { dataPath + ".lock" }

    /// Reads the little-endian u64 at `offset` of a file.
    private func readWord(_ path: String, at offset: Int) throws -> UInt64 {
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var word: UInt64 = 0
        let n = pread(fd, &word, 8, off_t(offset))
        try #require(n == 8)
        return UInt64(littleEndian: word)
    }

    /// Writes little-endian u64 words at `offset` of a file descriptor.
    private func writeWords(_ fd: Int32, _ values: [UInt64], at offset: Int) throws {
        let bytes = values.map(\.littleEndian)
        let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        try #require(n == values.count * 8)
    }

    @Test func aNewLockFileUsesTheBitmapAndMarksItsSlot() throws {
        let dir = TemporaryDirectory()
        let lock = try LockFile(lockPath: lockPath(dir.file()))
        #expect(try readWord(lockPath(dir.file()), at: 0) == LockFile.magic)
        let bitmap = try readWord(lockPath(dir.file()), at: LockFile.occupancyWord * 8 + (lock.slot / 64) * 8)
        #expect(bitmap & (1 << UInt64(lock.slot % 64)) != 0)
    }

    @Test func anotherCoresPinsAreSeenUntilItCloses() throws {
        let dir = TemporaryDirectory()
        let writer = try LockFile(lockPath: lockPath(dir.file()))
        var reader: LockFile? = try LockFile(lockPath: lockPath(dir.file()))
        let readerSlot = try #require(reader?.slot)
        #expect(readerSlot != writer.slot)
        reader?.publish(versions: [5, 7])
        #expect(writer.foreignPins() == [5...5, 7...7])
        reader?.publish(versions: [3, 4, 5, 6, 7, 9])  // more than 5 exact versions: a range
        #expect(writer.foreignPins() == [3...9])
        reader = nil
        #expect(writer.foreignPins().isEmpty)
        let bitmap = try readWord(lockPath(dir.file()), at: LockFile.occupancyWord * 8 + (readerSlot / 64) * 8)
        #expect(bitmap & (1 << UInt64(readerSlot % 64)) == 0, "a closed core clears its bit")
    }

    @Test func slotsInEveryBitmapWordAreSeen() throws {
        let dir = TemporaryDirectory()
        let writer = try LockFile(lockPath: lockPath(dir.file()))
        var others: [LockFile] = []
        for _ in 0..<140 { others.append(try LockFile(lockPath: lockPath(dir.file()))) }
        let highest = try #require(others.last)
        #expect(highest.slot >= 128, "slots span three bitmap words")
        for (i, other) in others.enumerated() where i % 40 == 0 || other === highest {
            other.publish(versions: [UInt64(1000 + other.slot)])
        }
        let expected = others.enumerated().filter { $0.offset % 40 == 0 || $0.element === highest }
            .map { UInt64(1000 + $0.element.slot) }.sorted().map { $0...$0 }
        #expect(writer.foreignPins() == expected)
    }

    @Test func aDeadOwnersSlotIsIgnoredEvenWithItsBitSet() throws {
        let dir = TemporaryDirectory()
        let writer = try LockFile(lockPath: lockPath(dir.file()))
        // A process killed while pinning version 42 in slot 200: its bit and slot content stay,
        // but nobody holds the slot's ownership byte.
        let fd = open(lockPath(dir.file()), O_RDWR)
        try #require(fd >= 0)
        defer { close(fd) }
        let base = LockFile.slotsOffset + 200 * LockFile.slotSize
        try writeWords(fd, [2, 999_999, 1, 42], at: base)
        let wordOffset = (LockFile.occupancyWord + 200 / 64) * 8
        let current = try readWord(lockPath(dir.file()), at: wordOffset)
        try writeWords(fd, [current | (1 << UInt64(200 % 64))], at: wordOffset)
        #expect(writer.foreignPins().isEmpty)
        // The same slot with a live owner (this descriptor holding its byte) is seen.
        try #require(LockFile.setLock(fd, type: F_WRLCK, byte: 1024 + 200, wait: false))
        #expect(writer.foreignPins() == [42...42])
    }

    @Test func aForeignMagicIsRefusedWithATypedError() throws {
        let dir = TemporaryDirectory()
        let fd = open(lockPath(dir.file()), O_RDWR | O_CREAT, 0o644)
        try #require(fd >= 0)
        try #require(ftruncate(fd, off_t(LockFile.mappedSize)) == 0)
        try writeWords(fd, [0x1234_5678_9ABC_DEF0], at: 0)
        close(fd)
        #expect {
            _ = try LockFile(lockPath: lockPath(dir.file()))
        } throws: { error in
            (error as? StorageError)?.code == .lockFailed
                && (error as? StorageError)?.message.contains("unknown magic 0x123456789abcdef0") == true
        }
    }
}
