// `strata-storage-probe bench-freelist <dir> <runs> <commits> <full|unsafe>`: what a small commit
// costs on a file whose free space is `runs` separate one-page runs, the shape a large store's
// fill leaves (about 12,800 runs after the scale workload's 10M-object fill). Every other page
// of 2 × `runs` is freed, then `commits` transactions each rewrite one page. Prints the commit's
// p50 and p99 and the pages it wrote, so a free list's cost per commit can be measured without
// filling a store of millions of objects.

import Foundation
import StrataStorage

func benchFreeList(dir: String, runs: Int, commits: Int, durability: Durability) throws {
    let file = try benchFile(dir, "bench-freelist.strata", durability: durability, encrypted: false)
    defer { file.close() }
    let fill = try file.beginWrite()
    var refs: [PageRef] = []
    refs.reserveCapacity(2 * runs + 1)
    for _ in 0..<(2 * runs + 1) { refs.append(try fill.allocatePage().ref) }
    fill.roots[0] = UInt64(refs[2 * runs].raw)
    try fill.commit()
    let free = try file.beginWrite()
    for (i, ref) in refs.enumerated() where i % 2 == 0 && i < 2 * runs { free.freePage(ref) }
    try free.commit()

    var micros: [Double] = []
    micros.reserveCapacity(commits)
    var pages = 0
    for value in 0..<commits {
        let started = monotonicSeconds()
        let txn = try file.beginWrite()
        let (ref, payload) = try txn.writablePage(PageRef(UInt32(truncatingIfNeeded: txn.roots[0])))
        payload.storeBytes(of: UInt64(value), toByteOffset: 8, as: UInt64.self)
        txn.roots[0] = UInt64(ref.raw)
        let stats = try txn.commitWithStatistics()
        micros.append((monotonicSeconds() - started) * 1e6)
        pages += stats.pagesWritten
    }
    micros.sort()
    func percentile(_ p: Double) -> Double { micros[min(micros.count - 1, Int(Double(micros.count) * p))] }
    say(String(format: "bench-freelist: %d runs, %d commits (%@): p50 %.1f us, p99 %.1f us, %.2f pages written per commit",
               runs, commits, durability.rawValue, percentile(0.5), percentile(0.99), Double(pages) / Double(max(1, commits))))
}
