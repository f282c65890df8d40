// Compact sealing (storage format 6): an encrypted tree page is sealed without its free space.
// The compact form rebuilds every kept byte and zero-fills the slack; a header that does not
// describe its compact length is refused; every byte of a compact page on disk is checked, the
// zeros after its ciphertext too; a page with no compact form is sealed whole; and a file whose
// pages were sealed whole with fully random nonces, as format 5 wrote them, is still read.

import Foundation
import Testing
@testable import StrataStorage

@Suite struct CompactSealingTests {
    static let size = PageLayout.payloadSize

    /// A slotted page of `kind`: `count` slots, the cell area from `cellStart`, random bytes in
    /// both and 0xEE in the gap between them.
    static func slottedPage(kind: UInt8, count: Int, cellStart: Int, seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        var page = (0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }
        page[0] = kind
        page[1] = 0
        page[2] = UInt8(count & 0xFF); page[3] = UInt8(count >> 8)
        page[4] = UInt8(cellStart & 0xFF); page[5] = UInt8(cellStart >> 8)
        for i in (16 + 2 * count)..<max(16 + 2 * count, cellStart) { page[i] = 0xEE }
        return page
    }

    /// A packed leaf: key width 2, `count` of `capacity` entries, value length 5 with planes 0, 2
    /// and 4 stored; unused entries and the bytes after the last plane zero, as the layout keeps them.
    static func packedPage(count: Int, seed: UInt64) -> (page: [UInt8], capacity: Int) {
        var rng = SplitMix64(seed: seed)
        let width = 2, length = 5, stored = [0, 2, 4]
        let capacity = PackedLayout.capacity(valueLength: length, storedPlanes: stored.count, keyWidth: width)
        var page = [UInt8](repeating: 0, count: size)
        page.withUnsafeMutableBytes {
            PackedLayout.writeHeader($0.baseAddress!, keyWidth: width, count: count, valueLength: length,
                                     capacity: capacity, keyBase: 1_000)
        }
        page[PackedLayout.bitmapOffset] = 0b10101
        let template = PackedLayout.bitmapOffset + 1
        for j in 0..<length { page[template + j] = stored.contains(j) ? 0 : UInt8(0x40 + j) }
        let offsets = template + length
        for i in 0..<count * width { page[offsets + i] = UInt8.random(in: 1...255, using: &rng) }
        let planes = offsets + capacity * width
        for column in 0..<stored.count {
            for i in 0..<count { page[planes + column * capacity + i] = UInt8.random(in: 1...255, using: &rng) }
        }
        return (page, capacity)
    }

    /// Compacts `page`, then expands the compact form in a page-sized buffer whose tail holds junk.
    static func roundTrip(_ page: [UInt8]) throws -> (length: Int?, back: [UInt8]) {
        var buffer = [UInt8](repeating: 0xA5, count: size)
        let length = page.withUnsafeBytes { source in
            buffer.withUnsafeMutableBytes { CompactPage.compact(source.baseAddress!, into: $0.baseAddress!) }
        }
        guard let length else { return (nil, page) }
        try buffer.withUnsafeMutableBytes { out throws in
            try CompactPage.expand(out.baseAddress!, length: length, page: 9, path: nil)
        }
        return (length, buffer)
    }

    @Test func aSlottedPageComesBackWithItsGapZeroed() throws {
        for kind in TreePageKind.keyedLeaf...TreePageKind.positionalBranch {
            let page = Self.slottedPage(kind: kind, count: 40, cellStart: 2_500, seed: UInt64(kind))
            let (length, back) = try Self.roundTrip(page)
            #expect(length == 16 + 80 + (Self.size - 2_500), "kind \(kind)")
            var expected = page
            for i in 96..<2_500 { expected[i] = 0 }
            #expect(back == expected, "kind \(kind)")
        }
    }

    @Test func aPackedLeafComesBackWhole() throws {
        for count in [1, 37, 500] {
            let (page, capacity) = Self.packedPage(count: count, seed: UInt64(count))
            try #require(count < capacity)
            let (length, back) = try Self.roundTrip(page)
            #expect(length == PackedLayout.bitmapOffset + 1 + 5 + count * (2 + 3), "\(count) entries")
            #expect(back == page, "\(count) entries")
        }
    }

    @Test func pagesWithoutACompactFormOrWithLittleFreeSpaceAreNotCompacted() throws {
        var overflow = [UInt8](repeating: 0x33, count: Self.size)
        overflow[0] = TreePageKind.overflow
        #expect(try Self.roundTrip(overflow).length == nil)
        let full = Self.slottedPage(kind: TreePageKind.keyedLeaf, count: 10, cellStart: 36 + CompactPage.minimumSaving - 1, seed: 3)
        #expect(try Self.roundTrip(full).length == nil)
        let inconsistent = Self.slottedPage(kind: TreePageKind.keyedBranch, count: 10, cellStart: 30, seed: 4)  // cells over slots
        #expect(try Self.roundTrip(inconsistent).length == nil)
        var fullPacked = Self.packedPage(count: 1, seed: 5)
        fullPacked.page[2] = UInt8(fullPacked.capacity & 0xFF); fullPacked.page[3] = UInt8(fullPacked.capacity >> 8)
        #expect(try Self.roundTrip(fullPacked.page).length == nil)
    }

    static func expandCode(_ page: [UInt8], length: Int) -> StorageError.Code? {
        var buffer = page
        do {
            try buffer.withUnsafeMutableBytes { out in
                try CompactPage.expand(out.baseAddress!, length: length, page: 9, path: nil)
            }
            return nil
        } catch let error as StorageError {
            return error.code
        } catch {
            return nil
        }
    }

    /// A compact form whose (authenticated) header does not describe its length is refused.
    @Test func aCompactFormThatItsHeaderDoesNotDescribeIsRefused() throws {
        let slotted = Self.slottedPage(kind: TreePageKind.keyedLeaf, count: 40, cellStart: 2_500, seed: 6)
        let right = 16 + 80 + (Self.size - 2_500)
        #expect(Self.expandCode(slotted, length: right) == nil)
        #expect(Self.expandCode(slotted, length: right - 1) == .corruptPage)
        #expect(Self.expandCode(slotted, length: right + 1) == .corruptPage)
        #expect(Self.expandCode(slotted, length: 15) == .corruptPage)
        #expect(Self.expandCode(slotted, length: Self.size + 1) == .corruptPage)
        var slotsOverCells = slotted
        slotsOverCells[2] = 0xFF; slotsOverCells[3] = 0x07  // 2,047 slots
        #expect(Self.expandCode(slotsOverCells, length: right) == .corruptPage)
        var overflow = slotted
        overflow[0] = TreePageKind.overflow
        #expect(Self.expandCode(overflow, length: right) == .corruptPage)
        let (packed, _) = Self.packedPage(count: 37, seed: 7)
        let packedLength = PackedLayout.bitmapOffset + 6 + 37 * 5
        #expect(Self.expandCode(packed, length: packedLength) == nil)
        #expect(Self.expandCode(packed, length: packedLength + 1) == .corruptPage)
        var wideKeys = packed
        wideKeys[PackedLayout.keyWidthOffset] = 3
        #expect(Self.expandCode(wideKeys, length: packedLength) == .corruptPage)
        var overCapacity = packed
        overCapacity[PackedLayout.capacityOffset] = 0xFF; overCapacity[PackedLayout.capacityOffset + 1] = 0xFF
        #expect(Self.expandCode(overCapacity, length: packedLength) == .corruptPage)
    }

    /// Seals `payload` as page 12 of version 7 and returns the sealed page.
    static func seal(_ payload: [UInt8], cipher: PageCipher) throws -> [UInt8] {
        var image = [UInt8](repeating: 0, count: PageLayout.headerSize) + payload
        var sealed = [UInt8](repeating: 0x77, count: PageLayout.pageSize)
        _ = try image.withUnsafeMutableBytes { image throws in
            try sealed.withUnsafeMutableBytes { sealed throws in
                try cipher.encrypt(page: 12, version: 7, from: UnsafeRawPointer(image.baseAddress!),
                                   into: sealed.baseAddress!, path: nil)
            }
        }
        return sealed
    }

    static func open(_ sealed: [UInt8], cipher: PageCipher) throws -> [UInt8] {
        var image = [UInt8](repeating: 0x55, count: PageLayout.pageSize)
        try sealed.withUnsafeBytes { sealed throws in
            try image.withUnsafeMutableBytes { image throws in
                try cipher.decrypt(page: 12, from: sealed.baseAddress!, into: image.baseAddress!, path: nil)
            }
        }
        return Array(image[PageLayout.headerSize...])
    }

    @Test func aCompactPageOpensAndFailsOnAnyChangedByte() throws {
        let cipher = try PageCipher(key: testKey, path: nil)
        let page = Self.slottedPage(kind: TreePageKind.keyedLeaf, count: 40, cellStart: 2_500, seed: 8)
        let sealed = try Self.seal(page, cipher: cipher)
        let length = 16 + 80 + (Self.size - 2_500)
        #expect(sealed[0] & PageCipher.compactFlag != 0)
        #expect(Int(sealed[4094]) | Int(sealed[4095]) << 8 == length)
        #expect(sealed[(32 + length)..<4094].allSatisfy { $0 == 0 })
        var expected = page
        for i in 96..<2_500 { expected[i] = 0 }
        #expect(try Self.open(sealed, cipher: cipher) == expected)
        // The flag, a nonce byte, the tag, the version bits, the ciphertext's first and last
        // bytes, the zeros after it, and each byte of the length.
        for at in [0, 5, 13, 28, 32, 31 + length, 32 + length, 3_000, 4_093, 4_094, 4_095] {
            var changed = sealed
            changed[at] ^= at == 0 ? PageCipher.compactFlag : 0x10
            #expect(storageErrorCode { _ = try Self.open(changed, cipher: cipher) } == .corruptPage, "byte \(at)")
        }
        let other = try PageCipher(key: testKey.map { $0 ^ 1 }, path: nil)
        #expect(storageErrorCode { _ = try Self.open(sealed, cipher: other) } == .corruptPage)
    }

    @Test func aPageWithoutACompactFormIsSealedWholeWithTheFlagClear() throws {
        let cipher = try PageCipher(key: testKey, path: nil)
        var overflow = (0..<Self.size).map { UInt8(truncatingIfNeeded: $0 * 7) }
        overflow[0] = TreePageKind.overflow
        for _ in 0..<32 {  // nonces are random: the flag is cleared, not merely left clear
            let sealed = try Self.seal(overflow, cipher: cipher)
            #expect(sealed[0] & PageCipher.compactFlag == 0)
            #expect(try Self.open(sealed, cipher: cipher) == overflow)
        }
    }

    /// Format 5 sealed every page whole under a fully random nonce: pages whose nonce has the
    /// compact flag set are read whole.
    @Test func aWholePageOfAnEarlierFormatWithTheFlagSetOpens() throws {
        let earlier = try PageCipher(key: testKey, path: nil, sealsCompactly: false)
        let cipher = try PageCipher(key: testKey, path: nil)
        let page = Self.slottedPage(kind: TreePageKind.keyedLeaf, count: 40, cellStart: 2_500, seed: 9)
        var flagged = 0
        for _ in 0..<64 {
            let sealed = try Self.seal(page, cipher: earlier)
            if sealed[0] & PageCipher.compactFlag != 0 { flagged += 1 }
            #expect(try Self.open(sealed, cipher: cipher) == page)
        }
        #expect(flagged > 0)
    }

    // MARK: - Files

    static func openFile(_ path: String, whole: Bool = false) throws -> StorageFile {
        var options = StorageOptions(path: path, encryptionKey: testKey)
        options.sealsPagesWhole = whole
        return try StorageFile.open(options)
    }

    static func value(_ key: UInt64) -> [UInt8] { (0..<(20 + Int(key % 50))).map { UInt8(truncatingIfNeeded: key &* 31 &+ UInt64($0)) } }

    /// Puts keys `range` into the keyed tree of user root 3, `perCommit` a transaction.
    static func put(_ file: StorageFile, _ range: Range<UInt64>, perCommit: Int) throws {
        var key = range.lowerBound
        while key < range.upperBound {
            let w = try file.beginWrite()
            var tree = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: w.roots[3])))
            for k in key..<min(range.upperBound, key + UInt64(perCommit)) {
                try Self.value(k).withUnsafeBytes { _ = try tree.put(k, $0, in: w) }
            }
            w.roots[3] = UInt64(tree.root.raw)
            try w.commit()
            key += UInt64(perCommit)
        }
    }

    /// Every key of `range` reads back its value, and no other key is present.
    static func check(_ file: StorageFile, _ range: Range<UInt64>, _ context: String) throws {
        let reader = try file.beginRead()
        defer { reader.end() }
        let tree = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: reader.roots[3])))
        var seen: UInt64 = 0, wrong = 0
        try tree.forEach(in: reader) { k, v in
            if k != range.lowerBound + seen || Array(v) != Self.value(k) { wrong += 1 }
            seen += 1
            return true
        }
        #expect(seen == UInt64(range.count) && wrong == 0, "\(context): \(seen) seen, \(wrong) wrong")
    }

    /// The data pages of `path` whose nonce has the compact flag, and those of them that are
    /// compact (a length, then zeros up to it).
    static func flaggedPages(_ path: String) throws -> (flagged: Int, compact: Int) {
        let bytes = try readBytes(path, at: 0, count: fileSize(path))
        var flagged = 0, compact = 0
        bytes.withUnsafeBytes { raw in
            for page in Int(MetaLayout.firstDataPage)..<(bytes.count / PageLayout.pageSize) {
                let sealed = raw.baseAddress! + page * PageLayout.pageSize
                guard sealed.load(as: UInt8.self) & PageCipher.compactFlag != 0 else { continue }
                flagged += 1
                if PageCipher.compactLength(of: sealed) != nil { compact += 1 }
            }
        }
        return (flagged, compact)
    }

    /// Rewrites the format of every meta slot, resealing it.
    static func rewriteSlotFormats(_ path: String, to format: UInt32) throws {
        let cipher = try PageCipher(key: testKey, path: nil)
        for slot in 0..<MetaLayout.slotCount {
            var page = try readBytes(path, at: slot * PageLayout.pageSize, count: PageLayout.pageSize)
            guard case .success = page.withUnsafeBytes({ MetaState.decode($0.baseAddress!) }) else { continue }
            try page.withUnsafeMutableBytes { page throws in
                page.storeBytes(of: format.littleEndian, toByteOffset: MetaLayout.formatOffset, as: UInt32.self)
                try FileCore.sealMeta(page.baseAddress!, cipher: cipher, path: path)
            }
            try overwrite(path, at: slot * PageLayout.pageSize, with: page)
        }
    }

    @Test func anEncryptedFileOfFormat5IsReadAndItsNextCommitsSealCompactly() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            let file = try Self.openFile(path, whole: true)
            defer { file.close() }
            try Self.put(file, 0..<3_000, perCommit: 500)
        }
        try Self.rewriteSlotFormats(path, to: 5)
        let before = try Self.flaggedPages(path)
        #expect(before.flagged > 0 && before.compact == 0, "\(before)")
        do {
            let file = try Self.openFile(path)  // verifies every page of the newest version
            defer { file.close() }
            #expect(try file.inspect().formatVersion == 5)
            try Self.check(file, 0..<3_000, "format 5 as written")
            try Self.put(file, 3_000..<4_000, perCommit: 1)
            try Self.check(file, 0..<4_000, "after a thousand commits")
            #expect(try file.verify().balances)
        }
        let after = try Self.flaggedPages(path)
        #expect(after.compact > 0, "\(after)")
        let file = try Self.openFile(path)
        defer { file.close() }
        #expect(try file.inspect().formatVersion == Int(MetaLayout.formatVersion))
        try Self.check(file, 0..<4_000, "reopened")
    }

    /// A compact page damaged on disk (in its ciphertext, or in the zeros after it) is reported
    /// at open, never read as something else.
    @Test func aDamagedCompactPageOnDiskIsReported() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            let file = try Self.openFile(path)
            defer { file.close() }
            try Self.put(file, 0..<2_000, perCommit: 2_000)
            try commitCounter(file, value: 1)  // so the tree's pages are not in the newest commit
        }
        let bytes = try readBytes(path, at: 0, count: fileSize(path))
        var compactPage: Int?
        var compactLength = 0
        bytes.withUnsafeBytes { raw in
            for page in Int(MetaLayout.firstDataPage)..<(bytes.count / PageLayout.pageSize) {
                if let length = PageCipher.compactLength(of: raw.baseAddress! + page * PageLayout.pageSize) {
                    compactPage = page
                    compactLength = length
                    break
                }
            }
        }
        let page = try #require(compactPage)
        for at in [PageLayout.headerSize + 5, PageLayout.headerSize + compactLength + 3] {
            let copy = dir.file("damaged-\(at).strata")
            var damaged = bytes
            damaged[page * PageLayout.pageSize + at] ^= 0x04
            try Data(damaged).write(to: URL(fileURLWithPath: copy))
            #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: copy, encryptionKey: testKey)) } == .corruptPage,
                    "byte \(at) of page \(page)")
            let file = try StorageFile.open(StorageOptions(path: copy, encryptionKey: testKey, openVerification: .newestCommitsOnly))
            defer { file.close() }
            #expect(storageErrorCode { try Self.check(file, 0..<2_000, "damaged") } == .corruptPage, "byte \(at): read")
        }
    }
}
