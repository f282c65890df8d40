// Reachability: which pages the newest version uses, for `verify()`.
//
// The pager knows its own pages (meta, free list, commit record) but not which user roots, or which
// values stored inside trees, are references to other trees: the object layer does. So the layer
// above registers a `ReachabilityWalker` that visits every page of a version; it can use
// `PageWalk.forEachPage(inTree:in:_:)` (built on the trees' `TreePages.forEachChild`) for each tree
// it knows of.
//
// Invariants:
// - With a walker: every visited page must lie in [2, pageCount), be visited once, and be neither
//   free, held, nor a pager page; every page not visited must be free, held or a pager page —
//   otherwise `verify()` throws `.corruptFile` naming the page (a leak or a use-after-free).
// - Without a walker, reachability is derived: pages below the high-water mark that are not meta,
//   free, held, free list or commit record count as reachable (then `verify()` checks the
//   free-space structures only).

/// Visits every page reachable from `roots` in `pages`; `visit` throws on a page seen twice.
public typealias ReachabilityWalker =
    @Sendable (_ roots: UserRoots, _ pages: any PageReading, _ visit: (PageRef) throws -> Void) throws -> Void

/// Walking helpers for reachability walkers.
public enum PageWalk {
    /// Visits `root` and every page below it (tree nodes and overflow pages), depth first.
    public static func forEachPage(inTree root: PageRef, in pages: any PageReading,
                                   _ visit: (PageRef) throws -> Void) throws {
        guard !root.isNull else { return }
        var stack = [root]
        while let ref = stack.popLast() {
            try visit(ref)
            let payload = try pages.readPage(ref)
            try TreePages.forEachChild(ofPage: ref, payload: payload) { stack.append($0) }
        }
    }
}

extension StorageFile {
    /// Registers how `verify()` finds the pages of a version (see `ReachabilityWalker`);
    /// nil restores the derived accounting. Shared by every handle to the file in this process.
    public func setReachabilityWalker(_ walker: ReachabilityWalker?) {
        let core = self.core
        core.lock.withLock { core.reachabilityWalker = walker }
    }
}

extension FileCore {
    /// Marks the pages reachable from `version` in `seen` and returns how many there are.
    /// `seen` already marks meta, free, held and pager pages.
    func walkReachable(_ version: CommittedVersion, seen: inout [Bool]) throws(StorageError) -> Int {
        guard let walker = lock.withLock({ reachabilityWalker ?? relocator.map(PageWalk.reachabilityWalker(using:)) }) else {
            var count = 0
            for p in 0..<seen.count where !seen[p] {
                seen[p] = true
                count += 1
            }
            return count
        }
        let reader = ReadTransaction(core: self, snapshot: version, pinned: false)
        var count = 0
        var marks = seen
        let path = self.path
        do {
            try walker(version.roots, reader) { ref in
                let p = Int(ref.raw)
                guard p >= Int(MetaLayout.firstDataPage), p < marks.count else {
                    throw StorageError(.corruptFile, "reachable \(ref) lies outside the version's \(marks.count) pages", path: path)
                }
                guard !marks[p] else {
                    throw StorageError(.corruptFile, "reachable \(ref) is also free, held, a pager page, or reached twice", path: path)
                }
                marks[p] = true
                count += 1
            }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(.corruptFile, "walking the version failed: \(error)", path: path)
        }
        if let leaked = marks.firstIndex(of: false) {
            let total = marks.reduce(0) { $0 + ($1 ? 0 : 1) }
            throw StorageError(.corruptFile, "\(total) page(s) are neither reachable nor free (first: page#\(leaked))", path: path)
        }
        seen = marks
        return count
    }
}
