// Crash safety with real process deaths: a child commits in a loop (printing each acknowledged
// version), is SIGKILLed at a random moment, and the file must hold every acknowledged commit and
// no partial one. A process kill leaves the OS page cache intact, so this checks the commit
// protocol's ordering and recovery rather than the disk's; torn commits on power loss are covered
// by the torn-commit tests in FileBadInputTests.

import Foundation
import Testing
@testable import StrataStorage

@Suite("Crash recovery", .serialized)
struct CrashTests {
    @Test(arguments: [Durability.full, .unsafe])
    func killedWriterLosesNoAcknowledgedCommit(durability: Durability) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var generator = SystemRandomNumberGenerator()
        var lastAcked: UInt64 = 0
        var rounds = 0
        let started = Date()
        // At least 10 rounds even on a loaded machine (each round starts a debug child process),
        // up to 25 while the 25 s budget lasts.
        while rounds < 10 || rounds < 25 && Date().timeIntervalSince(started) < 25 {
            rounds += 1
            let child = try Probe(["crashloop", path, durability.rawValue])
            // Let it commit for a random while (sometimes before its first commit).
            usleep(UInt32.random(in: 2_000...60_000, using: &generator))
            child.kill()
            _ = child.waitForExit()
            let acked = child.output().compactMap { line -> UInt64? in
                line.hasPrefix("acked ") ? UInt64(line.dropFirst(6)) : nil
            }
            if let last = acked.last {
                // Acknowledgements are consecutive and continue where the last round stopped.
                #expect(acked.first == lastAcked + 1 || lastAcked == 0 && acked.first == 1)
                lastAcked = last
            }
            let file = try StorageFile.open(StorageOptions(path: path, durability: durability))
            let reader = try file.beginRead()
            let value = reader.roots[1]
            // Every acknowledged commit is there; at most one more (committed, not yet printed).
            #expect(value >= lastAcked)
            #expect(value <= lastAcked + 1)
            #expect(reader.version == value + 1)
            // Nothing partial: every page of the visible generation carries its value.
            #expect(try checkGeneration(reader))
            reader.end()
            let accounting = try file.verify()
            #expect(accounting.balances)
            file.close()
            lastAcked = value
        }
        #expect(rounds >= 10)
        #expect(lastAcked > 0)
    }

    @Test func killedGroupCommitLosesNoAcknowledgedCommit() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var generator = SystemRandomNumberGenerator()
        var rounds = 0
        var acknowledged = 0
        let started = Date()
        while rounds < 15 && Date().timeIntervalSince(started) < 20 {
            rounds += 1
            let child = try Probe(["crashthreads", path])
            usleep(UInt32.random(in: 5_000...80_000, using: &generator))
            child.kill()
            _ = child.waitForExit()
            let acked = child.output().compactMap { line -> UInt64? in
                line.hasPrefix("acked ") ? UInt64(line.dropFirst(6)) : nil
            }
            #expect(!child.output().contains { $0.hasPrefix("error") })
            acknowledged += acked.count
            let file = try StorageFile.open(StorageOptions(path: path))
            let reader = try file.beginRead()
            // Every acknowledged commit (from any thread) is in the file, nothing partial is.
            #expect(reader.roots[1] >= acked.max() ?? 0)
            #expect(try checkGeneration(reader))
            reader.end()
            #expect(try file.verify().balances)
            file.close()
        }
        #expect(acknowledged > 0)
    }
}
