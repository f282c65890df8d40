// Diffing two snapshots of a sequence that may hold duplicates (a List of links may hold one
// object twice; a List<Int> holds repeated values), for List and MutableSet observers.
//
// How: common prefix and suffix are trimmed, the middle is aligned with Myers' O((N+M)·D)
// greedy algorithm (D = number of edits). Elements are compared as small integers (each distinct
// encoding gets one), so the inner loop compares Ints, not byte arrays.
//
// Invariants:
// - `matches` are pairs (old index, new index) strictly increasing in both components: a common
//   subsequence. Every old index not matched is a deletion, every new index not matched an
//   insertion; applying deletions then insertions turns `old` into `new`.
// - The common subsequence is a longest one while D ≤ `maxEdits`. Beyond (a middle rewritten
//   wholesale), the middle is reported as all deleted and all inserted: still a correct change
//   set, and the trace memory stays bounded (O(maxEdits²) Ints).

enum SequenceDiff {
    /// Above this many edits the middle is reported as replaced (see the file header).
    static let defaultMaxEdits = 1_000

    /// Elements matched between `old` and `new` (see the file header).
    static func matches(old: [[UInt8]], new: [[UInt8]], maxEdits: Int = defaultMaxEdits) -> [(old: Int, new: Int)] {
        var ids: [[UInt8]: Int] = [:]
        ids.reserveCapacity(old.count)
        func id(_ e: [UInt8]) -> Int {
            if let i = ids[e] { return i }
            let i = ids.count
            ids[e] = i
            return i
        }
        return matches(old.map(id), new.map(id), maxEdits: maxEdits)
    }

    static func matches(_ a: [Int], _ b: [Int], maxEdits: Int = defaultMaxEdits) -> [(old: Int, new: Int)] {
        var prefix = 0
        while prefix < a.count && prefix < b.count && a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix && suffix < b.count - prefix
                && a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        var out: [(old: Int, new: Int)] = []
        out.reserveCapacity(min(a.count, b.count))
        for i in 0..<prefix { out.append((i, i)) }
        let midA = Array(a[prefix ..< a.count - suffix])
        let midB = Array(b[prefix ..< b.count - suffix])
        if !midA.isEmpty && !midB.isEmpty {
            for (x, y) in myers(midA, midB, maxEdits: maxEdits) { out.append((x + prefix, y + prefix)) }
        }
        for s in 0..<suffix { out.append((a.count - suffix + s, b.count - suffix + s)) }
        return out
    }

    /// Myers' greedy alignment; [] when more than `maxEdits` edits are needed.
    private static func myers(_ a: [Int], _ b: [Int], maxEdits: Int) -> [(Int, Int)] {
        let n = a.count, m = b.count
        let maxD = min(n + m, maxEdits)
        let offset = maxD + 1
        // v[offset + k]: the furthest x reached on diagonal k (y = x - k).
        var v = [Int](repeating: 0, count: 2 * maxD + 3)
        // trace[d]: v[k] for k in -(d+1)...(d+1) as it was before step d (what backtracking reads).
        var trace: [[Int]] = []
        var found = -1
        search: for d in 0...maxD {
            trace.append(Array(v[(offset - d - 1)...(offset + d + 1)]))
            for k in stride(from: -d, through: d, by: 2) {
                var x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
                    ? v[offset + k + 1] : v[offset + k - 1] + 1
                var y = x - k
                while x < n && y < m && a[x] == b[y] {
                    x += 1
                    y += 1
                }
                v[offset + k] = x
                if x >= n && y >= m {
                    found = d
                    break search
                }
            }
        }
        guard found >= 0 else { return [] }
        var pairs: [(Int, Int)] = []
        var x = n, y = m
        var d = found
        while d > 0 {
            let prev = trace[d]                      // window base: k = -(d+1)
            func at(_ k: Int) -> Int { prev[k + d + 1] }
            let k = x - y
            let prevK = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1
            let prevX = at(prevK)
            let prevY = prevX - prevK
            // The snake after the edit of step d.
            let startX = prevK == k + 1 ? prevX : prevX + 1
            let startY = startX - k
            while x > startX && y > startY {
                x -= 1
                y -= 1
                pairs.append((x, y))
            }
            x = prevX
            y = prevY
            d -= 1
        }
        while x > 0 && y > 0 {
            x -= 1
            y -= 1
            pairs.append((x, y))
        }
        return pairs.reversed()
    }

    /// Deletions, insertions and the matched pairs of a diff, as index lists.
    static func changeSet(oldCount: Int, newCount: Int, matches: [(old: Int, new: Int)]) -> CollectionChangeSet {
        var keptOld = [Bool](repeating: false, count: oldCount)
        var keptNew = [Bool](repeating: false, count: newCount)
        for p in matches {
            keptOld[p.old] = true
            keptNew[p.new] = true
        }
        var out = CollectionChangeSet()
        for i in 0..<oldCount where !keptOld[i] { out.deletions.append(i) }
        for j in 0..<newCount where !keptNew[j] { out.insertions.append(j) }
        return out
    }

    /// Pairs each run of deletions with the run of insertions at the same place (between the same
    /// two matched elements), one for one, turning each pair into a modification: a value of a
    /// List of primitives replaced in place (`list[i] = v`) is reported as a modification, as
    /// Realm does. Returns the extended matches (still increasing) and the modified old indices.
    static func foldReplacements(oldCount: Int, newCount: Int, matches: [(old: Int, new: Int)])
        -> (matches: [(old: Int, new: Int)], replaced: [Int]) {
        var out: [(old: Int, new: Int)] = []
        var replaced: [Int] = []
        var lastOld = -1, lastNew = -1
        func fold(toOld: Int, toNew: Int) {
            let dels = toOld - lastOld - 1, ins = toNew - lastNew - 1
            for t in 0 ..< min(dels, ins) {
                out.append((lastOld + 1 + t, lastNew + 1 + t))
                replaced.append(lastOld + 1 + t)
            }
        }
        for p in matches {
            fold(toOld: p.old, toNew: p.new)
            out.append(p)
            lastOld = p.old
            lastNew = p.new
        }
        fold(toOld: oldCount, toNew: newCount)
        return (out, replaced)
    }
}
