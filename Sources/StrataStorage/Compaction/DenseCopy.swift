// Dense copy: the newest version's live pages renumbered into [8, 8 + live) of a new file.
//
// The walk is breadth-first over one FIFO of pages: a page gets its new number when it is first
// reached (number = 8 + its position in the FIFO), so pages are processed, and written, in
// ascending new-number order — the output is one sequential stream of 1 MiB pwrites. Each tree's
// pages of one level are numbered together, so a tree's leaves end up contiguous. Processing a
// page copies its payload, rewrites its child references (branch children, overflow heads and
// next pages: `TreePages.rewriteChildren`) and the page references the relocation plan reports
// inside its leaf values, then seals it (plain checksum or AEAD with the destination key).
//
// Invariants:
// - Every page reached is inside the version, not free, held or a pager page, and reached once
//   (otherwise `.corruptFile`): a copy of a damaged file fails instead of copying garbage.
// - The pages reached are exactly the version's live pages (total − meta − free − held − pager
//   pages), otherwise `.corruptFile`: a plan that misses a tree never drops it silently.
// - A reference inside an overflow value may straddle two chain pages; the bytes of its new value
//   are recorded per chain page (`overflowPatches`) before that page is processed (chain pages
//   are always reached after the leaf that holds the chain).
// - The new file has no free pages: pageCount = 8 + reachable pages, an empty free list, every
//   page stamped with the copied version (no reader of the new file is older).
// - Data pages are fsynced, then read back and walked (CopyVerification.swift), before the meta
//   ring is written and fsynced: the copy is either complete, verified and with a valid meta, or
//   has no valid meta at all (and is removed).

#if canImport(Glibc)
import Glibc
#endif

/// What a dense copy did.
struct DenseCopyStatistics: Equatable {
    /// Pages written for trees (the live data).
    var livePages: Int
    /// Pages of the new file (meta ring + live pages).
    var pageCount: Int
}

/// One dense copy in progress: the FIFO of old pages and their new numbers. Confined to the
/// thread of the copy (the caller holds the writer).
private struct DenseCopier {
    static let unassigned: UInt32 = 0
    /// Marks free, held and pager pages: reaching one is corruption.
    static let notLive: UInt32 = .max

    let path: String?
    let pageCount: UInt32
    /// New number of each old page (0: not reached yet).
    var newNumber: [UInt32]
    /// The FIFO: old page numbers in new-number order, with the role index of their tree.
    var order: [UInt32] = []
    var roleOf: [UInt16] = []
    var roles: [TreeRole] = []
    var roleIndex: [TreeRole: UInt16] = [:]
    var shapes: [ValueReferences] = []
    /// Bytes to store into not-yet-processed overflow pages: (payload offset, byte).
    var overflowPatches: [UInt32: [(offset: Int, byte: UInt8)]] = [:]

    init(pageCount: UInt32, path: String?) {
        self.pageCount = pageCount
        self.path = path
        newNumber = [UInt32](repeating: DenseCopier.unassigned, count: Int(pageCount))
        notLiveCount = min(Int(pageCount), MetaLayout.headerPages)
        for p in 0..<notLiveCount { newNumber[p] = DenseCopier.notLive }
    }

    /// Pages of the version that are not live (meta ring included).
    var notLiveCount: Int

    mutating func markNotLive(_ start: UInt32, _ count: UInt32) {
        var p = Int(start)
        let end = min(Int(start) + Int(count), Int(pageCount))
        while p < end {
            if newNumber[p] != DenseCopier.notLive { notLiveCount += 1 }
            newNumber[p] = DenseCopier.notLive
            p += 1
        }
    }

    mutating func index(of role: TreeRole, plan: any RelocationPlan) throws(StorageError) -> UInt16 {
        if let known = roleIndex[role] { return known }
        guard roles.count < Int(UInt16.max) else {
            throw StorageError(.tooLarge, "more than \(UInt16.max) kinds of trees in one version", path: path)
        }
        let index = UInt16(roles.count)
        roles.append(role)
        shapes.append(plan.valueReferences(for: role))
        roleIndex[role] = index
        return index
    }

    /// Gives `ref` the next new number and queues it; `.corruptFile` when it cannot be live.
    @inline(__always)
    mutating func reach(_ ref: PageRef, role: UInt16) throws(StorageError) -> UInt32 {
        let old = ref.raw
        guard old >= MetaLayout.firstDataPage, old < pageCount else {
            throw StorageError(.corruptFile, "reference to \(ref) outside the version's \(pageCount) pages", path: path)
        }
        switch newNumber[Int(old)] {
        case DenseCopier.unassigned: break
        case DenseCopier.notLive:
            throw StorageError(.corruptFile, "\(ref) is referenced but free, held for a reader, or a pager page", path: path)
        default:
            throw StorageError(.corruptFile, "\(ref) is referenced twice", path: path)
        }
        let number = MetaLayout.firstDataPage + UInt32(order.count)
        newNumber[Int(old)] = number
        order.append(old)
        roleOf.append(role)
        return number
    }
}

extension FileCore {
    /// Writes the newest version densely into the empty file `out` (named `destination`, for
    /// errors) sealed with `target`, walking the trees through `relocator`, and fsyncs it. The
    /// caller holds the writer, and removes the file on error (CopyTemporary.swift).
    @discardableResult
    func copyDensely(into out: Int32, path destination: String, cipher target: PageCipher?,
                     relocator: any PageRelocating) throws(StorageError) -> DenseCopyStatistics {
        let current = try currentVersion()
        let reader = ReadTransaction(core: self, snapshot: current, pinned: false)
        var copier = DenseCopier(pageCount: current.pageCount, path: path)
        for run in freeSpace.reusable { copier.markNotLive(run.start, run.count) }
        for run in freeSpace.held { copier.markNotLive(run.start, run.count) }
        for p in freeListPages + overflowPages { copier.markNotLive(p, 1) }

        let plan: any RelocationPlan
        do { plan = try relocator.plan(for: current.roots, in: reader) } catch {
            throw Self.walkError(error, path: path)
        }
        var roots = current.roots
        for (word, role) in plan.rootTrees {
            guard word >= 0, word < UserRoots.count else {
                throw StorageError(.invalidArgument, "the relocation plan names user root \(word) (of \(UserRoots.count))", path: path)
            }
            let root = PageRef(UInt32(truncatingIfNeeded: roots[word]))
            guard !root.isNull else { continue }
            let index = try copier.index(of: role, plan: plan)
            roots[word] = UInt64(try copier.reach(root, role: index))
        }
        for entry in plan.rootDataTrees {
            guard let root = roots.dataReference(at: entry.offset), !root.isNull else { continue }
            let index = try copier.index(of: entry.role, plan: plan)
            roots.setDataReference(try copier.reach(root, role: index), at: entry.offset)
        }

        // 1 MiB per pwrite (larger batches were measured no faster).
        let batchPages = 256
        let batch = UnsafeMutableRawPointer.allocate(byteCount: batchPages * PageLayout.pageSize, alignment: PageLayout.pageSize)
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { batch.deallocate(); scratch.deallocate() }
        var batchStart = 0
        var next = 0
        while next < copier.order.count {
            let old = copier.order[next]
            let role = copier.roleOf[next]
            let slot = batch + (next - batchStart) * PageLayout.pageSize
            let image = target == nil ? slot : scratch
            let source = try store.payload(PageRef(old), limit: current.pageCount)
            let payload = image + PageLayout.headerSize
            payload.copyMemory(from: source, byteCount: PageLayout.payloadSize)
            do {
                try TreePages.rewriteChildren(payload: payload) { child throws(StorageError) in
                    PageRef(try copier.reach(child, role: role))
                }
                let kind = source.load(as: UInt8.self)
                if kind == TreePageKind.overflow {
                    if let patches = copier.overflowPatches.removeValue(forKey: old) {
                        for patch in patches { payload.storeBytes(of: patch.byte, toByteOffset: patch.offset, as: UInt8.self) }
                    }
                } else if case .none = copier.shapes[Int(role)] {
                    // No references in values.
                } else {
                    try RelocationWalk.forEachEmbeddedRoot(
                        leaf: source, ref: PageRef(old), role: copier.roles[Int(role)],
                        references: copier.shapes[Int(role)], plan: plan, pages: reader
                    ) { embedded, embeddedRole, location in
                        let index = try copier.index(of: embeddedRole, plan: plan)
                        let number = try copier.reach(embedded, role: index)
                        switch location {
                        case .inline(let offset):
                            payload.setTreeU32(offset, number)
                        case .overflow(let first, let valueOffset, let length):
                            let chain = try RelocationWalk.chainPages(first: first, length: length, pages: reader)
                            for b in 0..<4 {
                                let (chainIndex, offset) = RelocationWalk.overflowPosition(ofValueByte: valueOffset + b)
                                guard chainIndex < chain.count else {
                                    throw StorageError(.corruptFile, "overflow value shorter than its reference", path: path)
                                }
                                copier.overflowPatches[chain[chainIndex].raw, default: []]
                                    .append((offset, UInt8(truncatingIfNeeded: number >> (8 * UInt32(b)))))
                            }
                        }
                    }
                }
            } catch {
                throw Self.walkError(error, path: path)
            }
            _ = try PageStore.seal(image, page: MetaLayout.firstDataPage + UInt32(next), version: current.version,
                                   cipher: target, sealed: slot, path: destination)
            next += 1
            if next - batchStart == batchPages || next == copier.order.count {
                try writeCopyBatch(out, batch, pages: next - batchStart,
                                   at: (Int(MetaLayout.firstDataPage) + batchStart) * PageLayout.pageSize, path: destination)
                batchStart = next
            }
        }
        // Page accounting: every page is meta, free, held, a pager page or reached. A plan that
        // misses a tree (e.g. a new kind of root it does not know) would drop it: refuse.
        let expectedLive = Int(current.pageCount) - copier.notLiveCount
        guard copier.order.count == expectedLive else {
            throw StorageError(.corruptFile, "the relocation walk reached \(copier.order.count) pages but the version has \(expectedLive) live pages (a tree is missing from the relocation plan, or pages leaked)", path: path)
        }
        guard copier.overflowPatches.isEmpty else {
            throw StorageError(.corruptFile, "a reference inside an overflow value points into a chain that was not copied", path: path)
        }
        let newPageCount = Int(MetaLayout.firstDataPage) + copier.order.count
        guard fdatasync(out) == 0 else { throw ioError("fdatasync", errno, path: destination) }
        // Read back and walked independently before a meta makes the copy a valid file.
        try FileCore.verifyDenseCopy(fd: out, pageCount: newPageCount, roots: roots, cipher: target,
                                     relocator: relocator, path: destination)

        var meta = MetaState()
        meta.version = current.version
        meta.roots = roots
        meta.freeListHead = 0
        meta.freeListPageCount = 0
        meta.pageCount = UInt32(newPageCount)
        meta.encrypted = target != nil
        meta.keyCheck = target?.keyCheck ?? []
        meta.durableBase = current.version
        meta.inlineEntries = []
        meta.totalEntries = 0
        try writeCopyMeta(out, meta, cipher: target, path: destination)
        return DenseCopyStatistics(livePages: copier.order.count, pageCount: newPageCount)
    }

    /// One batch of sealed pages; honours the injected write error (test hook, writer-owned).
    func writeCopyBatch(_ out: Int32, _ batch: UnsafeRawPointer, pages: Int, at offset: Int, path: String) throws(StorageError) {
        if injectedWriteErrno != 0 {
            let code = injectedWriteErrno
            injectedWriteErrno = 0
            throw ioError("pwrite", code, path: path)
        }
        try pwriteFully(out, batch, pages * PageLayout.pageSize, offset, path: path)
        // Start writing the batch back now, so the disk works while the next batches are copied
        // and the final fdatasync waits only for the tail. Advisory: a failure shows at fdatasync.
        _ = FileCore.startWriteback?(out, Int64(offset), Int64(pages * PageLayout.pageSize), FileCore.syncFileRangeWrite)
    }

    /// glibc's `sync_file_range` (not exported by Swift's Glibc module: looked up once).
    private static let startWriteback: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
    }()
    /// SYNC_FILE_RANGE_WRITE: start writeback of dirty pages in the range, do not wait.
    private static let syncFileRangeWrite: UInt32 = 2

    /// Writes the header of a copy (only `meta.version`'s slot valid, the durability record naming
    /// it) and makes the copy durable.
    func writeCopyMeta(_ out: Int32, _ meta: MetaState, cipher target: PageCipher?, path: String) throws(StorageError) {
        try FileCore.writeHeader(of: meta, cipher: target, to: out, path: path)
        guard fsync(out) == 0 else { throw ioError("fsync", errno, path: path) }
    }

    /// A walk failure as a typed error: storage errors as they are, anything else (the plan's
    /// own errors) as `.corruptFile` naming it.
    static func walkError(_ error: any Error, path: String?) -> StorageError {
        if let error = error as? StorageError { return error }
        return StorageError(.corruptFile, "the relocation plan failed: \(error)", path: path)
    }
}
