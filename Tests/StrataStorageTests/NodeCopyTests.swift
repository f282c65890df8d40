// Copy-on-write of tree node pages (WriteTransaction.writableNodePage), which copies the header,
// the slot array and the cell area of a committed node but not the gap between them:
// - random keyed and positional edits, commits and rollbacks keep the trees' contents, their
//   shape (TreeShapeCheck) and the page accounting (verify() with a walker), also after reopen,
//   for every way a page buffer is obtained (plain file built in the writable mapping, plain file
//   in pooled buffers, memOnly, encrypted);
// - the copy is byte-identical to the source outside the gap, and in a pooled buffer the gap is
//   zero: bytes of a rolled-back transaction never reach the file through it;
// - a committed page whose node header is inconsistent gives `.corruptFile` (no copy, no page
//   allocated), directly and through the tree API.

import Testing
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

/// Walks the keyed tree of root 0 and the positional tree of root 1.
private let walkRootsZeroAndOne: ReachabilityWalker = { roots, pages, visit in
    try PageWalk.forEachPage(inTree: PageRef(UInt32(truncatingIfNeeded: roots[0])), in: pages, visit)
    try PageWalk.forEachPage(inTree: PageRef(UInt32(truncatingIfNeeded: roots[1])), in: pages, visit)
}

@Suite("Node page copy-on-write")
struct NodeCopyTests {
    enum Mode: String, CaseIterable, CustomStringConvertible {
        case plainInMap, plainPooled, memOnly, encrypted
        var description: String { rawValue }
    }

    static func options(_ mode: Mode, _ dir: TemporaryDirectory) -> StorageOptions {
        switch mode {
        // `.unsafe` plain files build pages in the writable mapping (FileCore.buildsInPlace);
        // `.full` ones in pooled buffers.
        case .plainInMap: return StorageOptions(path: dir.file(), durability: .unsafe)
        case .plainPooled: return StorageOptions(path: dir.file(), durability: .full)
        case .memOnly: return StorageOptions(path: "mem-nodecopy-\(getpid())-\(UInt64.random(in: 0..<UInt64.max))", durability: .memOnly)
        case .encrypted: return StorageOptions(path: dir.file(), durability: .unsafe, encryptionKey: testKey)
        }
    }

    static func value(_ key: UInt64, _ round: Int, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: Int(key) &* 31 &+ round &* 7 &+ $0) }
    }

    /// Checks both trees of `pages` against the models.
    static func check(_ pages: some PageReading, roots: UserRoots, keyed model: [UInt64: [UInt8]],
                      positional list: [UInt64], _ what: String) throws {
        let keyed = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: roots[0])))
        #expect(try TreeShapeCheck.keyed(keyed, pages) == [], "\(what)")
        #expect(try keyed.count(in: pages) == model.count, "\(what)")
        for (key, expected) in model {
            let stored = try keyed.withValue(forKey: key, in: pages) { Array($0) }
            #expect(stored == expected, "\(what): key \(key)")
        }
        let positional = PositionalTree(root: PageRef(UInt32(truncatingIfNeeded: roots[1])))
        #expect(try TreeShapeCheck.positional(positional, pages) == [], "\(what)")
        #expect(try positional.count(in: pages) == list.count, "\(what)")
        for (index, expected) in list.enumerated() where index % 7 == 0 || index == list.count - 1 {
            #expect(try positional.element64(at: index, in: pages) == expected, "\(what): element \(index)")
        }
    }

    @Test(arguments: Mode.allCases)
    func randomEditsKeepContentsShapeAndAccounting(_ mode: Mode) throws {
        let dir = TemporaryDirectory()
        let options = Self.options(mode, dir)
        var rng = SplitMix64(seed: 0xC0FF_EE00 &+ UInt64(Mode.allCases.firstIndex(of: mode) ?? 0))
        var model: [UInt64: [UInt8]] = [:]
        var list: [UInt64] = []
        var nextElement: UInt64 = 1
        let file = try StorageFile.open(options)
        file.setReachabilityWalker(walkRootsZeroAndOne)
        for round in 0..<70 {
            let txn = try file.beginWrite()
            var keyed = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: txn.roots[0])))
            var positional = PositionalTree(root: PageRef(UInt32(truncatingIfNeeded: txn.roots[1])))
            var pendingModel = model
            var pendingList = list
            for _ in 0..<Int.random(in: 1...60, using: &rng) {
                let key = UInt64.random(in: 0..<800, using: &rng)
                if Int.random(in: 0..<3, using: &rng) == 0 {
                    #expect(try keyed.remove(key, in: txn) == (pendingModel[key] != nil))
                    pendingModel[key] = nil
                } else {
                    // Varying sizes leave dead bytes and gaps of every size in the pages.
                    let bytes = Self.value(key, round, size: Int.random(in: 0...(round % 5 == 0 ? 900 : 120), using: &rng))
                    try bytes.withUnsafeBytes { _ = try keyed.put(key, $0, in: txn) }
                    pendingModel[key] = bytes
                }
            }
            // The sensors pattern: append at the end, trim the oldest.
            for _ in 0..<Int.random(in: 0...30, using: &rng) {
                try positional.appendUInt64(nextElement, in: txn)
                pendingList.append(nextElement)
                nextElement += 1
            }
            let trim = min(pendingList.count, Int.random(in: 0...25, using: &rng))
            if trim > 0 {
                try positional.removeFirst(trim, in: txn)
                pendingList.removeFirst(trim)
            }
            if round % 6 == 4 {
                txn.rollback()
            } else {
                txn.roots[0] = UInt64(keyed.root.raw)
                txn.roots[1] = UInt64(positional.root.raw)
                try txn.commit()
                model = pendingModel
                list = pendingList
            }
            let reader = try file.beginRead()
            try Self.check(reader, roots: reader.roots, keyed: model, positional: list, "\(mode) round \(round)")
            reader.end()
            if round % 10 == 9 { #expect(try file.verify().balances, "\(mode) round \(round)") }
        }
        #expect(try file.verify().balances)
        file.close()
        guard mode != .memOnly else { return }
        let again = try StorageFile.open(options)
        defer { again.close() }
        again.setReachabilityWalker(walkRootsZeroAndOne)
        let reader = try again.beginRead()
        try Self.check(reader, roots: reader.roots, keyed: model, positional: list, "\(mode) after reopen")
        reader.end()
        #expect(try again.verify().balances)
    }

    /// A committed one-leaf tree with a large gap (few small cells).
    static func commitSmallLeaf(_ file: StorageFile) throws -> PageRef {
        let txn = try file.beginWrite()
        var tree = KeyedTree()
        for key in UInt64(0)..<12 {
            try Self.value(key, 0, size: 20).withUnsafeBytes { _ = try tree.put(key, $0, in: txn) }
        }
        txn.roots[0] = UInt64(tree.root.raw)
        try txn.commit()
        return tree.root
    }

    @Test(arguments: [Mode.plainInMap, .plainPooled, .encrypted])
    func copyMatchesTheSourceOutsideTheGap(_ mode: Mode) throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(Self.options(mode, dir))
        defer { file.close() }
        let root = try Self.commitSmallLeaf(file)
        let reader = try file.beginRead()
        defer { reader.end() }
        let source = try reader.readPage(root)
        let count = source.treeU16(TreeLayout.countOffset)
        let cellStart = source.treeU16(TreeLayout.cellStartOffset)
        let slotsEnd = TreeLayout.headerSize + count * TreeLayout.slotSize
        #expect(count == 12 && cellStart - slotsEnd > 2_000)

        let txn = try file.beginWrite()
        let (copy, payload) = try txn.writableNodePage(root)
        #expect(copy != root)
        #expect(memcmp(payload, source, slotsEnd) == 0)
        #expect(memcmp(payload + cellStart, source + cellStart, PageLayout.payloadSize - cellStart) == 0)
        // Owned now: the same page, no second copy.
        let (same, samePayload) = try txn.writableNodePage(copy)
        #expect(same == copy && samePayload == payload)
        #expect(txn.dirty.count == 1)
        var tree = KeyedTree(root: copy)
        #expect(try tree.count(in: txn) == 12)
        try Self.value(99, 1, size: 30).withUnsafeBytes { _ = try tree.put(99, $0, in: txn) }
        txn.roots[0] = UInt64(tree.root.raw)
        try txn.commit()
        let after = try file.beginRead()
        defer { after.end() }
        let committed = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: after.roots[0])))
        #expect(try TreeShapeCheck.keyed(committed, after) == [])
        #expect(try committed.withValue(forKey: 99, in: after) { Array($0) } == Self.value(99, 1, size: 30))
        #expect(try committed.withValue(forKey: 5, in: after) { Array($0) } == Self.value(5, 0, size: 20))
    }

    /// A pooled buffer last held a page of a rolled-back transaction: the gap of a node copied
    /// into it is zero, and none of the rolled-back bytes reach the file.
    @Test func pooledGapHoldsNoRolledBackBytes() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let marker: UInt8 = 0xE7
        do {
            let file = try StorageFile.open(StorageOptions(path: path, durability: .full))
            defer { file.close() }
            let root = try Self.commitSmallLeaf(file)
            let doomed = try file.beginWrite()
            for _ in 0..<4 {
                let (_, payload) = try doomed.allocatePage()
                payload.initializeMemory(as: UInt8.self, repeating: marker, count: PageLayout.payloadSize)
            }
            #expect(!file.core.buildsInPlace(UInt32(try #require(doomed.dirty.sortedPages().first))))
            doomed.rollback()

            let txn = try file.beginWrite()
            let (_, payload) = try txn.writableNodePage(root)
            let count = UnsafeRawPointer(payload).treeU16(TreeLayout.countOffset)
            let cellStart = UnsafeRawPointer(payload).treeU16(TreeLayout.cellStartOffset)
            let gap = UnsafeRawBufferPointer(start: payload + TreeLayout.headerSize + count * TreeLayout.slotSize,
                                             count: cellStart - TreeLayout.headerSize - count * TreeLayout.slotSize)
            #expect(gap.count > 2_000 && gap.allSatisfy { $0 == 0 })
            var tree = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: txn.roots[0])))
            try Self.value(50, 2, size: 10).withUnsafeBytes { _ = try tree.put(50, $0, in: txn) }
            txn.roots[0] = UInt64(tree.root.raw)
            try txn.commit()
        }
        // No run of marker bytes anywhere in the file.
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: PageLayout.pageSize)
        var run = 0, longest = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            for byte in buffer[0..<n] {
                run = byte == marker ? run + 1 : 0
                longest = max(longest, run)
            }
        }
        #expect(longest < 16)
    }

    /// Node headers that no consistent page has: (kind, count, cellStart).
    static let corruptHeaders: [(UInt8, Int, Int)] = [
        (TreePageKind.keyedLeaf, 0xFFFF, PageLayout.payloadSize),          // slots past the page
        (TreePageKind.keyedLeaf, 3, 0xFFFF),                               // cells past the page
        (TreePageKind.keyedLeaf, 0, 10),                                   // cells over the header
        (TreePageKind.keyedLeaf, 40, 60),                                  // cells over the slots
        (TreePageKind.keyedLeaf, 2, PageLayout.payloadSize + 1),           // one byte past
        (0, 0, PageLayout.payloadSize),                                    // not a node kind
        (TreePageKind.overflow, 0, PageLayout.payloadSize),
        (200, 1, 100),
    ]

    @Test(arguments: [Mode.plainInMap, .plainPooled, .encrypted])
    func corruptNodeHeaderGivesATypedError(_ mode: Mode) throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(Self.options(mode, dir))
        defer { file.close() }
        for (kind, count, cellStart) in Self.corruptHeaders {
            let what = "kind \(kind) count \(count) cellStart \(cellStart)"
            let make = try file.beginWrite()
            let (ref, payload) = try make.allocatePage()
            payload.storeBytes(of: kind, as: UInt8.self)
            payload.setTreeU16(TreeLayout.countOffset, count)
            payload.setTreeU16(TreeLayout.cellStartOffset, cellStart)
            payload.setTreeU64(TreeLayout.totalOffset, UInt64(count))
            make.roots[0] = UInt64(ref.raw)
            try make.commit()

            let txn = try file.beginWrite()
            #expect(storageErrorCode { _ = try txn.writableNodePage(ref) } == .corruptFile, "\(what)")
            #expect(txn.dirty.count == 0, "\(what): a page was allocated")
            var tree = KeyedTree(root: ref)
            #expect(storageErrorCode { try [UInt8](repeating: 1, count: 8).withUnsafeBytes { _ = try tree.put(7, $0, in: txn) } }
                    == .corruptFile, "\(what)")
            #expect(storageErrorCode { _ = try tree.remove(7, in: txn) } == .corruptFile, "\(what)")
            txn.rollback()
            #expect(try file.verify().balances, "\(what)")
        }
    }
}
