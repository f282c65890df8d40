// A free list kept as a directory of independent pages, so that a commit rewrites only the pages
// whose records changed (format 5).
//
// A free list too long for the meta was a chain of pages rewritten whole by every commit: at 10M
// objects ~12,800 records, 76 pages written by a commit whose own tree pages are 16. A commit
// changes a handful of records (the runs it allocates from, the pages it holds, the runs it
// promotes), so most of those pages were written again unchanged.
//
// Layout. The meta's free-list head names a directory page (kind 18): payload kind u8 @0, page
// count u32 @4, then that many page numbers (u32) from 16. Each named page is a free-list page
// (kind 16, FreeSpace.swift) whose next page is 0. The meta's free-list page count is the
// directory plus its pages. Loading adds every record of every page, in any order.
//
// How a commit reuses pages (`FreeListPlanner`). The records are ordered by first page, and each
// page of the previous list holds a contiguous part of that order: page i covers the records
// starting in [first record of page i, first record of page i + 1), the first page from 0. A
// page whose range holds exactly its old records is kept: the new version names the same page,
// unwritten. The records of each stretch of changed ranges are packed into new pages. A page
// replaced is freed by the new version, which adds a record and may change another range; pages
// allocated for the new list take pages from free runs and may too. So planning repeats until
// no range changes any more: each round only frees or allocates more, so it ends.
//
// What a round compares. The list keeps the records it was planned from (its basis, a view that
// shares the reusable runs' chunks copy-on-write). A later round compares only the ranges that
// overlap where the records may have changed since: the chunks that are not shared any more and
// the held records in one view but not the other (`SortedRecords.changedSpans`). Elsewhere both
// views hold the same chunks, so the same records. At 12,800 records the full comparison was
// ~150 µs of a durable commit. A list loaded by open has no basis: its first commit compares
// every range.
//
// Invariants:
// - The pages of a directory hold disjoint records; a kept page is byte for byte what a full
//   rewrite would put there for its range.
// - A list whose old pages are not strictly ascending by first record, or which has grown to
//   more than twice the pages its records need (plus 2), is rewritten whole.
// - Pages left empty (allocated by a round that a later round did not need) are written with no
//   records and replaced by the next commit.
// - Readers never read the free list; only the writer and open do.

enum FreeListDirectoryLayout {
    static let pagesOffset = 16
    /// Page numbers a directory page holds.
    static let capacity = (PageLayout.payloadSize - pagesOffset) / 4
    /// Lists needing at most this many pages stay a chain (a directory would add a page).
    static let chainLimit = 2
    /// Lists needing more than this many pages stay a chain: the directory must keep room for
    /// the pages a list may grow to between two full rewrites.
    static let directoryLimit = capacity / 3

    /// Without a flush per commit, lists needing at most this many pages stay a chain: rewriting
    /// them costs less CPU than planning. `strata-storage-probe bench-freelist <dir> <runs> 1000
    /// unsafe`, one-page commits, chain against directory p50: 1,000 runs (7 pages) 4.5 against
    /// 11.1 µs; 4,000 (25) 13.6 against 16.2; 6,000 (37) 19.1 against 20.5; 12,800 (77) 42 against
    /// 33. A commit flushed per commit saves the bytes of every page it does not write, so there
    /// the directory wins from 3 pages on (12,800 runs: 317–436 against 200–234 µs).
    static let unflushedChainLimit = 48

    /// Whether a commit writes a free list of `records` records, too many for the meta, as a
    /// directory.
    static func usesDirectory(records: Int, durability: Durability, inFile: Bool) -> Bool {
        let pages = FreeSpace.pagesNeeded(records: records)
        guard inFile, pages > chainLimit, pages <= directoryLimit else { return false }
        return durability == .full || pages > unflushedChainLimit
    }
}

/// The free list of the writer's version when it is a directory: which page holds which records.
struct FreeListDirectory: Equatable {
    struct Page: Equatable {
        var ref: UInt32
        /// Sorted by start; empty for a page written empty.
        var records: [HeldRun]
    }

    var directoryPage: UInt32
    var pages: [Page]
    /// The records the pages were planned from, when this process wrote them (nil when loaded):
    /// the next commit compares only the ranges where the records changed since.
    var basis: SortedRecords? = nil

    /// The list itself: where it was planned from is not part of it.
    static func == (a: FreeListDirectory, b: FreeListDirectory) -> Bool {
        a.directoryPage == b.directoryPage && a.pages == b.pages
    }

    /// Every page of the list, the directory first (FileCore.freeListPages).
    var allPages: [UInt32] { [directoryPage] + pages.map(\.ref) }

    /// Writes the directory page's payload.
    func writeDirectory(into payload: UnsafeMutableRawPointer) {
        payload.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.payloadSize)
        payload.storeBytes(of: PagerPageKind.freeListDirectory, toByteOffset: 0, as: UInt8.self)
        payload.storeBytes(of: UInt32(pages.count).littleEndian, toByteOffset: 4, as: UInt32.self)
        var offset = FreeListDirectoryLayout.pagesOffset
        for page in pages {
            payload.storeBytes(of: page.ref.littleEndian, toByteOffset: offset, as: UInt32.self)
            offset += 4
        }
    }

    /// Writes a list page's payload: its records, no next page.
    static func writeListPage(_ records: ArraySlice<HeldRun>, into payload: UnsafeMutableRawPointer) {
        payload.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.payloadSize)
        payload.storeBytes(of: PagerPageKind.freeList, toByteOffset: 0, as: UInt8.self)
        payload.storeBytes(of: UInt32(records.count).littleEndian, toByteOffset: 4, as: UInt32.self)
        var offset = FreeListLayout.recordsOffset
        for r in records {
            FreeSpace.store(r, into: payload + offset)
            offset += FreeListLayout.recordSize
        }
    }

    /// The page numbers a directory page names. Throws `.corruptFile` for a page of another kind
    /// or a count beyond the page.
    static func pageRefs(inDirectory payload: UnsafeRawPointer, path: String?) throws(StorageError) -> [UInt32] {
        guard payload.load(fromByteOffset: 0, as: UInt8.self) == PagerPageKind.freeListDirectory else {
            throw StorageError(.corruptFile, "the free-list directory is a page of another kind", path: path)
        }
        let count = Int(UInt32(littleEndian: payload.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        guard count <= FreeListDirectoryLayout.capacity else {
            throw StorageError(.corruptFile, "the free-list directory claims \(count) pages", path: path)
        }
        return (0..<count).map {
            UInt32(littleEndian: payload.loadUnaligned(fromByteOffset: FreeListDirectoryLayout.pagesOffset + 4 * $0, as: UInt32.self))
        }
    }
}

/// Decides, round by round, which pages of the previous directory a commit keeps.
struct FreeListPlanner {
    private let previous: [FreeListDirectory.Page]
    /// The first pages each previous page's range covers (nil for a page written empty).
    private let bounds: [Range<UInt64>?]
    /// The previous pages' ranges can be trusted (strictly ascending first records).
    private var ranged: Bool
    /// The records the previous pages were planned from, when this process planned them: only
    /// ranges where the records changed since need comparing (`SortedRecords.changedSpans`).
    private let basis: SortedRecords?
    /// Previous pages already freed by this commit (by index): they are rewritten whatever
    /// their range holds now. Flags, not a set: they are asked for every page in every round.
    private var replaced: [Bool]
    private var replacedCount = 0
    /// The last round's view and what it found, which `layout` is given again.
    private var lastRound: (view: SortedRecords, changed: [Bool], stretches: [Range<UInt64>])?

    /// `recordCount`: the records now, before the commit's rounds (for the size rule).
    init(previous: FreeListDirectory?, recordCount: Int) {
        let pages = previous?.pages ?? []
        self.previous = pages
        basis = previous?.basis
        replaced = Array(repeating: false, count: pages.count)
        // One pass over the pages' first records (each commit plans from here, so the pages'
        // record arrays are not walked again).
        var filled: [(index: Int, start: UInt64)] = []
        filled.reserveCapacity(pages.count)
        var ascending = true
        for index in pages.indices {
            guard let first = pages[index].records.first else { continue }
            let start = UInt64(first.start)
            if let last = filled.last, start <= last.start { ascending = false }
            filled.append((index, start))
        }
        let bloated = pages.count > 2 * FreeSpace.pagesNeeded(records: recordCount) + 2
        // Only non-empty pages bound ranges: with none, nothing would cover the records.
        ranged = ascending && !bloated && !filled.isEmpty
        // The first non-empty page's range starts at 0, the last one's runs to the end.
        var bounds: [Range<UInt64>?] = Array(repeating: nil, count: pages.count)
        for k in filled.indices {
            let low = k == 0 ? 0 : filled[k].start
            let high = k + 1 < filled.count ? filled[k + 1].start : UInt64(UInt32.max) + 1
            if low < high { bounds[filled[k].index] = low..<high }
        }
        self.bounds = bounds
    }

    struct Round {
        /// Previous pages this round found changed and not yet freed: the caller frees them
        /// (which changes the records) and plans again.
        var newlyReplaced: [UInt32]
        /// Pages the new list needs besides the kept ones and the directory.
        var pagesNeeded: Int
    }

    /// Whether previous page `index` must be rewritten, given the records now and the spans
    /// where they may differ from the basis (nil: anywhere).
    private func changed(_ index: Int, _ view: SortedRecords, _ spans: [ClosedRange<UInt32>]?) -> Bool {
        guard ranged, !replaced[index], let range = bounds[index] else { return true }
        if let spans, !spans.contains(where: { UInt64($0.upperBound) >= range.lowerBound && UInt64($0.lowerBound) < range.upperBound }) {
            return false
        }
        return !view.records(startingIn: range, equal: previous[index].records)
    }

    /// The stretches of changed ranges, as ranges of first pages, and whether each previous
    /// page is changed.
    private func stretches(_ view: SortedRecords) -> (changed: [Bool], stretches: [Range<UInt64>]) {
        let spans = basis.map { view.changedSpans(since: $0) }
        var changed: [Bool] = []
        changed.reserveCapacity(previous.count)
        var stretches: [Range<UInt64>] = []
        var open: Range<UInt64>? = nil
        for index in previous.indices {
            let isChanged = self.changed(index, view, spans)
            changed.append(isChanged)
            guard let range = bounds[index] else { continue }  // empty pages cover nothing
            if isChanged {
                open = open.map { $0.lowerBound..<range.upperBound } ?? range
            } else if let stretch = open {
                stretches.append(stretch)
                open = nil
            }
        }
        if let open { stretches.append(open) }
        return (changed, stretches)
    }

    /// Marks previous page `index` replaced; whether it was not already.
    private mutating func replace(_ index: Int) -> Bool {
        guard !replaced[index] else { return false }
        replaced[index] = true
        replacedCount += 1
        return true
    }

    /// One round over the records as they are now.
    mutating func plan(_ view: SortedRecords) -> Round {
        lastRound = nil
        guard ranged else {
            let newly = previous.indices.filter { replace($0) }.map { previous[$0].ref }
            return Round(newlyReplaced: newly, pagesNeeded: FreeSpace.pagesNeeded(records: view.count))
        }
        let (changed, stretches) = self.stretches(view)
        var newly: [UInt32] = []
        for index in previous.indices where changed[index] && replace(index) {
            newly.append(previous[index].ref)
        }
        // Kept for `layout`, which gets this round's view when the round changed nothing more:
        // the pages it just replaced were already found changed, so asking again with the same
        // view would find the same pages and stretches.
        lastRound = (view, changed, stretches)
        let needed = stretches.reduce(0) { $0 + FreeSpace.pagesNeeded(records: view.count(startingIn: $1)) }
        if previous.count - replacedCount + needed > FreeListDirectoryLayout.capacity {
            // Grown past what a directory names: rewrite whole from here on.
            ranged = false
            return plan(view)
        }
        return Round(newlyReplaced: newly, pagesNeeded: needed)
    }

    /// The new list: kept pages in place, each stretch of changed ranges packed into pages taken
    /// from `fresh` (at least the last round's `pagesNeeded`), pages left over written empty.
    /// Fills the payloads of the fresh pages it uses. `view`: the records of the last round,
    /// which become the new list's basis.
    func layout(_ view: SortedRecords, directoryPage: UInt32,
                fresh: [(ref: UInt32, payload: UnsafeMutableRawPointer)]) -> FreeListDirectory {
        var pages: [FreeListDirectory.Page] = []
        var next = 0
        func pack(_ records: [HeldRun]) {
            let count = FreeSpace.pagesNeeded(records: records.count)
            // Evenly, so that each page has room to grow before it must split.
            var low = 0
            for k in 0..<count {
                let high = records.count * (k + 1) / count
                let (ref, payload) = fresh[next]
                next += 1
                FreeListDirectory.writeListPage(records[low..<high], into: payload)
                pages.append(.init(ref: ref, records: Array(records[low..<high])))
                low = high
            }
        }
        if !ranged {
            pack(view.records(startingIn: 0..<(UInt64(UInt32.max) + 1)))
        } else {
            let (changed, stretches) = lastRound.flatMap { $0.view === view ? ($0.changed, $0.stretches) : nil }
                ?? self.stretches(view)
            var stretch = stretches.makeIterator()
            var inStretch = false
            for index in previous.indices {
                guard bounds[index] != nil else { continue }  // empty pages are dropped
                if changed[index] {
                    if !inStretch, let range = stretch.next() { pack(view.records(startingIn: range)) }
                    inStretch = true
                } else {
                    inStretch = false
                    pages.append(previous[index])
                }
            }
        }
        while next < fresh.count {
            FreeListDirectory.writeListPage([], into: fresh[next].payload)
            pages.append(.init(ref: fresh[next].ref, records: []))
            next += 1
        }
        return FreeListDirectory(directoryPage: directoryPage, pages: pages, basis: view)
    }
}
