// The write transaction's page table (DirtyPages) is reused from one transaction to the next
// (FileCore.spareDirtyTable): it must come back empty, shrink after a large transaction, and an
// ended transaction must not see the next one's pages through it.

import Testing
@testable import StrataStorage

@Suite("Page table reuse")
struct DirtyTableReuseTests {
    @Test func theTableIsReusedEmptyAndShrinksAfterALargeTransaction() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        defer { file.close() }
        try commitCounter(file, value: 1)
        let first = try file.beginWrite()
        let table = first.dirty
        #expect(table.isEmpty)
        _ = try first.allocatePage()
        try first.commit()
        // The next transaction gets the same table, empty.
        let second = try file.beginWrite()
        #expect(second.dirty === table)
        #expect(second.dirty.isEmpty)
        var refs: [PageRef] = []
        for _ in 0..<3000 { refs.append(try second.allocatePage().ref) }
        #expect(table.capacity > DirtyPages.largestKeptCapacity)
        second.rollback()
        #expect(table.isEmpty)
        #expect(table.capacity == 64)
        // After a rollback too it is reused; an ended transaction owns nothing.
        let third = try file.beginWrite()
        #expect(third.dirty === table)
        let (ref, _) = try third.allocatePage()
        #expect(third.isOwned(ref))
        #expect(!second.isOwned(ref))
        #expect(!first.isOwned(ref))
        try third.commit()
        #expect(!third.isOwned(ref))
        #expect(try file.verify().balances)
    }

    /// A medium transaction's table (kept: ≤ 1,024 slots) shrinks after the first small
    /// transaction that uses under 1/8 of it; a stream of medium transactions keeps it.
    @Test func aMediumTableShrinksOnceSmallTransactionsFollow() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        defer { file.close() }
        func transaction(pages: Int) throws -> DirtyPages {
            let txn = try file.beginWrite()
            for _ in 0..<pages { _ = try txn.allocatePage() }
            try txn.commit()
            return txn.dirty
        }
        let table = try transaction(pages: 300)
        #expect(table.capacity == 512)  // kept: the transaction filled more than 1/8 of it
        #expect(try transaction(pages: 250) === table)
        #expect(table.capacity == 512)
        _ = try transaction(pages: 10)  // scans the 512 slots once more, then shrinks
        #expect(table.capacity == DirtyPages.smallestCapacity)
        _ = try transaction(pages: 10)
        #expect(table.capacity == DirtyPages.smallestCapacity)
        #expect(try file.verify().balances)
    }

    @Test func sortedPagesAreAscendingForSmallAndLargeTables() {
        // Tables of every size the scan and sort see, from empty to past a small transaction.
        var generator = SplitMix64(seed: 0x5027ED)
        for size in [0, 1, 2, 3, 9, 14, 23, 24, 25, 40, 300] {
            for _ in 0..<20 {
                let table = DirtyPages()
                var pages = Set<UInt32>()
                while pages.count < size { pages.insert(UInt32(8 + generator.next() % 5_000)) }
                for page in pages { table.insert(page, UnsafeMutableRawPointer(bitPattern: UInt(page) * 4096)!) }
                #expect(table.sortedPages() == pages.sorted(), "\(size) pages")
            }
        }
    }
}
