// Computing a collection change set by diffing two ordered snapshots of object keys.
//
// Why a diff (and not a replay of the write's change log): it is correct for any way the
// version advanced — one commit, several coalesced commits, or commits of another process whose
// change log this process never saw. Modifications come from comparing each object's
// fingerprint (the bytes of its watched properties, see RowFingerprint.swift) between versions.
//
// Invariants:
// - `deletions` and `modifications` are ascending indices into `old`, `insertions` ascending
//   indices into `new`: a table view's batch update reads deletions and reloads against the rows
//   it shows, and insertions against the rows it will show. A modified object is one kept in
//   place, never one that moved.
// - Keys present in both whose relative order is kept (a longest increasing subsequence of their
//   old positions, taken in new order) stay put; every other common key is a move, reported as a
//   deletion plus an insertion (what Realm reports for moves, too).
// - Keys are unique within one snapshot (object keys of one table).

/// The index sets of one collection change.
struct CollectionChangeSet: Equatable {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var modifications: [Int] = []
    var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }
}

enum CollectionDiff {
    /// The changes from (`old`, `oldPrints`) to (`new`, `newPrints`); prints are parallel to keys.
    static func diff(old: [UInt64], oldPrints: [[UInt8]], new: [UInt64], newPrints: [[UInt8]]) -> CollectionChangeSet {
        var oldIndex: [UInt64: Int] = [:]
        oldIndex.reserveCapacity(old.count)
        for (i, k) in old.enumerated() { oldIndex[k] = i }
        var present = Set<UInt64>()
        present.reserveCapacity(new.count)
        for k in new { present.insert(k) }

        var out = CollectionChangeSet()
        for (i, k) in old.enumerated() where !present.contains(k) { out.deletions.append(i) }

        // Common keys in new order, with their old positions.
        var commonNew: [Int] = []
        var commonOld: [Int] = []
        for (j, k) in new.enumerated() {
            if let i = oldIndex[k] {
                commonNew.append(j)
                commonOld.append(i)
            } else {
                out.insertions.append(j)
            }
        }
        let stable = longestIncreasing(commonOld)
        var moved = false
        for (n, j) in commonNew.enumerated() {
            let i = commonOld[n]
            if stable[n] {
                if oldPrints[i] != newPrints[j] { out.modifications.append(i) }
            } else {
                out.deletions.append(i)
                out.insertions.append(j)
                moved = true
            }
        }
        if moved {
            out.deletions.sort()
            out.insertions.sort()
        }
        return out
    }

    /// Marks the members of one longest strictly increasing subsequence of `values`
    /// (patience sorting, O(n log n)).
    static func longestIncreasing(_ values: [Int]) -> [Bool] {
        var tails: [Int] = []        // index into values of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (i, v) in values.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if values[tails[mid]] < v { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { previous[i] = tails[lo - 1] }
            if lo == tails.count { tails.append(i) } else { tails[lo] = i }
        }
        var marks = [Bool](repeating: false, count: values.count)
        var i = tails.last ?? -1
        while i >= 0 {
            marks[i] = true
            i = previous[i]
        }
        return marks
    }
}
