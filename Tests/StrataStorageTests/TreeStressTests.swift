// Longer randomized runs of the model-based tree tests, in waves: each run grows its tree to
// thousands of entries, shrinks it, and grows it again, so splits, merges and the freeing of
// whole levels all happen many times, with commits (and the release of retired pages) at random
// points. The step counts keep each run to seconds in a debug build; the fuzz targets
// (`scripts/fuzz file`) search further through the public API.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import StrataStorage

@Suite struct TreeStressTests {
    @Test func keyedTreeWavesRun() throws {
        var rng = SplitMix64(seed: 4242)
        let pages = TreeTestPages()
        var tree = KeyedTree()
        var model: [UInt64: [UInt8]] = [:]
        for step in 0..<24_000 {
            // Waves: grow to thousands of keys, shrink, grow again — many splits and merges.
            let removeChance = (step / 4_000) % 2 == 0 ? 20 : 80
            let key = UInt64.random(in: 0..<10_000, using: &rng)
            if Int.random(in: 0..<100, using: &rng) < removeChance {
                #expect(try tree.remove(key, in: pages) == (model.removeValue(forKey: key) != nil))
            } else {
                let value = randomValue(&rng)
                #expect(try value.withUnsafeBytes { try tree.put(key, $0, in: pages) } == (model[key] == nil))
                model[key] = value
            }
            if Int.random(in: 0..<100, using: &rng) < 2 { pages.commit(); pages.releaseRetired() }
            if step % 4_000 == 3_999 { try TreeKeyedTests.verify(tree, model, pages) }
        }
        try tree.destroy(in: pages)
        #expect(pages.livePageCount == 0)
        #expect(pages.violations.isEmpty)
        #expect(pages.changedCommittedPages().isEmpty)
    }

    @Test func positionalTreeWavesRun() throws {
        var rng = SplitMix64(seed: 4343)
        let pages = TreeTestPages()
        var tree = PositionalTree()
        var model: [[UInt8]] = []
        for step in 0..<16_000 {
            let growing = (step / 4_000) % 2 == 0
            let roll = Int.random(in: 0..<100, using: &rng)
            if model.isEmpty || roll < (growing ? 60 : 25) {
                let value = randomValue(&rng, overflow: roll % 7 == 0)
                let index = Int.random(in: 0...model.count, using: &rng)
                try value.withUnsafeBytes { try tree.insert($0, at: index, in: pages) }
                model.insert(value, at: index)
            } else if roll < 90 {
                let index = Int.random(in: 0..<model.count, using: &rng)
                try tree.remove(at: index, in: pages)
                model.remove(at: index)
            } else {
                let value = randomValue(&rng)
                let index = Int.random(in: 0..<model.count, using: &rng)
                try value.withUnsafeBytes { try tree.replace(at: index, with: $0, in: pages) }
                model[index] = value
            }
            if Int.random(in: 0..<100, using: &rng) < 2 { pages.commit(); pages.releaseRetired() }
            if step % 4_000 == 3_999 { try TreePositionalTests.verify(tree, model, pages) }
        }
        try tree.destroy(in: pages)
        #expect(pages.livePageCount == 0)
        #expect(pages.violations.isEmpty)
    }

    @Test func bytesTreeWavesRun() throws {
        var rng = SplitMix64(seed: 4444)
        let pages = TreeTestPages()
        var tree = BytesTree()
        var model: [[UInt8]: [UInt8]] = [:]
        for step in 0..<12_000 {
            let removeChance = (step / 3_000) % 2 == 0 ? 20 : 80
            // Index-like keys: a short value, then a 2-byte "object key".
            var key = Array(TreeBytesTests.randomKey(&rng).prefix(BytesTree.maxKeySize - 2))
            key += [UInt8.random(in: 0...255, using: &rng), UInt8.random(in: 0...255, using: &rng)]
            if Int.random(in: 0..<100, using: &rng) < removeChance {
                #expect(try key.withUnsafeBytes { try tree.remove($0, in: pages) } == (model.removeValue(forKey: key) != nil))
            } else {
                let value = randomValue(&rng)
                #expect(try key.withUnsafeBytes { k in try value.withUnsafeBytes { try tree.put(k, $0, in: pages) } } == (model[key] == nil))
                model[key] = value
            }
            if Int.random(in: 0..<100, using: &rng) < 2 { pages.commit(); pages.releaseRetired() }
            if step % 3_000 == 2_999 { try TreeBytesTests.verify(tree, model, pages) }
        }
        try tree.destroy(in: pages)
        #expect(pages.livePageCount == 0)
        #expect(pages.violations.isEmpty)
    }
}
