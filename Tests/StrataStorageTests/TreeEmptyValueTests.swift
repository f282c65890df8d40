// Bytes-tree entries with an empty value (what an index entry is) are stored as the key alone
// (storage format 6): a leaf cell that is its key part, bit 15 of the length set. Such cells read
// back empty, become full cells when a value is put and turn back, never lend their flag to a
// branch separator, and make a leaf hold more entries; leaves of format 5, whose empty values sit
// behind a 4-byte header, are still read and edited.

import Testing
@testable import StrataStorage

@Suite struct TreeEmptyValueTests {
    static var empty: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }

    /// 17 bytes, shaped like an integer index key: a tag, the value, the object key.
    static func key(_ i: Int) -> [UInt8] {
        [0x01] + withUnsafeBytes(of: UInt64(i).bigEndian, Array.init) + withUnsafeBytes(of: UInt64(i &* 7 &+ 3).bigEndian, Array.init)
    }

    /// Every leaf of the tree, left to right.
    static func leaves(_ tree: BytesTree, _ pages: any PageReading) throws -> [TreeNode] {
        var result: [TreeNode] = []
        func visit(_ ref: PageRef) throws {
            let node = try TreeNode.read(ref, pages, BytesFlavor.self)
            if node.isLeaf { result.append(node); return }
            for i in 0..<node.count { try visit(try node.child(i)) }
        }
        if !tree.root.isNull { try visit(tree.root) }
        return result
    }

    /// (key, value) of every entry in key order.
    static func entries(_ tree: BytesTree, _ pages: any PageReading) throws -> [([UInt8], [UInt8])] {
        var all: [([UInt8], [UInt8])] = []
        try tree.forEach(from: nil, in: pages) { key, value in all.append((Array(key), Array(value))); return true }
        return all
    }

    @Test func anEmptyValueIsStoredAsTheKeyAlone() throws {
        let pages = TreeTestPages()
        var tree = BytesTree()
        let n = 5_000
        for i in 0..<n { try Self.key(i).withUnsafeBytes { _ = try tree.put($0, Self.empty, in: pages) } }
        let all = try Self.entries(tree, pages)
        #expect(all.count == n)
        #expect(all.map(\.0) == (0..<n).map(Self.key))
        #expect(all.allSatisfy { $0.1.isEmpty })
        #expect(try Self.key(77).withUnsafeBytes { try tree.withValue(forKey: $0, in: pages) { $0.count } } == 0)
        let leaves = try Self.leaves(tree, pages)
        #expect(try TreeNode.read(tree.root, pages, BytesFlavor.self).isLeaf == false)  // separators were made
        for leaf in leaves {
            for i in 0..<leaf.count {
                let cell = try leaf.leafCell(i, BytesFlavor.self)
                #expect(cell.size == 2 + 17 && cell.keySize == 2 + 17 && cell.value.length == 0)
                #expect(BytesFlavor.leafValueIsEmpty(leaf.base, at: cell.offset))
            }
        }
        // Appends fill leaves: 21 bytes an entry with its slot (192 a page) where a header
        // made it 25 (161 a page at most).
        #expect(Double(n) / Double(leaves.count) > 170, "\(leaves.count) leaves")
        #expect(try TreeShapeCheck.bytes(tree, pages) == [])
    }

    /// The sorted batch (how an index is built) sizes and writes the same bare cells.
    @Test func aSortedBatchOfEmptyValuesFillsLeavesWithBareCells() throws {
        let pages = TreeTestPages()
        var tree = BytesTree()
        let n = 5_000
        let keys = (0..<n).map(Self.key)
        let added = try TreeBatchTests.withBuffers(keys) { keyBuffers in
            try tree.putSorted(keys: keyBuffers, values: Array(repeating: Self.empty, count: n), in: pages)
        }
        #expect(added == n)
        let all = try Self.entries(tree, pages)
        #expect(all.map(\.0) == keys && all.allSatisfy { $0.1.isEmpty })
        let leaves = try Self.leaves(tree, pages)
        #expect(Double(n) / Double(leaves.count) > 170, "\(leaves.count) leaves")
        for leaf in leaves {
            #expect(leaf.usedBytes == leaf.count * (2 + 17))
        }
        #expect(try TreeShapeCheck.bytes(tree, pages) == [])
    }

    @Test func aValueReplacesTheBareCellAndAnEmptyOneRestoresIt() throws {
        let pages = TreeTestPages()
        var tree = BytesTree()
        for i in 0..<600 { try Self.key(i).withUnsafeBytes { _ = try tree.put($0, Self.empty, in: pages) } }
        var model = Dictionary(uniqueKeysWithValues: (0..<600).map { (Self.key($0), [UInt8]()) })
        var rng = SplitMix64(seed: 21)
        for step in 0..<3_000 {
            let k = Self.key(Int.random(in: 0..<700, using: &rng))
            switch Int.random(in: 0..<3, using: &rng) {
            case 0:
                try k.withUnsafeBytes { _ = try tree.put($0, Self.empty, in: pages) }
                model[k] = []
            case 1:
                let value = randomValue(&rng)
                try k.withUnsafeBytes { key in try value.withUnsafeBytes { _ = try tree.put(key, $0, in: pages) } }
                model[k] = value
            default:
                let removed = try k.withUnsafeBytes { try tree.remove($0, in: pages) }
                #expect(removed == (model.removeValue(forKey: k) != nil), "step \(step)")
            }
        }
        let all = try Self.entries(tree, pages)
        #expect(all.map(\.0) == model.keys.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(all.allSatisfy { model[$0.0] == $0.1 })
        for leaf in try Self.leaves(tree, pages) {
            for i in 0..<leaf.count {
                let cell = try leaf.leafCell(i, BytesFlavor.self)
                #expect(BytesFlavor.leafValueIsEmpty(leaf.base, at: cell.offset) == (cell.value.length == 0))
            }
        }
        #expect(try TreeShapeCheck.bytes(tree, pages) == [])
    }

    /// A leaf as format 5 wrote it: each empty value behind a 4-byte header of 0.
    static func earlierFormatLeaf(_ keys: [[UInt8]], _ pages: TreeTestPages) throws -> PageRef {
        let (ref, payload) = try pages.allocatePage()
        var cellStart = TreeLayout.payloadSize
        var used = 0
        for (i, key) in keys.enumerated() {
            let size = 2 + key.count + TreeLayout.valueHeaderSize
            cellStart -= size
            used += size
            payload.setTreeU16(cellStart, key.count)
            for (j, byte) in key.enumerated() { payload.storeBytes(of: byte, toByteOffset: cellStart + 2 + j, as: UInt8.self) }
            payload.setTreeU32(cellStart + 2 + key.count, 0)
            payload.setTreeU16(TreeLayout.headerSize + TreeLayout.slotSize * i, cellStart)
        }
        payload.storeBytes(of: TreePageKind.bytesLeaf, as: UInt8.self)
        payload.setTreeU16(TreeLayout.countOffset, keys.count)
        payload.setTreeU16(TreeLayout.cellStartOffset, cellStart)
        payload.setTreeU16(TreeLayout.usedBytesOffset, used)
        payload.setTreeU64(TreeLayout.totalOffset, UInt64(keys.count))
        return ref
    }

    @Test func aLeafOfTheEarlierFormatIsReadAndEdited() throws {
        let pages = TreeTestPages()
        let old = (0..<100).map { Self.key($0 * 2) }
        var tree = BytesTree(root: try Self.earlierFormatLeaf(old, pages))
        #expect(try TreeShapeCheck.bytes(tree, pages) == [])
        var all = try Self.entries(tree, pages)
        #expect(all.map(\.0) == old && all.allSatisfy { $0.1.isEmpty })
        #expect(try Self.key(10).withUnsafeBytes { try tree.withValue(forKey: $0, in: pages) { $0.count } } == 0)
        // New bare cells beside the old ones, a removal of an old one, then enough to split.
        for i in 0..<2_000 where i % 2 == 1 { try Self.key(i).withUnsafeBytes { _ = try tree.put($0, Self.empty, in: pages) } }
        #expect(try Self.key(20).withUnsafeBytes { try tree.remove($0, in: pages) })
        all = try Self.entries(tree, pages)
        let expected = ((0..<100).map { $0 * 2 }.filter { $0 != 20 } + (0..<2_000).filter { $0 % 2 == 1 }).sorted().map(Self.key)
        #expect(all.map(\.0) == expected && all.allSatisfy { $0.1.isEmpty })
        #expect(try Self.leaves(tree, pages).count > 1)
        #expect(try TreeShapeCheck.bytes(tree, pages) == [])
    }
}
