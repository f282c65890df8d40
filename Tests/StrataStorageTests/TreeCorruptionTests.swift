// Corrupt tree pages must produce StorageError(.corruptFile), never a crash or a wrong answer:
// bad kinds, counts, offsets, lengths, cycles, and broken overflow chains.

import Testing
@testable import StrataStorage

@Suite struct TreeCorruptionTests {
    /// A committed keyed tree of `count` keys with 8-byte values, plus its pages.
    static func keyedTree(count: Int, valueSize: Int = 8) throws -> (KeyedTree, TreeTestPages) {
        let pages = TreeTestPages()
        var tree = KeyedTree()
        let value = [UInt8](repeating: 0x5A, count: valueSize)
        for key in 0..<UInt64(count) {
            try value.withUnsafeBytes { _ = try tree.put(key, $0, in: pages) }
        }
        pages.commit()
        return (tree, pages)
    }

    static func expectCorrupt(_ body: () throws -> Void) {
        let error = #expect(throws: StorageError.self) { try body() }
        #expect(error?.code == .corruptFile)
    }

    @Test func wrongPageKindIsCorrupt() throws {
        let (tree, pages) = try Self.keyedTree(count: 10)
        let root = try #require(pages.rawPage(tree.root))
        for badKind: UInt8 in [0, TreePageKind.bytesLeaf, TreePageKind.overflow, 16, 0xDB] {
            root.storeBytes(of: badKind, as: UInt8.self)
            Self.expectCorrupt { _ = try tree.withValue(forKey: 3, in: pages) { _ in 0 } }
            Self.expectCorrupt { _ = try tree.count(in: pages) }
        }
        // The same page read as another tree type.
        root.storeBytes(of: TreePageKind.keyedLeaf, as: UInt8.self)
        Self.expectCorrupt { _ = try PositionalTree(root: tree.root).count(in: pages) }
        Self.expectCorrupt { _ = try BytesTree(root: tree.root).count(in: pages) }
    }

    @Test func inconsistentHeaderIsCorrupt() throws {
        let (tree, pages) = try Self.keyedTree(count: 10)
        let root = try #require(pages.rawPage(tree.root))
        root.setTreeU16(TreeLayout.countOffset, 3000)             // slots would overlap the cells
        Self.expectCorrupt { _ = try tree.withValue(forKey: 3, in: pages) { _ in 0 } }
        root.setTreeU16(TreeLayout.countOffset, 10)
        root.setTreeU16(TreeLayout.cellStartOffset, 5000)         // past the payload
        Self.expectCorrupt { _ = try tree.withValue(forKey: 3, in: pages) { _ in 0 } }
        root.setTreeU16(TreeLayout.cellStartOffset, TreeLayout.payloadSize - 10 * 20)
        root.setTreeU64(TreeLayout.totalOffset, 11)               // leaf total ≠ cell count
        Self.expectCorrupt { _ = try tree.withValue(forKey: 3, in: pages) { _ in 0 } }
    }

    @Test func cellOffsetOutsideThePageIsCorrupt() throws {
        let (tree, pages) = try Self.keyedTree(count: 10)
        let root = try #require(pages.rawPage(tree.root))
        root.setTreeU16(TreeLayout.headerSize + 2 * 5, PageLayout.payloadSize - 3)
        Self.expectCorrupt {
            for key in 0..<UInt64(10) { _ = try tree.withValue(forKey: key, in: pages) { _ in 0 } }
        }
        Self.expectCorrupt { try tree.forEach(in: pages) { _, _ in true } }
    }

    @Test func inlineValueLengthPastThePageIsCorrupt() throws {
        let (tree, pages) = try Self.keyedTree(count: 1)
        let root = try #require(pages.rawPage(tree.root))
        let cell = UnsafeRawPointer(root).treeU16(TreeLayout.headerSize)
        root.setTreeU32(cell + 8, 4000)
        Self.expectCorrupt { _ = try tree.withValue(forKey: 0, in: pages) { Array($0) } }
    }

    @Test func branchWithoutChildrenAndChildCyclesAreCorrupt() throws {
        let (tree, pages) = try Self.keyedTree(count: 2000)
        let root = try #require(pages.rawPage(tree.root))
        #expect(root.load(as: UInt8.self) == TreePageKind.keyedBranch)
        // A child reference pointing back at the root: a cycle.
        let cell = UnsafeRawPointer(root).treeU16(TreeLayout.headerSize)
        let savedChild = UnsafeRawPointer(root).treeU32(cell)
        root.setTreeU32(cell, tree.root.raw)
        Self.expectCorrupt { _ = try tree.withValue(forKey: 0, in: pages) { _ in 0 } }
        Self.expectCorrupt { _ = try tree.firstKey(in: pages) }
        root.setTreeU32(cell, 0)
        Self.expectCorrupt { _ = try tree.withValue(forKey: 0, in: pages) { _ in 0 } }
        root.setTreeU32(cell, savedChild)
        root.setTreeU16(TreeLayout.countOffset, 0)
        Self.expectCorrupt { _ = try tree.lastKey(in: pages) }
    }

    @Test func brokenOverflowChainIsCorrupt() throws {
        let (tree, pages) = try Self.keyedTree(count: 1, valueSize: 3 * TreeOverflow.chunkSize)
        let leaf = try #require(pages.rawPage(tree.root))
        let cell = UnsafeRawPointer(leaf).treeU16(TreeLayout.headerSize)
        let first = PageRef(UnsafeRawPointer(leaf).treeU32(cell + 8 + 4))
        let overflow = try #require(pages.rawPage(first))
        #expect(try tree.withValue(forKey: 0, in: pages) { $0.count } == 3 * TreeOverflow.chunkSize)
        overflow.setTreeU32(TreeOverflow.lengthOffset, UInt32(TreeOverflow.chunkSize + 1))
        Self.expectCorrupt { _ = try tree.withValue(forKey: 0, in: pages) { $0.count } }
        overflow.setTreeU32(TreeOverflow.lengthOffset, UInt32(TreeOverflow.chunkSize))
        let next = UnsafeRawPointer(overflow).treeU32(TreeOverflow.nextOffset)
        overflow.setTreeU32(TreeOverflow.nextOffset, 0)                      // chain cut short
        Self.expectCorrupt { _ = try tree.withValue(forKey: 0, in: pages) { $0.count } }
        overflow.setTreeU32(TreeOverflow.nextOffset, next)
        overflow.storeBytes(of: TreePageKind.keyedLeaf, as: UInt8.self)     // not an overflow page
        Self.expectCorrupt { _ = try tree.withValue(forKey: 0, in: pages) { $0.count } }
    }

    @Test func bytesKeyLengthOverTheLimitIsCorrupt() throws {
        let pages = TreeTestPages()
        var tree = BytesTree()
        try [UInt8](repeating: 1, count: 10).withUnsafeBytes { k in try [UInt8]().withUnsafeBytes { _ = try tree.put(k, $0, in: pages) } }
        let leaf = try #require(pages.rawPage(tree.root))
        let cell = UnsafeRawPointer(leaf).treeU16(TreeLayout.headerSize)
        leaf.setTreeU16(cell, 2000)
        Self.expectCorrupt { try tree.forEach(from: nil, in: pages) { _, _ in true } }
    }

    @Test func wrongSubtreeCountsAreCorrupt() throws {
        let pages = TreeTestPages()
        var tree = PositionalTree()
        for value in 0..<UInt64(3000) { try tree.appendUInt64(value, in: pages) }
        pages.commit()
        let root = try #require(pages.rawPage(tree.root))
        #expect(root.load(as: UInt8.self) == TreePageKind.positionalBranch)
        // Claim the first child holds more than it does.
        let cell = UnsafeRawPointer(root).treeU16(TreeLayout.headerSize)
        let real = UnsafeRawPointer(root).treeU64(cell + TreeLayout.branchCountOffset)
        root.setTreeU64(cell + TreeLayout.branchCountOffset, real + 50)
        Self.expectCorrupt { _ = try tree.element64(at: Int(real) + 10, in: pages) }
    }

    @Test func pageWalkRejectsPagesThatAreNotTreePages() throws {
        let page = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.payloadSize, alignment: 16)
        defer { page.deallocate() }
        page.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.payloadSize)
        for kind: UInt8 in [0, 9, 16, 31, 255] {
            page.storeBytes(of: kind, as: UInt8.self)
            #expect(!TreePages.isTreePage(kind: kind))
            Self.expectCorrupt { try TreePages.forEachChild(ofPage: PageRef(5), payload: page) { _ in } }
            Self.expectCorrupt { try TreePages.rewriteChildren(payload: page) { $0 } }
        }
        // A packed leaf (kind 8) is a tree page, but an all-zero one (no key width, no entries) is not valid.
        page.storeBytes(of: TreePageKind.keyedPackedLeaf, as: UInt8.self)
        #expect(TreePages.isTreePage(kind: TreePageKind.keyedPackedLeaf))
        Self.expectCorrupt { try TreePages.forEachChild(ofPage: PageRef(5), payload: page) { _ in } }
        page.storeBytes(of: 0, as: UInt8.self)
        page.storeBytes(of: TreePageKind.keyedBranch, as: UInt8.self)   // a branch with no children
        page.setTreeU16(TreeLayout.cellStartOffset, PageLayout.payloadSize)
        Self.expectCorrupt { try TreePages.forEachChild(ofPage: PageRef(5), payload: page) { _ in } }
    }
}
