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

    /// Whether a commit may write a directory: only to a file flushed per commit. Planning costs
    /// CPU, a pass over every record per round (2 rounds in the common case); what it saves is
    /// bytes to flush. Without a flush per commit the whole chain, sealed and copied into the
    /// page cache, cost less: at 10M objects a one-sample commit without a flush took 101 µs
    /// (p50) rewriting the chain and 208–362 µs planning a directory, while a durable one went
    /// from 2,408 to 541–821 µs (`docs/findings.md`, "A commit on a store of 10M objects").
    static func allowed(durability: Durability, inFile: Bool) -> Bool {
        inFile && durability == .full
    }

    /// Whether a free list of `records` records that does not fit in the meta is written as a
    /// directory.
    static func usesDirectory(records: Int) -> Bool {
        let pages = FreeSpace.pagesNeeded(records: records)
        return pages > chainLimit && pages <= directoryLimit
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
    /// The previous pages' ranges can be trusted (strictly ascending first records).
    private var ranged: Bool
    /// Previous pages already freed by this commit (by index): they are rewritten whatever
    /// their range holds now.
    private(set) var replaced: Set<Int> = []

    /// `recordCount`: the records now, before the commit's rounds (for the size rule).
    init(previous: [FreeListDirectory.Page], recordCount: Int) {
        self.previous = previous
        var ascending = true
        var last: UInt32? = nil
        for page in previous {
            guard let first = page.records.first else { continue }
            if let last, first.start <= last { ascending = false }
            last = first.start
        }
        let bloated = previous.count > 2 * FreeSpace.pagesNeeded(records: recordCount) + 2
        // Only non-empty pages bound ranges: with none, nothing would cover the records.
        ranged = ascending && !bloated && previous.contains { !$0.records.isEmpty }
    }

    struct Round {
        /// Previous pages this round found changed and not yet freed: the caller frees them
        /// (which changes the records) and plans again.
        var newlyReplaced: [UInt32]
        /// Pages the new list needs besides the kept ones and the directory.
        var pagesNeeded: Int
    }

    /// For each previous page: the range of `records` (sorted by start) it covers.
    private func ranges(_ records: [HeldRun]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        out.reserveCapacity(previous.count)
        var position = 0
        var nonEmpty = previous.indices.filter { !previous[$0].records.isEmpty }[...]
        for index in previous.indices {
            guard !previous[index].records.isEmpty else {
                out.append(position..<position)
                continue
            }
            nonEmpty.removeFirst()
            let low = position
            if let next = nonEmpty.first {
                let bound = previous[next].records[0].start
                while position < records.count, records[position].start < bound { position += 1 }
            } else {
                position = records.count
            }
            // The first non-empty page's range starts at 0, the last one's runs to the end.
            out.append(low..<position)
        }
        return out
    }

    /// Whether previous page `index` must be rewritten, given its range now.
    private func changed(_ index: Int, _ range: Range<Int>, _ records: [HeldRun]) -> Bool {
        if !ranged || replaced.contains(index) || previous[index].records.isEmpty { return true }
        return !records[range].elementsEqual(previous[index].records)
    }

    /// One round over the records as they are now (sorted by start).
    mutating func plan(_ records: [HeldRun]) -> Round {
        let ranges = ranged ? self.ranges(records) : []
        var newly: [UInt32] = []
        var needed = 0
        var stretch = 0  // records of the current stretch of changed ranges
        var inStretch = false
        for index in previous.indices {
            let range = ranged ? ranges[index] : 0..<0
            if changed(index, range, records) {
                if replaced.insert(index).inserted { newly.append(previous[index].ref) }
                stretch += range.count
                inStretch = true
            } else if inStretch {
                needed += FreeSpace.pagesNeeded(records: stretch)
                (stretch, inStretch) = (0, false)
            }
        }
        if !ranged {
            needed = FreeSpace.pagesNeeded(records: records.count)
        } else {
            // With no previous page, or records the ranges do not cover: none, since the first
            // range reaches down to 0 and the last up to the end (`ranges`).
            if inStretch { needed += FreeSpace.pagesNeeded(records: stretch) }
            if previous.isEmpty { needed = FreeSpace.pagesNeeded(records: records.count) }
        }
        let kept = previous.count - replaced.count
        if ranged, kept + needed > FreeListDirectoryLayout.capacity {
            // Grown past what a directory names: rewrite whole from the next round on.
            ranged = false
            return plan(records)
        }
        return Round(newlyReplaced: newly, pagesNeeded: needed)
    }

    /// The new list: kept pages in place, each stretch of changed ranges packed into pages taken
    /// from `fresh` (at least the last round's `pagesNeeded`), pages left over written empty.
    /// Fills the payloads of the fresh pages it uses.
    func layout(_ records: [HeldRun], directoryPage: UInt32,
                fresh: [(ref: UInt32, payload: UnsafeMutableRawPointer)]) -> FreeListDirectory {
        var pages: [FreeListDirectory.Page] = []
        var next = 0
        func pack(_ slice: ArraySlice<HeldRun>) {
            let count = FreeSpace.pagesNeeded(records: slice.count)
            guard count > 0 else { return }
            // Evenly, so that each page has room to grow before it must split.
            var low = slice.startIndex
            for k in 0..<count {
                let high = slice.startIndex + slice.count * (k + 1) / count
                let (ref, payload) = fresh[next]
                next += 1
                FreeListDirectory.writeListPage(records[low..<high], into: payload)
                pages.append(.init(ref: ref, records: Array(records[low..<high])))
                low = high
            }
        }
        if !ranged || previous.isEmpty {
            pack(records[...])
        } else {
            let ranges = self.ranges(records)
            var stretchStart: Int? = nil
            var stretchEnd = 0
            for index in previous.indices {
                let range = ranges[index]
                if changed(index, range, records) {
                    if stretchStart == nil { stretchStart = range.lowerBound }
                    stretchEnd = range.upperBound
                } else {
                    if let start = stretchStart { pack(records[start..<stretchEnd]) }
                    stretchStart = nil
                    pages.append(previous[index])
                }
            }
            if let start = stretchStart { pack(records[start..<stretchEnd]) }
        }
        while next < fresh.count {
            FreeListDirectory.writeListPage([], into: fresh[next].payload)
            pages.append(.init(ref: fresh[next].ref, records: []))
            next += 1
        }
        return FreeListDirectory(directoryPage: directoryPage, pages: pages)
    }
}
