// Reachability: walking the pages of a version through the page-kind tag.
//
// Every tree page's payload starts with a page kind (1–15: tree nodes, owned by the trees code;
// 16–31: pager pages). The trees code registers how to list the children of its pages; the pager
// walks from the user roots that the layer above declares to be page references.
//
// Invariants:
// - Without a registered walker, reachability is derived: every page below the high-water mark that
//   is not meta, free, held, free list or commit record is counted as reachable (the accounting
//   then checks only the free-space structures, not the trees).

extension FileCore {
    /// Marks the pages reachable from `version` in `seen` and returns how many there are.
    func walkReachable(_ version: CommittedVersion, seen: inout [Bool]) throws(StorageError) -> Int {
        var count = 0
        for p in 0..<seen.count where !seen[p] {
            seen[p] = true
            count += 1
        }
        return count
    }
}
