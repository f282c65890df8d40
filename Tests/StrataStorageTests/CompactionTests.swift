// Compaction and copies refuse what they cannot do: without a relocator nothing is written
// (`.invalidState`); while the file is in use — another handle, a reader or a write transaction of
// this handle, another process — compaction refuses instead of waiting (`.fileInUse`). What a
// copy keeps and how it re-keys is CompactionDenseTests'.

import Foundation
import Testing
import StrataStorage

@Suite("Compaction", .serialized)
struct CompactionTests {
    @Test func withoutARelocatorCopiesAndCompactionAreRefusedAndNothingIsWritten() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let copy = dir.file("copy.strata")
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        for value: UInt64 in 1...3 { try commitCounter(file, value: value) }
        let before = try #require(FileManager.default.contents(atPath: path))
        #expect(storageErrorCode { try file.compact() } == .invalidState)
        #expect(storageErrorCode { try file.writeCopy(toPath: copy, encryptionKey: nil) } == .invalidState)
        #expect(FileManager.default.contents(atPath: path) == before)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(names == ["db.strata", "db.strata.lock"], "a copy or temporary was left: \(names)")
        // The handle keeps working.
        try commitCounter(file, value: 4)
        let reader = try file.beginRead()
        defer { reader.end() }
        #expect(try readCounter(reader, roots: reader.roots) == 4)
    }

    @Test func compactionRefusesWhileTheFileIsInUse() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            let file = try Toy.open(path)
            defer { file.close() }
            try Toy.build(file, owners: 120)
        }
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        file.setRelocator(Toy.Relocator())
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
        let content = try Toy.dump(file)
        try file.compact()
        #expect(fileSize(path) < size)
        #expect(try Toy.dump(file) == content)
        #expect(try file.verify().balances)
    }
}
