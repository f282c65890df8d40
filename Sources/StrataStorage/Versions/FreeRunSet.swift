// The reusable free runs of a file: sorted, disjoint page runs, kept in chunks.
//
// Why chunks: a file filled by many large transactions ends with many short free runs (after a
// 1M-object fill of the reads workload, 872 runs, 647 of them one page; ~12,800 records at 10M).
// In one sorted array, every commit paid for all of them: taking the lowest page shifted the whole
// array, releasing a run into the middle shifted half of it, and the copy a transaction keeps
// to roll back was copied whole on the first change. At 10M objects that was 56% of a one-sample
// commit's samples (`memmove` under `FreeSpace.take` and `promote`), and the commit cost 12× its
// cost at 1M. In chunks of at most `chunkLimit` runs, each of those costs one chunk plus the
// chunk list.
//
// Invariants:
// - Concatenated in order, the chunks are sorted by start; runs never overlap or touch (adjacent
//   runs are merged when released). No chunk is empty; none holds more than `chunkLimit` runs.
// - `bounds[i]` ≥ the longest run of `chunks[i]`: an upper bound, raised whenever a run of the
//   chunk grows or joins it, and made exact when a search finds it too high. Lowering a run
//   leaves it valid, so taking pages never rescans a chunk.
// - Equality is that of the runs in order, whatever the chunk boundaries.

struct FreeRunSet: Equatable {
    /// Runs per chunk at most: a shift within a chunk moves at most 2 KiB.
    static let chunkLimit = 256

    private var chunks: [[FreeRun]] = []
    private var bounds: [UInt32] = []
    private(set) var runCount = 0

    var isEmpty: Bool { chunks.isEmpty }

    /// Every run, in order (inspection, accounting and tests; not on a commit's path).
    var runs: [FreeRun] {
        var out: [FreeRun] = []
        out.reserveCapacity(runCount)
        for chunk in chunks { out.append(contentsOf: chunk) }
        return out
    }

    static func == (a: FreeRunSet, b: FreeRunSet) -> Bool {
        guard a.runCount == b.runCount else { return false }
        var other = b.makeIterator()
        for chunk in a.chunks {
            for run in chunk where other.next() != run { return false }
        }
        return true
    }

    /// Calls `body` for every run, in order.
    func forEach(_ body: (FreeRun) throws -> Void) rethrows {
        for chunk in chunks {
            for run in chunk { try body(run) }
        }
    }

    struct Iterator: IteratorProtocol {
        fileprivate let chunks: [[FreeRun]]
        fileprivate var chunk = 0
        fileprivate var index = 0
        mutating func next() -> FreeRun? {
            while chunk < chunks.count {
                if index < chunks[chunk].count {
                    defer { index += 1 }
                    return chunks[chunk][index]
                }
                chunk += 1
                index = 0
            }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(chunks: chunks) }

    /// The lowest page, removed from the set.
    mutating func takeLowestPage() -> UInt32? {
        guard !chunks.isEmpty else { return nil }
        let page = chunks[0][0].start
        if chunks[0][0].count == 1 {
            remove(chunk: 0, index: 0)
        } else {
            chunks[0][0].start += 1
            chunks[0][0].count -= 1
        }
        return page
    }

    /// The first `want` pages of the lowest run holding at least `want` pages, removed from the
    /// set (taken from the run's head); nil when no run is that long.
    mutating func takeHead(ofFirstRunAtLeast want: UInt32) -> FreeRun? {
        for c in chunks.indices where bounds[c] >= want {
            guard let i = chunks[c].firstIndex(where: { $0.count >= want }) else {
                bounds[c] = Self.longest(chunks[c])
                continue
            }
            let run = FreeRun(start: chunks[c][i].start, count: want)
            if chunks[c][i].count == want {
                remove(chunk: c, index: i)
            } else {
                chunks[c][i].start += want
                chunks[c][i].count -= want
            }
            return run
        }
        return nil
    }

    /// The longest run (the lowest of equals) of at least `minimum` pages, removed whole.
    mutating func takeLongest(atLeast minimum: UInt32) -> FreeRun? {
        var best: (chunk: Int, index: Int, count: UInt32)?
        for c in chunks.indices {
            // A chunk can only win with a strictly longer run: the lowest of equals stays.
            let needed = best.map { $0.count + 1 } ?? minimum
            guard bounds[c] >= needed else { continue }
            bounds[c] = Self.longest(chunks[c])
            guard bounds[c] >= needed else { continue }
            for (i, run) in chunks[c].enumerated() where run.count >= needed && run.count > (best?.count ?? 0) {
                best = (c, i, run.count)
                if run.count == bounds[c] { break }
            }
        }
        guard let best else { return nil }
        let run = chunks[best.chunk][best.index]
        remove(chunk: best.chunk, index: best.index)
        return run
    }

    /// Adds `run` (disjoint from every run of the set), merged with the runs it touches.
    mutating func insert(_ run: FreeRun) {
        guard !chunks.isEmpty else {
            chunks = [[run]]
            bounds = [run.count]
            runCount = 1
            return
        }
        let c = chunk(for: run.start)
        // First index of chunk c whose start is greater than run.start.
        var low = 0, high = chunks[c].count
        while low < high {
            let mid = (low + high) / 2
            if chunks[c][mid].start <= run.start { low = mid + 1 } else { high = mid }
        }
        let end = run.start + run.count
        let mergesLeft = low > 0 && chunks[c][low - 1].start + chunks[c][low - 1].count == run.start
        // The run after lies in this chunk, or first in the next one.
        let next: (chunk: Int, index: Int)? = low < chunks[c].count ? (c, low) : (c + 1 < chunks.count ? (c + 1, 0) : nil)
        let mergesRight = next.map { chunks[$0.chunk][$0.index].start == end } ?? false
        if mergesLeft {
            var grown = chunks[c][low - 1].count + run.count
            if mergesRight, let next {
                grown += chunks[next.chunk][next.index].count
                chunks[c][low - 1].count = grown
                remove(chunk: next.chunk, index: next.index)
            } else {
                chunks[c][low - 1].count = grown
            }
            bounds[c] = max(bounds[c], grown)
        } else if mergesRight, let next {
            chunks[next.chunk][next.index].start = run.start
            chunks[next.chunk][next.index].count += run.count
            bounds[next.chunk] = max(bounds[next.chunk], chunks[next.chunk][next.index].count)
        } else {
            chunks[c].insert(run, at: low)
            bounds[c] = max(bounds[c], run.count)
            runCount += 1
            if chunks[c].count > Self.chunkLimit { split(c) }
        }
    }

    /// The chunk where a run starting at `start` belongs: the last whose first run starts at or
    /// before it, or the first.
    private func chunk(for start: UInt32) -> Int {
        var low = 0, high = chunks.count
        while low < high {
            let mid = (low + high) / 2
            if chunks[mid][0].start <= start { low = mid + 1 } else { high = mid }
        }
        return max(0, low - 1)
    }

    private mutating func remove(chunk c: Int, index i: Int) {
        chunks[c].remove(at: i)
        runCount -= 1
        if chunks[c].isEmpty {
            chunks.remove(at: c)
            bounds.remove(at: c)
        }
    }

    private mutating func split(_ c: Int) {
        let half = chunks[c].count / 2
        let upper = Array(chunks[c][half...])
        chunks[c].removeSubrange(half...)
        chunks.insert(upper, at: c + 1)
        bounds[c] = Self.longest(chunks[c])
        bounds.insert(Self.longest(upper), at: c + 1)
    }

    private static func longest(_ chunk: [FreeRun]) -> UInt32 {
        chunk.reduce(0) { max($0, $1.count) }
    }
}
