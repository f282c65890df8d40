// Free space by version: which pages a writer may reuse, and which are held for live readers.
//
// A page freed by commit N was reachable in versions [allocVersion, N), where allocVersion is the
// version that wrote it. It may be reused once no live reader pins a version in that range (and N
// is durable). That rule is exact: a reader pinned at an old version keeps alive only pages of its
// own version, not everything freed since — so a pinned reader does not make the file grow with
// every later write.
//
// Invariants:
// - `reusable` is sorted by start, runs never overlap or touch (adjacent runs are merged); it is
//   kept in chunks (FreeRunSet.swift), so a commit pays for a chunk, not for every free run.
// - A page is in at most one of `reusable` and `held`, and never reachable from the newest version.
// - `held` runs carry [allocVersion, freeVersion); consecutive pages freed together with equal
//   versions share a run. A run may cover a wider range than each of its pages' own (reader-
//   blocked runs of adjacent pages are merged, `coalesceBlocked`): only ever wider, so a page is
//   never reused before the exact rule allows.
// - `held[0..<blockedPrefix]` are runs some version of `blockedReaders`/`blockedRanges` needs
//   (a cache for `promote`, not persisted; the order of `held` is otherwise free).
//
// Persisted form: the same 24-byte records (start u32, count u32, allocVersion u64, freeVersion
// u64; reusable runs with both versions 0), either inline in the meta page when they fit beside
// the commit record (MetaSlot.swift, format 2: the common case, no page written for them) or in
// free-list pages (kind 16): payload kind u8 @0, record count u32 @4, next page u32 @8, records
// from 16.

struct FreeRun: Equatable {
    var start: UInt32
    var count: UInt32
}

struct HeldRun: Equatable {
    var start: UInt32
    var count: UInt32
    var allocVersion: UInt64
    var freeVersion: UInt64
}

enum FreeListLayout {
    static let recordsOffset = 16
    static let recordSize = 24
    static let capacity = (PageLayout.payloadSize - recordsOffset) / recordSize  // 168
}

struct FreeSpace: Equatable {
    static func == (a: FreeSpace, b: FreeSpace) -> Bool {
        a.free == b.free && a.held == b.held
    }

    /// The runs reusable now.
    private(set) var free = FreeRunSet()
    /// `free`'s runs in order, as an array (inspection, accounting, tests).
    var reusable: [FreeRun] { free.runs }
    private(set) var held: [HeldRun] = []

    /// Pages in `reusable`, kept with every change (read per transaction by extent allocation).
    private(set) var reusablePageCount = 0
    /// `held[0..<blockedPrefix]` are needed by a reader of `blockedReaders` or `blockedRanges`
    /// (see `promote`). A cache: not persisted, not part of equality.
    private var blockedPrefix = 0
    private var blockedReaders: [UInt64] = []
    private var blockedRanges: [ClosedRange<UInt64>] = []
    /// `promote` coalesces the reader-blocked runs when there are this many (`coalesceBlocked`).
    private var coalesceAt = FreeSpace.firstCoalesce
    /// Whether `promote` coalesces (tests compare it with the exact per-run rule without).
    var coalesces = true
    var heldPageCount: Int { held.reduce(0) { $0 + Int($1.count) } }
    var recordCount: Int { free.runCount + held.count }

    /// The lowest reusable page, removed from the set.
    mutating func take() -> UInt32? {
        guard let page = free.takeLowestPage() else { return nil }
        reusablePageCount -= 1
        return page
    }

    /// The first `want` pages of the lowest reusable run holding at least `want` pages, removed
    /// from the set (taken from the run's head, so the record count never grows); nil when no
    /// run is that long. Used for extent allocation (WriteTransaction.allocateRaw).
    mutating func takeRun(atLeast want: UInt32) -> FreeRun? {
        guard let run = free.takeHead(ofFirstRunAtLeast: want) else { return nil }
        reusablePageCount -= Int(want)
        return run
    }

    /// The longest reusable run (the lowest of equals), removed whole; nil when no run holds
    /// `minimum` pages.
    mutating func takeLongestRun(atLeast minimum: UInt32) -> FreeRun? {
        guard let run = free.takeLongest(atLeast: minimum) else { return nil }
        reusablePageCount -= Int(run.count)
        return run
    }

    /// Makes `page` reusable at once (it is reachable from no version).
    mutating func release(_ page: UInt32) {
        releaseRun(FreeRun(start: page, count: 1))
    }

    mutating func releaseRun(_ run: FreeRun) {
        reusablePageCount += Int(run.count)
        free.insert(run)
    }

    /// Records that `page`, written by `allocVersion`, is unreachable as of `freeVersion`.
    mutating func hold(_ page: UInt32, allocVersion: UInt64, freeVersion: UInt64) {
        if var last = held.last, last.allocVersion == allocVersion, last.freeVersion == freeVersion,
           last.start + last.count == page {
            last.count += 1
            held[held.count - 1] = last
            return
        }
        held.append(HeldRun(start: page, count: 1, allocVersion: allocVersion, freeVersion: freeVersion))
    }

    mutating func appendHeld(_ run: HeldRun) { held.append(run) }

    /// What a write transaction needs to undo its changes (`restore`). Not a copy of the whole
    /// set: a retained copy of `held` would make the transaction's first `hold` copy every held
    /// run (copy-on-write), O(held) per commit while a reader stays pinned. During a transaction
    /// `held` only grows at its end (`hold`, which may also extend the last run), so its length
    /// and last run suffice. The reusable runs are kept whole: a copy of a FreeRunSet shares
    /// its chunks, and a change after it copies only the chunk list and the chunk it changes.
    struct Checkpoint {
        fileprivate let free: FreeRunSet
        fileprivate let reusablePageCount: Int
        fileprivate let heldCount: Int
        fileprivate let heldLast: HeldRun?
    }

    func checkpoint() -> Checkpoint {
        Checkpoint(free: free, reusablePageCount: reusablePageCount, heldCount: held.count, heldLast: held.last)
    }

    /// Undoes every change since `checkpoint` was taken, provided `held` was changed only by
    /// `hold`/`appendHeld` since (no `promote`, no `add`/`load`).
    mutating func restore(_ checkpoint: Checkpoint) {
        free = checkpoint.free
        reusablePageCount = checkpoint.reusablePageCount
        if held.count > checkpoint.heldCount { held.removeSubrange(checkpoint.heldCount...) }
        if let last = checkpoint.heldLast, held.count == checkpoint.heldCount { held[held.count - 1] = last }
        blockedPrefix = min(blockedPrefix, held.count)
    }

    /// Moves to `reusable` every held run that no reader needs: no version in `readers` (sorted
    /// ascending, this process) nor in `ranges` (other processes) lies in [allocVersion,
    /// freeVersion), and freeVersion ≤ `durableVersion`.
    ///
    /// Called at every `beginWrite`, so it must not cost O(held) when a reader stays pinned for
    /// many commits (the object layer's stats reader holds one version for a second: ~50,000
    /// commits, and every page of that version rewritten meanwhile is held). Held runs are kept
    /// partitioned: `held[0..<blockedPrefix]` are runs a reader of `blockedReaders`/`blockedRanges`
    /// needs — a property of their versions alone, so while the pins are the same they stay
    /// blocked whatever the durable version, and only the runs after the prefix (those freed since
    /// the last call, or waiting for durability) are examined. The partition is in place, with no
    /// allocation. Which runs are released is exactly the old rule's decision
    /// (`FreeSpaceTests` compares with it over random sets); only the order of `held` differs.
    mutating func promote(readers: [UInt64], ranges: [ClosedRange<UInt64>], durableVersion: UInt64) {
        let count = held.count
        guard count > 0 else { return }
        var start = 0
        if blockedPrefix > 0, blockedPrefix <= count, readers == blockedReaders, ranges == blockedRanges {
            start = blockedPrefix
        }
        if start == count { return }
        var reader = start  // end of the reader-blocked part
        var kept = start    // end of the kept part (reader-blocked, then waiting for durability)
        for index in start..<count {
            let run = held[index]
            if FreeSpace.anyReader(readers, in: run.allocVersion, run.freeVersion)
                || FreeSpace.anyRange(ranges, overlaps: run.allocVersion, run.freeVersion) {
                // Keeps the order reader-blocked | waiting: the first waiting run (if any) moves
                // to the end of the kept part, this run takes its place.
                if reader < kept { held[kept] = held[reader] }
                held[reader] = run
                reader += 1
                kept += 1
            } else if run.freeVersion > durableVersion {
                held[kept] = run
                kept += 1
            } else {
                releaseRun(FreeRun(start: run.start, count: run.count))
            }
        }
        if kept < count { held.removeSubrange(kept..<count) }
        blockedPrefix = reader
        if readers != blockedReaders { blockedReaders = readers }
        if ranges != blockedRanges { blockedRanges = ranges }
        // After a full rescan the prefix may have shrunk (a reader moved on): coalesce again once
        // it has grown by a step from there, not from its old size.
        if start == 0 { coalesceAt = min(coalesceAt, reader + max(FreeSpace.firstCoalesce, reader / 4)) }
        if coalesces, blockedPrefix >= coalesceAt { coalesceBlocked() }
    }

    /// Merges reader-blocked runs of adjacent pages into one run covering both version ranges
    /// ([min allocVersion, max freeVersion)), so that the records stay few while a reader is
    /// pinned: each commit frees a handful of pages of the pinned version, each with its own
    /// versions, and without merging every one is a record — hundreds after a second of small
    /// commits, written to free-list pages (sealed and hashed) by every commit. The pages a
    /// version frees over time are dense in the file, so sorted by page they mostly merge.
    ///
    /// Safe because the merged range contains each part's: a reader or durability condition that
    /// would keep a part held keeps the whole run held, so a page is never reused earlier than
    /// the exact rule allows — only possibly later (a reader pinned inside the widened range but
    /// outside a part's own), and once the pin that blocked them goes (readers move to newer
    /// versions than every part's freeVersion) they are all released together. Merged runs stay
    /// blocked by the readers that blocked their parts, so the prefix stays the prefix.
    /// Runs each time the prefix has grown by max(48, a quarter) runs since: the records stay
    /// near what fits in the meta page, and a sort of n runs is paid once per ≥ n/4 additions.
    mutating func coalesceBlocked() {
        let n = blockedPrefix
        guard n > 1 else { return }
        held[0..<n].sort { $0.start < $1.start }
        var write = 0
        for index in 1..<n {
            let run = held[index]
            if held[write].start &+ held[write].count == run.start {
                held[write].count += run.count
                held[write].allocVersion = min(held[write].allocVersion, run.allocVersion)
                held[write].freeVersion = max(held[write].freeVersion, run.freeVersion)
            } else {
                write += 1
                held[write] = run
            }
        }
        write += 1
        if write < n { held.removeSubrange(write..<n) }
        blockedPrefix = write
        coalesceAt = write + max(FreeSpace.firstCoalesce, write / 4)
    }

    /// The reader-blocked run count at which `promote` first coalesces, and the least growth
    /// between two coalescings (well below the ~150 records that fit in the meta page beside a
    /// small commit's record).
    static let firstCoalesce = 48

    /// Whether a pin range of another process overlaps [low, high).
    @inline(__always)
    static func anyRange(_ ranges: [ClosedRange<UInt64>], overlaps low: UInt64, _ high: UInt64) -> Bool {
        for range in ranges where range.lowerBound < high && range.upperBound >= low { return true }
        return false
    }

    /// Whether a sorted version list has an element in [low, high).
    static func anyReader(_ sorted: [UInt64], in low: UInt64, _ high: UInt64) -> Bool {
        var lo = 0, hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid] < low { lo = mid + 1 } else { hi = mid }
        }
        return lo < sorted.count && sorted[lo] < high
    }

    // MARK: - Persistence

    /// Every record in persisted order: reusable runs (versions 0), then held runs.
    func records() -> [HeldRun] {
        var out: [HeldRun] = []
        out.reserveCapacity(recordCount)
        free.forEach { out.append(HeldRun(start: $0.start, count: $0.count, allocVersion: 0, freeVersion: 0)) }
        out.append(contentsOf: held)
        return out
    }

    /// Every record ordered by first page (a free-list directory's order).
    func sortedRecords() -> [HeldRun] { sortedView().records(startingIn: 0..<(UInt64(UInt32.max) + 1)) }

    /// The records as they are now, ordered by first page, to be read range by range.
    func sortedView() -> SortedRecords {
        SortedRecords(free: free, held: held.sorted { $0.start < $1.start }, count: recordCount)
    }

    /// Writes one 24-byte record (start u32, count u32, allocVersion u64, freeVersion u64).
    static func store(_ r: HeldRun, into at: UnsafeMutableRawPointer) {
        at.storeBytes(of: r.start.littleEndian, as: UInt32.self)
        at.storeBytes(of: r.count.littleEndian, toByteOffset: 4, as: UInt32.self)
        at.storeBytes(of: r.allocVersion.littleEndian, toByteOffset: 8, as: UInt64.self)
        at.storeBytes(of: r.freeVersion.littleEndian, toByteOffset: 16, as: UInt64.self)
    }

    /// Reads one 24-byte record (not validated: see `add(_:pageCount:path:)`).
    static func loadRecord(from at: UnsafeRawPointer) -> HeldRun {
        HeldRun(start: UInt32(littleEndian: at.loadUnaligned(as: UInt32.self)),
                count: UInt32(littleEndian: at.loadUnaligned(fromByteOffset: 4, as: UInt32.self)),
                allocVersion: UInt64(littleEndian: at.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                freeVersion: UInt64(littleEndian: at.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
    }

    /// Adds a persisted record: freeVersion 0 is reusable, otherwise held. Throws `.corruptFile`
    /// when the run leaves the file.
    mutating func add(_ r: HeldRun, pageCount: UInt32, path: String?) throws(StorageError) {
        guard r.start >= MetaLayout.firstDataPage, r.count > 0, UInt64(r.start) + UInt64(r.count) <= UInt64(pageCount) else {
            throw StorageError(.corruptFile, "free-list run \(r.start)+\(r.count) lies outside the file", path: path)
        }
        if r.freeVersion == 0 {
            releaseRun(FreeRun(start: r.start, count: r.count))
        } else {
            held.append(r)
        }
    }

    static func pagesNeeded(records: Int) -> Int {
        (records + FreeListLayout.capacity - 1) / FreeListLayout.capacity
    }

    /// Writes the records into the payloads of `pages` (already allocated, in chain order).
    func serialize(into pages: [(ref: UInt32, payload: UnsafeMutableRawPointer)]) {
        let records = self.records()
        var index = 0
        for (i, page) in pages.enumerated() {
            let payload = page.payload
            payload.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.payloadSize)
            payload.storeBytes(of: PagerPageKind.freeList, toByteOffset: 0, as: UInt8.self)
            let n = min(FreeListLayout.capacity, records.count - index)
            payload.storeBytes(of: UInt32(n).littleEndian, toByteOffset: 4, as: UInt32.self)
            let next: UInt32 = i + 1 < pages.count ? pages[i + 1].ref : 0
            payload.storeBytes(of: next.littleEndian, toByteOffset: 8, as: UInt32.self)
            var offset = FreeListLayout.recordsOffset
            for r in records[index..<(index + n)] {
                FreeSpace.store(r, into: payload + offset)
                offset += FreeListLayout.recordSize
            }
            index += n
        }
    }

    /// Reads one free-list page payload into `self`; returns the next page (0 at the end).
    /// Throws `.corruptFile` when the page is not a free-list page or a run leaves the file.
    mutating func load(payload: UnsafeRawPointer, pageCount: UInt32, path: String?) throws(StorageError) -> UInt32 {
        let page = try FreeSpace.pageRecords(payload: payload, path: path)
        for record in page.records { try add(record, pageCount: pageCount, path: path) }
        return page.next
    }

    /// The records of one free-list page payload, and its next page (0 at the end). Throws
    /// `.corruptFile` when the page is not a free-list page or claims more records than it holds.
    static func pageRecords(payload: UnsafeRawPointer, path: String?) throws(StorageError) -> (records: [HeldRun], next: UInt32) {
        guard payload.load(fromByteOffset: 0, as: UInt8.self) == PagerPageKind.freeList else {
            throw StorageError(.corruptFile, "free-list chain points at a page of another kind", path: path)
        }
        let n = Int(UInt32(littleEndian: payload.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        guard n <= FreeListLayout.capacity else {
            throw StorageError(.corruptFile, "free-list page claims \(n) records", path: path)
        }
        var records: [HeldRun] = []
        records.reserveCapacity(n)
        var offset = FreeListLayout.recordsOffset
        for _ in 0..<n {
            records.append(FreeSpace.loadRecord(from: payload + offset))
            offset += FreeListLayout.recordSize
        }
        return (records, UInt32(littleEndian: payload.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
    }
}

/// A free space's records ordered by first page (FreeListDirectory.swift). It keeps the reusable
/// runs by value (shared copy-on-write, so taking it copies nothing), so a later view can find
/// what changed since (`changedSpans`). A class: a directory keeps one as its basis, and a
/// one-pointer basis keeps the writer's per-commit handling of the directory (FileCore, the
/// commit's step 2) as cheap as when it had none (measured: held inline, it cost the small
/// commit ~2% CPU).
final class SortedRecords {
    let free: FreeRunSet
    /// Sorted by start.
    let held: [HeldRun]
    let count: Int
    /// `free`'s chunks, taken the first time a comparison needs them: a view is compared with
    /// the directory's basis in every planning round, and the basis in every round of a commit.
    private lazy var chunkStorages: [FreeRunSet.ChunkStorage] = free.storages()

    init(free: FreeRunSet, held: [HeldRun], count: Int) {
        self.free = free
        self.held = held
        self.count = count
    }

    /// The records whose first page lies in `range`, in order.
    ///
    /// This merge walk and the one in `records(startingIn:equal:)` are written out twice on
    /// purpose: one shared walk calling a closure per record cost batched commits 5–8% CPU
    /// (large commits list many records), more than the duplication costs to keep in step.
    func records(startingIn range: Range<UInt64>) -> [HeldRun] {
        var out: [HeldRun] = []
        var h = lowerBound(range.lowerBound)
        free.forEachRun(startingIn: range) { run in
            while h < held.count, held[h].start < run.start {
                out.append(held[h])
                h += 1
            }
            out.append(HeldRun(start: run.start, count: run.count, allocVersion: 0, freeVersion: 0))
        }
        while h < held.count, UInt64(held[h].start) < range.upperBound {
            out.append(held[h])
            h += 1
        }
        return out
    }

    /// How many records have their first page in `range` (what `records(startingIn:)` would
    /// return, without building it).
    func count(startingIn range: Range<UInt64>) -> Int {
        var n = lowerBound(range.upperBound) - lowerBound(range.lowerBound)
        free.forEachRun(startingIn: range) { _ in n += 1 }
        return n
    }

    /// Whether the records with their first page in `range` are exactly `expected`, in order
    /// (what comparing `records(startingIn:)` with it says, without building it).
    func records(startingIn range: Range<UInt64>, equal expected: [HeldRun]) -> Bool {
        guard count(startingIn: range) == expected.count else { return false }
        // No nested function here: one that captures these counters and is called from the
        // closure gets them boxed with dynamic exclusivity checks, which a profile at 10M objects
        // showed at a third of this function.
        var same = true
        var e = 0
        var h = lowerBound(range.lowerBound)
        let held = self.held
        free.forEachRun(startingIn: range) { run in
            while h < held.count, held[h].start < run.start {
                same = same && held[h] == expected[e]
                e += 1
                h += 1
            }
            same = same && HeldRun(start: run.start, count: run.count, allocVersion: 0, freeVersion: 0) == expected[e]
            e += 1
        }
        while h < held.count, UInt64(held[h].start) < range.upperBound {
            same = same && held[h] == expected[e]
            e += 1
            h += 1
        }
        return same
    }

    /// The spans of first pages where these records may differ from `earlier`'s (a view of the
    /// same free space taken before): the reusable runs' changed chunks and every held record
    /// in one view and not the other. Outside them the records are the same.
    func changedSpans(since earlier: SortedRecords) -> [ClosedRange<UInt32>] {
        var spans = FreeRunSet.changedSpans(chunkStorages, since: earlier.chunkStorages)
        var a = 0, b = 0
        while a < held.count || b < earlier.held.count {
            if a < held.count, b < earlier.held.count, held[a] == earlier.held[b] {
                a += 1
                b += 1
            } else if b == earlier.held.count || (a < held.count && held[a].start <= earlier.held[b].start) {
                spans.append(held[a].start...held[a].start)
                a += 1
            } else {
                spans.append(earlier.held[b].start...earlier.held[b].start)
                b += 1
            }
        }
        return spans
    }

    private func lowerBound(_ start: UInt64) -> Int {
        var low = 0, high = held.count
        while low < high {
            let mid = (low + high) / 2
            if UInt64(held[mid].start) < start { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
