// The chunked set of reusable runs against a page map: after random releases and takes across
// many chunks (splits, merges across a chunk boundary, emptied chunks), the runs are the maximal
// runs of the free pages, and every take returns what the one sorted array returned: the lowest
// page, the head of the lowest run long enough, the longest run (the lowest of equals).

import Testing
@testable import StrataStorage

@Suite("Free run set")
struct FreeRunSetTests {
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
}
