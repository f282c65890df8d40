// Growth of an encrypted file maps in the decrypted range behind the new pages in one call
// (PageStore.prefault), so the writer does not take a page fault per new page.

import Foundation
import Testing
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

@Suite("Prefault on growth")
struct PrefaultTests {
    /// Resident pages among `count` pages of the store's range from `first` (mincore).
    private func residentPages(_ store: PageStore, from first: Int, count: Int) -> Int {
        var vector = [UInt8](repeating: 0, count: count)
        let result = vector.withUnsafeMutableBufferPointer {
            mincore(store.pageAddress(first), count * PageLayout.pageSize, $0.baseAddress)
        }
        guard result == 0 else { return -1 }
        return vector.filter { $0 & 1 != 0 }.count
    }

    @Test func encryptedGrowthMapsInTheNewPagesDecryptedRange() throws {
        let dir = TemporaryDirectory()
        let key = (0..<64).map { UInt8(255 - $0) }
        let file = try StorageFile.open(StorageOptions(path: dir.file("enc.strata"), durability: .unsafe, encryptionKey: key))
        defer { file.close() }
        let store = file.core.store
        let before = file.core.fileSizePages
        let txn = try file.beginWrite()
        var first: PageRef? = nil
        while file.core.fileSizePages == before {
            let (ref, payload) = try txn.allocatePage()
            payload.storeBytes(of: UInt64(ref.raw), as: UInt64.self)
            first = first ?? ref
        }
        txn.roots[0] = UInt64(first?.raw ?? 0)
        try txn.commit()
        let after = file.core.fileSizePages
        // Growth comes in steps of at least 256 pages, far more than the writer has touched yet.
        #expect(after - before >= 256)
        #expect(residentPages(store, from: before, count: after - before) == after - before)
        // The file itself is untouched by the prefault: its pages verify after a reopen.
        file.close()
        let reopened = try StorageFile.open(StorageOptions(path: dir.file("enc.strata"), durability: .unsafe, encryptionKey: key))
        defer { reopened.close() }
        #expect(try reopened.verify().balances)
        let reader = try reopened.beginRead()
        defer { reader.end() }
        let root = PageRef(UInt32(reader.roots[0]))
        #expect(try reader.readPage(root).load(as: UInt64.self) == UInt64(root.raw))
    }
}
