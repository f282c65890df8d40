// Model-based tests of PositionalTree: seeded random inserts, removes, replaces and reads at
// random positions checked against an Array, with commits in between; the list workload
// (append + remove first) and snapshots.

import Testing
import StrataStorage

@Suite struct TreePositionalTests {
    static func verify(_ tree: PositionalTree, _ model: [[UInt8]], _ pages: TreeTestPages) throws {
        #expect(try tree.count(in: pages) == model.count)
        var elements: [[UInt8]] = []
        var indices: [Int] = []
        try tree.forEach(in: pages) { index, element in
            indices.append(index)
            elements.append(Array(element))
            return true
        }
        #expect(elements == model)
        #expect(indices == Array(0..<model.count))
        let end = model.count / 2
        var backwards: [[UInt8]] = []
        var backwardIndices: [Int] = []
        try tree.forEachReversed(through: end, in: pages) { index, element in
            backwardIndices.append(index)
            backwards.append(Array(element))
            return true
        }
        #expect(backwards == (model.isEmpty ? [] : Array(model[...min(end, model.count - 1)].reversed())))
        #expect(backwardIndices == (model.isEmpty ? [] : Array((0...min(end, model.count - 1)).reversed())))
        #expect(try TreeShapeCheck.positional(tree, pages) == [])
    }

    @Test(arguments: [UInt64(31), 32, 33])
    func randomOperationsMatchArray(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let pages = TreeTestPages()
        var tree = PositionalTree()
        var model: [[UInt8]] = []
        for step in 0..<6000 {
            let growing = step < 4000
            let roll = Int.random(in: 0..<100, using: &rng)
            if model.isEmpty || roll < (growing ? 30 : 10) {
                let value = randomValue(&rng)
                let index = Int.random(in: 0...model.count, using: &rng)
                try value.withUnsafeBytes { try tree.insert($0, at: index, in: pages) }
                model.insert(value, at: index)
            } else if roll < (growing ? 55 : 30) {
                let value = randomValue(&rng)
                try value.withUnsafeBytes { try tree.append($0, in: pages) }
                model.append(value)
            } else if roll < (growing ? 75 : 90) {
                let index = Int.random(in: 0..<model.count, using: &rng)
                try tree.remove(at: index, in: pages)
                model.remove(at: index)
            } else {
                let value = randomValue(&rng)
                let index = Int.random(in: 0..<model.count, using: &rng)
                try value.withUnsafeBytes { try tree.replace(at: index, with: $0, in: pages) }
                model[index] = value
            }
            if !model.isEmpty {
                let probe = Int.random(in: 0..<model.count, using: &rng)
                #expect(try tree.withElement(at: probe, in: pages) { Array($0) } == model[probe])
            }
            if Int.random(in: 0..<100, using: &rng) < 5 { pages.commit() }
            if step % 1000 == 999 { try Self.verify(tree, model, pages) }
        }
        try Self.verify(tree, model, pages)
        let start = model.count / 3
        var fromStart: [[UInt8]] = []
        try tree.forEach(from: start, in: pages) { _, element in fromStart.append(Array(element)); return true }
        #expect(fromStart == Array(model[start...]))
        while !model.isEmpty {
            let index = Int.random(in: 0..<model.count, using: &rng)
            try tree.remove(at: index, in: pages)
            model.remove(at: index)
        }
        #expect(tree.isEmpty)
        #expect(pages.livePageCount == 0)
        #expect(pages.violations.isEmpty)
        #expect(pages.changedCommittedPages().isEmpty)
    }

    @Test func appendAndRemoveFirstKeepsASlidingWindow() throws {
        let pages = TreeTestPages()
        var tree = PositionalTree()
        let window = 2000
        for value in 0..<UInt64(10_000) {
            try tree.appendUInt64(value, in: pages)
            if value >= UInt64(window) { try tree.remove(at: 0, in: pages) }
            if value % 500 == 0 { pages.commit() }
        }
        #expect(try tree.count(in: pages) == window)
        #expect(try tree.element64(at: 0, in: pages) == UInt64(10_000 - window))
        #expect(try tree.element64(at: window - 1, in: pages) == 9_999)
        // 14 bytes per element: 2000 elements fit in ~7 leaves; pages are not leaking.
        #expect(pages.livePageCount <= 20)
        let found = try tree.index(in: pages) { $0.loadUnaligned(as: UInt64.self) == 9000 }
        #expect(found == 9000 - (10_000 - window))
        try tree.removeFirst(window, in: pages)
        #expect(tree.isEmpty)
        #expect(pages.livePageCount == 0)
        #expect(pages.violations.isEmpty)
        #expect(pages.changedCommittedPages().isEmpty)
    }

    @Test func snapshotRootReadsTheSameAfterMutation() throws {
        var rng = SplitMix64(seed: 41)
        let pages = TreeTestPages()
        var tree = PositionalTree()
        var model: [[UInt8]] = []
        for _ in 0..<2000 {
            let value = randomValue(&rng)
            try value.withUnsafeBytes { try tree.append($0, in: pages) }
            model.append(value)
        }
        pages.commit()
        let snapshot = tree
        let snapshotModel = model
        for _ in 0..<1500 {
            let index = Int.random(in: 0..<model.count, using: &rng)
            if Bool.random(using: &rng) {
                try tree.remove(at: index, in: pages)
                model.remove(at: index)
            } else {
                let value = randomValue(&rng)
                try value.withUnsafeBytes { try tree.insert($0, at: index, in: pages) }
                model.insert(value, at: index)
            }
        }
        try Self.verify(snapshot, snapshotModel, pages)
        try Self.verify(tree, model, pages)
        #expect(pages.changedCommittedPages().isEmpty)
        #expect(pages.violations.isEmpty)
    }

    @Test func indexOutOfRangeThrowsInvalidArgument() throws {
        let pages = TreeTestPages()
        var tree = PositionalTree()
        try tree.appendUInt64(1, in: pages)
        for attempt in 0..<5 {
            let error = #expect(throws: StorageError.self) {
                switch attempt {
                case 0: _ = try tree.withElement(at: 1, in: pages) { _ in 0 }
                case 1: _ = try tree.withElement(at: -1, in: pages) { _ in 0 }
                case 2: try [UInt8]().withUnsafeBytes { try tree.insert($0, at: 2, in: pages) }
                case 3: try tree.remove(at: 1, in: pages)
                default: try [UInt8]().withUnsafeBytes { try tree.replace(at: 5, with: $0, in: pages) }
                }
            }
            #expect(error?.code == .invalidArgument)
        }
        let wrongSize = #expect(throws: StorageError.self) {
            try [UInt8](repeating: 0, count: 3).withUnsafeBytes { try tree.append($0, in: pages) }
            _ = try tree.element64(at: 1, in: pages)
        }
        #expect(wrongSize?.code == .invalidArgument)
        #expect(try tree.count(in: pages) == 2)
    }

    @Test func emptyElementsAreStored() throws {
        let pages = TreeTestPages()
        var tree = PositionalTree()
        for _ in 0..<1000 { try [UInt8]().withUnsafeBytes { try tree.append($0, in: pages) } }
        #expect(try tree.count(in: pages) == 1000)
        #expect(try tree.withElement(at: 999, in: pages) { $0.count } == 0)
        try tree.destroy(in: pages)
        #expect(pages.livePageCount == 0)
    }
}
