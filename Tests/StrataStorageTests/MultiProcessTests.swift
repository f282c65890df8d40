// Two real processes sharing one file: the cross-process writer lock, the reader registry in the
// lock file, seeing another process's commits, and "open anywhere".

import Foundation
import Testing
import StrataStorage

/// The generation layout written by the probe: root 0 = directory page, root 1 = value;
/// every page listed in the directory carries the value at payload offset 8.
func checkGeneration(_ reader: ReadTransaction) throws -> Bool {
    let directory = PageRef(UInt32(truncatingIfNeeded: reader.roots[0]))
    if directory.isNull { return reader.roots[1] == 0 }
    let dir = try reader.readPage(directory)
    let count = Int(dir.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    for i in 0..<count {
        let page = try reader.readPage(PageRef(dir.loadUnaligned(fromByteOffset: 16 + 4 * i, as: UInt32.self)))
        guard page.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == reader.roots[1] else { return false }
        let word = reader.roots[1] &* 0x9E37_79B9_7F4A_7C15
        for k in stride(from: 16, to: PageLayout.payloadSize - 7, by: 8)
        where page.loadUnaligned(fromByteOffset: k, as: UInt64.self) != word {
            return false
        }
    }
    return true
}

@Suite("Multiple processes", .serialized)
struct MultiProcessTests {
    @Test func twoProcessesIncrementingUnderTheWriterLockCountExactly() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let a = try Probe(["increment", path, "300", "unsafe"])
        let b = try Probe(["increment", path, "300", "full"])
        #expect(a.waitForExit() == 0)
        #expect(b.waitForExit() == 0)
        #expect(a.output() == ["done"])
        #expect(b.output() == ["done"])
        let file = try StorageFile.open(StorageOptions(path: path, mustExist: true))
        defer { file.close() }
        let reader = try file.beginRead()
        #expect(reader.roots[1] == 600)
        #expect(reader.version == 601)
        #expect(try checkGeneration(reader))
        reader.end()
        #expect(try file.verify().balances)
    }

    @Test func aReaderInAnotherProcessKeepsItsPagesFromReuse() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
        defer { file.close() }
        let setup = try Probe(["increment", path, "5", "unsafe"])
        #expect(setup.waitForExit() == 0)
        let pin = try Probe(["pin", path])
        let pinned = pin.waitForLine { $0.hasPrefix("pinned") }
        #expect(pinned == "pinned 6")
        // Rewrite the generation 300 times; pages of version 6 must survive for the pinned reader.
        for _ in 0..<300 {
            let txn = try file.beginWrite()
            let old = PageRef(UInt32(txn.roots[0]))
            let dirPage = try txn.readPage(old)
            let count = Int(dirPage.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            let refs = (0..<count).map { PageRef(dirPage.loadUnaligned(fromByteOffset: 16 + 4 * $0, as: UInt32.self)) }
            for ref in refs { txn.freePage(ref) }
            txn.freePage(old)
            let value = txn.roots[1] + 1
            let (directory, d) = try txn.allocatePage()
            d.storeBytes(of: 1, as: UInt8.self)
            d.storeBytes(of: UInt32(1), toByteOffset: 8, as: UInt32.self)
            let (ref, p) = try txn.allocatePage()
            p.storeBytes(of: value, toByteOffset: 8, as: UInt64.self)
            for k in stride(from: 16, to: PageLayout.payloadSize - 7, by: 8) {
                p.storeBytes(of: 0xFFFF_FFFF_FFFF_FFFF as UInt64, toByteOffset: k, as: UInt64.self)
            }
            d.storeBytes(of: ref.raw, toByteOffset: 16, as: UInt32.self)
            txn.roots[0] = UInt64(directory.raw)
            txn.roots[1] = value
            try txn.commit()
        }
        // Pages are being reused (the file did not grow by 600 pages)...
        #expect(try file.sizes().usedBytes < 64 * PageLayout.pageSize)
        pin.sendLine()
        #expect(pin.waitForLine { $0 == "intact" || $0 == "damaged" } == "intact")
        #expect(pin.waitForExit() == 0)
        #expect(try file.verify().balances)
    }

    @Test func commitsOfAnotherProcessBecomeVisible() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        #expect(try file.latestVersion() == 1)
        let child = try Probe(["increment", path, "10", "full"])
        #expect(child.waitForExit() == 0)
        #expect(try file.latestVersion() == 11)
        let reader = try file.beginRead()
        #expect(reader.roots[1] == 10)
        #expect(try checkGeneration(reader))
        reader.end()
        // And our next write builds on it.
        let txn = try file.beginWrite()
        #expect(txn.baseVersion == 11)
        txn.rollback()
        #expect(try file.verify().balances)
    }

    @Test func openAnywhereSeesOtherProcessesAndBlocksDeletion() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            let file = try StorageFile.open(StorageOptions(path: path))
            file.close()
        }
        #expect(!StorageFile.isOpenAnywhere(path: path))
        let holder = try Probe(["hold", path])
        #expect(holder.waitForLine { $0 == "open" } == "open")
        #expect(StorageFile.isOpenAnywhere(path: path))
        #expect(storageErrorCode { try StorageFile.deleteFiles(path: path) } == .fileInUse)
        holder.sendLine()
        #expect(holder.waitForExit() == 0)
        #expect(!StorageFile.isOpenAnywhere(path: path))
        try StorageFile.deleteFiles(path: path)
        #expect(access(path, F_OK) != 0)
        #expect(access(path + ".lock", F_OK) != 0)
    }
}
