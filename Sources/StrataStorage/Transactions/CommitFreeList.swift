// Step 2 of a commit (Commit.swift): where the free-space records go, and the commit record's
// overflow pages, whose allocation changes those records.
//
// - In the meta, when they fit beside the whole commit record and the user root data: no page.
// - A chain of pages rewritten whole, for a list of at most two pages (or too long for a
//   directory), and for files not flushed per commit up to 48 pages (FreeListDirectoryLayout).
//   Allocation only removes pages from the head of runs, so the record count can only shrink
//   after sizing: the pages allocated always suffice.
// - A directory (FreeListDirectory.swift), which keeps the previous list's pages whose records
//   did not change. Planning, freeing the pages replaced and allocating repeat until a round
//   changes nothing.
// Old list pages are freed by the new version: all of them, or for a directory kept from the base
// version, its directory page and the pages replaced.

/// The free list a commit writes and the overflow pages of its commit record.
struct CommitFreeList {
    /// Records kept in the meta (none when they are in pages).
    var inlineFree: [HeldRun] = []
    /// Pages allocated for the list (a directory's first), with their payloads filled.
    var listPages: [(ref: UInt32, payload: UnsafeMutableRawPointer)] = []
    /// The list when it is a directory.
    var directory: FreeListDirectory?
    /// The meta's free-list head: the directory, the chain's first page, or 0.
    var head: UInt32 = 0
    /// Commit entries the meta holds.
    var inlineCapacity: Int
    /// Commit-record overflow pages (their buffers are the caller's to return).
    var overflow: [(page: UInt32, buffer: UnsafeMutableRawPointer)] = []
}

extension WriteTransaction {
    // Inlined into the commit: out of line, building and destroying the returned value cost the
    // small commit measurable CPU (the common case places no page at all).
    @inline(__always)
    func placeFreeList(newVersion: UInt64, dataBytes: Int) throws(StorageError) -> CommitFreeList {
        let core = self.core
        func directoryFits() -> Bool {
            FreeListDirectoryLayout.usesDirectory(records: core.freeSpace.recordCount, durability: core.options.durability,
                                                  inFile: core.fd >= 0)
        }
        let previousDirectory = core.freeListDirectory.flatMap { directoryFits() ? $0 : nil }
        if previousDirectory == nil {
            for page in core.freeListPages { core.freeSpace.hold(page, allocVersion: baseVersion, freeVersion: newVersion) }
        }
        let freeInline = previousDirectory == nil
            && MetaLayout.fitsWritten(inline: dirty.count, freeRecords: core.freeSpace.recordCount, rootData: dataBytes)
        var placed = CommitFreeList(inlineCapacity: freeInline ? Int.max : MetaLayout.inlineCapacity(rootData: dataBytes))
        do throws(StorageError) {
            if freeInline {
                // Nothing is allocated after this point (the commit record fits inline), so the
                // records cannot change any more.
                placed.inlineFree = core.freeSpace.records()
            } else if previousDirectory == nil && !directoryFits() {
                while placed.listPages.count < FreeSpace.pagesNeeded(records: core.freeSpace.recordCount) {
                    let (page, buffer) = try allocateRaw()
                    placed.listPages.append((page, buffer + PageLayout.headerSize))
                }
                _ = try allocateOverflow(&placed)
                core.freeSpace.serialize(into: placed.listPages)
                placed.head = placed.listPages.first?.ref ?? 0
            } else {
                try placeDirectory(&placed, previous: previousDirectory, newVersion: newVersion)
            }
        } catch {
            for item in placed.overflow { core.returnBuffer(item.buffer) }
            throw error
        }
        return placed
    }

    private func placeDirectory(_ placed: inout CommitFreeList, previous: FreeListDirectory?,
                                newVersion: UInt64) throws(StorageError) {
        if let previous {
            core.freeSpace.hold(previous.directoryPage, allocVersion: baseVersion, freeVersion: newVersion)
        }
        var planner = FreeListPlanner(previous: previous, recordCount: core.freeSpace.recordCount)
        var view: SortedRecords
        // Each round plans over the records as they are, frees the pages it finds replaced and
        // allocates what the plan needs; both change the records, so the next round checks again.
        // Usually the second finds nothing more to do.
        while true {
            view = core.freeSpace.sortedView()
            let round = planner.plan(view)
            var changed = false
            for page in round.newlyReplaced {
                core.freeSpace.hold(page, allocVersion: baseVersion, freeVersion: newVersion)
                changed = true
            }
            while placed.listPages.count < round.pagesNeeded + 1 {
                let (page, buffer) = try allocateRaw()
                placed.listPages.append((page, buffer + PageLayout.headerSize))
                changed = true
            }
            if try allocateOverflow(&placed) { changed = true }
            if !changed { break }
        }
        let made = planner.layout(view, directoryPage: placed.listPages[0].ref, fresh: Array(placed.listPages.dropFirst()))
        made.writeDirectory(into: placed.listPages[0].payload)
        placed.directory = made
        placed.head = made.directoryPage
    }

    /// Allocates the overflow pages a commit record of the pages owned so far needs; whether it
    /// allocated any (which may change the free-space records).
    @inline(__always)
    private func allocateOverflow(_ placed: inout CommitFreeList) throws(StorageError) -> Bool {
        let entryCount = dirty.count
        let needed = entryCount > placed.inlineCapacity
            ? (entryCount - placed.inlineCapacity + CommitRecordLayout.capacity - 1) / CommitRecordLayout.capacity
            : 0
        guard placed.overflow.count < needed else { return false }
        while placed.overflow.count < needed {
            let (page, buffer) = try allocateRaw()
            dirty.remove(page)
            placed.overflow.append((page, buffer))
        }
        return true
    }
}
