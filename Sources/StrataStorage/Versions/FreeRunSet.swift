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
// The first chunk is a stored array of its own and the others sit in `rest`: a small set (every
// file but a fragmented one) is one array, as before, so a transaction's rollback copy and its
// first change cost one allocation, not one for the chunk list, one for the chunk and one for the
// bounds (the gate's counted round saw 23 → 31 allocations per sensors transaction with a plain
// list of chunks).
//
// Invariants:
// - Concatenated in order, the chunks (`first`, then `rest`) are sorted by start; runs never
//   overlap or touch (adjacent runs are merged when released). No chunk holds more than
//   `chunkLimit` runs; only `first` may be empty, and only when `rest` is empty too.
// - The bound of a chunk (`firstBound`, `restBounds`) ≥ its longest run: an upper bound, raised
//   whenever a run of the chunk grows or joins it, and made exact when a search finds it too
//   high. Lowering a run leaves it valid, so taking pages never rescans a chunk.
// - Equality is that of the runs in order, whatever the chunk boundaries.

struct FreeRunSet: Equatable {
    /// Runs per chunk at most: a shift within a chunk moves at most 2 KiB.
    static let chunkLimit = 256

    private var first: [FreeRun] = []
    private var firstBound: UInt32 = 0
    private var rest: [[FreeRun]] = []
    private var restBounds: [UInt32] = []
    private(set) var runCount = 0

    var isEmpty: Bool { runCount == 0 }

    private var chunkCount: Int { first.isEmpty ? 0 : 1 + rest.count }

    @inline(__always) private func chunk(_ c: Int) -> [FreeRun] { c == 0 ? first : rest[c - 1] }

    @inline(__always) private func bound(_ c: Int) -> UInt32 { c == 0 ? firstBound : restBounds[c - 1] }

    @inline(__always) private mutating func setBound(_ c: Int, _ value: UInt32) {
        if c == 0 { firstBound = value } else { restBounds[c - 1] = value }
    }

    @inline(__always) private mutating func raiseBound(_ c: Int, to value: UInt32) {
        if value > bound(c) { setBound(c, value) }
    }

    /// Runs `body` on chunk `c` in place.
    @inline(__always)
    private mutating func withChunk<R>(_ c: Int, _ body: (inout [FreeRun]) -> R) -> R {
        c == 0 ? body(&first) : body(&rest[c - 1])
    }

    /// Every run, in order (inspection, accounting and tests; not on a commit's path).
    var runs: [FreeRun] {
        var out: [FreeRun] = []
        out.reserveCapacity(runCount)
        forEach { out.append($0) }
        return out
    }

    /// Not on a commit's path (FreeSpace's equality, which tests use), so it may build arrays.
    static func == (a: FreeRunSet, b: FreeRunSet) -> Bool {
        a.runCount == b.runCount && a.runs == b.runs
    }

    /// Calls `body` for every run, in order.
    func forEach(_ body: (FreeRun) throws -> Void) rethrows {
        for run in first { try body(run) }
        for chunk in rest {
            for run in chunk { try body(run) }
        }
    }

    /// Calls `body` for every run whose first page lies in `range`, in order: the chunks before
    /// it are skipped by their last run, and the first run is found by binary search.
    func forEachRun(startingIn range: Range<UInt64>, _ body: (FreeRun) -> Void) {
        /// Visits `chunk`'s runs in `range`; whether later chunks may hold more.
        func visit(_ chunk: [FreeRun]) -> Bool {
            guard let last = chunk.last, UInt64(last.start) >= range.lowerBound else { return true }
            var low = 0, high = chunk.count
            while low < high {
                let mid = (low + high) / 2
                if UInt64(chunk[mid].start) < range.lowerBound { low = mid + 1 } else { high = mid }
            }
            while low < chunk.count, UInt64(chunk[low].start) < range.upperBound {
                body(chunk[low])
                low += 1
            }
            return low == chunk.count
        }
        guard visit(first) else { return }
        for chunk in rest where !visit(chunk) { return }
    }

    /// The spans of first pages where the runs of one set (its chunks `mine`) may differ from
    /// those of `theirs`, a set it was copied from: the spans of the chunks either has and the
    /// other does not. A chunk's storage is shared by both sets until one of them changes it
    /// (copy-on-write; Array keeps its count in its storage), so a chunk found in both holds the
    /// same runs in both. Callers take each set's `storages()` once: a planning round compares
    /// the same sets more than once.
    ///
    /// Both lists of chunks are in order of first page, and within one set no two non-empty
    /// chunks share a first page; a shared chunk has the same first page in both. So one ordered
    /// walk finds every shared chunk: of two different chunks, the one starting first cannot be
    /// shared with anything later in the other list (a profile at 10M objects had the two hash
    /// sets this walk replaces at 16% of a small commit).
    static func changedSpans(_ mine: [ChunkStorage], since theirs: [ChunkStorage]) -> [ClosedRange<UInt32>] {
        var spans: [ClosedRange<UInt32>] = []
        var i = 0, j = 0
        while i < mine.count || j < theirs.count {
            if i < mine.count, j < theirs.count, mine[i].storage == theirs[j].storage {
                i += 1
                j += 1
            } else if j == theirs.count || (i < mine.count && mine[i].span.lowerBound < theirs[j].span.lowerBound) {
                spans.append(mine[i].span)
                i += 1
            } else if i == mine.count || theirs[j].span.lowerBound < mine[i].span.lowerBound {
                spans.append(theirs[j].span)
                j += 1
            } else {
                // Same first page, different storage: neither can be shared with a later chunk.
                spans.append(mine[i].span)
                spans.append(theirs[j].span)
                i += 1
                j += 1
            }
        }
        return spans
    }

    /// A non-empty chunk's storage (its identity while the set holds it) and the span of its
    /// runs' first pages.
    typealias ChunkStorage = (storage: UnsafeRawPointer, span: ClosedRange<UInt32>)

    /// Each non-empty chunk's storage and span, in order.
    func storages() -> [ChunkStorage] {
        var out: [ChunkStorage] = []
        out.reserveCapacity(chunkCount)
        for c in 0..<chunkCount {
            let runs = chunk(c)
            guard let low = runs.first?.start, let high = runs.last?.start,
                  let storage = runs.withUnsafeBufferPointer({ $0.baseAddress.map(UnsafeRawPointer.init) }) else { continue }
            out.append((storage, low...high))
        }
        return out
    }

    /// The lowest page, removed from the set.
    mutating func takeLowestPage() -> UInt32? {
        guard !first.isEmpty else { return nil }
        let page = first[0].start
        if first[0].count == 1 {
            remove(chunk: 0, index: 0)
        } else {
            first[0].start += 1
            first[0].count -= 1
        }
        return page
    }

    /// The first `want` pages of the lowest run holding at least `want` pages, removed from the
    /// set (taken from the run's head); nil when no run is that long.
    mutating func takeHead(ofFirstRunAtLeast want: UInt32) -> FreeRun? {
        // The chunk count changes only by the removal, after which this returns.
        for c in 0..<chunkCount {
            guard bound(c) >= want else { continue }
            guard let i = chunk(c).firstIndex(where: { $0.count >= want }) else {
                setBound(c, Self.longest(chunk(c)))
                continue
            }
            let found = chunk(c)[i]
            if found.count == want {
                remove(chunk: c, index: i)
            } else {
                withChunk(c) { runs in
                    runs[i].start += want
                    runs[i].count -= want
                }
            }
            return FreeRun(start: found.start, count: want)
        }
        return nil
    }

    /// The longest run (the lowest of equals) of at least `minimum` pages, removed whole.
    mutating func takeLongest(atLeast minimum: UInt32) -> FreeRun? {
        var best: (chunk: Int, index: Int, count: UInt32)?
        for c in 0..<chunkCount {
            // A chunk can only win with a strictly longer run: the lowest of equals stays.
            let needed = best.map { $0.count + 1 } ?? minimum
            guard bound(c) >= needed else { continue }
            let runs = chunk(c)
            let longest = Self.longest(runs)
            setBound(c, longest)
            guard longest >= needed else { continue }
            for (i, run) in runs.enumerated() where run.count == longest {
                best = (c, i, run.count)
                break
            }
        }
        guard let best else { return nil }
        let run = chunk(best.chunk)[best.index]
        remove(chunk: best.chunk, index: best.index)
        return run
    }

    /// Adds `run` (disjoint from every run of the set), merged with the runs it touches.
    mutating func insert(_ run: FreeRun) {
        guard !first.isEmpty else {
            first.append(run)
            firstBound = run.count
            runCount = 1
            return
        }
        let c = chunk(for: run.start)
        // Read first, in a scope of its own: a copy of the chunk alive during the change below
        // would make the change copy the whole chunk.
        let low: Int, leftCount: UInt32?, next: (chunk: Int, index: Int)?, nextRun: FreeRun?
        do {
            let runs = chunk(c)
            // First index of chunk c whose start is greater than run.start.
            var lowIndex = 0, high = runs.count
            while lowIndex < high {
                let mid = (lowIndex + high) / 2
                if runs[mid].start <= run.start { lowIndex = mid + 1 } else { high = mid }
            }
            low = lowIndex
            leftCount = low > 0 && runs[low - 1].start + runs[low - 1].count == run.start ? runs[low - 1].count : nil
            // The run after lies in this chunk, or first in the next one.
            next = low < runs.count ? (c, low) : (c + 1 < chunkCount ? (c + 1, 0) : nil)
            nextRun = next.map { $0.chunk == c ? runs[$0.index] : chunk($0.chunk)[$0.index] }
        }
        let mergesRight = nextRun.map { $0.start == run.start + run.count } ?? false
        if let leftCount {
            var grown = leftCount + run.count
            if mergesRight, let nextRun { grown += nextRun.count }
            withChunk(c) { $0[low - 1].count = grown }
            raiseBound(c, to: grown)
            if mergesRight, let next { remove(chunk: next.chunk, index: next.index) }
        } else if mergesRight, let next, let nextRun {
            let grown = nextRun.count + run.count
            withChunk(next.chunk) { runs in
                runs[next.index].start = run.start
                runs[next.index].count = grown
            }
            raiseBound(next.chunk, to: grown)
        } else {
            withChunk(c) { $0.insert(run, at: low) }
            raiseBound(c, to: run.count)
            runCount += 1
            if chunk(c).count > Self.chunkLimit { split(c) }
        }
    }

    /// The chunk where a run starting at `start` belongs: the last whose first run starts at or
    /// before it, or the first.
    private func chunk(for start: UInt32) -> Int {
        var low = 0, high = chunkCount
        while low < high {
            let mid = (low + high) / 2
            if chunk(mid)[0].start <= start { low = mid + 1 } else { high = mid }
        }
        return max(0, low - 1)
    }

    private mutating func remove(chunk c: Int, index i: Int) {
        withChunk(c) { _ = $0.remove(at: i) }
        runCount -= 1
        guard chunk(c).isEmpty else { return }
        if c > 0 {
            rest.remove(at: c - 1)
            restBounds.remove(at: c - 1)
        } else if !rest.isEmpty {
            // `first` may be empty only when the whole set is.
            first = rest.removeFirst()
            firstBound = restBounds.removeFirst()
        }
    }

    private mutating func split(_ c: Int) {
        let half = chunk(c).count / 2
        let upper = withChunk(c) { runs -> [FreeRun] in
            let upper = Array(runs[half...])
            runs.removeSubrange(half...)
            return upper
        }
        setBound(c, Self.longest(chunk(c)))
        rest.insert(upper, at: c)
        restBounds.insert(Self.longest(upper), at: c)
    }

    private static func longest(_ chunk: [FreeRun]) -> UInt32 {
        chunk.reduce(0) { max($0, $1.count) }
    }
}
