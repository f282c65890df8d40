// Crash safety of what the small-commit work changed, with real process deaths: the child
// (`strata-storage-probe crashpinned`) commits under `.unsafe` with pages built in the file's
// mapping, rolls back a third of its transactions after building their pages there, and keeps a
// reader pinned for stretches of commits, so held runs pile up, are coalesced and persisted, and
// are released when the reader moves on. After each SIGKILL the file must hold every
// acknowledged commit and nothing partial, and its page accounting must balance.

import Foundation
import Testing
import StrataStorage

@Suite("Crash recovery with pinned readers and pages built in place", .serialized)
struct CrashPinnedTests {
    @Test func killedWriterWithPinnedReaderAndRollbacksLosesNothing() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var generator = SystemRandomNumberGenerator()
        var lastAcked: UInt64 = 0
        var rounds = 0
        var sawHeldRecords = false
        let started = Date()
        // More rounds, with pinning readers beside the writers: `strata-bench stress --scenario
        // contention --engine strata` (and `--scenario kill --rounds N` for plain kills).
        let wanted = 12
        while rounds < 8 || rounds < wanted && Date().timeIntervalSince(started) < 25 {
            rounds += 1
            let child = try Probe(["crashpinned", path])
            if rounds % 2 == 0 { _ = child.waitForLine(timeout: 30) { $0.hasPrefix("acked ") } }
            usleep(UInt32.random(in: 5_000...120_000, using: &generator))
            child.kill()
            _ = child.waitForExit()
            let acked = child.output().compactMap { line -> UInt64? in
                line.hasPrefix("acked ") ? UInt64(line.dropFirst(6)) : nil
            }
            if let last = acked.last {
                #expect(acked.first == lastAcked + 1)
                #expect(acked == Array((lastAcked + 1)...last))
                lastAcked = last
            }
            let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
            let reader = try file.beginRead()
            let value = reader.roots[1]
            #expect(value >= lastAcked)
            #expect(value <= lastAcked + 1)
            #expect(try checkGeneration(reader))
            reader.end()
            let accounting = try file.verify()
            if accounting.heldForReaderPages > 0 { sawHeldRecords = true }
            #expect(accounting.balances)
            file.close()
            lastAcked = value
        }
        #expect(rounds >= 8)
        #expect(lastAcked > 0)
        #expect(sawHeldRecords)  // the persisted free space carried held runs through the crashes
    }
}
