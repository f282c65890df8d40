// The sensors window at tree level: each iteration is one transaction that appends 1,000
// readings to a window of 10,000 and trims the oldest 1,000 — rows (KeyedTree, 24-byte values),
// the list (PositionalTree of keys) and backlinks (BytesTree, 28-byte keys), one entry at a time
// or with the batch operations (TreeBatchAPI.swift). The pair shows what the batch paths save.
// Also: a bytes tree of index-like keys (8-byte value, 8-byte object key), put and looked up.

import Benchmark
import StrataStorage

/// A 28-byte backlink key, shaped as the object layer's (class, object key, column, origin).
func backlinkKey(_ k: UInt64) -> [UInt8] {
    var key = [UInt8](repeating: 0, count: 28)
    key.withUnsafeMutableBytes {
        $0.storeBytes(of: UInt32(2).bigEndian, toByteOffset: 0, as: UInt32.self)
        $0.storeBytes(of: k.bigEndian, toByteOffset: 4, as: UInt64.self)
        $0.storeBytes(of: UInt32(1).bigEndian, toByteOffset: 12, as: UInt32.self)
        $0.storeBytes(of: UInt64(1).bigEndian, toByteOffset: 20, as: UInt64.self)
    }
    return key
}

/// One window step in its own transaction; roots 0, 1, 2 hold rows, list and backlinks.
func windowStep(batched: Bool, batch: Int = 1_000, window: Int = 10_000) throws {
    guard let file = fixture.file else { return }
    let txn = try file.beginWrite()
    var rows = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: txn.roots[0])))
    var list = PositionalTree(root: PageRef(UInt32(truncatingIfNeeded: txn.roots[1])))
    var links = BytesTree(root: PageRef(UInt32(truncatingIfNeeded: txn.roots[2])))
    let keys = (0..<UInt64(batch)).map { fixture.nextKey + $0 }
    fixture.nextKey += UInt64(batch)
    let linkKeys = keys.map(backlinkKey)
    let value = [UInt8](repeating: 0x42, count: 24)
    let one: [UInt8] = [1, 0, 0, 0]
    try value.withUnsafeBytes { v in
        try one.withUnsafeBytes { o in
            if batched {
                try rows.putSorted(keys: keys, values: Array(repeating: v, count: batch), in: txn)
                try list.appendUInt64s(keys, in: txn)
                let flat = linkKeys.flatMap { $0 }
                try flat.withUnsafeBytes { all in
                    let kb = (0..<batch).map { UnsafeRawBufferPointer(rebasing: all[$0 * 28..<$0 * 28 + 28]) }
                    try links.putSorted(keys: kb, values: Array(repeating: o, count: batch), in: txn)
                }
            } else {
                for (k, lk) in zip(keys, linkKeys) {
                    try rows.put(k, v, in: txn)
                    try list.appendUInt64(k, in: txn)
                    try lk.withUnsafeBytes { _ = try links.put($0, o, in: txn) }
                }
            }
        }
    }
    let excess = try list.count(in: txn) - window
    if excess > 0 {
        var old: [UInt64] = []
        if batched {
            try list.removeFirst(excess, in: txn) { old.append($0.loadUnaligned(as: UInt64.self)) }
            try rows.removeSorted(old, in: txn)
            let flat = old.flatMap(backlinkKey)
            _ = try flat.withUnsafeBytes { all in
                try links.removeSorted((0..<old.count).map { UnsafeRawBufferPointer(rebasing: all[$0 * 28..<$0 * 28 + 28]) }, in: txn)
            }
        } else {
            for _ in 0..<excess { try list.remove(at: 0, in: txn) { old.append($0.loadUnaligned(as: UInt64.self)) } }
            for k in old {
                try rows.remove(k, in: txn)
                try backlinkKey(k).withUnsafeBytes { _ = try links.remove($0, in: txn) }
            }
        }
    }
    txn.roots[0] = UInt64(rows.root.raw)
    txn.roots[1] = UInt64(list.root.raw)
    txn.roots[2] = UInt64(links.root.raw)
    try txn.commit()
}

func registerTreeWorkBenchmarks() {
    for batched in [false, true] {
        Benchmark("Window/1000 in, 1000 out of 10k (memOnly, \(batched ? "batch ops" : "single ops"))",
                  configuration: configuration(maxDuration: .seconds(3), maxIterations: 1_000)) { benchmark in
            for _ in benchmark.scaledIterations { try windowStep(batched: batched) }
        } setup: {
            try openFixture("window-\(batched)", .memOnly)
            for _ in 0..<10 { try windowStep(batched: true) }
        } teardown: { closeFixture() }
    }

    Benchmark("Bytes/lookup of a 16-byte index key in 300k (memOnly)") { benchmark in
        guard let file = fixture.file else { return }
        let reader = try file.beginRead()
        let tree = BytesTree(root: PageRef(UInt32(truncatingIfNeeded: reader.roots[2])))
        var generator = SystemRandomNumberGenerator()
        var found = 0
        for _ in benchmark.scaledIterations {
            let i = UInt64.random(in: 0..<300_000, using: &generator)
            let key = indexKey(i)
            if try key.withUnsafeBytes({ try tree.contains($0, in: reader) }) { found += 1 }
        }
        blackHole(found)
        reader.end()
    } setup: {
        try openFixture("bytes-index", .memOnly)
        guard let file = fixture.file else { return }
        let txn = try file.beginWrite()
        var tree = BytesTree()
        for i in 0..<UInt64(300_000) {
            _ = try indexKey(i).withUnsafeBytes { try tree.put($0, UnsafeRawBufferPointer(start: nil, count: 0), in: txn) }
        }
        txn.roots[2] = UInt64(tree.root.raw)
        try txn.commit()
    } teardown: { closeFixture() }
}

/// An index-like key: a scrambled 8-byte value, then the 8-byte big-endian object key.
func indexKey(_ i: UInt64) -> [UInt8] {
    let scrambled = (i &* 0x9E37_79B9_7F4A_7C15).bigEndian
    return withUnsafeBytes(of: scrambled) { Array($0) } + withUnsafeBytes(of: i.bigEndian) { Array($0) }
}
