// The page checksum: the stripe hash (kind 1, the only kind) is pinned, sensitive to every byte,
// bit, word order and the page number; a page of any other kind — kind 0 (XXH64) of an earlier
// build included — never verifies, and a file holding such pages is refused with `.corruptPage`
// naming the kind, and left unchanged.

import Foundation
import Testing
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

@Suite struct PageChecksumTests {
    /// A page-sized buffer filled with a fixed pseudo-random pattern.
    private func patternPage() -> UnsafeMutableRawPointer {
        let page = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: 16)
        var x: UInt64 = 0x0123_4567_89AB_CDEF
        for i in 0..<(PageLayout.pageSize / 8) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            page.storeBytes(of: x, toByteOffset: 8 * i, as: UInt64.self)
        }
        return page
    }

    private func body(_ page: UnsafeMutableRawPointer, seed: UInt64 = 9) -> UInt64 {
        stripeHash64(UnsafeRawPointer(page) + 8, count: PageLayout.pageSize - 8, seed: seed)
    }

    /// The checksum is an on-disk format: its values must never change.
    @Test func stripeHashValuesArePinned() {
        let page = patternPage()
        defer { page.deallocate() }
        #expect(body(page, seed: 9) == 15771883574001416073)
        #expect(body(page, seed: 10) == 9520237099453387870)
        #expect(stripeHash64(UnsafeRawPointer(page), count: 64, seed: 0) == 4769534116338535935)
        #expect(stripeHash64(UnsafeRawPointer(page), count: 1000, seed: 77) == 10313296609315571043)
        // Below one stripe it is XXH64.
        #expect(stripeHash64(UnsafeRawPointer(page), count: 63, seed: 5) == xxHash64(UnsafeRawPointer(page), count: 63, seed: 5))
    }

    @Test func everyByteAndEveryBitOfTheEdgesChangeTheHash() {
        let page = patternPage()
        defer { page.deallocate() }
        let reference = body(page)
        var missed: [Int] = []
        // One bit in every byte (the bit moves with the position)...
        for offset in 8..<PageLayout.pageSize {
            let mask = UInt8(1) << UInt8(offset % 8)
            let byte = page.load(fromByteOffset: offset, as: UInt8.self)
            page.storeBytes(of: byte ^ mask, toByteOffset: offset, as: UInt8.self)
            if body(page) == reference { missed.append(offset * 8 + offset % 8) }
            page.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
        }
        // ...and every bit of the first stripe, the bytes around the first scramble, and the
        // overlapping last stripe.
        let ranges = [8..<72, 1024..<1048, (PageLayout.pageSize - 72)..<PageLayout.pageSize]
        for range in ranges {
            for offset in range {
                let byte = page.load(fromByteOffset: offset, as: UInt8.self)
                for bit in 0..<8 {
                    page.storeBytes(of: byte ^ (1 << UInt8(bit)), toByteOffset: offset, as: UInt8.self)
                    if body(page) == reference { missed.append(offset * 8 + bit) }
                }
                page.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
            }
        }
        #expect(missed.isEmpty, "bit flips not detected: \(missed.prefix(10))")
        #expect(body(page) == reference)
    }

    @Test func wordOrderAndThePageNumberChangeTheHash() {
        let page = patternPage()
        defer { page.deallocate() }
        let reference = body(page)
        #expect(body(page, seed: 10) != reference)
        /// Swaps two 8-byte words (offsets relative to the hashed body), hashes, swaps back.
        func swapped(_ a: Int, _ b: Int) -> UInt64 {
            let x = page.load(fromByteOffset: 8 + a, as: UInt64.self)
            let y = page.load(fromByteOffset: 8 + b, as: UInt64.self)
            page.storeBytes(of: y, toByteOffset: 8 + a, as: UInt64.self)
            page.storeBytes(of: x, toByteOffset: 8 + b, as: UInt64.self)
            defer {
                page.storeBytes(of: x, toByteOffset: 8 + a, as: UInt64.self)
                page.storeBytes(of: y, toByteOffset: 8 + b, as: UInt64.self)
            }
            return body(page)
        }
        #expect(swapped(0, 8) != reference, "the two words of one lane pair")
        #expect(swapped(0, 64) != reference, "one lane of consecutive stripes")
        #expect(swapped(0, 1024) != reference, "one lane across a scramble")
        #expect(swapped(16, 4072) != reference, "into the last stripe")
        // The same content at another page number: different checksum, so a page copied to another
        // offset fails (checksumMatches also compares the stored page number).
        let zeros = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: 16)
        defer { zeros.deallocate() }
        zeros.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.pageSize)
        #expect(body(zeros, seed: 8) != body(zeros, seed: 9))
        #expect(body(zeros, seed: 8) != 0)
    }

    @Test func pagesVerifyByTheirKindByte() throws {
        let image = patternPage()
        defer { image.deallocate() }
        _ = try PageStore.seal(image, page: 12, version: 3, cipher: nil, sealed: image, path: nil)
        #expect(image.load(fromByteOffset: PageHeader.checksumKindOffset, as: UInt8.self) == PageHeader.kindStripe)
        #expect(PageStore.checksumMatches(UnsafeRawPointer(image), page: 12))
        #expect(!PageStore.checksumMatches(UnsafeRawPointer(image), page: 13))
        #expect(PageStore.checksumFailure(UnsafeRawPointer(image), page: 13) == "page 13 fails its checksum")
        // Any other kind never verifies, whatever the checksum — kind 0 (XXH64, an earlier
        // build's) with its own checksum included — and the refusal names the kind.
        for kind: UInt8 in [0, 2, 255] {
            image.storeBytes(of: kind, toByteOffset: PageHeader.checksumKindOffset, as: UInt8.self)
            for sum in [xxHash64(UnsafeRawPointer(image) + 8, count: PageLayout.pageSize - 8, seed: 12),
                        stripeHash64(UnsafeRawPointer(image) + 8, count: PageLayout.pageSize - 8, seed: 12)] {
                image.storeBytes(of: sum.littleEndian, toByteOffset: 0, as: UInt64.self)
                #expect(!PageStore.checksumMatches(UnsafeRawPointer(image), page: 12), "kind \(kind)")
            }
            #expect(PageStore.checksumFailure(UnsafeRawPointer(image), page: 12).contains("checksum kind \(kind)"))
        }
    }

    /// Rewrites a plain file as an earlier build wrote it: every page checksum kind 0 (XXH64), the
    /// commit entries updated, every slot resealed. Returns how many pages were converted.
    private func convertToEarlierChecksumKind(_ path: String) throws -> Int {
        let fd = open(path, O_RDWR)
        try #require(fd >= 0)
        defer { close(fd) }
        var info = stat()
        try #require(fstat(fd, &info) == 0)
        let size = Int(info.st_size)
        let file = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: PageLayout.pageSize)
        defer { file.deallocate() }
        try #require(pread(fd, file, size, 0) == size)
        var renamed: [UInt32: (old: UInt64, new: UInt64)] = [:]
        for page in Int(MetaLayout.firstDataPage)..<(size / PageLayout.pageSize) {
            let image = file + page * PageLayout.pageSize
            guard image.load(fromByteOffset: PageHeader.checksumKindOffset, as: UInt8.self) == PageHeader.kindStripe,
                  PageStore.checksumMatches(UnsafeRawPointer(image), page: page) else { continue }
            let old = image.loadUnaligned(as: UInt64.self)
            image.storeBytes(of: UInt8(0), toByteOffset: PageHeader.checksumKindOffset, as: UInt8.self)
            let new = xxHash64(UnsafeRawPointer(image) + 8, count: PageLayout.pageSize - 8, seed: UInt64(page))
            image.storeBytes(of: new.littleEndian, as: UInt64.self)
            renamed[UInt32(page)] = (UInt64(littleEndian: old), new)
        }
        for slot in 0..<MetaLayout.slotCount {
            let page = file + slot * PageLayout.pageSize
            guard case .success(var meta) = MetaState.decode(UnsafeRawPointer(page)) else { continue }
            try #require(meta.overflowHead == 0, "the test file's commit records fit in the meta")
            for i in meta.inlineEntries.indices {
                if let change = renamed[meta.inlineEntries[i].page], change.old == meta.inlineEntries[i].checksum {
                    meta.inlineEntries[i].checksum = change.new
                }
            }
            meta.encode(into: page)
            try FileCore.sealMeta(page, cipher: nil, path: nil)
        }
        try #require(pwrite(fd, file, size, 0) == size)
        return renamed.count
    }

    @Test func aFileWithPagesOfAnEarlierChecksumKindIsRefusedNamingIt() throws {
        let dir = TemporaryDirectory()
        do {
            let file = try StorageFile.open(StorageOptions(path: dir.file()))
            defer { file.close() }
            for value: UInt64 in 1...6 { try commitCounter(file, value: value) }
        }
        #expect(try convertToEarlierChecksumKind(dir.file()) > 0)
        let before = try #require(FileManager.default.contents(atPath: dir.file()))
        for verification in [OpenVerification.allPages, .newestCommitsOnly] {
            #expect {
                let file = try StorageFile.open(StorageOptions(path: dir.file(), openVerification: verification))
                defer { file.close() }
                let txn = try file.beginRead()
                defer { txn.end() }
                _ = try readCounter(txn, roots: txn.roots)
            } throws: { error in
                let error = error as? StorageError
                return (error?.code == .corruptPage || error?.code == .corruptFile)
                    && error?.message.contains("checksum kind 0 (XXH64") == true
            }
        }
        #expect(FileManager.default.contents(atPath: dir.file()) == before, "the refused file was changed")
    }
}
