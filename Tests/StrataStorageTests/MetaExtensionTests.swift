// The write-path speed changes of the pager: the dirty-page table, free space kept inline in the
// meta (no free-list page for small commits) and user root data in the meta.

import Testing
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

@Suite struct DirtyPagesTests {
    @Test func matchesADictionaryUnderRandomInsertsAndRemoves() {
        let table = DirtyPages(capacity: 16)
        var model: [UInt32: UnsafeMutableRawPointer] = [:]
        var generator = SplitMix64(seed: 0xD1127)
        // Fake, never dereferenced addresses: the table only stores them.
        func address(_ n: UInt64) -> UnsafeMutableRawPointer {
            UnsafeMutableRawPointer(bitPattern: UInt(n &* 4096 &+ 4096))!
        }
        for step in 0..<20_000 {
            // Pages from a small range so that probe runs collide and deletions shift entries.
            let page = UInt32(8 + generator.next() % 600)
            if generator.next() % 3 == 0 {
                #expect(table.remove(page) == model.removeValue(forKey: page))
            } else {
                let value = address(UInt64(step))
                table.insert(page, value)
                model[page] = value
            }
            if step % 997 == 0 {
                for probe in UInt32(0)..<UInt32(700) { #expect(table[probe] == model[probe]) }
            }
        }
        #expect(table.count == model.count)
        #expect(table.sortedPages() == model.keys.sorted())
        var seen: [UInt32: UnsafeMutableRawPointer] = [:]
        table.forEach { seen[$0] = $1 }
        #expect(seen == model)
        table.removeAll()
        #expect(table.isEmpty)
        #expect(table[UInt32(model.keys.first ?? 9)] == nil)
    }

    @Test func growsPastItsInitialCapacity() {
        let table = DirtyPages(capacity: 16)
        for page in UInt32(8)..<UInt32(10_008) { table.insert(page, UnsafeMutableRawPointer(bitPattern: UInt(page) << 12)!) }
        #expect(table.count == 10_000)
        for page in UInt32(8)..<UInt32(10_008) { #expect(table[page] == UnsafeMutableRawPointer(bitPattern: UInt(page) << 12)) }
        #expect(table[10_008] == nil)
    }
}

@Suite struct MetaExtensionTests {
    @Test func aSmallCommitKeepsItsFreeSpaceInTheMeta() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        defer { file.close() }
        for value in 1...20 as ClosedRange<UInt64> { try commitCounter(file, value: value) }
        // Each commit rewrites the counter page: freed pages are records of the free space.
        #expect(file.core.freeSpace.recordCount > 0)
        #expect(file.core.freeListPages.isEmpty)
        #expect(!file.core.latestMeta.inlineFree.isEmpty)
        let txn = try file.beginWrite()
        let (ref, payload) = try txn.writablePage(PageRef(UInt32(txn.roots[0])))
        stamp(payload, value: 99, marker: 1)
        txn.roots[0] = UInt64(ref.raw)
        let stats = try txn.commitWithStatistics()
        #expect(stats.pagesWritten == 1)  // the counter page only: no free-list page
        #expect(try file.verify().balances)
    }

    @Test func inlineFreeSpaceSurvivesReopen() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var reusable = 0
        var held = 0
        do {
            let file = try StorageFile.open(StorageOptions(path: path))
            for value in 1...30 as ClosedRange<UInt64> { try commitCounter(file, value: value) }
            #expect(file.core.freeListPages.isEmpty)
            reusable = file.core.freeSpace.reusablePageCount
            held = file.core.freeSpace.heldPageCount
            #expect(reusable + held > 0)
            file.close()
        }
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        #expect(file.core.freeSpace.reusablePageCount + file.core.freeSpace.heldPageCount == reusable + held)
        #expect(try file.verify().balances)
        let r = try file.beginRead()
        #expect(try readCounter(r, roots: r.roots) == 30)
        r.end()
    }

    @Test func manyFreeRunsFallBackToFreeListPages() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
            let txn = try file.beginWrite()
            var refs: [PageRef] = []
            for _ in 0..<800 { refs.append(try txn.allocatePage().ref) }
            try txn.commit()
            // Every other page freed: 400 separate runs, more than fit in the meta.
            let w = try file.beginWrite()
            for (i, ref) in refs.enumerated() where i % 2 == 0 { w.freePage(ref) }
            try w.commit()
            try commitCounter(file, value: 1)
            #expect(file.core.freeSpace.recordCount > 160)
            #expect(!file.core.freeListPages.isEmpty)
            #expect(file.core.latestMeta.inlineFree.isEmpty)
            #expect(try file.verify().balances)
            // Once reused, the runs fit again and move back into the meta.
            let fill = try file.beginWrite()
            for _ in 0..<400 { _ = try fill.allocatePage() }
            try fill.commit()
            try commitCounter(file, value: 2)
            #expect(file.core.freeListPages.isEmpty)
            #expect(try file.verify().balances)
            file.close()
        }
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        #expect(try file.verify().balances)
    }

    @Test func rootDataIsCommittedWithTheMeta() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let key = [UInt8](repeating: 0x5A, count: 64)
        for encryptionKey in [nil, key] {
            let name = path + (encryptionKey == nil ? ".plain" : ".encrypted")
            let payload = (0..<UserRoots.maxDataSize).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            do {
                let file = try StorageFile.open(StorageOptions(path: name, encryptionKey: encryptionKey))
                let txn = try file.beginWrite()
                txn.roots[5] = 77
                txn.roots.data = payload
                try txn.commit()
                let r = try file.beginRead()
                #expect(r.roots.data == payload)
                r.end()
                // A later commit that leaves the data alone keeps it.
                try commitCounter(file, value: 3)
                file.close()
            }
            let file = try StorageFile.open(StorageOptions(path: name, encryptionKey: encryptionKey))
            defer { file.close() }
            let r = try file.beginRead()
            #expect(r.roots.data == payload)
            #expect(r.roots[5] == 77)
            #expect(try readCounter(r, roots: r.roots) == 3)
            r.end()
        }
    }

    @Test func rootDataOverTheLimitIsRefused() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file()))
        defer { file.close() }
        try commitCounter(file, value: 1)
        let code = storageErrorCode {
            let txn = try file.beginWrite()
            txn.roots.data = [UInt8](repeating: 1, count: UserRoots.maxDataSize + 1)
            try txn.commit()
        }
        #expect(code == .tooLarge)
        // Nothing of the refused commit is visible; the file still commits.
        let r = try file.beginRead()
        #expect(r.roots.data.isEmpty)
        #expect(try readCounter(r, roots: r.roots) == 1)
        r.end()
        try commitCounter(file, value: 2)
    }

    /// Commits copy their pages into the writable shared mapping: what pread returns from the
    /// file (the page cache) must be the committed page, plain and encrypted.
    @Test func committedPagesReachTheFileThroughTheMapping() throws {
        let dir = TemporaryDirectory()
        for key in [nil, [UInt8](repeating: 7, count: 64)] {
            let path = dir.file(key == nil ? "plain" : "encrypted")
            let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe, encryptionKey: key))
            defer { file.close() }
            #expect(file.core.store.writeWindow != nil)
            try commitCounter(file, value: 5, marker: 0x3C)
            let r = try file.beginRead()
            let page = Int(r.roots[0])
            r.end()
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
            defer { buffer.deallocate() }
            #expect(pread(file.core.fd, buffer, PageLayout.pageSize, off_t(page * PageLayout.pageSize)) == PageLayout.pageSize)
            if key == nil {
                #expect(PageStore.checksumMatches(UnsafeRawPointer(buffer), page: page))
                #expect(readStamp(UnsafeRawPointer(buffer) + PageLayout.headerSize)?.value == 5)
            } else {
                // Ciphertext on disk: the marker run must not appear in clear.
                #expect(readStamp(UnsafeRawPointer(buffer) + PageLayout.headerSize) == nil)
            }
        }
    }

    /// A file made sparse outside Strata (here by an extending truncate, as another tool's
    /// sparse copy would leave it) has its holes allocated when it opens for writing, so that
    /// stores through the write window never need disk space (SIGBUS on a full disk otherwise).
    @Test func holesOfASparseFileAreAllocatedWhenItOpensForWriting() throws {
        let dir = TemporaryDirectory()
        let copy = dir.file("copy")
        do {
            let file = try StorageFile.open(StorageOptions(path: copy, durability: .unsafe))
            defer { file.close() }
            try commitCounter(file, value: 1)
            try commitCounter(file, value: 2)
        }
        do {
            let fd = open(copy, O_RDWR)
            try #require(fd >= 0)
            defer { close(fd) }
            try #require(ftruncate(fd, off_t(fileSize(copy) + 400 * PageLayout.pageSize)) == 0)
        }
        func allocatedBytes(_ path: String) -> Int {
            var st = stat()
            return stat(path, &st) == 0 ? Int(st.st_blocks) * 512 : -1
        }
        // The file is sparse on file systems with holes (ext4, xfs, tmpfs); the check that
        // matters is that it is not once opened.
        let file = try StorageFile.open(StorageOptions(path: copy, durability: .unsafe))
        defer { file.close() }
        #expect(file.core.store.writeWindow != nil)
        #expect(allocatedBytes(copy) >= fileSize(copy))
        try commitCounter(file, value: 3)
        let r = try file.beginRead()
        #expect(try readCounter(r, roots: r.roots) == 3)
        r.end()
    }

    @Test func aMetaClaimingTooMuchInlineSpaceIsNotSealed() {
        let page = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { page.deallocate() }
        var meta = MetaState()
        meta.version = 3
        meta.encode(into: page)
        page.storeBytes(of: UInt32(200).littleEndian, toByteOffset: MetaLayout.freeRecordCountOffset, as: UInt32.self)
        #expect(FileCore.sealedLength(UnsafeRawPointer(page)) == nil)
        guard case .failure(let failure) = MetaState.decode(UnsafeRawPointer(page)) else {
            Issue.record("a meta whose records overrun the seal decoded")
            return
        }
        #expect(failure.kind == .damaged)
        page.storeBytes(of: UInt32(0).littleEndian, toByteOffset: MetaLayout.freeRecordCountOffset, as: UInt32.self)
        page.storeBytes(of: UInt32(UserRoots.maxDataSize + 1).littleEndian, toByteOffset: MetaLayout.rootDataLengthOffset, as: UInt32.self)
        #expect(FileCore.sealedLength(UnsafeRawPointer(page)) == nil)
    }
}
