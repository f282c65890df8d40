// Batch operations of the trees against the same sequence of single operations: equal
// contents and counts, a valid shape (TreeShapeCheck), page accounting (every live page
// reachable, nothing written through a committed page, no use after free), over random
// inputs and the edge cases: empty batch, one element, a whole leaf, a whole tree, overflow
// values, batches into an empty tree. Bad batches throw their typed error and change nothing.

import Testing
import StrataStorage

@Suite struct TreeBatchTests {
    // MARK: Helpers

    /// Live pages equal the pages reachable from `roots`, and the double saw no misuse.
    static func expectAccounted(_ pages: TreeTestPages, _ roots: [PageRef], _ what: String) throws {
        var reachable = 0
        for root in roots where !root.isNull { reachable += try TreePageWalkTests.reachable(from: root, pages).count }
        #expect(pages.livePageCount == reachable, "\(what): \(pages.livePageCount) live pages, \(reachable) reachable")
        #expect(pages.violations.isEmpty, "\(what): \(pages.violations)")
        #expect(pages.changedCommittedPages().isEmpty, "\(what): committed pages written")
    }

    static func keyedContents(_ tree: KeyedTree, _ pages: TreeTestPages) throws -> [(UInt64, [UInt8])] {
        var out: [(UInt64, [UInt8])] = []
        try tree.forEach(in: pages) { k, v in out.append((k, Array(v))); return true }
        return out
    }

    static func bytesContents(_ tree: BytesTree, _ pages: TreeTestPages) throws -> [([UInt8], [UInt8])] {
        var out: [([UInt8], [UInt8])] = []
        try tree.forEach(from: nil, in: pages) { k, v in out.append((Array(k), Array(v))); return true }
        return out
    }

    static func positionalContents(_ tree: PositionalTree, _ pages: TreeTestPages) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        try tree.forEach(in: pages) { _, e in out.append(Array(e)); return true }
        return out
    }

    static func withBuffers<R>(_ arrays: [[UInt8]], _ body: ([UnsafeRawBufferPointer]) throws -> R) rethrows -> R {
        // One contiguous copy; the buffers point into it for the duration of `body`.
        let flat = arrays.flatMap { $0 }
        return try flat.withUnsafeBytes { all in
            var offset = 0
            var buffers: [UnsafeRawBufferPointer] = []
            for a in arrays {
                buffers.append(UnsafeRawBufferPointer(rebasing: all[offset..<offset + a.count]))
                offset += a.count
            }
            return try body(buffers)
        }
    }

    /// Keyed trees built by the same random puts in two page doubles (committed when `commit`).
    static func twinKeyed(_ rng: inout SplitMix64, size: Int, spread: UInt64, commit: Bool)
        -> (TreeTestPages, KeyedTree, TreeTestPages, KeyedTree, [UInt64]) {
        let a = TreeTestPages(), b = TreeTestPages()
        var ta = KeyedTree(), tb = KeyedTree()
        var keys = Set<UInt64>()
        for _ in 0..<size {
            let key = UInt64.random(in: 0..<spread, using: &rng)
            let value = randomValue(&rng)
            keys.insert(key)
            value.withUnsafeBytes { v in
                _ = try? ta.put(key, v, in: a)
                _ = try? tb.put(key, v, in: b)
            }
        }
        if commit { a.commit(); b.commit() }
        return (a, ta, b, tb, keys.sorted())
    }

    // MARK: KeyedTree

    @Test func keyedPutSortedEqualsSinglePuts() throws {
        var rng = SplitMix64(seed: 31)
        // (initial size, key spread, batch size): empty batch, one key, a leaf, a whole tree.
        let shapes: [(Int, UInt64, Int)] = [(0, 1000, 0), (0, 1000, 1), (500, 100_000, 0), (500, 100_000, 1),
                                             (0, 100_000, 3000), (2000, 100_000, 100), (2000, 4000, 1500),
                                             (3000, 1_000_000, 400), (50, 200, 150)]
        for (trial, shape) in shapes.enumerated() {
            for commit in [false, true] {
                var (a, ta, b, tb, _) = Self.twinKeyed(&rng, size: shape.0, spread: shape.1, commit: commit)
                let batchKeys = Set((0..<shape.2).map { _ in UInt64.random(in: 0..<shape.1 + 500, using: &rng) }).sorted()
                let values = batchKeys.map { _ in randomValue(&rng) }
                let inserted = try Self.withBuffers(values) { try ta.putSorted(keys: batchKeys, values: $0, in: a) }
                var singleInserted = 0
                for (k, v) in zip(batchKeys, values) { try v.withUnsafeBytes { if try tb.put(k, $0, in: b) { singleInserted += 1 } } }
                let what = "trial \(trial) commit \(commit)"
                #expect(inserted == singleInserted, "\(what)")
                let ca = try Self.keyedContents(ta, a), cb = try Self.keyedContents(tb, b)
                #expect(ca.map(\.0) == cb.map(\.0) && ca.map(\.1) == cb.map(\.1), "\(what): contents differ")
                #expect(try ta.count(in: a) == cb.count, "\(what)")
                #expect(try TreeShapeCheck.keyed(ta, a) == [], "\(what)")
                try Self.expectAccounted(a, [ta.root], what)
            }
        }
    }

    @Test func keyedAscendingAppendFillsLeavesAtLeastAsDenselyAsSinglePuts() throws {
        let a = TreeTestPages(), b = TreeTestPages()
        var ta = KeyedTree(), tb = KeyedTree()
        let value = [UInt8](repeating: 7, count: 24)
        var next: UInt64 = 1
        // Batches of 1,000 ascending keys past the end, committed between (the sensors pattern).
        for _ in 0..<10 {
            let keys = (0..<1000).map { next + UInt64($0) }
            next += 1000
            try value.withUnsafeBytes { v in
                #expect(try ta.putSorted(keys: keys, values: Array(repeating: v, count: keys.count), in: a) == 1000)
                for k in keys { try tb.put(k, v, in: b) }
            }
            a.commit(); b.commit()
        }
        #expect(try TreeShapeCheck.keyed(ta, a) == [])
        #expect(try Self.keyedContents(ta, a).map(\.0) == Array(1...10_000))
        #expect(a.livePageCount <= b.livePageCount, "batch \(a.livePageCount) pages, singles \(b.livePageCount)")
        try Self.expectAccounted(a, [ta.root], "append")
    }

    @Test func keyedRemoveSortedEqualsSingleRemoves() throws {
        var rng = SplitMix64(seed: 32)
        let shapes: [(Int, UInt64, Int)] = [(0, 1000, 5), (500, 100_000, 0), (500, 1000, 1), (3000, 5000, 2500),
                                             (3000, 100_000, 300), (2000, 3000, 3000)]
        for (trial, shape) in shapes.enumerated() {
            for commit in [false, true] {
                var (a, ta, b, tb, present) = Self.twinKeyed(&rng, size: shape.0, spread: shape.1, commit: commit)
                // Mostly present keys, some absent ones; a prefix run as the sensors pattern deletes.
                var batch = Set(present.shuffled(using: &rng).prefix(shape.2))
                if trial % 2 == 0 { batch.formUnion(present.prefix(shape.2)) }
                for _ in 0..<shape.2 / 10 { batch.insert(UInt64.random(in: 0..<shape.1, using: &rng)) }
                let keys = batch.sorted()
                let removed = try ta.removeSorted(keys, in: a)
                var singleRemoved = 0
                for k in keys where try tb.remove(k, in: b) { singleRemoved += 1 }
                let what = "trial \(trial) commit \(commit)"
                #expect(removed == singleRemoved, "\(what)")
                #expect(try Self.keyedContents(ta, a).map(\.0) == Self.keyedContents(tb, b).map(\.0), "\(what)")
                #expect(try TreeShapeCheck.keyed(ta, a) == [], "\(what)")
                try Self.expectAccounted(a, [ta.root], what)
            }
        }
    }

    @Test func keyedRemoveSortedStopsAtTheFirstAbsentKey() throws {
        let pages = TreeTestPages()
        var tree = KeyedTree()
        let value: [UInt8] = [1, 2, 3]
        try value.withUnsafeBytes { v in
            _ = try tree.putSorted(keys: Array(0..<1000).map { UInt64($0) * 2 }, values: Array(repeating: v, count: 1000), in: pages)
        }
        pages.commit()
        // 0, 2, ..., 998 present; 999 absent; 1000 present but after it.
        let keys = Array(stride(from: UInt64(0), through: 998, by: 2)) + [999, 1000]
        #expect(try tree.removeSorted(keys, stopAtAbsent: true, in: pages) == 500)
        #expect(try tree.count(in: pages) == 500)
        #expect(try tree.contains(1000, in: pages))
        #expect(try tree.firstKey(in: pages) == 1000)
        #expect(try TreeShapeCheck.keyed(tree, pages) == [])
        try Self.expectAccounted(pages, [tree.root], "stop")
        // Absent first key: nothing removed, nothing copied.
        let before = tree.root
        #expect(try tree.removeSorted([1, 1000], stopAtAbsent: true, in: pages) == 0)
        #expect(tree.root == before)
    }

    @Test func keyedBadBatchesThrowTypedErrorsAndChangeNothing() throws {
        let pages = TreeTestPages()
        var tree = KeyedTree()
        let v: [UInt8] = [9]
        try v.withUnsafeBytes { b in _ = try tree.putSorted(keys: Array(0..<300), values: Array(repeating: b, count: 300), in: pages) }
        pages.commit()
        let root = tree.root, live = pages.livePageCount
        func expectCode(_ code: StorageError.Code, _ body: () throws -> Void) {
            do { try body(); Issue.record("no error, expected \(code)") } catch let e as StorageError {
                #expect(e.code == code, "\(e)")
            } catch { Issue.record("untyped \(error)") }
        }
        v.withUnsafeBytes { b in
            expectCode(.invalidArgument) { try tree.putSorted(keys: [5, 3], values: [b, b], in: pages) }
            expectCode(.invalidArgument) { try tree.putSorted(keys: [5, 5], values: [b, b], in: pages) }
            expectCode(.invalidArgument) { try tree.putSorted(keys: [5, 6], values: [b], in: pages) }
            expectCode(.invalidArgument) { try tree.removeSorted([7, 6], in: pages) }
        }
        let big = UnsafeMutableRawBufferPointer.allocate(byteCount: KeyedTree.maxValueSize + 1, alignment: 8)
        defer { big.deallocate() }
        expectCode(.tooLarge) { try tree.putSorted(keys: [1000, 1001], values: [UnsafeRawBufferPointer(start: big.baseAddress, count: 1), UnsafeRawBufferPointer(big)], in: pages) }
        #expect(tree.root == root)
        #expect(pages.livePageCount == live)
        #expect(try tree.count(in: pages) == 300)
    }

    // MARK: BytesTree

    @Test func bytesPutAndRemoveSortedEqualSingleOperations() throws {
        var rng = SplitMix64(seed: 33)
        for trial in 0..<8 {
            let a = TreeTestPages(), b = TreeTestPages()
            var ta = BytesTree(), tb = BytesTree()
            var present = Set<[UInt8]>()
            for _ in 0..<(trial * 300) {
                let key = TreeBytesTests.randomKey(&rng), value = randomValue(&rng)
                present.insert(key)
                try key.withUnsafeBytes { k in try value.withUnsafeBytes { v in _ = try ta.put(k, v, in: a); _ = try tb.put(k, v, in: b) } }
            }
            if trial % 2 == 1 { a.commit(); b.commit() }
            // Backlink-like keys: a fixed prefix and an ascending suffix, past or among the others.
            var batch = Set((0..<(trial == 0 ? 1 : trial * 200)).map { _ in TreeBytesTests.randomKey(&rng) })
            for i in 0..<(trial * 50) { batch.insert([255, 0, 0, UInt8(i >> 8), UInt8(i & 255)]) }
            let keys = batch.sorted { $0.lexicographicallyPrecedes($1) }
            let values = keys.map { _ in randomValue(&rng) }
            let inserted = try Self.withBuffers(keys) { kb in try Self.withBuffers(values) { vb in try ta.putSorted(keys: kb, values: vb, in: a) } }
            var singleInserted = 0
            for (k, v) in zip(keys, values) {
                try k.withUnsafeBytes { kb in try v.withUnsafeBytes { vb in if try tb.put(kb, vb, in: b) { singleInserted += 1 } } }
            }
            #expect(inserted == singleInserted, "trial \(trial)")
            #expect(try Self.bytesContents(ta, a).map(\.0) == Self.bytesContents(tb, b).map(\.0), "trial \(trial) put")
            #expect(try Self.bytesContents(ta, a).map(\.1) == Self.bytesContents(tb, b).map(\.1), "trial \(trial) put values")
            #expect(try TreeShapeCheck.bytes(ta, a) == [], "trial \(trial) put")
            try Self.expectAccounted(a, [ta.root], "trial \(trial) put")
            a.commit(); b.commit()

            // Remove a sorted mix of present and absent keys, keeping those whose value starts
            // with an odd byte (a conditional removal, as reference counts do).
            let all = present.union(batch)
            let removal = all.filter { _ in Bool.random(using: &rng) }.sorted { $0.lexicographicallyPrecedes($1) }
            var seen: [Int] = []
            let removed = try Self.withBuffers(removal) { kb in
                try ta.removeSorted(kb, in: a) { i, v in seen.append(i); return v.first.map { $0 % 2 == 0 } ?? true }
            }
            var singleRemoved = 0
            for k in removal {
                try k.withUnsafeBytes { kb in
                    if try tb.remove(kb, in: b, if: { v in v.first.map { $0 % 2 == 0 } ?? true }) { singleRemoved += 1 }
                }
            }
            #expect(seen == seen.sorted() && Set(seen).count == seen.count, "trial \(trial): each present key decided once, in order")
            #expect(removed == singleRemoved, "trial \(trial)")
            #expect(try Self.bytesContents(ta, a).map(\.0) == Self.bytesContents(tb, b).map(\.0), "trial \(trial) remove")
            #expect(try TreeShapeCheck.bytes(ta, a) == [], "trial \(trial) remove")
            try Self.expectAccounted(a, [ta.root], "trial \(trial) remove")
        }
    }

    @Test func bytesBadBatchesThrowTypedErrors() throws {
        let pages = TreeTestPages()
        var tree = BytesTree()
        let long = [UInt8](repeating: 1, count: BytesTree.maxKeySize + 1)
        let k1: [UInt8] = [1], k2: [UInt8] = [1, 0], v: [UInt8] = [0]
        func code(_ body: () throws -> Void) -> StorageError.Code? {
            do { try body(); return nil } catch let e as StorageError { return e.code } catch { return nil }
        }
        try k1.withUnsafeBytes { a in try k2.withUnsafeBytes { b in try v.withUnsafeBytes { value in
            try long.withUnsafeBytes { l in
                #expect(code { try tree.putSorted(keys: [b, a], values: [value, value], in: pages) } == .invalidArgument)
                #expect(code { try tree.putSorted(keys: [a, l], values: [value, value], in: pages) } == .tooLarge)
                #expect(code { try tree.removeSorted([b, a], in: pages) } == .invalidArgument)
                #expect(code { try tree.removeSorted([l], in: pages) } == .tooLarge)
                let inserted = try tree.putSorted(keys: [a, b], values: [value, value], in: pages)
                #expect(inserted == 2)
            }
        } } }
        #expect(try tree.count(in: pages) == 2)
    }

    // MARK: PositionalTree

    @Test func positionalAppendAndRemoveFirstEqualSingleOperations() throws {
        var rng = SplitMix64(seed: 34)
        // (initial size, appended, removed from the front)
        let shapes: [(Int, Int, Int)] = [(0, 0, 0), (0, 1, 1), (0, 1, 0), (10, 0, 10), (100, 1000, 0), (1000, 1000, 1000),
                                         (1000, 300, 1300), (5000, 1000, 290), (0, 3000, 2999), (2000, 50, 1)]
        for (trial, shape) in shapes.enumerated() {
            for commit in [false, true] {
                let a = TreeTestPages(), b = TreeTestPages()
                var ta = PositionalTree(), tb = PositionalTree()
                for _ in 0..<shape.0 {
                    let e = randomValue(&rng)
                    try e.withUnsafeBytes { try ta.append($0, in: a); try tb.append($0, in: b) }
                }
                if commit { a.commit(); b.commit() }
                let elements = (0..<shape.1).map { _ in randomValue(&rng) }
                try Self.withBuffers(elements) { try ta.append(contentsOf: $0, in: a) }
                for e in elements { try e.withUnsafeBytes { try tb.append($0, in: b) } }
                let what = "trial \(trial) commit \(commit)"
                #expect(try Self.positionalContents(ta, a) == Self.positionalContents(tb, b), "\(what) append")
                #expect(try TreeShapeCheck.positional(ta, a) == [], "\(what) append")
                try Self.expectAccounted(a, [ta.root], "\(what) append")
                if commit { a.commit(); b.commit() }

                var handed: [[UInt8]] = []
                try ta.removeFirst(shape.2, in: a) { handed.append(Array($0)) }
                var expected: [[UInt8]] = []
                for _ in 0..<shape.2 { try tb.remove(at: 0, in: b) { expected.append(Array($0)) } }
                #expect(handed == expected, "\(what): removed elements")
                #expect(try Self.positionalContents(ta, a) == Self.positionalContents(tb, b), "\(what) removeFirst")
                #expect(try ta.count(in: a) == shape.0 + shape.1 - shape.2, "\(what)")
                #expect(try TreeShapeCheck.positional(ta, a) == [], "\(what) removeFirst")
                try Self.expectAccounted(a, [ta.root], "\(what) removeFirst")
                #expect(ta.isEmpty == (shape.0 + shape.1 == shape.2), "\(what)")
            }
        }
    }

    @Test func positionalSlidingWindowKeepsShapeAndPages() throws {
        // The sensors list: append 1,000 links, drop the oldest 1,000, over and over.
        let pages = TreeTestPages()
        var list = PositionalTree()
        var next: UInt64 = 0
        var window: [UInt64] = []
        for round in 0..<30 {
            let keys = (0..<1000).map { next + UInt64($0) }
            next += 1000
            try list.appendUInt64s(keys, in: pages)
            window += keys
            if window.count > 5000 {
                let excess = window.count - 5000
                var removed: [UInt64] = []
                try list.removeFirst(excess, in: pages) { removed.append(UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))) }
                #expect(removed == Array(window.prefix(excess)), "round \(round)")
                window.removeFirst(excess)
            }
            pages.commit()
            pages.releaseRetired()
        }
        #expect(try (0..<window.count).allSatisfy { try list.element64(at: $0, in: pages) == window[$0] })
        #expect(try TreeShapeCheck.positional(list, pages) == [])
        try Self.expectAccounted(pages, [list.root], "window")
    }

    @Test func positionalBadBatchesThrowTypedErrors() throws {
        let pages = TreeTestPages()
        var list = PositionalTree()
        try list.appendUInt64s([1, 2, 3], in: pages)
        func code(_ body: () throws -> Void) -> StorageError.Code? {
            do { try body(); return nil } catch let e as StorageError { return e.code } catch { return nil }
        }
        #expect(code { try list.removeFirst(4, in: pages) } == .invalidArgument)
        #expect(code { try list.removeFirst(-1, in: pages) { _ in } } == .invalidArgument)
        let big = UnsafeMutableRawBufferPointer.allocate(byteCount: PositionalTree.maxElementSize + 1, alignment: 8)
        defer { big.deallocate() }
        #expect(code { try list.append(contentsOf: [UnsafeRawBufferPointer(big)], in: pages) } == .tooLarge)
        #expect(try list.count(in: pages) == 3)
        // A body that throws stops the removal with its error.
        struct Stop: Error {}
        do {
            try list.removeFirst(2, in: pages) { _ in throw Stop() }
            Issue.record("no error")
        } catch is Stop {}
    }
}
