// The search of a keyed leaf between bounds (KeyedFlavor.searchLeaf(_:_:lower:upper:), which a
// lookup through a `LeafFinger` uses with the separators its descent read) finds the position a
// linear scan of the leaf's keys gives, whatever bounds it gets: right ones, swapped, equal,
// unrelated to the leaf, extremes, or none. The bounds only choose the first probe.

import Testing
@testable import StrataStorage

@Suite struct TreeKeyedGuidedSearchTests {
    static func keySet(_ shape: Int, _ rng: inout SplitMix64) -> [UInt64] {
        switch shape {
        case 0: return (0..<150).map { 1_000 + UInt64($0) }  // object keys as a class's rows get them
        case 1: return (0..<150).map { 1 << 40 + UInt64($0) * 977 }  // evenly spaced, far from zero
        default:  // uneven: random gaps, a few huge
            var key: UInt64 = 0
            return (0..<150).map { i in
                key += i % 17 == 0 ? UInt64.random(in: 1...(1 << 50), using: &rng) : UInt64.random(in: 1...40, using: &rng)
                return key
            }
        }
    }

    @Test(arguments: 0..<3)
    func everyBoundGivesTheScansPosition(shape: Int) throws {
        var rng = SplitMix64(seed: UInt64(70 + shape))
        let keys = Self.keySet(shape, &rng)
        let pages = TreeTestPages()
        var tree = KeyedTree()
        for key in keys { _ = try [UInt8(7), 8, 9].withUnsafeBytes { try tree.put(key, $0, in: pages) } }
        pages.commit()
        let leaf = try TreeNode.read(tree.root, pages, KeyedFlavor.self)
        #expect(leaf.isLeaf && !leaf.isPacked && leaf.count == keys.count)

        let edges: [UInt64] = [0, 1, keys[0], keys[keys.count - 1], keys[keys.count - 1] + 1, .max - 1, .max]
        var bounds: [(UInt64?, UInt64?)] = [(nil, nil), (keys[0], nil), (nil, keys[keys.count - 1] + 1),
                                            (keys[0], keys[keys.count - 1] + 1), (0, .max)]
        for _ in 0..<40 {
            let a = keys.randomElement(using: &rng)!, b = keys.randomElement(using: &rng)!
            bounds += [(a, b), (b, a), (a, a), (edges.randomElement(using: &rng)!, b), (a, edges.randomElement(using: &rng)!),
                       (UInt64.random(in: 0...UInt64.max, using: &rng), UInt64.random(in: 0...UInt64.max, using: &rng))]
        }
        var probes = keys + keys.map { $0 &- 1 } + keys.map { $0 &+ 1 } + edges
        probes += (0..<50).map { _ in UInt64.random(in: 0...UInt64.max, using: &rng) }

        var wrong: [String] = []
        for probe in probes {
            let expected = keys.firstIndex { $0 >= probe } ?? keys.count
            let present = expected < keys.count && keys[expected] == probe
            for (lower, upper) in bounds {
                let (index, found) = try KeyedFlavor.searchLeaf(leaf, probe, lower: lower, upper: upper)
                if index != expected || found != present {
                    wrong.append("\(probe) in \(String(describing: lower))…\(String(describing: upper)): \(index) \(found), not \(expected) \(present)")
                }
            }
            if wrong.count > 5 { break }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }
}
