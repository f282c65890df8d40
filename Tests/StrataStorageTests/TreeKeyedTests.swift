// Model-based tests of KeyedTree: seeded random operation sequences checked against a
// Dictionary, with commits in between (so copy-on-write paths run), overflow values, splits,
// merges and emptying; plus append-mode density, snapshots and destroy.

import Testing
@testable import StrataStorage

@Suite struct TreeKeyedTests {
    static func verify(_ tree: KeyedTree, _ model: [UInt64: [UInt8]], _ pages: TreeTestPages) throws {
        #expect(try tree.count(in: pages) == model.count)
        #expect(tree.isEmpty == model.isEmpty)
        var keys: [UInt64] = []
        var mismatches = 0
        try tree.forEach(in: pages) { key, value in
            keys.append(key)
            if model[key] != Array(value) { mismatches += 1 }
            return true
        }
        #expect(mismatches == 0)
        #expect(keys == model.keys.sorted())
        var reversed: [UInt64] = []
        try tree.forEachReversed(in: pages) { key, _ in reversed.append(key); return true }
        #expect(reversed == model.keys.sorted().reversed())
        let sorted = model.keys.sorted()
        for position in [0, sorted.count / 3, sorted.count / 2, sorted.count - 1] where position >= 0 && position < sorted.count {
            #expect(try tree.withEntry(at: position, in: pages) { key, _ in key } == sorted[position])
            #expect(try tree.rank(of: sorted[position], in: pages) == position)
            #expect(try tree.rank(of: sorted[position] &+ 1, in: pages) == sorted.filter { $0 <= sorted[position] }.count)
        }
        let outOfRange = #expect(throws: StorageError.self) { try tree.withEntry(at: sorted.count, in: pages) { _, _ in 0 } }
        #expect(outOfRange?.code == .invalidArgument)
        if let probe = model.keys.randomElement() {
            let end = probe &+ UInt64(probe % 3)   // sometimes a present key, sometimes between keys
            var from: [UInt64] = []
            try tree.forEachReversed(through: end, in: pages) { key, _ in from.append(key); return from.count < 50 }
            #expect(from == Array(model.keys.filter { $0 <= end }.sorted().reversed().prefix(50)))
        }
        #expect(try tree.lastKey(in: pages) == model.keys.max())
        #expect(try tree.firstKey(in: pages) == model.keys.min())
        #expect(try TreeShapeCheck.keyed(tree, pages) == [])
    }

    /// Puts keys 0..<n (24-byte values) in ascending order, committing every 1,000, and checks
    /// that the leaves come out full; returns the tree.
    @discardableResult
    static func fillAscendingAndCheckDensity(_ n: Int, _ pages: TreeTestPages) throws -> KeyedTree {
        var tree = KeyedTree()
        let value = [UInt8](repeating: 7, count: 24)
        for key in 0..<UInt64(n) {
            try value.withUnsafeBytes { _ = try tree.put(key, $0, in: pages) }
            if key % 1000 == 999 { pages.commit() }
        }
        #expect(pages.livePageCount <= minimumLeaves(n) + minimumLeaves(n) / 20 + 3)
        return tree
    }

    /// Leaves needed for n ascending 24-byte values: a cell is 8 + 4 + 24 bytes + 2 for its
    /// slot, 112 per 4048-byte leaf when full.
    static func minimumLeaves(_ n: Int) -> Int {
        let perLeaf = TreeLayout.usableSize / (8 + 4 + 24 + 2)
        return (n + perLeaf - 1) / perLeaf
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func randomOperationsMatchDictionary(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let pages = TreeTestPages()
        var tree = KeyedTree()
        var model: [UInt64: [UInt8]] = [:]
        let keySpace = UInt64([300, 2000, 5000, 60][Int(seed % 4)])
        for step in 0..<6000 {
            // First two thirds grow the tree, the last third mostly shrinks it.
            let removeChance = step < 4000 ? 25 : 75
            let key = UInt64.random(in: 0..<keySpace, using: &rng)
            if Int.random(in: 0..<100, using: &rng) < removeChance {
                let removed = try tree.remove(key, in: pages)
                #expect(removed == (model.removeValue(forKey: key) != nil))
            } else {
                let value = randomValue(&rng)
                let inserted = try value.withUnsafeBytes { try tree.put(key, $0, in: pages) }
                #expect(inserted == (model[key] == nil))
                model[key] = value
            }
            let probe = UInt64.random(in: 0..<keySpace, using: &rng)
            #expect(try tree.withValue(forKey: probe, in: pages) { Array($0) } == model[probe])
            #expect(try tree.contains(probe, in: pages) == (model[probe] != nil))
            if Int.random(in: 0..<100, using: &rng) < 5 { pages.commit() }
            if step % 1000 == 999 { try Self.verify(tree, model, pages) }
        }
        try Self.verify(tree, model, pages)
        for key in model.keys.sorted().shuffled(using: &rng) {
            #expect(try tree.remove(key, in: pages))
        }
        #expect(tree.isEmpty)
        #expect(pages.livePageCount == 0)
        #expect(pages.violations.isEmpty)
        #expect(pages.changedCommittedPages().isEmpty)
    }

    @Test func ascendingInsertFillsLeaves() throws {
        let pages = TreeTestPages()
        let n = 20_000
        let tree = try Self.fillAscendingAndCheckDensity(n, pages)
        #expect(try tree.count(in: pages) == n)
        #expect(try tree.lastKey(in: pages) == UInt64(n - 1))
        #expect(pages.changedCommittedPages().isEmpty)
    }

    @Test func snapshotRootReadsTheSameAfterMutation() throws {
        var rng = SplitMix64(seed: 99)
        let pages = TreeTestPages()
        var tree = KeyedTree()
        var model: [UInt64: [UInt8]] = [:]
        for _ in 0..<3000 {
            let key = UInt64.random(in: 0..<5000, using: &rng)
            let value = randomValue(&rng)
            try value.withUnsafeBytes { _ = try tree.put(key, $0, in: pages) }
            model[key] = value
        }
        pages.commit()
        let snapshot = tree
        let snapshotModel = model
        for _ in 0..<3000 {
            let key = UInt64.random(in: 0..<5000, using: &rng)
            if Bool.random(using: &rng) {
                try tree.remove(key, in: pages)
                model[key] = nil
            } else {
                let value = randomValue(&rng)
                try value.withUnsafeBytes { _ = try tree.put(key, $0, in: pages) }
                model[key] = value
            }
        }
        try Self.verify(snapshot, snapshotModel, pages)
        try Self.verify(tree, model, pages)
        #expect(pages.changedCommittedPages().isEmpty)
        #expect(pages.violations.isEmpty)
    }

    @Test func destroyFreesEveryPage() throws {
        var rng = SplitMix64(seed: 5)
        let pages = TreeTestPages()
        var tree = KeyedTree()
        for key in 0..<UInt64(4000) {
            let value = randomValue(&rng)
            try value.withUnsafeBytes { _ = try tree.put(key * 7 % 4001, $0, in: pages) }
        }
        pages.commit()
        #expect(pages.livePageCount > 40)
        try tree.destroy(in: pages)
        #expect(tree.isEmpty)
        #expect(pages.livePageCount == 0)
        #expect(pages.violations.isEmpty)
        #expect(pages.changedCommittedPages().isEmpty)
    }

    @Test func replacingAndRemovingOverflowValuesFreesTheirPages() throws {
        let pages = TreeTestPages()
        var tree = KeyedTree()
        let big = [UInt8](repeating: 0xAB, count: 100_000)
        try big.withUnsafeBytes { _ = try tree.put(1, $0, in: pages) }
        let withBig = pages.livePageCount
        #expect(withBig >= 1 + big.count / TreeOverflow.chunkSize)
        #expect(try tree.withValue(forKey: 1, in: pages) { Array($0) } == big)
        let small: [UInt8] = [1, 2, 3]
        #expect(try !small.withUnsafeBytes { try tree.put(1, $0, in: pages) })
        #expect(pages.livePageCount == 1)
        try big.withUnsafeBytes { _ = try tree.put(2, $0, in: pages) }
        #expect(try tree.remove(2, in: pages))
        #expect(pages.livePageCount == 1)
        #expect(try tree.remove(1, in: pages))
        #expect(pages.livePageCount == 0)
        #expect(pages.violations.isEmpty)
    }

    @Test func maximumSizeValueRoundTripsAndLargerIsRejected() throws {
        let pages = TreeTestPages()
        var tree = KeyedTree()
        var value = [UInt8](repeating: 0, count: KeyedTree.maxValueSize)
        value[0] = 1
        value[value.count - 1] = 2
        try value.withUnsafeBytes { _ = try tree.put(9, $0, in: pages) }
        #expect(try tree.withValue(forKey: 9, in: pages) { $0.count == value.count && $0.first == 1 && $0.last == 2 } == true)
        let tooBig = [UInt8](repeating: 0, count: KeyedTree.maxValueSize + 1)
        let error = #expect(throws: StorageError.self) {
            try tooBig.withUnsafeBytes { _ = try tree.put(10, $0, in: pages) }
        }
        #expect(error?.code == .tooLarge)
        try tree.destroy(in: pages)
        #expect(pages.livePageCount == 0)
    }

    @Test func emptyTreeAnswersWithoutPages() throws {
        let pages = TreeTestPages()
        var tree = KeyedTree()
        #expect(try tree.count(in: pages) == 0)
        #expect(try tree.lastKey(in: pages) == nil)
        #expect(try tree.withValue(forKey: 3, in: pages) { _ in 1 } == nil)
        #expect(try !tree.remove(3, in: pages))
        var visited = 0
        try tree.forEach(in: pages) { _, _ in visited += 1; return true }
        #expect(visited == 0)
        try tree.destroy(in: pages)
        #expect(pages.livePageCount == 0)
    }

    @Test func forEachStartsAtTheFirstKeyNotBelowStartAndStops() throws {
        let pages = TreeTestPages()
        var tree = KeyedTree()
        for key in stride(from: UInt64(0), to: 5000, by: 5) {
            try [UInt8(key % 251)].withUnsafeBytes { _ = try tree.put(key, $0, in: pages) }
        }
        var seen: [UInt64] = []
        try tree.forEach(from: 2503, in: pages) { key, _ in
            seen.append(key)
            return seen.count < 4
        }
        #expect(seen == [2505, 2510, 2515, 2520])
    }

    @Test func removingAnAbsentKeyCopiesNothing() throws {
        let pages = TreeTestPages()
        var tree = KeyedTree()
        for key in stride(from: UInt64(0), to: 20_000, by: 2) {
            try [UInt8](repeating: 1, count: 16).withUnsafeBytes { _ = try tree.put(key, $0, in: pages) }
        }
        pages.commit()
        let root = tree.root
        let copies = pages.copies
        for key in stride(from: UInt64(1), to: 20_000, by: 200) { #expect(try !tree.remove(key, in: pages)) }
        #expect(tree.root == root)
        #expect(pages.copies == copies)
        #expect(try tree.remove(2, in: pages))
        #expect(pages.copies > copies)           // a real removal copies the path
        #expect(tree.root != root)
    }

    @Test func randomRemovalsMergePagesBack() throws {
        var rng = SplitMix64(seed: 17)
        let pages = TreeTestPages()
        var tree = KeyedTree()
        var keys = Array(0..<UInt64(20_000)).shuffled(using: &rng)
        let value = [UInt8](repeating: 3, count: 24)
        for key in keys { try value.withUnsafeBytes { _ = try tree.put(key, $0, in: pages) } }
        keys.shuffle(using: &rng)
        for key in keys.prefix(18_000) { #expect(try tree.remove(key, in: pages)) }
        #expect(try tree.count(in: pages) == 2_000)
        // 2,000 entries of 38 bytes fill 18 pages; merging keeps the tree within twice that.
        let perLeaf = TreeLayout.usableSize / (8 + 4 + 24 + 2)
        let minimumLeaves = (2_000 + perLeaf - 1) / perLeaf
        #expect(pages.livePageCount <= 2 * minimumLeaves + 2, "\(pages.livePageCount) pages for 2,000 entries")
        #expect(try TreeShapeCheck.keyed(tree, pages) == [])
    }
}
