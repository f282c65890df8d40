// FreeSpace.promote against the rule it replaced (kept here as the oracle), the coalescing of
// reader-blocked runs (never earlier reuse than the exact rule, nothing lost, fewer records), and
// the checkpoint a write transaction restores on rollback.
//
// The oracle is main's promote (d160e41) verbatim apart from working on a copy: it walks every
// held run and releases exactly those no reader, range pin or durability condition needs.

import Testing
@testable import StrataStorage

/// The promotion rule before the blocked-prefix cache: (runs released, runs kept) in held order.
func oraclePromote(_ held: [HeldRun], readers: [UInt64], ranges: [ClosedRange<UInt64>],
                   durableVersion: UInt64) -> (released: [FreeRun], kept: [HeldRun]) {
    var kept: [HeldRun] = []
    var released: [FreeRun] = []
    for run in held {
        if run.freeVersion <= durableVersion
            && !FreeSpace.anyReader(readers, in: run.allocVersion, run.freeVersion)
            && !ranges.contains(where: { $0.lowerBound < run.freeVersion && $0.upperBound >= run.allocVersion }) {
            released.append(FreeRun(start: run.start, count: run.count))
        } else {
            kept.append(run)
        }
    }
    return (released, kept)
}

/// Every page of a list of runs, as a set.
func pages(of runs: [FreeRun]) -> Set<UInt32> {
    var out: Set<UInt32> = []
    for run in runs { for p in run.start..<(run.start + run.count) { out.insert(p) } }
    return out
}

func pages(of runs: [HeldRun]) -> Set<UInt32> {
    pages(of: runs.map { FreeRun(start: $0.start, count: $0.count) })
}

/// Held runs in a canonical order (promote may reorder them).
func canonical(_ runs: [HeldRun]) -> [HeldRun] {
    runs.sorted { ($0.start, $0.allocVersion, $0.freeVersion) < ($1.start, $1.allocVersion, $1.freeVersion) }
}

@Suite("Free-space promotion")
struct FreeSpacePromotionTests {
    /// A random commit-like history: each round frees a few pages (fresh page numbers, so no
    /// page is listed twice) with random allocation versions at the round's version, then
    /// promotes with reader sets that often stay the same for many rounds (the case the
    /// blocked-prefix cache serves) and sometimes change, range pins of other processes, and a
    /// durable version lagging the newest.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func promotionReleasesExactlyWhatTheOldRuleReleased(seed: UInt64) {
        var generator = SplitMix64(seed: 0xC0FFEE &+ seed)
        var space = FreeSpace()
        space.coalesces = false
        var nextPage: UInt32 = 8
        var readers: [UInt64] = []
        var ranges: [ClosedRange<UInt64>] = []
        var comparisons = 0
        var releasedSome = 0
        for version in UInt64(100)..<UInt64(490) {
            let frees = Int(generator.next() % 6)
            for _ in 0..<frees {
                // Sometimes a run of adjacent pages freed together (merged by `hold`).
                let length = generator.next() % 4 == 0 ? 1 + UInt32(generator.next() % 3) : 1
                let alloc = generator.next() % 7 == 0 ? 0 : version - 1 - generator.next() % min(version - 1, 60)
                for k in 0..<length {
                    space.hold(nextPage + k, allocVersion: alloc, freeVersion: version)
                }
                nextPage += length + UInt32(generator.next() % 3)
            }
            if generator.next() % 23 == 0 {
                // As `add` does for a loaded record: arbitrary versions, appended anywhere in time.
                let alloc = generator.next() % version
                space.appendHeld(HeldRun(start: nextPage, count: 1, allocVersion: alloc,
                                         freeVersion: alloc + 1 + generator.next() % (version - alloc)))
                nextPage += 2
            }
            switch generator.next() % 10 {
            case 0:
                var set: Set<UInt64> = []
                for _ in 0..<Int(generator.next() % 4) { set.insert(version - generator.next() % 80) }
                readers = set.sorted()
            case 1:
                readers = []
            case 2:
                ranges = generator.next() % 2 == 0 ? [] : [(version - 50 + generator.next() % 20)...(version - 30 + generator.next() % 20)]
            default:
                break  // same pins as last time
            }
            let durable = version - generator.next() % 3
            let before = space
            let expected = oraclePromote(before.held, readers: readers, ranges: ranges, durableVersion: durable)
            var oracle = before
            for run in expected.released { oracle.releaseRun(run) }
            space.promote(readers: readers, ranges: ranges, durableVersion: durable)
            #expect(space.reusable == oracle.reusable, "version \(version)")
            #expect(space.reusablePageCount == oracle.reusablePageCount)
            #expect(canonical(space.held) == canonical(expected.kept), "version \(version)")
            comparisons += 1
            if !expected.released.isEmpty { releasedSome += 1 }
            // Calling again with the same pins releases nothing more (the cached prefix is right).
            let settled = space
            space.promote(readers: readers, ranges: ranges, durableVersion: durable)
            #expect(space == settled)
        }
        #expect(comparisons == 390)
        #expect(releasedSome > 50)  // the history exercised releases, not only holds
        // With no pins left, everything durable is released, as by the old rule.
        let expected = oraclePromote(space.held, readers: [], ranges: [], durableVersion: .max)
        var oracle = space
        for run in expected.released { oracle.releaseRun(run) }
        space.promote(readers: [], ranges: [], durableVersion: .max)
        #expect(space.held.isEmpty)
        #expect(space.reusable == oracle.reusable)
    }

    /// One reader pinned at version 10 while 300 commits each free one page of its version, the
    /// pages dense in the file: without coalescing every page is a record (300 records: two
    /// free-list pages per commit), with it at most the last stretch since it ran plus a few.
    @Test func coalescingKeepsAPinnedReadersPagesToFewRecords() {
        var exact = FreeSpace()
        exact.coalesces = false
        var merged = FreeSpace()
        var generator = SplitMix64(seed: 42)
        var order = Array(UInt32(100)..<UInt32(400))
        order.shuffle(using: &generator)
        for (i, page) in order.enumerated() {
            let version = UInt64(11 + i)
            let alloc = 1 + generator.next() % 10
            exact.hold(page, allocVersion: alloc, freeVersion: version)
            merged.hold(page, allocVersion: alloc, freeVersion: version)
            exact.promote(readers: [10], ranges: [], durableVersion: version - 1)
            merged.promote(readers: [10], ranges: [], durableVersion: version - 1)
        }
        #expect(exact.held.count == 300)
        #expect(merged.held.count < 100)
        #expect(merged.heldPageCount == 300)
        #expect(pages(of: merged.held) == pages(of: exact.held))
        // The reader moves on: everything is released in both.
        exact.promote(readers: [400], ranges: [], durableVersion: 400)
        merged.promote(readers: [400], ranges: [], durableVersion: 400)
        #expect(merged.held.isEmpty)
        #expect(merged.reusable == [FreeRun(start: 100, count: 300)])
        #expect(merged.reusable == exact.reusable)
    }

    /// Coalescing against the exact rule over random histories: a page is never reusable with
    /// coalescing before it is under the exact rule, no page is lost or duplicated, and once no
    /// reader needs anything both end with the same free space.
    @Test(arguments: [UInt64(11), 12, 13, 14])
    func coalescingNeverReusesAPageEarlierThanTheExactRule(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var exact = FreeSpace()
        exact.coalesces = false
        var merged = FreeSpace()
        var free = Array(UInt32(8)..<UInt32(1000))
        free.shuffle(using: &generator)
        var readers: [UInt64] = [5]
        var coalesced = false
        for version in UInt64(10)..<UInt64(600) {
            for _ in 0..<Int(generator.next() % 3) {
                guard let page = free.popLast() else { break }
                let alloc = generator.next() % 3 == 0 ? version - 1 : 1 + generator.next() % (version - 1)
                exact.hold(page, allocVersion: alloc, freeVersion: version)
                merged.hold(page, allocVersion: alloc, freeVersion: version)
            }
            if generator.next() % 40 == 0 {
                var set: Set<UInt64> = [version - generator.next() % min(version, 200)]
                if generator.next() % 2 == 0 { set.insert(version - 1) }
                readers = set.sorted()
            }
            let durable = version - 1
            exact.promote(readers: readers, ranges: [], durableVersion: durable)
            merged.promote(readers: readers, ranges: [], durableVersion: durable)
            if merged.held.count < exact.held.count { coalesced = true }
            let exactFree = pages(of: exact.reusable)
            let mergedFree = pages(of: merged.reusable)
            #expect(mergedFree.isSubset(of: exactFree), "version \(version)")
            #expect(mergedFree.union(pages(of: merged.held)) == exactFree.union(pages(of: exact.held)))
            #expect(merged.heldPageCount + merged.reusablePageCount == exact.heldPageCount + exact.reusablePageCount)
        }
        #expect(coalesced)
        exact.promote(readers: [], ranges: [], durableVersion: .max)
        merged.promote(readers: [], ranges: [], durableVersion: .max)
        #expect(exact.held.isEmpty)
        #expect(merged.held.isEmpty)
        #expect(merged.reusable == exact.reusable)
    }

    /// A write transaction's rollback restores the free space from a checkpoint rather than a
    /// copy (`FreeSpace.Checkpoint`): after any mix of the operations a transaction performs —
    /// takes, extent takes, releases, holds (appending, or extending the last held run) — the
    /// restored set equals the one the checkpoint was taken from.
    @Test(arguments: [UInt64(21), 22, 23, 24, 25])
    func checkpointRestoresEveryTransactionChange(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var space = FreeSpace()
        for start in stride(from: UInt32(10), to: 2000, by: 7) {
            space.releaseRun(FreeRun(start: start, count: 1 + UInt32(generator.next() % 5)))
        }
        for page in UInt32(3000)..<UInt32(3040) where generator.next() % 2 == 0 {
            space.hold(page, allocVersion: generator.next() % 20, freeVersion: 20 + generator.next() % 3)
        }
        space.promote(readers: [3], ranges: [], durableVersion: 19)
        // Page numbers from 5000 on, each use followed by an unused gap page, so that extending
        // the last held run (its next page is a gap) never meets a page in use.
        var nextPage: UInt32 = 5000
        var extendedAcrossCheckpoint = 0
        for round in 0..<200 {
            let saved = space
            let checkpoint = space.checkpoint()
            for step in 0..<Int(1 + generator.next() % 30) {
                switch generator.next() % 6 {
                case 0: _ = space.take()
                case 1: _ = space.takeRun(atLeast: UInt32(1 + generator.next() % 4))
                case 2: _ = space.takeLongestRun(atLeast: 2)
                case 3:
                    space.release(nextPage)
                    nextPage += 2
                case 4:
                    // Extends the last held run (same versions, next page): `hold` merges.
                    if let last = space.held.last, last.start >= 5000 {
                        let before = space.held.count
                        space.hold(last.start + last.count, allocVersion: last.allocVersion, freeVersion: last.freeVersion)
                        #expect(space.held.count == before)
                        if step == 0 { extendedAcrossCheckpoint += 1 }
                        nextPage = max(nextPage, last.start + last.count + 2)
                    }
                default:
                    space.hold(nextPage, allocVersion: generator.next() % 30, freeVersion: 30)
                    nextPage += 2
                }
            }
            if round % 3 == 0 {
                space.restore(checkpoint)
                #expect(space == saved)
                #expect(space.reusablePageCount == saved.reusablePageCount)
                #expect(space.heldPageCount == saved.heldPageCount)
            } else {
                space.promote(readers: [3], ranges: [], durableVersion: 40)  // a commit went through
            }
        }
        #expect(extendedAcrossCheckpoint > 5)
    }
}
