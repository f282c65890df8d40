// Replacing a leaf value with one that is not larger writes the new cell over the old one
// (MutableTreeNode.overwriteCell): no slot moves, no defragment, the old tail becomes dead bytes.
// Checked: contents equal a model after random replacements of smaller, equal and larger
// values (single puts, sorted batch puts, positional replaces), through commits; used bytes
// equal the live cells (TreeShapeCheck); the dead bytes are reclaimed when the leaf later needs
// the room; and a full leaf whose values all shrink keeps its page (no split, no copy elsewhere).

import Testing
@testable import StrataStorage

@Suite struct CellOverwriteTests {
    private static func value(_ n: Int, _ tag: UInt8) -> [UInt8] { [UInt8](repeating: tag, count: n) }

    @Test func randomReplacementsKeepContentsAndShape() throws {
        var rng = SplitMix64(seed: 77)
        let pages = TreeTestPages()
        var tree = KeyedTree()
        var model: [UInt64: [UInt8]] = [:]
        // 3,000 keys with values of 8–60 bytes: ~40 full leaves.
        for k in 0..<3_000 as Range<UInt64> {
            let v = Self.value(Int.random(in: 8...60, using: &rng), UInt8(k % 251))
            try v.withUnsafeBytes { _ = try tree.put(k, $0, in: pages) }
            model[k] = v
        }
        pages.commit()
        for round in 0..<30 {
            if round % 2 == 0 {
                for _ in 0..<200 {
                    let k = UInt64.random(in: 0..<3_000, using: &rng)
                    let old = model[k]!.count
                    // Mostly not larger (overwritten in place), sometimes larger (moved).
                    let n = Int.random(in: 0...3, using: &rng) == 0 ? old + Int.random(in: 1...40, using: &rng)
                                                                     : Int.random(in: 0...old, using: &rng)
                    let v = Self.value(n, UInt8(truncatingIfNeeded: round))
                    try v.withUnsafeBytes { _ = try tree.put(k, $0, in: pages) }
                    model[k] = v
                }
            } else {
                let start = UInt64.random(in: 0..<2_500, using: &rng)
                let keys = Array(start..<start + 400)
                let values = keys.map { k -> [UInt8] in
                    Self.value(Int.random(in: 0...(model[k]!.count + 4), using: &rng), UInt8(truncatingIfNeeded: round &+ 100))
                }
                try TreeBatchTests.withBuffers(values) { _ = try tree.putSorted(keys: keys, values: $0, in: pages) }
                for (k, v) in zip(keys, values) { model[k] = v }
            }
            #expect(try TreeShapeCheck.keyed(tree, pages) == [], "round \(round)")
            if round % 3 == 0 { pages.commit() }
        }
        let contents = try TreeBatchTests.keyedContents(tree, pages)
        #expect(contents.count == model.count)
        #expect(contents.allSatisfy { model[$0.0] == $0.1 })
        try TreeBatchTests.expectAccounted(pages, [tree.root], "overwrites")
    }

    @Test func shrinkingEveryValueOfAFullLeafKeepsThePageAndReusesTheRoom() throws {
        let pages = TreeTestPages()
        var tree = KeyedTree()
        // One leaf, nearly full: 100 cells of 8 + 4 + 24 bytes + a 2-byte slot.
        for k in 0..<100 as Range<UInt64> {
            try Self.value(24, 1).withUnsafeBytes { _ = try tree.put(k, $0, in: pages) }
        }
        pages.commit()
        let leaf = try TreeNode.read(tree.root, pages, KeyedFlavor.self)
        #expect(leaf.isLeaf && leaf.count == 100)
        // Rewrite every value 4 bytes shorter in one batch: each cell written over its old self.
        let keys = Array(0..<100 as Range<UInt64>)
        try TreeBatchTests.withBuffers(keys.map { _ in Self.value(20, 2) }) { _ = try tree.putSorted(keys: keys, values: $0, in: pages) }
        let after = try TreeNode.read(tree.root, pages, KeyedFlavor.self)
        #expect(after.isLeaf && after.count == 100)
        #expect(after.usedBytes == 100 * (8 + 4 + 20))
        #expect(after.cellStart == leaf.cellStart, "cells stay where they were")
        #expect(try TreeShapeCheck.keyed(tree, pages) == [])
        // The 400 dead bytes are room again: ~14 more cells fit without a split.
        for k in 100..<112 as Range<UInt64> {
            try Self.value(20, 3).withUnsafeBytes { _ = try tree.put(k, $0, in: pages) }
        }
        let grown = try TreeNode.read(tree.root, pages, KeyedFlavor.self)
        #expect(grown.isLeaf && grown.count == 112)
        #expect(try TreeShapeCheck.keyed(tree, pages) == [])
        let contents = try TreeBatchTests.keyedContents(tree, pages)
        #expect(contents.map(\.1) == (0..<100).map { _ in Self.value(20, 2) } + (0..<12).map { _ in Self.value(20, 3) })
    }

    @Test func positionalReplaceNotLargerIsWrittenInPlace() throws {
        let pages = TreeTestPages()
        var list = PositionalTree()
        for i in 0..<500 { try Self.value(16, UInt8(i % 200)).withUnsafeBytes { try list.insert($0, at: i, in: pages) } }
        pages.commit()
        var model = (0..<500).map { Self.value(16, UInt8($0 % 200)) }
        var rng = SplitMix64(seed: 5)
        for _ in 0..<400 {
            let i = Int.random(in: 0..<500, using: &rng)
            let v = Self.value(Int.random(in: 0...24, using: &rng), 9)
            try v.withUnsafeBytes { try list.replace(at: i, with: $0, in: pages) }
            model[i] = v
        }
        #expect(try TreeBatchTests.positionalContents(list, pages) == model)
        #expect(try TreeShapeCheck.positional(list, pages) == [])
        try TreeBatchTests.expectAccounted(pages, [list.root], "positional overwrites")
    }
}
