// The durability record: which version a file has made durable, and what open does with it —
// never fall back past it silently; fall back past it only when asked.

import Foundation
import Testing
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

@Suite("Durability record")
struct DurabilityRecordTests {
    private func recorded(_ path: String) throws -> UInt64? {
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        return try FileCore.readDurabilityRecord(fd: fd, path: path)
    }

    @Test func aNewFileRecordsItsFirstVersion() throws {
        let dir = TemporaryDirectory()
        StorageFile.openAndClose(dir.file())
        #expect(try recorded(dir.file()) == 1)
    }

    @Test func everyFullCommitIsRecordedBeforeItReturns() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file()))
        defer { file.close() }
        for value in UInt64(1)...5 {
            let version = try commitCounter(file, value: value)
            #expect(try recorded(dir.file()) == version)
        }
    }

    @Test func unsafeCommitsAreRecordedWhenTheLastHandleCloses() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        var last: UInt64 = 0
        for value in UInt64(1)...5 { last = try commitCounter(file, value: value) }
        #expect(try recorded(dir.file()) == 1, "no flush, no record")
        let second = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        file.close()
        #expect(try recorded(dir.file()) == 1, "another handle still has the file open")
        second.close()
        #expect(try recorded(dir.file()) == last)
    }

    /// A page the newest, recorded commit wrote is damaged: open names the version and the page;
    /// recovery opens the previous version with its data.
    @Test(arguments: [nil, testKey])
    func damageToTheNewestRecordedCommitIsReported(key: [UInt8]?) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let version: UInt64
        do {
            let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
            defer { file.close() }
            _ = try commitCounter(file, value: 1)
            version = try commitCounter(file, value: 2)
        }
        let fd = open(path, O_RDONLY)
        let newest = try FileCore.readNewestMeta(fd: fd, cipher: try key.map { try PageCipher(key: $0, path: nil) }, path: path)
        close(fd)
        #expect(newest.meta.version == version)
        let page = try #require(newest.meta.inlineEntries.first?.page)
        try overwrite(path, at: Int(page) * PageLayout.pageSize + 3000, with: [0x5A, 0xA5])
        do {
            _ = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
            Issue.record("a damaged recorded version must not open as an older one")
        } catch let error as StorageError {
            #expect(error.code == .corruptFile)
            #expect(error.message.contains("version \(version) was made durable"))
            #expect(error.message.contains("page \(page)"))
        }
        let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key, recoversToLastIntactVersion: true))
        defer { file.close() }
        let reader = try file.beginRead()
        #expect(reader.version == version - 1)
        #expect(try readCounter(reader, roots: reader.roots) == 1)
        reader.end()
        #expect(try file.verify().balances)
    }

    @Test func aDamagedRecordIsIgnored() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let (_, _) = try makeTwoCommitFile(path)
        try overwrite(path, at: DurabilityRecord.offset + 9, with: [0xFF])
        // Page 8 named version 3; the slot page of version 3 carries the record before it.
        #expect(try recorded(path) == 2)
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        #expect(try file.latestVersion() == 3)
        _ = try commitCounter(file, value: 7)
        #expect(try recorded(path) == 4, "the next flush writes an intact record again")
    }

    /// The lock file is created on a file system with no space left: a typed `.diskFull`, not a
    /// SIGBUS from storing into a mapped hole. Needs a small tmpfs (the tests run as root).
    @Test func openingOnAFullDiskIsDiskFull() throws {
        let dir = TemporaryDirectory()
        let mountPoint = dir.file("small")
        try #require(mkdir(mountPoint, 0o755) == 0)
        try #require(Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", mountPoint]) == 0,
                     "mounting a 16 MiB tmpfs needs root; these tests run as root in CI")
        defer { _ = Self.run("/bin/umount", [mountPoint]) }
        // Fill the file system. Close-on-exec: a process another test spawns meanwhile (the
        // tool tests' posix_spawn closes nothing) would otherwise inherit the descriptor and keep
        // the unlinked filler's pages allocated while it runs, and the reopen below finds no room.
        let filler = open(mountPoint + "/filler", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        try #require(filler >= 0)
        let block = [UInt8](repeating: 1, count: 4096)  // tmpfs allocates whole pages
        while block.withUnsafeBytes({ write(filler, $0.baseAddress, 4096) }) == 4096 {}
        close(filler)
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: mountPoint + "/db.strata")) } == .diskFull)
        // With room again the same path opens.
        unlink(mountPoint + "/filler")
        let file = try StorageFile.open(StorageOptions(path: mountPoint + "/db.strata"))
        _ = try commitCounter(file, value: 3)
        file.close()
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

extension StorageFile {
    static func openAndClose(_ path: String) {
        (try? StorageFile.open(StorageOptions(path: path)))?.close()
    }
}
