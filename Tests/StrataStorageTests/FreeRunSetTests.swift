// The chunked set of reusable runs against a page map: after random releases and takes across
// many chunks (splits, merges across a chunk boundary, emptied chunks), the runs are the maximal
// runs of the free pages, and every take returns what the one sorted array returned: the lowest
// page, the head of the lowest run long enough, the longest run (the lowest of equals).

import Testing
@testable import StrataStorage

@Suite("Free run set")
struct FreeRunSetTests {
    func spans(_ set: FreeRunSet, since earlier: FreeRunSet) -> [ClosedRange<UInt32>] {
        FreeRunSet.changedSpans(set.storages(), since: earlier.storages())
    }

    /// The free pages as a map; the runs the set must hold are its maximal runs.
    struct PageMap {
        var free: [Bool]

        var runs: [FreeRun] {
            var out: [FreeRun] = []
            var i = 0
            while i < free.count {
                guard free[i] else { i += 1; continue }
                var j = i
                while j < free.count && free[j] { j += 1 }
                out.append(FreeRun(start: UInt32(i), count: UInt32(j - i)))
                i = j
            }
            return out
        }

        mutating func mark(_ run: FreeRun, free isFree: Bool) {
            for page in Int(run.start)..<Int(run.start + run.count) { free[page] = isFree }
        }
    }

    @Test(arguments: [1, 2, 3])
    func randomReleasesAndTakesMatchThePageMap(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var set = FreeRunSet()
        var map = PageMap(free: Array(repeating: false, count: 12_000))
        for step in 0..<6_000 {
            let action = Int.random(in: 0..<10, using: &random)
            if action < 6 {
                // Release a run of pages that are all in use (1–6 pages, mostly one).
                let length = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 2...6, using: &random) : 1
                let start = Int.random(in: 0...(map.free.count - length), using: &random)
                guard !map.free[start..<(start + length)].contains(true) else { continue }
                let run = FreeRun(start: UInt32(start), count: UInt32(length))
                set.insert(run)
                map.mark(run, free: true)
            } else if action < 8 {
                let expected = map.free.firstIndex(of: true)
                #expect(set.takeLowestPage() == expected.map(UInt32.init), "step \(step)")
                if let page = expected { map.free[page] = false }
            } else if action < 9 {
                let want = UInt32.random(in: 1...8, using: &random)
                let expected = map.runs.first { $0.count >= want }.map { FreeRun(start: $0.start, count: want) }
                #expect(set.takeHead(ofFirstRunAtLeast: want) == expected, "step \(step), want \(want)")
                if let run = expected { map.mark(run, free: false) }
            } else {
                let minimum = UInt32.random(in: 1...4, using: &random)
                var expected: FreeRun?
                for run in map.runs where run.count >= minimum && run.count > (expected?.count ?? 0) { expected = run }
                #expect(set.takeLongest(atLeast: minimum) == expected, "step \(step), minimum \(minimum)")
                if let run = expected { map.mark(run, free: false) }
            }
            if step % 64 == 0 || step == 5_999 {
                let runs = map.runs
                #expect(set.runs == runs, "step \(step)")
                #expect(set.runCount == runs.count, "step \(step)")
            }
        }
        // The test means nothing unless the set spanned several chunks.
        #expect(map.runs.count > FreeRunSet.chunkLimit * 2, "only \(map.runs.count) runs")
    }

    @Test func equalityIsOfTheRunsWhateverTheChunks() {
        // Built in ascending order (appends, splits at the end) and in descending order (inserts
        // at the front): the chunk boundaries differ, the runs do not.
        var ascending = FreeRunSet(), descending = FreeRunSet()
        let runs = (0..<1_000).map { FreeRun(start: UInt32($0 * 3), count: 1) }
        for run in runs { ascending.insert(run) }
        for run in runs.reversed() { descending.insert(run) }
        #expect(ascending == descending)
        #expect(ascending.runs == runs)
        _ = descending.takeLowestPage()
        #expect(ascending != descending)
    }

    @Test func aReleaseBridgingTwoChunksMergesThreeRuns() {
        var set = FreeRunSet()
        // Pages 0, 2, 4, … : enough one-page runs for several chunks.
        let count = FreeRunSet.chunkLimit * 3
        for i in 0..<count { set.insert(FreeRun(start: UInt32(i * 2), count: 1)) }
        // Every odd page released joins its two neighbours, across chunk boundaries too.
        for i in 0..<(count - 1) { set.insert(FreeRun(start: UInt32(i * 2 + 1), count: 1)) }
        #expect(set.runs == [FreeRun(start: 0, count: UInt32(count * 2 - 1))])
        #expect(set.runCount == 1)
        #expect(set.takeLongest(atLeast: 1) == FreeRun(start: 0, count: UInt32(count * 2 - 1)))
        #expect(set.isEmpty)
        #expect(set.takeLowestPage() == nil)
    }

    /// `FreeRunSet.changedSpans` against the runs themselves: after random changes to a copy, every
    /// run one set holds and the other does not starts inside a reported span; an untouched
    /// copy reports nothing; one release reports at most its chunk in each set.
    @Test(arguments: [4, 5, 6])
    func changedSpansCoverEveryRunThatDiffers(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var earlier = FreeRunSet()
        // Pages 0, 3, 6, …: one-page runs across many chunks, with room to release between them.
        let runs = FreeRunSet.chunkLimit * 6
        for i in 0..<runs { earlier.insert(FreeRun(start: UInt32(i * 3), count: 1)) }
        #expect(spans(earlier, since: earlier).isEmpty)

        var one = earlier
        one.insert(FreeRun(start: UInt32(runs / 2 * 3 + 1), count: 1))
        let oneSpans = spans(one, since: earlier)
        #expect(!oneSpans.isEmpty && oneSpans.count <= 2, "\(oneSpans)")

        for _ in 0..<20 {
            var later = earlier
            var released: Set<Int> = []
            for _ in 0..<Int.random(in: 1...12, using: &random) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    let slot = Int.random(in: 0..<runs, using: &random)
                    if released.insert(slot).inserted { later.insert(FreeRun(start: UInt32(slot * 3 + 1), count: 1)) }
                case 1: _ = later.takeLowestPage()
                default: _ = later.takeHead(ofFirstRunAtLeast: 2)
                }
            }
            let changed = spans(later, since: earlier)
            let before = earlier.runs, after = later.runs
            let differing = before.filter { !after.contains($0) } + after.filter { !before.contains($0) }
            for run in differing {
                #expect(changed.contains { $0.contains(run.start) }, "run at \(run.start) changed outside \(changed)")
            }
        }
    }

    /// A directory's view of the records (`SortedRecords`): counting and comparing a range
    /// without building it say what building it says, at range bounds on, between and across
    /// runs and held records.
    @Test func sortedRecordsCountAndCompareRangesAsTheirListsDo() {
        var random = SplitMix64(seed: 7)
        var free = FreeRunSet()
        var held: [HeldRun] = []
        // Pages 0–99,999 in steps of 10: free runs at 10k + 0, held records at 10k + 5.
        for i in 0..<10_000 {
            switch Int.random(in: 0..<3, using: &random) {
            case 0: free.insert(FreeRun(start: UInt32(i * 10), count: UInt32.random(in: 1...4, using: &random)))
            case 1: held.append(HeldRun(start: UInt32(i * 10 + 5), count: 1, allocVersion: UInt64(i), freeVersion: UInt64(i + 1)))
            default: break
            }
        }
        let view = SortedRecords(free: free, held: held, count: free.runCount + held.count)
        for _ in 0..<300 {
            let low = UInt64.random(in: 0..<100_010, using: &random)
            let range = low..<(low + UInt64.random(in: 0..<3_000, using: &random))
            let built = view.records(startingIn: range)
            #expect(view.count(startingIn: range) == built.count, "\(range)")
            #expect(view.records(startingIn: range, equal: built), "\(range)")
            if let last = built.last {
                var other = built
                other[other.count - 1].allocVersion = last.allocVersion &+ 1
                #expect(!view.records(startingIn: range, equal: other), "\(range)")
                #expect(!view.records(startingIn: range, equal: Array(built.dropLast())), "\(range)")
            }
        }
    }
}
