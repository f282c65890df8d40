// Page checksums by kind: the stripe hash (kind 1, every page written now) is pinned, sensitive to
// every byte, bit, word order and the page number; pages of kind 0 (XXH64) still
// verify, an unknown kind never does, and a plain file written entirely with kind 0 pages and
// slots resealed opens, reads, and takes new commits.

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
        // The same page as an older build wrote it: kind 0, XXH64.
        image.storeBytes(of: PageHeader.kindXXH64, toByteOffset: PageHeader.checksumKindOffset, as: UInt8.self)
        #expect(!PageStore.checksumMatches(UnsafeRawPointer(image), page: 12), "kind changed, checksum not")
        let old = xxHash64(UnsafeRawPointer(image) + 8, count: PageLayout.pageSize - 8, seed: 12)
        image.storeBytes(of: old.littleEndian, toByteOffset: 0, as: UInt64.self)
        #expect(PageStore.checksumMatches(UnsafeRawPointer(image), page: 12))
        // An unknown kind never verifies, whatever the checksum.
        image.storeBytes(of: UInt8(2), toByteOffset: PageHeader.checksumKindOffset, as: UInt8.self)
        image.storeBytes(of: xxHash64(UnsafeRawPointer(image) + 8, count: PageLayout.pageSize - 8, seed: 12).littleEndian,
                         toByteOffset: 0, as: UInt64.self)
        #expect(!PageStore.checksumMatches(UnsafeRawPointer(image), page: 12))
        image.storeBytes(of: stripeHash64(UnsafeRawPointer(image) + 8, count: PageLayout.pageSize - 8, seed: 12).littleEndian,
                         toByteOffset: 0, as: UInt64.self)
        #expect(!PageStore.checksumMatches(UnsafeRawPointer(image), page: 12))
    }

    /// Rewrites a plain file as an older build wrote it: every page checksum kind 0 (XXH64), the
    /// commit entries updated, every slot resealed. Returns how many pages were converted.
    private func convertToOlderBuild(_ path: String) throws -> Int {
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
            image.storeBytes(of: PageHeader.kindXXH64, toByteOffset: PageHeader.checksumKindOffset, as: UInt8.self)
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

    /// Counts the data pages of each checksum kind that verify.
    private func kinds(_ path: String) throws -> [UInt8: Int] {
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var result: [UInt8: Int] = [:]
        let image = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { image.deallocate() }
        var page = Int(MetaLayout.firstDataPage)
        while pread(fd, image, PageLayout.pageSize, off_t(page * PageLayout.pageSize)) == PageLayout.pageSize {
            if PageStore.checksumMatches(UnsafeRawPointer(image), page: page) {
                result[image.load(fromByteOffset: PageHeader.checksumKindOffset, as: UInt8.self), default: 0] += 1
            }
            page += 1
        }
        return result
    }

    private func counter(_ path: String) throws -> UInt64? {
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        let txn = try file.beginRead()
        defer { txn.end() }
        return try readCounter(txn, roots: txn.roots)
    }

    @Test func aPlainFileOfAnOlderBuildOpensAndTakesNewCommits() throws {
        let dir = TemporaryDirectory()
        do {
            let file = try StorageFile.open(StorageOptions(path: dir.file()))
            defer { file.close() }
            for value: UInt64 in 1...6 { try commitCounter(file, value: value) }
        }
        #expect(try convertToOlderBuild(dir.file()) > 0)
        #expect(try kinds(dir.file())[PageHeader.kindStripe] == nil)
        #expect(try counter(dir.file()) == 6)
        do {
            let file = try StorageFile.open(StorageOptions(path: dir.file()))
            defer { file.close() }
            for value: UInt64 in 7...9 { try commitCounter(file, value: value) }
        }
        #expect(try counter(dir.file()) == 9)
        let after = try kinds(dir.file())
        #expect(after[PageHeader.kindStripe, default: 0] > 0)
    }
}
