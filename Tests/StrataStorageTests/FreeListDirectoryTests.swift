// A long free list kept as a directory (format 5): a small commit rewrites only the pages whose
// records changed; the list read back on open is the one the writer held; files of format 4
// are read and written; a later format and a damaged directory are refused with typed errors.

import Foundation
import Testing
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

@Suite struct FreeListDirectoryTests {
    /// A file whose free list needs many pages: `runs` pages allocated, every other one freed.
    private func fragmentedFile(_ path: String, runs: Int, durability: Durability = .full) throws -> StorageFile {
        let file = try StorageFile.open(StorageOptions(path: path, durability: durability))
        let txn = try file.beginWrite()
        var refs: [PageRef] = []
        for _ in 0..<(2 * runs) { refs.append(try txn.allocatePage().ref) }
        try txn.commit()
        let free = try file.beginWrite()
        for (i, ref) in refs.enumerated() where i % 2 == 0 { free.freePage(ref) }
        try free.commit()
        return file
    }

    /// Where two record lists first differ (nil: equal), short enough to read in a failure.
    private func difference(_ a: [HeldRun], _ b: [HeldRun]) -> String? {
        guard a != b else { return nil }
        let index = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        return "\(a.count) vs \(b.count) records; first difference at \(index): "
            + "\(index < a.count ? "\(a[index])" : "none") vs \(index < b.count ? "\(b[index])" : "none")"
    }

    /// The records of the writer's free space, in the directory's order.
    private func records(_ file: StorageFile) -> [HeldRun] { file.core.freeSpace.sortedRecords() }

    @Test func aSmallCommitRewritesOnlyTheListPagesWhoseRecordsChanged() throws {
        let dir = TemporaryDirectory()
        let file = try fragmentedFile(dir.file(), runs: 2_000)
        defer { file.close() }
        for value in 1...5 as ClosedRange<UInt64> { try commitCounter(file, value: value) }
        let listPages = file.core.freeListPages.count
        #expect(file.core.freeListDirectory != nil)
        #expect(listPages >= 13)  // 2,000 records: 12 pages and the directory
        // The counter's page is rewritten: it takes the lowest free page and frees the old one.
        let txn = try file.beginWrite()
        let (ref, payload) = try txn.writablePage(PageRef(UInt32(txn.roots[0])))
        stamp(payload, value: 6, marker: 1)
        txn.roots[0] = UInt64(ref.raw)
        let stats = try txn.commitWithStatistics()
        // The counter, the directory and the few list pages whose ranges changed; a chain would
        // be rewritten whole (13 pages and more).
        #expect(stats.pagesWritten <= 5, "wrote \(stats.pagesWritten) pages with a list of \(listPages)")
        #expect(try file.verify().balances)
    }

    @Test func aFileNotFlushedPerCommitKeepsAChainUpTo48Pages() throws {
        // Without a flush to save, planning a directory costs more than rewriting a short chain.
        let dir = TemporaryDirectory()
        let short = try fragmentedFile(dir.file("short.strata"), runs: 2_000, durability: .unsafe)
        defer { short.close() }
        try commitCounter(short, value: 1)
        #expect(short.core.freeListDirectory == nil)
        #expect(short.core.freeListPages.count == FreeSpace.pagesNeeded(records: short.core.freeSpace.recordCount))
        #expect(try short.verify().balances)
        // A long one is a directory there too, and a small commit keeps most of its pages.
        let long = try fragmentedFile(dir.file("long.strata"), runs: 9_000, durability: .unsafe)
        defer { long.close() }
        for value in 1...3 as ClosedRange<UInt64> { try commitCounter(long, value: value) }
        #expect(long.core.freeListDirectory != nil)
        let txn = try long.beginWrite()
        let (ref, payload) = try txn.writablePage(PageRef(UInt32(txn.roots[0])))
        stamp(payload, value: 4, marker: 1)
        txn.roots[0] = UInt64(ref.raw)
        let stats = try txn.commitWithStatistics()
        #expect(stats.pagesWritten <= 5, "wrote \(stats.pagesWritten) pages with a list of \(long.core.freeListPages.count)")
        #expect(try long.verify().balances)
    }

    @Test func theListReadOnOpenIsTheOneTheWriterHeld() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var generator = SplitMix64(seed: 0xF1D1)
        var expected: [HeldRun] = []
        var directory: FreeListDirectory?
        var value: UInt64 = 0
        var live: [PageRef] = []
        do {
            let file = try fragmentedFile(path, runs: 1_200, durability: .full)
            // Random commits: pages allocated, pages freed (some in runs, some scattered), and a
            // reader pinned now and then so that held records pile up and are promoted later.
            for round in 0..<60 {
                let reader = round % 7 == 3 ? try file.beginRead() : nil
                let txn = try file.beginWrite()
                let allocations = Int(generator.next() % 40)
                for _ in 0..<allocations { live.append(try txn.allocatePage().ref) }
                let frees = min(live.count, Int(generator.next() % 40))
                for _ in 0..<frees {
                    let index = Int(generator.next() % UInt64(live.count))
                    txn.freePage(live.remove(at: index))
                }
                try txn.commit()
                value += 1
                try commitCounter(file, value: value)
                reader?.end()
                // The writer's state as committed (a later beginWrite or verify promotes held runs
                // in memory only).
                expected = records(file)
                directory = file.core.freeListDirectory
                if round % 2 == 1 {
                    // Exactly what an open of a copy reads back (a second open of the same file
                    // would share this one's state).
                    let copy = dir.file("copy-\(round).strata")
                    try copyFile(path, to: copy)
                    let reopened = try StorageFile.open(StorageOptions(path: copy))
                    #expect(difference(records(reopened), expected) == nil)
                    #expect(reopened.core.freeListDirectory == directory)
                    #expect(try reopened.verify().balances)
                    reopened.close()
                }
                #expect(try file.verify().balances)
            }
            #expect(directory != nil)
            file.close()
        }
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        #expect(difference(records(file), expected) == nil)
        #expect(file.core.freeListDirectory == directory)
        #expect(try file.verify().balances)
        let r = try file.beginRead()
        #expect(try readCounter(r, roots: r.roots) == value)
        r.end()
    }

    @Test func aListThatShrinksGoesBackToAChainAndToTheMeta() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try fragmentedFile(path, runs: 800)
        defer { file.close() }
        try commitCounter(file, value: 1)
        #expect(file.core.freeListDirectory != nil)
        // Reusing the free pages merges nothing but removes runs until the list fits a chain,
        // then the meta.
        var shapes: Set<String> = []
        for round in 0..<16 {
            let txn = try file.beginWrite()
            for _ in 0..<60 { _ = try txn.allocatePage() }
            try txn.commit()
            try commitCounter(file, value: UInt64(round + 2))
            shapes.insert(file.core.freeListDirectory != nil ? "directory" : file.core.freeListPages.isEmpty ? "meta" : "chain")
            #expect(try file.verify().balances)
        }
        #expect(shapes == ["directory", "chain", "meta"])
        file.close()
        let reopened = try StorageFile.open(StorageOptions(path: path))
        defer { reopened.close() }
        #expect(try reopened.verify().balances)
    }

    // MARK: - Crashes

    /// A power cut during a commit that keeps some list pages and replaces others: whatever part
    /// of the commit's writes reached the disk, open lands on the commit before it or on the
    /// commit itself, each with the free list it was committed with.
    @Test func aCommitCutByAPowerLossOpensWithTheFreeListOfAVersionItReached() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try fragmentedFile(path, runs: 2_000)
        for value in 1...3 as ClosedRange<UInt64> { try commitCounter(file, value: value) }
        // Version N, flushed (.full): the disk before the cut commit.
        let before = try bytes(path)
        let recordsBefore = records(file)
        // Version N + 1: the counter, and pages freed across the file so that several ranges
        // change while others stay.
        // One transaction, so that the cut is of one commit.
        let txn = try file.beginWrite()
        for page in stride(from: UInt32(200), to: 3_800, by: 700) { txn.freePage(PageRef(page)) }
        let (ref, payload) = try txn.writablePage(PageRef(UInt32(txn.roots[0])))
        stamp(payload, value: 4, marker: 0xAB)
        txn.roots[0] = UInt64(ref.raw)
        try txn.commit()
        let recordsAfter = records(file)
        let after = try bytes(path)
        file.close()
        #expect(recordsAfter != recordsBefore)

        // The cut commit's writes: every page that differs, but the durability record (written
        // after the flush, so never part of a cut commit).
        let pageSize = PageLayout.pageSize
        let pages = max(before.count, after.count) / pageSize
        func page(_ image: [UInt8], _ p: Int) -> ArraySlice<UInt8> {
            let start = p * pageSize
            return start + pageSize <= image.count ? image[start..<(start + pageSize)] : ArraySlice(repeating: 0, count: pageSize)
        }
        let written = (0..<pages).filter { $0 != MetaLayout.durabilityRecordPage && page(before, $0) != page(after, $0) }
        let metaSlots = written.filter { $0 < MetaLayout.slotCount }
        let dataPages = written.filter { $0 >= MetaLayout.slotCount }
        #expect(metaSlots.count >= 1 && dataPages.count >= 2)
        #expect(dataPages.count < file.core.freeListPages.count, "a directory commit keeps most list pages")

        // Crash images: the meta alone; the pages alone; the meta with all pages but one.
        var images: [(String, Set<Int>)] = [("meta only", Set(metaSlots)), ("pages only", Set(dataPages))]
        for missing in dataPages { images.append(("all but page \(missing)", Set(written).subtracting([missing]))) }
        images.append(("everything", Set(written)))
        for (what, reached) in images {
            var image = [UInt8](repeating: 0, count: pages * pageSize)
            for p in 0..<pages { image.replaceSubrange((p * pageSize)..<((p + 1) * pageSize), with: reached.contains(p) ? page(after, p) : page(before, p)) }
            let crashed = dir.file("crash.strata")
            unlink(crashed)
            try writeFile(image, to: crashed)
            let opened = try StorageFile.open(StorageOptions(path: crashed))
            let r = try opened.beginRead()
            let counter = try readCounter(r, roots: r.roots)
            r.end()
            let landed = records(opened)
            #expect(counter == 3 || counter == 4, "\(what)")
            if counter == 4 {
                #expect(difference(landed, recordsAfter) == nil, "\(what)")
                #expect(reached == Set(written), "\(what): only the whole commit may open as version N + 1")
            } else {
                #expect(difference(landed, recordsBefore) == nil, "\(what)")
            }
            #expect(try opened.verify().balances, "\(what)")
            opened.close()
        }
    }

    private func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func writeFile(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    // MARK: - Formats

    /// Rewrites every slot of `path` that holds a meta with `format` in place of its own, sealed
    /// again so that it verifies.
    private func rewriteSlots(_ path: String, format: UInt32, onlyNewest: Bool = false) throws {
        var slots: [(slot: Int, version: UInt64, page: [UInt8])] = []
        for slot in 0..<MetaLayout.slotCount {
            let page = try readBytes(path, at: slot * PageLayout.pageSize, count: PageLayout.pageSize)
            guard case .success(let meta) = page.withUnsafeBytes({ MetaState.decode($0.baseAddress!) }) else { continue }
            slots.append((slot, meta.version, page))
        }
        let newest = slots.max { $0.version < $1.version }?.slot
        for var entry in slots where !onlyNewest || entry.slot == newest {
            try entry.page.withUnsafeMutableBytes { page throws in
                page.storeBytes(of: format.littleEndian, toByteOffset: MetaLayout.formatOffset, as: UInt32.self)
                try FileCore.sealMeta(page.baseAddress!, cipher: nil, path: path)
            }
            try overwrite(path, at: entry.slot * PageLayout.pageSize, with: entry.page)
        }
    }

    /// The format of each meta slot of `path` that has one (sealed or not).
    private func slotFormats(_ path: String) throws -> [UInt32] {
        try (0..<MetaLayout.slotCount).compactMap { slot in
            let page = try readBytes(path, at: slot * PageLayout.pageSize, count: PageLayout.pageSize)
            return page.withUnsafeBytes { page in
                guard UInt64(littleEndian: page.loadUnaligned(as: UInt64.self)) == MetaLayout.magic else { return nil }
                return UInt32(littleEndian: page.loadUnaligned(fromByteOffset: MetaLayout.formatOffset, as: UInt32.self))
            }
        }
    }

    @Test func aFileOfFormat4IsReadAndItsNextCommitWritesFormat5() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            // A chain (format 4 knows nothing else): 400 runs need 3 pages.
            let file = try fragmentedFile(path, runs: 300)
            try commitCounter(file, value: 7)
            #expect(file.core.freeListDirectory == nil && !file.core.freeListPages.isEmpty)
            file.close()
        }
        try rewriteSlots(path, format: 4)
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        #expect(file.core.latestMeta.format == 4)
        let r = try file.beginRead()
        #expect(try readCounter(r, roots: r.roots) == 7)
        r.end()
        #expect(try file.verify().balances)
        #expect(try file.inspect().formatVersion == 4)
        try commitCounter(file, value: 8)
        #expect(file.core.latestMeta.format == MetaLayout.formatVersion)
        #expect(try file.inspect().formatVersion == Int(MetaLayout.formatVersion))
        // A build of format 4 would open the newest format-4 slot it finds, without the later
        // commits: a few commits on, none is left for it, and it refuses the file.
        #expect(try slotFormats(path).contains(4))
        for value in 9...11 as ClosedRange<UInt64> { try commitCounter(file, value: value) }
        #expect(try !slotFormats(path).contains(4))
        file.close()
        let again = try StorageFile.open(StorageOptions(path: path))
        defer { again.close() }
        let r2 = try again.beginRead()
        #expect(try readCounter(r2, roots: r2.roots) == 11)
        r2.end()
    }

    @Test func aFileWhoseNewestCommitHasALaterFormatIsRefusedNamingIt() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            let file = try StorageFile.open(StorageOptions(path: path))
            for value in 1...3 as ClosedRange<UInt64> { try commitCounter(file, value: value) }
            file.close()
        }
        // Only the newest slot: the older ones of ours must not be opened in its place.
        try rewriteSlots(path, format: MetaLayout.formatVersion + 1, onlyNewest: true)
        do {
            _ = try StorageFile.open(StorageOptions(path: path))
            Issue.record("a file with a later format's commit was opened")
        } catch let error as StorageError {
            #expect(error.code == .notAStrataFile)
            #expect(error.message.contains("format version \(MetaLayout.formatVersion + 1)"))
        }
    }

    @Test func aFormat4MetaNamingADirectoryIsRefusedAsCorrupt() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            let file = try fragmentedFile(path, runs: 1_000)
            try commitCounter(file, value: 1)
            #expect(file.core.freeListDirectory != nil)
            file.close()
        }
        try rewriteSlots(path, format: 4, onlyNewest: true)
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: path)) } == .corruptFile)
    }

    @Test func aDamagedDirectoryIsRefusedAsCorrupt() throws {
        // Each damage is written into the directory page's payload, then the page is sealed
        // again (so the checksum does not catch it first): the structure itself must.
        let damages: [(String, (UnsafeMutableRawPointer, FreeListDirectory) -> Void)] = [
            ("count beyond the meta's", { payload, _ in
                payload.storeBytes(of: UInt32(1).littleEndian, toByteOffset: 4, as: UInt32.self) }),
            ("count beyond a page", { payload, _ in
                payload.storeBytes(of: UInt32(5_000).littleEndian, toByteOffset: 4, as: UInt32.self) }),
            ("a page named twice", { payload, d in
                payload.storeBytes(of: d.pages[0].ref.littleEndian, toByteOffset: FreeListDirectoryLayout.pagesOffset + 4, as: UInt32.self) }),
            ("a page of another kind", { payload, d in
                payload.storeBytes(of: d.directoryPage.littleEndian, toByteOffset: FreeListDirectoryLayout.pagesOffset, as: UInt32.self) }),
        ]
        for (what, damage) in damages {
            let dir = TemporaryDirectory()
            let path = dir.file()
            do {
                let file = try fragmentedFile(path, runs: 1_000)
                try commitCounter(file, value: 1)
                guard let directory = file.core.freeListDirectory else {
                    Issue.record("no directory")
                    return
                }
                let version = file.core.latestMeta.version
                file.close()
                try patchPage(path, page: directory.directoryPage, version: version) { damage($0, directory) }
            }
            #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: path)) } == .corruptFile, "\(what)")
        }
    }

    private func copyFile(_ from: String, to: String) throws {
        try? FileManager.default.removeItem(atPath: to)
        try FileManager.default.copyItem(atPath: from, toPath: to)
    }

    /// Changes the payload of `page` in the file and seals it again for `version`.
    private func patchPage(_ path: String, page: UInt32, version: UInt64, _ change: (UnsafeMutableRawPointer) -> Void) throws {
        let offset = Int(page) * PageLayout.pageSize
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { buffer.deallocate() }
        let original = try readBytes(path, at: offset, count: PageLayout.pageSize)
        #expect(original.count == PageLayout.pageSize)
        original.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: PageLayout.pageSize) }
        change(buffer + PageLayout.headerSize)
        let fd = Glibc.open(path, O_RDWR)
        #expect(fd >= 0)
        defer { close(fd) }
        let store = try PageStore(fd: fd, path: path, cipher: nil)
        _ = try store.seal(buffer, page: page, version: version, sealed: buffer)
        try overwrite(path, at: offset, with: [UInt8](UnsafeRawBufferPointer(start: buffer, count: PageLayout.pageSize)))
    }
}
