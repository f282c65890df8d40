// Free space by version: fine-grained reuse under pinned readers, persistence across reopen,
// page accounting after random operation sequences, and bounded growth under a pinned reader.

import Testing
@testable import StrataStorage

@Suite("Free space")
struct FreeSpaceTests {
    @Test func promotionRuleIsExactPerRun() {
        var space = FreeSpace()
        space.hold(10, allocVersion: 5, freeVersion: 9)   // visible to versions 5...8
        space.hold(11, allocVersion: 9, freeVersion: 12)  // visible to 9...11
        space.hold(20, allocVersion: 2, freeVersion: 4)   // visible to 2...3
        space.promote(readers: [8], ranges: [], durableVersion: 100)
        #expect(space.held.map(\.start) == [10])
        #expect(space.reusable == [FreeRun(start: 11, count: 1), FreeRun(start: 20, count: 1)])
        // A range pin from another process blocks what it overlaps.
        space.hold(30, allocVersion: 40, freeVersion: 50)
        space.promote(readers: [], ranges: [45...47], durableVersion: 100)
        #expect(space.held.map(\.start) == [30])
        // Not durable yet: held even without readers.
        space.promote(readers: [], ranges: [], durableVersion: 49)
        #expect(space.held.map(\.start) == [30])
        space.promote(readers: [], ranges: [], durableVersion: 50)
        #expect(space.held.isEmpty)
        #expect(space.reusable == [FreeRun(start: 10, count: 2), FreeRun(start: 20, count: 1), FreeRun(start: 30, count: 1)])
        #expect(space.take() == 10)
        #expect(space.take() == 11)
        #expect(space.take() == 20)
    }

    @Test func aPinnedReaderKeepsOnlyThePagesOfItsOwnVersion() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        defer { file.close() }
        // Version 2: 100 pages.
        let txn = try file.beginWrite()
        var refs: [PageRef] = []
        for i in 0..<100 {
            let (ref, payload) = try txn.allocatePage()
            stamp(payload, value: UInt64(i), marker: 1)
            refs.append(ref)
        }
        try txn.commit()
        let pinned = try file.beginRead()
        let pinnedRefs = refs
        // 1,000 commits, each rewriting one of the 100 pages (copy-on-write) and a counter.
        for round in 0..<1000 {
            let w = try file.beginWrite()
            let index = round % 100
            let (ref, payload) = try w.writablePage(refs[index])
            stamp(payload, value: UInt64(round), marker: 2)
            refs[index] = ref
            try w.commit()
        }
        let accounting = try file.verify()
        #expect(accounting.balances)
        // The pinned version's 100 pages (+ its free list) are held; nothing written later is.
        #expect(accounting.heldForReaderPages <= 104)
        #expect(accounting.totalPages - accounting.freePages <= 2 + 100 + 104 + 8)
        for (i, ref) in pinnedRefs.enumerated() {
            let seen = readStamp(try pinned.readPage(ref))
            #expect(seen?.value == UInt64(i))
            #expect(seen?.marker == 1)
        }
        pinned.end()
        try commitCounter(file, value: 1)
        try commitCounter(file, value: 2)
        #expect(try file.verify().heldForReaderPages <= 4)
    }

    @Test func freeSpaceSurvivesReopen() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var before: FileSizes
        var reusable: Int
        do {
            let file = try StorageFile.open(StorageOptions(path: path))
            let txn = try file.beginWrite()
            var refs: [PageRef] = []
            for _ in 0..<200 { refs.append(try txn.allocatePage().ref) }
            try txn.commit()
            let w = try file.beginWrite()
            for ref in refs.prefix(150) { w.freePage(ref) }
            try w.commit()
            try commitCounter(file, value: 1)  // promotes the 150 pages
            before = try file.sizes()
            reusable = file.core.freeSpace.reusablePageCount
            #expect(reusable >= 145)  // a few of the 150 went to the counter commit
            #expect(try file.verify().balances)
            file.close()
        }
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        #expect(try file.sizes() == before)
        #expect(file.core.freeSpace.reusablePageCount + file.core.freeSpace.heldPageCount >= reusable)
        #expect(try file.verify().balances)
        // New pages come from the free space, not from the end of the file.
        let highWater = try file.beginRead()
        let limit = highWater.pageCount
        highWater.end()
        let txn = try file.beginWrite()
        for _ in 0..<100 { #expect(try txn.allocatePage().ref.raw < limit) }
        txn.rollback()
    }

    @Test func accountingBalancesAfterRandomOperations() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var generator = SplitMix64(seed: 0x5EED)
        var live: Set<PageRef> = []
        var readers: [ReadTransaction] = []
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
        for _ in 0..<150 {
            let txn = try file.beginWrite()
            var owned = live
            for _ in 0..<Int(generator.next() % 20) {
                switch generator.next() % 4 {
                case 0, 1:
                    owned.insert(try txn.allocatePage().ref)
                case 2:
                    if let victim = owned.randomElement(using: &generator) {
                        txn.freePage(victim)
                        owned.remove(victim)
                    }
                default:
                    if let victim = owned.randomElement(using: &generator) {
                        let (ref, _) = try txn.writablePage(victim)
                        owned.remove(victim)
                        owned.insert(ref)
                    }
                }
            }
            if generator.next() % 5 == 0 {
                txn.rollback()
            } else {
                try txn.commit()
                live = owned
            }
            switch generator.next() % 4 {
            case 0: readers.append(try file.beginRead())
            case 1: if !readers.isEmpty { readers.remove(at: Int(generator.next() % UInt64(readers.count))).end() }
            default: break
            }
            let accounting = try file.verify()
            #expect(accounting.balances)
            let core = file.core
            #expect(accounting.reachablePages == live.count + core.freeListPages.count + core.overflowPages.count)
        }
        for reader in readers { reader.end() }
        file.close()
        let reopened = try StorageFile.open(StorageOptions(path: path))
        defer { reopened.close() }
        let accounting = try reopened.verify()
        #expect(accounting.balances)
        #expect(accounting.reachablePages == live.count + reopened.core.freeListPages.count + reopened.core.overflowPages.count)
    }

    @Test func aPinnedReaderDoesNotMakeTheFileGrow() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
        defer { file.close() }
        for value in 1...50 { try commitCounter(file, value: UInt64(value)) }
        let sizeBefore = fileSize(path)
        let pinned = try file.beginRead()
        for value in 51...20_050 { try commitCounter(file, value: UInt64(value)) }
        let growth = fileSize(path) - sizeBefore
        #expect(growth <= 1 << 20)
        #expect(try readCounter(pinned, roots: pinned.roots) == 50)
        pinned.end()
        #expect(try file.verify().balances)
    }
}
