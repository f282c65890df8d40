// Packed keyed leaves in trees (PackedLeafEdit.swift): when packed leaves are made (minimum
// runs, mixed lengths), density, removals and merges, edits at every position, and a model
// test of every KeyedTree operation on trees that hold packed leaves.

import Foundation
import Testing
@testable import StrataStorage

extension PackedLeafTests {
    // MARK: Minimum run

    /// PackedLayout.minimumRun: "A batch packs a fresh leaf only for a run of at least this
    /// many entries of one length". Right of a full slotted leaf, a batch of 63 appends stays
    /// slotted; one of 64 makes a packed leaf.
    @Test func aFreshPackedLeafNeedsAMinimumRun() throws {
        let perLeaf = TreeLayout.usableSize / (8 + TreeLayout.valueHeaderSize + S.rowLength + TreeLayout.slotSize)
        for (run, expectPacked) in [(1, false), (PackedLayout.minimumRun - 1, false), (PackedLayout.minimumRun, true)] {
            let pages = TreeTestPages()
            var tree = KeyedTree()
            // Full slotted leaves (putSorted fills leaves completely when appending).
            let keys = (0..<UInt64(perLeaf * 3)).map { $0 }
            let rows = keys.map { S.row(counter: $0, time: 1, noise: S.noise($0)) }
            _ = try TreeBatchTests.withBuffers(rows) { try tree.putSorted(keys: keys, values: $0, in: pages) }
            #expect(try S.census(tree, pages).kinds[TreePageKind.keyedLeaf] == 3, "the set-up expects three full leaves")
            let more = (0..<UInt64(run)).map { UInt64(perLeaf * 3) + $0 }
            let moreRows = more.map { S.row(counter: $0, time: 2, noise: S.noise($0)) }
            _ = try TreeBatchTests.withBuffers(moreRows) { try tree.putSorted(keys: more, values: $0, packing: true, in: pages) }
            let packedLeaves = try S.census(tree, pages).kinds[TreePageKind.keyedPackedLeaf] ?? 0
            #expect((packedLeaves > 0) == expectPacked, "a batch of \(run) appends made \(packedLeaves) packed leaves")
            #expect(try tree.count(in: pages) == perLeaf * 3 + run)
            #expect(try TreeShapeCheck.keyed(tree, pages) == [])
        }
    }

    // MARK: Edits at every position

    /// Single puts and sorted batches that replace or insert at the first, second, middle,
    /// second-to-last and last entry of a full packed leaf, with every kind of value a packed
    /// leaf cannot take in place: another length (short, 0, longer than packed values), an
    /// overflow value, a changed constant byte; and a removal at each position.
    @Test(arguments: [false, true])
    func editsAtEveryPositionOfAPackedLeaf(batch: Bool) throws {
        var rng = SplitMix64(seed: batch ? 41 : 42)
        let n = 4_000
        let keys = (0..<UInt64(n)).map { 100 + 3 * $0 }
        let rows = keys.map { S.row(counter: $0, time: 1_700_000_000_000, noise: S.noise($0)) }
        let kinds: [(String, ([UInt8]) -> [UInt8])] = [
            ("10 bytes", { _ in [UInt8](repeating: 0x11, count: 10) }),
            ("0 bytes", { _ in [] }),
            ("600 bytes", { _ in [UInt8](repeating: 0x22, count: 600) }),
            ("overflow", { _ in [UInt8](repeating: 0x33, count: 6_000) }),
            ("constant changed", { row in var r = row; r[0] = 9; return r }),
            ("varying changed", { row in var r = row; r[1] ^= 0xFF; return r }),
        ]
        for (kind, make) in kinds {
            for place in ["first", "second", "middle", "penultimate", "last", "gap after first", "gap in the middle", "gap before last"] {
                let pages = TreeTestPages()
                var tree = KeyedTree()
                _ = try TreeBatchTests.withBuffers(rows) { try tree.putSorted(keys: keys, values: $0, packing: true, in: pages) }
                pages.commit()
                var model = Dictionary(uniqueKeysWithValues: zip(keys, rows))
                // A packed leaf in the middle of the tree.
                let leaves = try S.packedLeaves(tree, pages)
                let target = try PackedLeaf(ref: leaves[leaves.count / 2], base: try pages.readPage(leaves[leaves.count / 2]))
                let leafKeys = S.keys(target)
                let key: UInt64
                switch place {
                case "first": key = leafKeys[0]
                case "second": key = leafKeys[1]
                case "middle": key = leafKeys[leafKeys.count / 2]
                case "penultimate": key = leafKeys[leafKeys.count - 2]
                case "last": key = leafKeys[leafKeys.count - 1]
                case "gap after first": key = leafKeys[0] + 1
                case "gap in the middle": key = leafKeys[leafKeys.count / 2] + 1
                default: key = leafKeys[leafKeys.count - 2] + 1
                }
                let value = make(model[key] ?? S.row(counter: key, time: 1_700_000_000_000, noise: 7))
                let context = "\(batch ? "putSorted" : "put") of \(kind) at the \(place) key \(key) of a packed leaf of \(target.count)"
                let wasNew = model[key] == nil
                do {
                    if batch {
                        let added = try TreeBatchTests.withBuffers([value]) { try tree.putSorted(keys: [key], values: $0, packing: Bool.random(using: &rng), in: pages) }
                        #expect(added == (wasNew ? 1 : 0), "\(context)")
                    } else {
                        let added = try value.withUnsafeBytes { try tree.put(key, $0, in: pages) }
                        #expect(added == wasNew, "\(context)")
                    }
                } catch {
                    Issue.record("\(context): \(error)")
                    continue
                }
                model[key] = value
                let sorted = model.keys.sorted()
                try Self.localCheck(tree, model, sorted, [key, key - 1, key + 1], pages, context)
                try Self.fullCheck(tree, model, sorted, pages, context)
                // And a removal of the same key.
                if batch {
                    #expect(try tree.removeSorted([key], in: pages) == 1, "\(context), removed")
                } else {
                    #expect(try tree.remove(key, in: pages), "\(context), removed")
                }
                model[key] = nil
                try Self.fullCheck(tree, model, model.keys.sorted(), pages, context + ", removed")
                try tree.destroy(in: pages)
                #expect(pages.livePageCount == 0, "\(context)")
                #expect(pages.violations.isEmpty, "\(context)")
            }
        }
    }

    // MARK: Density of appends

    /// Pages of a tree loaded by `load(tree, packing)` with packing and without.
    static func pagesLoaded(_ load: (inout KeyedTree, Bool, TreeTestPages) throws -> Void) throws -> (packed: Int, slotted: Int, packedLeaves: Int) {
        var result: [Int] = []
        var packedLeaves = 0
        for packing in [true, false] {
            let pages = TreeTestPages()
            var tree = KeyedTree()
            try load(&tree, packing, pages)
            let census = try S.census(tree, pages)
            result.append(census.total)
            if packing { packedLeaves = census.kinds[TreePageKind.keyedPackedLeaf] ?? 0 }
            #expect(try TreeShapeCheck.keyed(tree, pages) == [])
            try tree.destroy(in: pages)
            #expect(pages.livePageCount == 0)
        }
        return (result[0], result[1], packedLeaves)
    }

    /// Appends one at a time with `put(packing: true)` fill packed leaves as densely as batches.
    @Test(arguments: [false, true])
    func singleAppendsWithPackingAreDense(apart: Bool) throws {
        let n = 20_000
        let pages = TreeTestPages()
        pages.placesFullNodesApart = apart
        var tree = KeyedTree()
        var model: [UInt64: [UInt8]] = [:]
        for i in 0..<UInt64(n) {
            let key = 5 + i * 2
            let row = S.row(counter: i, time: 1_700_000_000_000 + (i / 100) * 1000, noise: S.noise(i))
            #expect(try row.withUnsafeBytes { try tree.put(key, $0, packing: true, in: pages) })
            model[key] = row
            if i % 300 == 299 {
                pages.commit()
                pages.releaseRetired()
            }
        }
        let census = try S.census(tree, pages)
        let bytesPerEntry = Double(census.total * PageLayout.pageSize) / Double(n)
        #expect(census.packedEntries * 100 >= n * 98, "\(census.packedEntries) of \(n) packed")
        #expect(bytesPerEntry < 12, "\(bytesPerEntry) bytes per entry (\(census.kinds))")
        try Self.fullCheck(tree, model, model.keys.sorted(), pages, "single appends")
        try tree.destroy(in: pages)
        #expect(pages.livePageCount == 0)
    }

    /// Appends with `packing` whose values change length from row to row (rows with a short
    /// string) cannot pack; they must not cost more pages than without packing (a packed leaf
    /// per run of one length would cost a page per row: what `PackedLayout.minimumRun` is for).
    @Test(arguments: [false, true])
    func appendsOfMixedLengthsWithPackingStayDense(batch: Bool) throws {
        let n = 3_000
        let values: [[UInt8]] = (0..<n).map { i in
            var row = S.row(counter: UInt64(i), time: 77, noise: S.noise(UInt64(i)))
            row += [UInt8](repeating: 0x61, count: i % 3)   // 25, 26, 27 bytes
            return row
        }
        let keys = (0..<UInt64(n)).map { 1 + $0 }
        let counts = try Self.pagesLoaded { tree, packing, pages in
            if batch {
                for start in stride(from: 0, to: n, by: 500) {
                    _ = try TreeBatchTests.withBuffers(Array(values[start..<start + 500])) {
                        try tree.putSorted(keys: Array(keys[start..<start + 500]), values: $0, packing: packing, in: pages)
                    }
                }
            } else {
                for (k, v) in zip(keys, values) { _ = try v.withUnsafeBytes { try tree.put(k, $0, packing: packing, in: pages) } }
            }
            var seen = 0
            try tree.forEach(in: pages) { k, v in
                if Array(v) == values[Int(k) - 1] { seen += 1 }
                return true
            }
            #expect(seen == n)
        }
        #expect(Double(counts.packed) <= 1.25 * Double(counts.slotted),
                "\(batch ? "putSorted" : "put") with packing: \(counts.packed) pages (\(counts.packedLeaves) packed leaves), without: \(counts.slotted)")
    }

    /// Random removals leave packed leaves sparse: they are never merged (TreeEdit.swift,
    /// `merge`), so a packed tree must not end up needing more pages than the slotted tree of
    /// the same entries, whose underfull leaves merge.
    @Test(arguments: [90, 98])
    func removalsDoNotLeaveSparsePackedLeaves(percent: Int) throws {
        let counts = try Self.pagesLoaded { tree, packing, pages in
            var rng = SplitMix64(seed: UInt64(percent))
            let keys = (0..<UInt64(50_000)).map { $0 }
            let rows = keys.map { S.row(counter: $0, time: 1, noise: S.noise($0)) }
            _ = try TreeBatchTests.withBuffers(rows) { try tree.putSorted(keys: keys, values: $0, packing: packing, in: pages) }
            let drop = keys.filter { _ in Int.random(in: 0..<100, using: &rng) < percent }
            for chunk in stride(from: 0, to: drop.count, by: 1000) {
                let part = Array(drop[chunk..<min(drop.count, chunk + 1000)])
                #expect(try tree.removeSorted(part, in: pages) == part.count)
            }
            #expect(try tree.count(in: pages) == keys.count - drop.count)
        }
        #expect(Double(counts.packed) <= 1.25 * Double(counts.slotted) + 2,
                "after removing \(percent)%: packed tree \(counts.packed) pages, slotted tree \(counts.slotted)")
    }

    // MARK: Conditional removal

    /// The single edit's "read the value, then maybe remove it" (`TreeEditor.apply(removeIf:)`)
    /// on packed entries: the predicate sees the stored value; refused, nothing changes;
    /// accepted, the entry goes; a throwing predicate changes nothing either.
    @Test func conditionalRemovalOfPackedEntries() throws {
        struct Refused: Error {}
        let pages = TreeTestPages()
        var tree = KeyedTree()
        let keys = (0..<UInt64(3_000)).map { 50 + 3 * $0 }
        let rows = keys.map { S.row(counter: $0, time: 1, noise: S.noise($0)) }
        _ = try TreeBatchTests.withBuffers(rows) { try tree.putSorted(keys: keys, values: $0, packing: true, in: pages) }
        pages.commit()
        var model = Dictionary(uniqueKeysWithValues: zip(keys, rows))
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        for (i, key) in keys.enumerated() where i % 7 == 3 {
            var seen: [UInt8]?
            let kept = try TreeEditor<KeyedFlavor>.apply(root: tree.root, key: key, .remove, cell: empty, pages) { value in
                seen = Array(value)
                return false
            }
            #expect(seen == model[key] && kept.delta == 0 && kept.root == tree.root, "key \(key) kept")
            #expect(throws: Refused.self) {
                _ = try TreeEditor<KeyedFlavor>.apply(root: tree.root, key: key, .remove, cell: empty, pages) { _ in throw Refused() }
            }
            let gone = try TreeEditor<KeyedFlavor>.apply(root: tree.root, key: key, .remove, cell: empty, pages) { Array($0) == model[key] }
            #expect(gone.delta == -1, "key \(key) removed")
            tree = KeyedTree(root: gone.root)
            model[key] = nil
            // An absent key: the predicate is not called.
            let absent = try TreeEditor<KeyedFlavor>.apply(root: tree.root, key: key + 1, .remove, cell: empty, pages) { _ in
                Issue.record("predicate called for an absent key")
                return true
            }
            #expect(absent.delta == 0 && absent.root == tree.root)
            if i % 5 == 0 {
                pages.commit()
                pages.releaseRetired()
            }
        }
        try Self.fullCheck(tree, model, model.keys.sorted(), pages, "after conditional removals")
        #expect(pages.changedCommittedPages().isEmpty)
    }

    // MARK: Roots, empty values, extreme keys

    /// A packed leaf as the root (after the slotted first leaf empties), edits that split it,
    /// emptying it, packed leaves of 0- and 512-byte values, 513-byte values that stay slotted,
    /// keys up to UInt64.max.
    @Test func packedRootsEmptyValuesAndExtremeKeys() throws {
        let pages = TreeTestPages()
        var tree = KeyedTree()
        var model: [UInt64: [UInt8]] = [:]
        var step = 0
        func check(_ what: String) throws {
            step += 1
            let sorted = model.keys.sorted()
            try Self.fullCheck(tree, model, sorted, pages, "step \(step): \(what)")
            if let first = sorted.first { try Self.localCheck(tree, model, sorted, [first, sorted.last!], pages, "step \(step): \(what)") }
            if step % 2 == 0 {
                pages.commit()
                pages.releaseRetired()
            }
        }
        func putSorted(_ keys: [UInt64], _ values: [[UInt8]], packing: Bool = true) throws {
            let expected = keys.filter { model[$0] == nil }.count
            let added = try TreeBatchTests.withBuffers(values) { try tree.putSorted(keys: keys, values: $0, packing: packing, in: pages) }
            #expect(added == expected, "step \(step)")
            for (k, v) in zip(keys, values) { model[k] = v }
        }
        func rootKind() throws -> UInt8 { try pages.readPage(tree.root).load(as: UInt8.self) }

        // A slotted first leaf and a packed one; removing the slotted leaf's keys leaves the packed root.
        let keys = (0..<UInt64(700)).map { 10 + $0 }
        try putSorted(keys, keys.map { S.row(counter: $0, time: 5, noise: S.noise($0)) })
        try check("loaded")
        let slottedKeys = try S.census(tree, pages).kinds[TreePageKind.keyedLeaf] == 1 ? Array(keys.prefix(700 - (try S.census(tree, pages).packedEntries))) : []
        #expect(!slottedKeys.isEmpty)
        #expect(try tree.removeSorted(slottedKeys, in: pages) == slottedKeys.count)
        for k in slottedKeys { model[k] = nil }
        try check("slotted leaf removed")
        #expect(try rootKind() == TreePageKind.keyedPackedLeaf, "the root is the packed leaf")

        // Edits of the packed root: replacement, other length in the middle (a split), insert below it.
        let middle = keys[400]
        let other = [UInt8](repeating: 0x42, count: 33)
        #expect(try !other.withUnsafeBytes { try tree.put(middle, $0, in: pages) })
        model[middle] = other
        try check("other length in the packed root")
        let below: UInt64 = 3
        let low = S.row(counter: 3, time: 5, noise: 1)
        #expect(try low.withUnsafeBytes { try tree.put(below, $0, in: pages) })
        model[below] = low
        try check("below the first key")

        // Remove everything, then build again from an empty tree.
        let all = model.keys.sorted()
        #expect(try tree.removeSorted(all, in: pages) == all.count)
        model.removeAll()
        #expect(tree.isEmpty)
        try check("emptied")

        // Empty values, packed (a leaf of key offsets only).
        let emptyKeys = (0..<UInt64(3000)).map { 1_000 + 2 * $0 }
        try putSorted(emptyKeys, Array(repeating: [], count: emptyKeys.count))
        try check("empty values")
        #expect((try S.census(tree, pages).kinds[TreePageKind.keyedPackedLeaf] ?? 0) >= 1)
        #expect(try !([] as [UInt8]).withUnsafeBytes { try tree.put(emptyKeys[1500], $0, in: pages) })
        #expect(try [UInt8(7)].withUnsafeBytes { try tree.put(emptyKeys[1500], $0, in: pages) } == false)
        model[emptyKeys[1500]] = [7]
        #expect(try ([] as [UInt8]).withUnsafeBytes { try tree.put(emptyKeys[1500] + 1, $0, in: pages) })
        model[emptyKeys[1500] + 1] = []
        try check("edits among empty values")

        // 512-byte values pack; 513-byte values do not.
        var next = emptyKeys.last! + 10
        let big = (0..<UInt64(200)).map { next + $0 }
        var rng = SplitMix64(seed: 77)
        try putSorted(big, big.map { k in (0..<512).map { j in j < 8 ? UInt8(truncatingIfNeeded: k >> (8 * UInt64(j))) : UInt8(j & 0xFF) } })
        try check("512-byte values")
        next = big.last! + 1
        let tooBig = (0..<UInt64(200)).map { next + $0 }
        let packedBefore = try S.census(tree, pages).packedEntries
        try putSorted(tooBig, tooBig.map { _ in (0..<513).map { _ in UInt8.random(in: 0...255, using: &rng) } })
        #expect(try S.census(tree, pages).packedEntries == packedBefore, "513-byte values were packed")
        try check("513-byte values")

        // Keys up to UInt64.max: 8-byte key offsets and the end of the key space.
        let top = [UInt64.max - (1 << 40), UInt64.max - (1 << 33)] + (0..<UInt64(300)).map { UInt64.max - 299 + $0 }
        try putSorted(top, top.map { S.row(counter: $0, time: 9, noise: S.noise($0)) })
        try check("keys up to UInt64.max")
        #expect(try tree.lastKey(in: pages) == UInt64.max)
        #expect(try tree.rank(of: UInt64.max, in: pages) == model.count - 1)
        let edge = S.row(counter: 1, time: 1, noise: 1, flag: 3)
        #expect(try !edge.withUnsafeBytes { try tree.put(UInt64.max, $0, packing: true, in: pages) })
        model[UInt64.max] = edge
        #expect(try tree.remove(UInt64.max - 150, in: pages))
        model[UInt64.max - 150] = nil
        try check("edits at the top of the key space")

        try tree.destroy(in: pages)
        #expect(pages.livePageCount == 0)
        #expect(pages.violations.isEmpty)
        #expect(pages.changedCommittedPages().isEmpty)
    }

    // MARK: Model

    /// Bulk loads with `putSorted(packing: true)`, checks density, then a long random mix of
    /// every KeyedTree operation against a dictionary.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func randomOperationsOnPackedTreesMatchTheModel(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let pages = TreeTestPages()
        pages.placesFullNodesApart = seed >= 3
        var tree = KeyedTree()
        var model: [UInt64: [UInt8]] = [:]
        var sorted: [UInt64] = []
        var clock: UInt64 = 1_700_000_000_000

        func index(_ key: UInt64) -> (Int, Bool) { S.expectedSearch(sorted, key) }
        func record(_ key: UInt64, _ value: [UInt8]) {
            let (i, found) = index(key)
            if !found { sorted.insert(key, at: i) }
            model[key] = value
        }
        func forget(_ key: UInt64) {
            let (i, found) = index(key)
            if found { sorted.remove(at: i) }
            model[key] = nil
        }

        // Bulk load: ascending keys with gaps, batches of 1…3000 rows sharing a timestamp.
        var next: UInt64 = 1_000
        var batches = 0
        while sorted.count < 30_000 {
            let roll = Int.random(in: 0..<10, using: &rng)
            let n = roll < 3 ? Int.random(in: 1...20, using: &rng) : roll < 7 ? Int.random(in: 21...500, using: &rng)
                : Int.random(in: 501...3000, using: &rng)
            clock += 1000
            var keys: [UInt64] = []
            var rows: [[UInt8]] = []
            for _ in 0..<n {
                keys.append(next)
                rows.append(S.row(counter: next, time: clock, noise: UInt16.random(in: 0...UInt16.max, using: &rng)))
                next += Int.random(in: 0..<4, using: &rng) == 0 ? UInt64.random(in: 2...4, using: &rng) : 1
            }
            let added = try TreeBatchTests.withBuffers(rows) { try tree.putSorted(keys: keys, values: $0, packing: true, in: pages) }
            #expect(added == n)
            for (k, r) in zip(keys, rows) { model[k] = r }
            sorted += keys
            batches += 1
            if batches % 3 == 0 {
                pages.commit()
                pages.releaseRetired()
            }
        }
        pages.commit()
        pages.releaseRetired()
        try Self.fullCheck(tree, model, sorted, pages, "seed \(seed) after the bulk load")
        // Dense: packed leaves hold nearly everything. A row stores ≤ 8 varying planes (2 of the
        // measurement, ≤ 3 of counter and timestamp each) + a 2-byte key offset: ≤ 10 bytes in a
        // leaf of ≥ 400 entries, so < 12 bytes per entry with branches; slotted leaves need 39.
        let census = try S.census(tree, pages)
        let packedLeaves = census.kinds[TreePageKind.keyedPackedLeaf] ?? 0
        #expect(packedLeaves > 30)
        #expect(census.packedEntries * 100 >= model.count * 98, "\(census.packedEntries) of \(model.count) entries packed")
        let bytesPerEntry = Double(census.total * PageLayout.pageSize) / Double(model.count)
        #expect(bytesPerEntry < 12, "\(bytesPerEntry) bytes per entry (\(census.total) pages, \(census.kinds))")
        #expect(pages.livePageCount == census.total)

        var operations: [String: Int] = [:]
        for step in 0..<3000 {
            var touched: [UInt64] = []
            let roll = sorted.isEmpty ? 45 : Int.random(in: 0..<100, using: &rng)
            let what: String
            func existing() -> UInt64 { sorted[Int.random(in: 0..<sorted.count, using: &rng)] }
            func gapKey() -> UInt64? {
                guard sorted.count > 1 else { return nil }
                var i = Int.random(in: 0..<(sorted.count - 1), using: &rng)
                for _ in 0..<200 {
                    if sorted[i + 1] - sorted[i] > 1 { return UInt64.random(in: (sorted[i] + 1)..<sorted[i + 1], using: &rng) }
                    i = (i + 1) % (sorted.count - 1)
                }
                return nil
            }
            func rowLike(_ key: UInt64) -> [UInt8] {
                S.row(counter: key, time: clock, noise: UInt16.random(in: 0...UInt16.max, using: &rng))
            }
            func put(_ key: UInt64, _ value: [UInt8], packing: Bool) throws {
                let inserted = try value.withUnsafeBytes { try tree.put(key, $0, packing: packing, in: pages) }
                #expect(inserted == (model[key] == nil), "seed \(seed) step \(step): put(\(key)) returned \(inserted)")
                record(key, value)
                touched.append(key)
            }
            switch roll {
            case 0..<14:
                // Same length, only bytes that vary between rows (measurement, counter low bytes).
                what = "put varying bytes"
                let key = existing()
                var value = model[key]!
                if value.count == S.rowLength {
                    value[1] = UInt8.random(in: 0...255, using: &rng)
                    value[2] = UInt8.random(in: 0...255, using: &rng)
                    value[9] &+= 1
                } else {
                    value = rowLike(key)
                }
                try put(key, value, packing: Bool.random(using: &rng))
            case 14..<22:
                // Same length, a byte constant in every row changes (flag, measurement or time high bytes).
                what = "put constant bytes"
                let key = existing()
                var value = model[key] ?? rowLike(key)
                if value.count != S.rowLength { value = rowLike(key) }
                let j = [0, 0, 5, 7, 8, 14, 22, 24][Int.random(in: 0..<8, using: &rng)]
                value[j] ^= UInt8.random(in: 1...255, using: &rng)
                try put(key, value, packing: Bool.random(using: &rng))
            case 22..<28:
                what = "put another length"
                let key = existing()
                var length = Int.random(in: 0...60, using: &rng)
                if length == S.rowLength { length = 0 }
                try put(key, (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }, packing: Bool.random(using: &rng))
            case 28..<31:
                what = "put a large value"
                let key = existing()
                var value = randomValue(&rng, overflow: true)
                if Bool.random(using: &rng) { value = (0..<Int.random(in: 1300...9000, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) } }
                try put(key, value, packing: Bool.random(using: &rng))
            case 31..<42:
                what = "put into a gap"
                guard let key = gapKey() else { continue }
                let value = Int.random(in: 0..<5, using: &rng) == 0 ? randomValue(&rng, overflow: false) : rowLike(key)
                try put(key, value, packing: Bool.random(using: &rng))
            case 42..<50:
                what = "put past the end"
                let key = (sorted.last ?? 0) + UInt64.random(in: 1...3, using: &rng)
                let value = Int.random(in: 0..<10, using: &rng) == 0 ? randomValue(&rng, overflow: true) : rowLike(key)
                try put(key, value, packing: Int.random(in: 0..<4, using: &rng) != 0)
            case 50..<62:
                what = "remove"
                let key = Int.random(in: 0..<10, using: &rng) == 0 ? (gapKey() ?? existing()) : existing()
                let removed = try tree.remove(key, in: pages)
                #expect(removed == (model[key] != nil), "seed \(seed) step \(step): remove(\(key)) returned \(removed)")
                forget(key)
                touched.append(key)
            case 62..<72:
                // A run of keys, some skipped, some absent; sometimes stopping at the first absent one.
                let stop = Int.random(in: 0..<3, using: &rng) == 0
                what = "removeSorted" + (stop ? " stopAtAbsent" : "")
                let start = Int.random(in: 0..<sorted.count, using: &rng)
                let end = min(sorted.count, start + Int.random(in: 1...400, using: &rng))
                var keys: [UInt64] = []
                for i in start..<end where Int.random(in: 0..<10, using: &rng) < 7 {
                    let k = sorted[i]
                    if Int.random(in: 0..<40, using: &rng) == 0, k > (keys.last ?? 0) + 1, model[k - 1] == nil {
                        keys.append(k - 1)
                    }
                    keys.append(k)
                }
                if keys.isEmpty { keys = [sorted[start]] }
                if Int.random(in: 0..<4, using: &rng) == 0 { keys.append(keys.last! + 1 + UInt64.random(in: 0...5, using: &rng)) }
                var expected = 0
                var removing: [UInt64] = []
                for k in keys {
                    if model[k] == nil {
                        if stop { break }
                        continue
                    }
                    removing.append(k)
                    expected += 1
                }
                let removed = try tree.removeSorted(keys, stopAtAbsent: stop, in: pages)
                #expect(removed == expected, "seed \(seed) step \(step): removeSorted of \(keys.count) keys removed \(removed), expected \(expected)")
                for k in removing { forget(k) }
                touched += [keys.first!, keys.last!] + keys.prefix(4)
            case 72..<88:
                // Existing and new keys of one region, rows and other values, packing or not.
                let packing = Bool.random(using: &rng)
                what = "putSorted mixed" + (packing ? " packing" : "")
                let start = Int.random(in: 0..<sorted.count, using: &rng)
                let end = min(sorted.count, start + Int.random(in: 1...300, using: &rng))
                var keys: [UInt64] = []
                for i in start..<end {
                    let k = sorted[i]
                    if Bool.random(using: &rng) { keys.append(k) }
                    if i + 1 < sorted.count, sorted[i + 1] - k > 1, Bool.random(using: &rng) {
                        keys.append(UInt64.random(in: (k + 1)..<sorted[i + 1], using: &rng))
                    }
                }
                if end == sorted.count || Int.random(in: 0..<5, using: &rng) == 0 {
                    var k = max(keys.last ?? 0, sorted.last!)
                    for _ in 0..<Int.random(in: 0...200, using: &rng) {
                        k += UInt64.random(in: 1...2, using: &rng)
                        keys.append(k)
                    }
                }
                if keys.isEmpty { keys = [sorted[start]] }
                let values: [[UInt8]] = keys.map { k in
                    let r = Int.random(in: 0..<100, using: &rng)
                    if r < 70 { return rowLike(k) }
                    if r < 82 {
                        var v = rowLike(k)
                        v[0] = 2
                        return v
                    }
                    if r < 97 { return randomValue(&rng, overflow: false) }
                    return randomValue(&rng, overflow: true)
                }
                let expected = keys.filter { model[$0] == nil }.count
                let added = try TreeBatchTests.withBuffers(values) { try tree.putSorted(keys: keys, values: $0, packing: packing, in: pages) }
                #expect(added == expected, "seed \(seed) step \(step): putSorted of \(keys.count) keys added \(added), expected \(expected)")
                for (k, v) in zip(keys, values) { record(k, v) }
                touched += [keys.first!, keys.last!] + keys.prefix(4)
            case 88..<96:
                let packing = Int.random(in: 0..<4, using: &rng) != 0
                what = "putSorted appends" + (packing ? " packing" : "")
                clock += 1000
                var k = sorted.last ?? 0
                var keys: [UInt64] = []
                for _ in 0..<Int.random(in: 1...1000, using: &rng) {
                    k += Int.random(in: 0..<4, using: &rng) == 0 ? 3 : 1
                    keys.append(k)
                }
                let values = keys.map { rowLike($0) }
                let added = try TreeBatchTests.withBuffers(values) { try tree.putSorted(keys: keys, values: $0, packing: packing, in: pages) }
                #expect(added == keys.count, "seed \(seed) step \(step): appended \(added) of \(keys.count)")
                for (k, v) in zip(keys, values) { record(k, v) }
                touched += [keys.first!, keys.last!]
            default:
                // A long run: whole packed leaves leave the tree.
                what = "removeSorted long run"
                let start = Int.random(in: 0..<sorted.count, using: &rng)
                let keys = Array(sorted[start..<min(sorted.count, start + Int.random(in: 300...1500, using: &rng))])
                let removed = try tree.removeSorted(keys, in: pages)
                #expect(removed == keys.count, "seed \(seed) step \(step): removed \(removed) of a run of \(keys.count)")
                for k in keys { forget(k) }
                touched += [keys.first!, keys.last!, keys.first! &- 1, keys.last! + 1]
            }
            clock += 1
            operations[what, default: 0] += 1
            try Self.localCheck(tree, model, sorted, touched, pages, "seed \(seed) step \(step) (\(what))")
            if Int.random(in: 0..<100, using: &rng) < 10 {
                pages.commit()
                pages.releaseRetired()
            }
            if step % 250 == 249 { try Self.fullCheck(tree, model, sorted, pages, "seed \(seed) step \(step)") }
        }
        try Self.fullCheck(tree, model, sorted, pages, "seed \(seed) at the end")
        #expect(model.count > 1_000, "\(model.count) entries left")
        #expect(operations.count == 14 && operations.values.allSatisfy { $0 >= 20 }, "\(operations)")
        let packedAtEnd = try S.census(tree, pages).kinds[TreePageKind.keyedPackedLeaf] ?? 0
        // Underfull leaves merge with their neighbours; a union with values of other lengths
        // is rewritten slotted, so a long mix leaves fewer packed leaves (but some).
        #expect(packedAtEnd > 0, "\(packedAtEnd) packed leaves left at the end")
        #expect(pages.changedCommittedPages().isEmpty)
        try tree.destroy(in: pages)
        #expect(tree.isEmpty)
        #expect(pages.livePageCount == 0)
        #expect(pages.violations.isEmpty)
    }

    /// Checks around the keys an operation touched: count, values, rank, positions, and short
    /// scans in both directions.
    static func localCheck(_ tree: KeyedTree, _ model: [UInt64: [UInt8]], _ sorted: [UInt64], _ touched: [UInt64],
                           _ pages: TreeTestPages, _ context: String) throws {
        let count = try tree.count(in: pages)
        #expect(count == model.count, "\(context): count \(count), model \(model.count)")
        guard let low = touched.min(), let high = touched.max() else { return }
        for key in Set(touched.prefix(12)) {
            let value = try tree.withValue(forKey: key, in: pages) { Array($0) }
            #expect(value == model[key], "\(context): value of \(key) is \(value.map { "\($0.count) bytes" } ?? "absent"), model \(model[key].map { "\($0.count) bytes" } ?? "absent")")
            let (position, found) = S.expectedSearch(sorted, key)
            let rank = try tree.rank(of: key, in: pages)
            #expect(rank == position, "\(context): rank of \(key) \(rank), expected \(position)")
            if found {
                #expect(try tree.withEntry(at: position, in: pages) { k, v in k == key && Array(v) == model[key] } == true,
                        "\(context): entry \(position)")
            }
        }
        let from = max(0, S.expectedSearch(sorted, low).index - 3)
        let expectedForward = Array(sorted[from..<min(sorted.count, from + 40)])
        var forward: [UInt64] = []
        var wrongValues = 0
        if !expectedForward.isEmpty {
            try tree.forEach(from: expectedForward[0], in: pages) { k, v in
                forward.append(k)
                if model[k] != Array(v) { wrongValues += 1 }
                return forward.count < expectedForward.count
            }
        }
        #expect(forward == expectedForward, "\(context): forEach from \(expectedForward.first.map(String.init) ?? "-")")
        let through = high == UInt64.max ? sorted.count : S.expectedSearch(sorted, high + 1).index
        let expectedBackward = Array(sorted[max(0, through - 40)..<through].reversed())
        var backward: [UInt64] = []
        try tree.forEachReversed(through: high, in: pages) { k, v in
            backward.append(k)
            if model[k] != Array(v) { wrongValues += 1 }
            return backward.count < 40
        }
        #expect(backward == expectedBackward, "\(context): forEachReversed through \(high)")
        #expect(wrongValues == 0, "\(context): \(wrongValues) values differ in the scans")
        #expect(try tree.firstKey(in: pages) == sorted.first && tree.lastKey(in: pages) == sorted.last, "\(context): edges")
    }

    /// Everything: contents both ways, positions, shape, packed layouts, page accounting.
    static func fullCheck(_ tree: KeyedTree, _ model: [UInt64: [UInt8]], _ sorted: [UInt64], _ pages: TreeTestPages,
                          _ context: String) throws {
        #expect(try tree.count(in: pages) == model.count, "\(context)")
        var keys: [UInt64] = []
        keys.reserveCapacity(sorted.count)
        var wrong = 0
        try tree.forEach(in: pages) { k, v in
            keys.append(k)
            if model[k] != Array(v) { wrong += 1 }
            return true
        }
        #expect(keys == sorted, "\(context): forEach keys differ (\(keys.count) vs \(sorted.count))")
        #expect(wrong == 0, "\(context): \(wrong) values differ")
        var reversed: [UInt64] = []
        try tree.forEachReversed(in: pages) { k, _ in reversed.append(k); return true }
        #expect(reversed == sorted.reversed(), "\(context): forEachReversed")
        for position in stride(from: 0, to: sorted.count, by: max(1, sorted.count / 200)) {
            let key = sorted[position]
            #expect(try tree.withEntry(at: position, in: pages) { k, _ in k } == key, "\(context): entry \(position)")
            #expect(try tree.rank(of: key, in: pages) == position, "\(context): rank of \(key)")
            #expect(try tree.withValue(forKey: key, in: pages) { Array($0) } == model[key], "\(context): value of \(key)")
        }
        let shape = try TreeShapeCheck.keyed(tree, pages)
        #expect(shape == [], "\(context): \(shape.prefix(5))")
        #expect(try S.packedLayoutProblems(tree, pages) == [], "\(context)")
        try TreeBatchTests.expectAccounted(pages, [tree.root], context)
    }
}
