// The guided search of a byte-string node (Trees/BytesGuidedSearch.swift) returns bisection's
// position whatever bounds it is given: right ones, swapped, equal, unrelated to the node, or none.
// The bounds only choose the first probe; a wrong guess must cost probes, never the answer.

import Testing
@testable import StrataStorage

@Suite struct TreeBytesGuidedSearchTests {
    /// A leaf holding `keys` (few enough for one page) and a branch over many keys.
    static func nodes(_ keys: [[UInt8]]) throws -> (leaf: TreeNode, branch: TreeNode, pages: TreeTestPages, trees: [BytesTree]) {
        let pages = TreeTestPages()
        var leafTree = BytesTree()
        for key in keys.prefix(120) {
            _ = try key.withUnsafeBytes { k in try [UInt8(7)].withUnsafeBytes { try leafTree.put(k, $0, in: pages) } }
        }
        var branchTree = BytesTree()
        for key in keys {
            _ = try key.withUnsafeBytes { k in try [UInt8(7)].withUnsafeBytes { try branchTree.put(k, $0, in: pages) } }
        }
        pages.commit()
        let leaf = try TreeNode.read(leafTree.root, pages, BytesFlavor.self)
        let branch = try TreeNode.read(branchTree.root, pages, BytesFlavor.self)
        return (leaf, branch, pages, [leafTree, branchTree])
    }

    static func keySet(_ shape: Int, _ rng: inout SplitMix64) -> [[UInt8]] {
        switch shape {
        case 0:  // Int primary keys of object format 4: tag, then big-endian with the sign flipped
            return (0..<6_000).map { i in [1] + withUnsafeBytes(of: (UInt64(i * 2) ^ (1 << 63)).bigEndian, Array.init) }
        case 1:  // index entries: value, then object key
            return (0..<6_000).map { i in
                [1] + withUnsafeBytes(of: UInt64(i / 3).bigEndian, Array.init) + withUnsafeBytes(of: UInt64(i).bigEndian, Array.init)
            }
        default:  // uneven: random lengths and bytes
            return Set((0..<6_000).map { _ in (0..<Int.random(in: 1...14, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) } })
                .sorted { $0.lexicographicallyPrecedes($1) }
        }
    }

    @Test(arguments: 0..<3)
    func everyBoundGivesBisectionsPosition(shape: Int) throws {
        var rng = SplitMix64(seed: UInt64(40 + shape))
        let keys = Self.keySet(shape, &rng)
        let (leaf, branch, pages, trees) = try Self.nodes(keys)
        #expect(!branch.isLeaf && branch.count > 8 && leaf.count > 8)

        // Bounds: the node's own edges, keys from elsewhere, swapped and equal pairs, extremes.
        let edges: [[UInt8]] = [[], [0], [1], [1, 0xff], [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]]
        var bounds: [([UInt8], [UInt8])] = []
        for _ in 0..<40 {
            let a = keys.randomElement(using: &rng)!, b = keys.randomElement(using: &rng)!
            bounds.append((a, b))
            bounds.append((b, a))
            bounds.append((a, a))
            bounds.append((edges.randomElement(using: &rng)!, b))
            bounds.append((a, edges.randomElement(using: &rng)!))
        }
        bounds.append((keys.first!, keys.last!))

        var probes = keys.shuffled(using: &rng).prefix(300).map { $0 }
        probes += probes.map { $0 + [0] } + probes.map { Array($0.dropLast()) } + edges

        var wrong: [String] = []
        for probe in probes {
            try probe.withUnsafeBytes { key in
                let leafExpected = try BytesFlavor.searchLeaf(leaf, key).index
                let branchExpected = try BytesFlavor.searchBranch(branch, key).index + 1
                for (lower, upper) in bounds {
                    try lower.withUnsafeBytes { l in
                        try upper.withUnsafeBytes { u in
                            let inLeaf = try BytesFlavor.partition(leaf, low: 0, high: leaf.count, keyOffset: 0, key,
                                                                   orEqual: false, lower: l, upper: u)
                            if inLeaf != leafExpected { wrong.append("leaf \(probe) bounds \(lower)…\(upper): \(inLeaf) not \(leafExpected)") }
                            let inBranch = try BytesFlavor.partition(branch, low: 1, high: branch.count,
                                                                     keyOffset: TreeLayout.branchKeyOffset, key,
                                                                     orEqual: true, lower: l, upper: u)
                            if inBranch != branchExpected { wrong.append("branch \(probe): \(inBranch) not \(branchExpected)") }
                        }
                    }
                }
            }
            if wrong.count > 5 { break }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")

        // Whole lookups through the guided descent agree with the keys stored.
        for probe in probes {
            let present = Set(keys).contains(probe)
            let found = try probe.withUnsafeBytes { try trees[1].contains($0, in: pages) }
            #expect(found == present, "\(probe)")
        }
    }
}
