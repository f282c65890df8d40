// Verification of a version's stored pages before the file is used (FileOpen.swift).
//
// Why at open: a read that meets a damaged page can only throw where its caller can; the object
// layer's property getters and iterators cannot, and a damaged page must never read back as
// fewer rows or default values. Verifying up front turns damage that is already in the file into
// one typed error at `open`, the call every program handles.
//
// Invariants:
// - Every page below the version's page count that its free space does not list (free or held
//   for older readers) is verified through the page store (`PageStore.verify`). Plain pages are
//   then marked verified, so the first reads do not check them again; encrypted pages are
//   authenticated into a scratch page and decrypted again when first read, because keeping every
//   plaintext would make the whole file resident at open (populating that memory cost as much as
//   the decryption, `strata-storage-probe bench-open`).
// - Pages listed as free or held are not read: their content belongs to no version open can reach.

extension FileCore {
    /// Verifies every stored page of `meta` when `options.openVerification` covers its size.
    /// Throws the first failure (`.corruptPage` naming the page, `.corruptFile`, `.truncatedFile`).
    func verifyStoredPages(of meta: MetaState) throws(StorageError) {
        let pageCount = Int(meta.pageCount)
        guard fd >= 0, options.openVerification.coversAllPages(ofBytes: pageCount * PageLayout.pageSize) else { return }
        var unused = [Bool](repeating: false, count: pageCount)
        func markUnused(_ start: UInt32, _ count: UInt32) {
            let end = min(pageCount, Int(start) + Int(count))
            if Int(start) < end { for p in Int(start)..<end { unused[p] = true } }
        }
        for run in freeSpace.reusable { markUnused(run.start, run.count) }
        for run in freeSpace.held { markUnused(run.start, run.count) }
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { scratch.deallocate() }
        var page = Int(MetaLayout.firstDataPage)
        while page < pageCount {
            if !unused[page] { try store.verify(page, scratch: scratch) }
            page += 1
        }
    }

    /// Gives up ownership of `fd` (a core discarded during open).
    func releaseDescriptor() { ownsDescriptor = false }
}
