// Extent allocation: a stream of small commits writes each commit's pages as one contiguous run
// (one pwritev, one extent for fdatasync), without growing the file, and the page accounting
// holds. The same workload with extents switched off scatters its pages (the control), so the
// contiguity measured here comes from the allocator, not from the workload.

import Testing
@testable import StrataStorage

@Suite struct ExtentAllocationTests {
    /// A sensors-like stream: each commit appends one key, removes the oldest and rewrites two
    /// random entries of a keyed tree of ~3,000 entries (a few leaves and the root change).
    /// Returns the data runs of the last `measured` commits and the file's page count.
    static func stream(extents: Bool, durability: Durability, commits: Int, measured: Int,
                       pinned: Bool = false) throws -> (runs: [Int], pages: UInt32, balances: Bool) {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: durability))
        defer { file.close() }
        file.setReachabilityWalker(walkRootZero)
        file.core.allocatesExtents = extents
        var generator = SplitMix64(seed: 0xE87E)
        var value = [UInt8](repeating: 0x5A, count: 40)
        var oldest: UInt64 = 0
        var next: UInt64 = 0
        do {
            let txn = try file.beginWrite()
            var tree = KeyedTree()
            for _ in 0..<3_000 {
                try value.withUnsafeBytes { _ = try tree.put(next, $0, in: txn) }
                next += 1
            }
            txn.roots[0] = UInt64(tree.root.raw)
            try txn.commit()
        }
        let pin = pinned ? try file.beginRead() : nil
        defer { pin?.end() }
        var runs: [Int] = []
        for index in 0..<commits {
            let txn = try file.beginWrite()
            var tree = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: txn.roots[0])))
            value[0] = UInt8(truncatingIfNeeded: index)
            try value.withUnsafeBytes { bytes in
                _ = try tree.put(next, bytes, in: txn)
                for _ in 0..<2 {
                    _ = try tree.put(oldest + 1 + generator.next() % (next - oldest - 1), bytes, in: txn)
                }
            }
            next += 1
            _ = try tree.remove(oldest, in: txn)
            oldest += 1
            txn.roots[0] = UInt64(tree.root.raw)
            let statistics = try txn.commitWithStatistics()
            if index >= commits - measured { runs.append(statistics.dataRuns) }
        }
        let accounting = try file.verify()
        return (runs, file.core.latest.pageCount, accounting.balances)
    }

    static func mean(_ values: [Int]) -> Double { Double(values.reduce(0, +)) / Double(max(1, values.count)) }

    @Test(arguments: [Durability.unsafe, .full])
    func smallCommitsWriteOneRun(durability: Durability) throws {
        let commits = durability == .full ? 300 : 1_500
        let with = try Self.stream(extents: true, durability: durability, commits: commits, measured: 200)
        let without = try Self.stream(extents: false, durability: durability, commits: commits, measured: 200)
        #expect(with.balances && without.balances)
        let sorted = with.runs.sorted()
        #expect(sorted[sorted.count / 2] == 1, "median data runs per commit with extents: \(sorted[sorted.count / 2])")
        #expect(Self.mean(with.runs) <= 1.5, "mean data runs with extents \(Self.mean(with.runs))")
        #expect(Self.mean(without.runs) >= 2 * Self.mean(with.runs),
                "control: page-by-page allocation \(Self.mean(without.runs)) runs vs extents \(Self.mean(with.runs))")
        // Steady state: extents cost at most a few extents' worth of pages over page-by-page.
        #expect(Int(with.pages) <= Int(without.pages) + 8 * 64, "pages \(with.pages) vs \(without.pages)")
    }

    @Test func aPinnedReaderStillGetsRuns() throws {
        let pinned = try Self.stream(extents: true, durability: .unsafe, commits: 1_500, measured: 200, pinned: true)
        #expect(pinned.balances)
        #expect(Self.mean(pinned.runs) <= 1.5, "mean data runs \(Self.mean(pinned.runs))")
    }

    /// Random rewrites across a large tree free scattered pages that never form runs: the file
    /// may grow by about 1/16 before page-by-page reuse takes over, never without bound.
    @Test func scatteredFreesBoundTheGrowth() throws {
        func run(extents: Bool) throws -> UInt32 {
            let dir = TemporaryDirectory()
            let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
            defer { file.close() }
            file.setReachabilityWalker(walkRootZero)
            file.core.allocatesExtents = extents
            var generator = SplitMix64(seed: 0x5CA7)
            let value = [UInt8](repeating: 0x33, count: 200)
            do {
                let txn = try file.beginWrite()
                var tree = KeyedTree()
                for key in 0..<UInt64(40_000) { try value.withUnsafeBytes { _ = try tree.put(key, $0, in: txn) } }
                txn.roots[0] = UInt64(tree.root.raw)
                try txn.commit()
            }
            for _ in 0..<600 {
                let txn = try file.beginWrite()
                var tree = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: txn.roots[0])))
                for _ in 0..<8 {
                    try value.withUnsafeBytes { _ = try tree.put(generator.next() % 40_000, $0, in: txn) }
                }
                txn.roots[0] = UInt64(tree.root.raw)
                try txn.commit()
            }
            #expect(try file.verify().balances)
            return file.core.latest.pageCount
        }
        let with = try run(extents: true)
        let without = try run(extents: false)
        #expect(Double(with) <= Double(without) * (1 + 1.0 / 16) + 8 * 64, "pages \(with) vs \(without)")
    }
}

@Suite struct FreeRunSelectionTests {
    static func space(_ runs: [(UInt32, UInt32)]) -> FreeSpace {
        var space = FreeSpace()
        for (start, count) in runs { space.releaseRun(FreeRun(start: start, count: count)) }
        return space
    }

    @Test func takeRunTakesTheHeadOfTheLowestRunLongEnough() {
        var space = Self.space([(10, 2), (20, 5), (40, 9)])
        #expect(space.takeRun(atLeast: 4) == FreeRun(start: 20, count: 4))
        #expect(space.reusable == [FreeRun(start: 10, count: 2), FreeRun(start: 24, count: 1), FreeRun(start: 40, count: 9)])
        #expect(space.takeRun(atLeast: 9) == FreeRun(start: 40, count: 9))
        #expect(space.recordCount == 2)
        #expect(space.takeRun(atLeast: 3) == nil)
    }

    @Test func takeLongestRunTakesAWholeRun() {
        var space = Self.space([(10, 3), (20, 5), (40, 5), (60, 1)])
        #expect(space.takeLongestRun(atLeast: 2) == FreeRun(start: 20, count: 5))
        #expect(space.takeLongestRun(atLeast: 2) == FreeRun(start: 40, count: 5))
        #expect(space.takeLongestRun(atLeast: 4) == nil)
        #expect(space.takeLongestRun(atLeast: 2) == FreeRun(start: 10, count: 3))
        #expect(space.takeLongestRun(atLeast: 2) == nil)
        #expect(space.reusable == [FreeRun(start: 60, count: 1)])
    }

    /// The unused rest of an extent goes back where it came from: the record count is unchanged.
    @Test func anExtentsRestMergesBack() {
        var space = Self.space([(20, 10)])
        let run = space.takeRun(atLeast: 6)
        #expect(run == FreeRun(start: 20, count: 6))
        space.releaseRun(FreeRun(start: 23, count: 3))
        #expect(space.reusable == [FreeRun(start: 23, count: 7)])
    }
}

@Suite struct ExtentPolicyTests {
    @Test func onlyFilesFlushedPerCommitAllocateExtentsByDefault() throws {
        let dir = TemporaryDirectory()
        let full = try StorageFile.open(StorageOptions(path: dir.file("full.strata"), durability: .full))
        defer { full.close() }
        let unsafe = try StorageFile.open(StorageOptions(path: dir.file("unsafe.strata"), durability: .unsafe))
        defer { unsafe.close() }
        #expect(full.core.allocatesExtents == true)
        #expect(unsafe.core.allocatesExtents == false)
    }

    /// A transaction of more than 16 pages turns extents off for the next one; a small one turns
    /// them back on, sized from its need.
    @Test func largeTransactionsGetNoExtent() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        defer { file.close() }
        file.core.allocatesExtents = true
        func commit(pages: Int) throws {
            let txn = try file.beginWrite()
            for _ in 0..<pages { _ = try txn.allocatePage() }
            try txn.commit()
        }
        try commit(pages: 40)
        #expect(file.core.extentHint == 0)
        try commit(pages: 6)
        #expect(file.core.extentHint == 9)
        try commit(pages: 2)
        #expect(file.core.extentHint == 8)
    }
}

extension FreeRunSelectionTests {
    /// The kept page count matches the runs after every kind of change.
    @Test func reusablePageCountFollowsEveryChange() {
        var generator = SplitMix64(seed: 0xC0DE)
        var space = FreeSpace()
        for _ in 0..<2_000 {
            switch generator.next() % 4 {
            case 0:
                let page = UInt32(8 + generator.next() % 500)
                if !space.reusable.contains(where: { $0.start <= page && page < $0.start + $0.count }) { space.release(page) }
            case 1: _ = space.take()
            case 2: _ = space.takeRun(atLeast: UInt32(1 + generator.next() % 6))
            default: _ = space.takeLongestRun(atLeast: UInt32(1 + generator.next() % 4))
            }
            #expect(space.reusablePageCount == space.reusable.reduce(0) { $0 + Int($1.count) })
        }
    }
}
