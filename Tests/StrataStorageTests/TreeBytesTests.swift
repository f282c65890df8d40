// Model-based tests of BytesTree: seeded random byte-string keys (empty, short, common
// prefixes, up to the 1024-byte limit) against a sorted model in memcmp order.

import Testing
@testable import StrataStorage

@Suite struct TreeBytesTests {
    /// memcmp order, a proper prefix first: what the tree promises.
    static func less(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.lexicographicallyPrecedes(b) }

    static func randomKey(_ rng: inout SplitMix64) -> [UInt8] {
        let roll = Int.random(in: 0..<100, using: &rng)
        let length: Int
        if roll < 2 { length = Int.random(in: 900...BytesTree.maxKeySize, using: &rng) }
        else if roll < 5 { length = 0 }
        else { length = Int.random(in: 1...6, using: &rng) }
        // A small alphabet makes shared prefixes and prefix keys common.
        return (0..<length).map { _ in UInt8.random(in: 0...3, using: &rng) &* 85 }
    }

    static func verify(_ tree: BytesTree, _ model: [[UInt8]: [UInt8]], _ pages: TreeTestPages) throws {
        #expect(try tree.count(in: pages) == model.count)
        var keys: [[UInt8]] = []
        var mismatches = 0
        try tree.forEach(from: nil, in: pages) { key, value in
            keys.append(Array(key))
            if model[Array(key)] != Array(value) { mismatches += 1 }
            return true
        }
        #expect(mismatches == 0)
        #expect(keys == model.keys.sorted(by: less))
        var reversed: [[UInt8]] = []
        try tree.forEachReversed(in: pages) { key, _ in reversed.append(Array(key)); return true }
        #expect(reversed == keys.reversed())
        for position in [0, keys.count / 2, keys.count - 1] where position >= 0 && position < keys.count {
            #expect(try tree.withEntry(at: position, in: pages) { key, _ in Array(key) } == keys[position])
            #expect(try keys[position].withUnsafeBytes { try tree.rank(of: $0, in: pages) } == position)
        }
        var rng = SplitMix64(seed: UInt64(model.count))
        for _ in 0..<5 {
            let end = randomKey(&rng)
            var from: [[UInt8]] = []
            try end.withUnsafeBytes { try tree.forEachReversed(through: $0, in: pages) { key, _ in from.append(Array(key)); return from.count < 30 } }
            #expect(from == Array(keys.filter { !less(end, $0) }.reversed().prefix(30)))
        }
        #expect(try TreeShapeCheck.bytes(tree, pages) == [])
    }

    @Test(arguments: [UInt64(11), 12, 13])
    func randomOperationsMatchModel(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let pages = TreeTestPages()
        var tree = BytesTree()
        var model: [[UInt8]: [UInt8]] = [:]
        for step in 0..<5000 {
            let removeChance = step < 3300 ? 25 : 75
            let key = Self.randomKey(&rng)
            if Int.random(in: 0..<100, using: &rng) < removeChance {
                let removed = try key.withUnsafeBytes { try tree.remove($0, in: pages) }
                #expect(removed == (model.removeValue(forKey: key) != nil))
            } else {
                let value = randomValue(&rng)
                let inserted = try key.withUnsafeBytes { k in try value.withUnsafeBytes { try tree.put(k, $0, in: pages) } }
                #expect(inserted == (model[key] == nil))
                model[key] = value
            }
            let probe = Self.randomKey(&rng)
            #expect(try probe.withUnsafeBytes { try tree.withValue(forKey: $0, in: pages) { Array($0) } } == model[probe])
            if Int.random(in: 0..<100, using: &rng) < 5 { pages.commit() }
            if step % 1000 == 999 { try Self.verify(tree, model, pages) }
        }
        try Self.verify(tree, model, pages)
        // Lower bounds agree with the model.
        let sorted = model.keys.sorted(by: Self.less)
        for _ in 0..<200 {
            let probe = Self.randomKey(&rng)
            let expected = sorted.first { !Self.less($0, probe) }
            let found = try probe.withUnsafeBytes { try tree.withLowerBound($0, in: pages) { key, _ in Array(key) } }
            #expect(found == expected)
        }
        pages.commit()
        try tree.destroy(in: pages)
        #expect(pages.livePageCount == 0)
        #expect(pages.violations.isEmpty)
        #expect(pages.changedCommittedPages().isEmpty)
    }

    @Test func manyMaximumSizeKeysSplitAndMerge() throws {
        var rng = SplitMix64(seed: 21)
        let pages = TreeTestPages()
        var tree = BytesTree()
        var model: [[UInt8]: [UInt8]] = [:]
        for i in 0..<400 {
            var key = (0..<BytesTree.maxKeySize).map { _ in UInt8.random(in: 0...1, using: &rng) }
            key[0] = UInt8(i % 7)
            let value = randomValue(&rng)
            try key.withUnsafeBytes { k in try value.withUnsafeBytes { _ = try tree.put(k, $0, in: pages) } }
            model[key] = value
            if i % 50 == 0 { pages.commit() }
        }
        try Self.verify(tree, model, pages)
        for key in model.keys.shuffled(using: &rng) {
            #expect(try key.withUnsafeBytes { try tree.remove($0, in: pages) })
            model[key] = nil
            if model.count % 97 == 0 { try Self.verify(tree, model, pages) }
        }
        #expect(tree.isEmpty)
        #expect(pages.livePageCount == 0)
        #expect(pages.violations.isEmpty)
    }

    @Test func keyOverTheLimitIsRejected() throws {
        let pages = TreeTestPages()
        var tree = BytesTree()
        let key = [UInt8](repeating: 1, count: BytesTree.maxKeySize + 1)
        let error = #expect(throws: StorageError.self) {
            try key.withUnsafeBytes { k in try [UInt8]().withUnsafeBytes { _ = try tree.put(k, $0, in: pages) } }
        }
        #expect(error?.code == .tooLarge)
        #expect(tree.isEmpty)
        #expect(try key.withUnsafeBytes { try tree.withValue(forKey: $0, in: pages) { _ in 1 } } == nil)
    }

    @Test func leafSeparatorsAreShortenedToTheDistinguishingPrefix() throws {
        var rng = SplitMix64(seed: 8)
        let pages = TreeTestPages()
        var tree = BytesTree()
        var model: [[UInt8]: [UInt8]] = [:]
        for _ in 0..<3000 {
            // Long random keys: two of them almost always differ within the first 3 bytes.
            let key = (0..<300).map { _ in UInt8.random(in: 0...255, using: &rng) }
            try key.withUnsafeBytes { k in try [UInt8]().withUnsafeBytes { _ = try tree.put(k, $0, in: pages) } }
            model[key] = []
        }
        try Self.verify(tree, model, pages)
        let root = try TreeNode.read(tree.root, pages, BytesFlavor.self)
        #expect(!root.isLeaf)
        var longest = 0
        for i in 1..<root.count {
            let cell = try root.branchCell(i, BytesFlavor.self)
            longest = max(longest, cell.size - TreeLayout.branchKeyOffset - 2)
        }
        #expect(longest <= 4)
    }
}
