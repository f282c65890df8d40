// PositionalTree reads through a cursor equal reads without one: in order, backwards, at
// random, across leaves, after the tree changed (new root), and out of range (typed error).

import Testing
import StrataStorage

@Suite struct TreeCursorTests {
    @Test func cursorReadsEqualPlainReads() throws {
        var rng = SplitMix64(seed: 41)
        let pages = TreeTestPages()
        var list = PositionalTree()
        var model: [[UInt8]] = []
        for _ in 0..<3000 {
            let e = randomValue(&rng)
            model.append(e)
            try e.withUnsafeBytes { try list.append($0, in: pages) }
        }
        pages.commit()
        var cursor: PositionalCursor?
        let orders: [[Int]] = [Array(0..<3000), Array((0..<3000).reversed()), (0..<3000).map { _ in Int.random(in: 0..<3000, using: &rng) }]
        for order in orders {
            for i in order {
                let read = try list.withElement(at: i, in: pages, cursor: &cursor) { Array($0) }
                #expect(read == model[i], "index \(i)")
            }
        }
        // The tree changes (a new root after copy-on-write): the old cursor must not be used.
        try list.removeFirst(700, in: pages)
        model.removeFirst(700)
        for i in [0, 1, 500, 2299] {
            #expect(try list.withElement(at: i, in: pages, cursor: &cursor) { Array($0) } == model[i])
        }
        do {
            _ = try list.withElement(at: 2300, in: pages, cursor: &cursor) { $0.count }
            Issue.record("out of range must throw")
        } catch let e as StorageError {
            #expect(e.code == .invalidArgument)
        }
        #expect(cursor == nil)
    }
}
