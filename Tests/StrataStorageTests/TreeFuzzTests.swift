// Random byte corruption of committed tree pages: every read, walk and write over the damaged
// tree must either work or throw a typed StorageError — never crash, hang or write into a
// committed page.

import Testing
import StrataStorage

@Suite struct TreeFuzzTests {
    /// Codes a damaged tree may legitimately produce. `.invalidState` is the double refusing a
    /// reference to a page that does not exist or was freed (the pager reports such pages in
    /// its own way); `.invalidArgument` a position beyond a damaged count.
    static let acceptable: Set<StorageError.Code> = [.corruptFile, .invalidState, .invalidArgument]

    @Test func randomByteCorruptionNeverCrashes() throws {
        var rng = SplitMix64(seed: 2026)
        let pages = TreeTestPages()
        var keyed = KeyedTree()
        var bytes = BytesTree()
        var positional = PositionalTree()
        var keys: [UInt64] = []
        var byteKeys: [[UInt8]] = []
        for _ in 0..<1500 {
            let value = randomValue(&rng)
            let key = UInt64.random(in: 0..<100_000, using: &rng)
            keys.append(key)
            try value.withUnsafeBytes { _ = try keyed.put(key, $0, in: pages) }
            let byteKey = TreeBytesTests.randomKey(&rng)
            byteKeys.append(byteKey)
            try byteKey.withUnsafeBytes { k in try value.withUnsafeBytes { _ = try bytes.put(k, $0, in: pages) } }
            try value.withUnsafeBytes { try positional.append($0, in: pages) }
        }
        pages.commit()
        let all = try TreePageWalkTests.reachable(from: keyed.root, pages)
            + TreePageWalkTests.reachable(from: bytes.root, pages)
            + TreePageWalkTests.reachable(from: positional.root, pages)

        var unexpected: [String] = []
        var corruptionsDetected = 0
        for iteration in 0..<300 {
            let ref = all[Int.random(in: 0..<all.count, using: &rng)]
            let page = try #require(pages.rawPage(ref))
            // Half of the flips hit the header and slots, where structure lives.
            var saved: [(Int, UInt8)] = []
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let offset = Bool.random(using: &rng)
                    ? Int.random(in: 0..<256, using: &rng) : Int.random(in: 0..<PageLayout.payloadSize, using: &rng)
                let old = page.load(fromByteOffset: offset, as: UInt8.self)
                saved.append((offset, old))
                page.storeBytes(of: old ^ UInt8.random(in: 1...255, using: &rng), toByteOffset: offset, as: UInt8.self)
            }
            func attempt(_ what: String, _ body: () throws -> Void) {
                do { try body() } catch let error as StorageError {
                    if Self.acceptable.contains(error.code) { corruptionsDetected += 1 } else {
                        unexpected.append("iteration \(iteration) \(what): \(error)")
                    }
                } catch {
                    unexpected.append("iteration \(iteration) \(what): untyped \(error)")
                }
            }
            attempt("keyed reads") {
                _ = try keyed.count(in: pages)
                for key in keys.prefix(40) { _ = try keyed.withValue(forKey: key, in: pages) { $0.count } }
                _ = try keyed.lastKey(in: pages)
                try keyed.forEach(in: pages) { _, _ in true }
                try keyed.forEachReversed(in: pages) { _, _ in true }
            }
            attempt("bytes reads") {
                for key in byteKeys.prefix(40) { _ = try key.withUnsafeBytes { try bytes.withValue(forKey: $0, in: pages) { $0.count } } }
                try bytes.forEach(from: nil, in: pages) { _, _ in true }
            }
            attempt("positional reads") {
                for _ in 0..<40 { _ = try positional.withElement(at: Int.random(in: 0..<1500, using: &rng), in: pages) { $0.count } }
                try positional.forEach(in: pages) { _, _ in true }
            }
            attempt("page walk") {
                try TreePages.forEachChild(ofPage: ref, payload: UnsafeRawPointer(page)) { _ in }
            }
            // Writes go to copies of the trees and are rolled back.
            attempt("keyed writes") {
                var copy = keyed
                for _ in 0..<20 {
                    let key = UInt64.random(in: 0..<100_000, using: &rng)
                    if Bool.random(using: &rng) { try copy.remove(key, in: pages) } else {
                        try randomValue(&rng).withUnsafeBytes { _ = try copy.put(key, $0, in: pages) }
                    }
                }
                try copy.destroy(in: pages)
            }
            pages.rollback()
            attempt("bytes writes") {
                var copy = bytes
                for key in byteKeys.prefix(20) { _ = try key.withUnsafeBytes { try copy.remove($0, in: pages) } }
                try [UInt8](repeating: 9, count: 300).withUnsafeBytes { _ = try copy.put($0, $0, in: pages) }
            }
            pages.rollback()
            attempt("positional writes") {
                var copy = positional
                for _ in 0..<20 {
                    let index = Int.random(in: 0..<1400, using: &rng)
                    if Bool.random(using: &rng) { try copy.remove(at: index, in: pages) } else {
                        try randomValue(&rng).withUnsafeBytes { try copy.insert($0, at: index, in: pages) }
                    }
                }
            }
            pages.rollback()
            for (offset, old) in saved.reversed() { page.storeBytes(of: old, toByteOffset: offset, as: UInt8.self) }
            // Nothing wrote into a committed page, whatever the damage.
            #expect(pages.changedCommittedPages().isEmpty, "iteration \(iteration)")
        }
        #expect(unexpected == [])
        #expect(corruptionsDetected > 50)
        // The undamaged trees still read completely.
        #expect(try keyed.count(in: pages) == Set(keys).count)
        #expect(try positional.count(in: pages) == 1500)
    }
}
