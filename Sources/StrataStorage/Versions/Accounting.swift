// Sizes and page accounting.
//
// Invariants checked by `verify()`:
// - every free or held run lies in [2, pageCount) and no page is listed twice;
// - the pages of the free list and the commit record are neither free nor held;
// - header (meta ring, durability record) + reachable + held + free == total pages of the file, where pages past the high-water
//   mark (preallocated, never written) count as free.

extension FileCore {
    func sizes() throws(StorageError) -> FileSizes {
        _ = try acquireWriter()
        defer { releaseWriter() }
        let current = try currentVersion()
        let unused = freeSpace.reusablePageCount + freeSpace.heldPageCount
        let used = Int(current.pageCount) - unused
        return FileSizes(totalBytes: max(fileSizePages, Int(current.pageCount)) * PageLayout.pageSize,
                         usedBytes: used * PageLayout.pageSize)
    }

    func verify() throws(StorageError) -> PageAccounting {
        _ = try acquireWriter()
        defer { releaseWriter() }
        return try accounting(of: try currentVersion())
    }

    /// The accounting of `current` against the writer state (`freeSpace`, `freeListPages`,
    /// `overflowPages`), which must describe that very version.
    func accounting(of current: CommittedVersion) throws(StorageError) -> PageAccounting {
        let pageCount = Int(current.pageCount)
        var seen = [Bool](repeating: false, count: pageCount)
        for p in 0..<min(pageCount, MetaLayout.headerPages) { seen[p] = true }
        func mark(_ start: UInt32, _ count: UInt32, _ what: String) throws(StorageError) {
            guard start >= MetaLayout.firstDataPage, Int(start) + Int(count) <= pageCount else {
                throw StorageError(.corruptFile, "\(what) run \(start)+\(count) outside [\(MetaLayout.firstDataPage), \(pageCount))", path: path)
            }
            for p in Int(start)..<(Int(start) + Int(count)) {
                guard !seen[p] else {
                    throw StorageError(.corruptFile, "page \(p) is counted twice (\(what))", path: path)
                }
                seen[p] = true
            }
        }
        for run in freeSpace.reusable { try mark(run.start, run.count, "free") }
        for run in freeSpace.held { try mark(run.start, run.count, "held") }
        var reachable = 0
        for page in freeListPages + overflowPages {
            try mark(page, 1, "free-list/commit-record")
            reachable += 1
        }
        let walked = try walkReachable(current, seen: &seen)
        reachable += walked
        let free = freeSpace.reusablePageCount + max(0, fileSizePages - pageCount)
        let accounting = PageAccounting(totalPages: max(fileSizePages, pageCount),
                                        reachablePages: reachable,
                                        heldForReaderPages: freeSpace.heldPageCount,
                                        freePages: free,
                                        metaPages: MetaLayout.headerPages)
        guard accounting.balances else {
            let lost = seen.enumerated().filter { !$0.element }.prefix(8).map(\.offset)
            throw StorageError(.corruptFile,
                               "page accounting does not balance: \(accounting) (unaccounted pages: \(lost))",
                               path: path)
        }
        return accounting
    }
}
