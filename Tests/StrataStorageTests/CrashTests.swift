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
            // Let it commit for a random while (sometimes before its first commit; every third
            // round after its first acknowledgement, so a loaded machine still kills mid-loop).
            if rounds % 3 == 0 { _ = child.waitForLine(timeout: 30) { $0.hasPrefix("acked ") } }
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
        // Hunting rare orderings takes hundreds of rounds: `strata-bench stress --scenario kill
        // --engine strata --strategy threads --rounds 400` runs them against the same promise.
        let wanted = 15
        let budget = 20.0
        while rounds < wanted && Date().timeIntervalSince(started) < budget {
            rounds += 1
            let child = try Probe(["crashthreads", path])
            if rounds % 2 == 0 {
                // Every other round waits for the first acknowledgement, so that a loaded machine
                // (a debug child can take longer than the random delay to start) still kills
                // writers in the middle of group commits rather than only during start-up.
                _ = child.waitForLine(timeout: 30) { $0.hasPrefix("acked ") }
                usleep(UInt32.random(in: 0...30_000, using: &generator))
            } else {
                usleep(UInt32.random(in: 5_000...80_000, using: &generator))
            }
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

/// A commit that dies after writing its pages and before writing its meta (a process killed
/// between the two) must leave its base version openable — even when the base's meta names an
/// older durable base than the flush that completed since (group commit makes that common).
@Suite("Commit torn between pages and meta")
struct TornAfterPagesTests {
    /// Root 0 = directory page listing `pages` pages that each carry `value` (the probe's layout).
    func writeGeneration(_ txn: WriteTransaction, value: UInt64, pages: Int) throws {
        let oldDirectory = PageRef(UInt32(truncatingIfNeeded: txn.roots[0]))
        if !oldDirectory.isNull {
            let old = try txn.readPage(oldDirectory)
            let count = Int(old.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            let refs = (0..<count).map { PageRef(old.loadUnaligned(fromByteOffset: 16 + 4 * $0, as: UInt32.self)) }
            for ref in refs { txn.freePage(ref) }
            txn.freePage(oldDirectory)
        }
        let (directory, dirPayload) = try txn.allocatePage()
        dirPayload.storeBytes(of: 1, as: UInt8.self)
        dirPayload.storeBytes(of: UInt32(pages), toByteOffset: 8, as: UInt32.self)
        for i in 0..<pages {
            let (ref, payload) = try txn.allocatePage()
            payload.storeBytes(of: 1, as: UInt8.self)
            payload.storeBytes(of: value, toByteOffset: 8, as: UInt64.self)
            for k in stride(from: 16, to: PageLayout.payloadSize - 7, by: 8) {
                payload.storeBytes(of: value &* 0x9E37_79B9_7F4A_7C15, toByteOffset: k, as: UInt64.self)
            }
            dirPayload.storeBytes(of: ref.raw, toByteOffset: 16 + 4 * i, as: UInt32.self)
        }
        txn.roots[0] = UInt64(directory.raw)
        txn.roots[1] = value
    }

    /// Commits value 1 durably, then `pending` values under `.unsafe` (as concurrent group
    /// committers are while a flush runs: each frees its predecessor's pages, and their metas name
    /// a durable base below them), then flushes: the last of them is durable with no newer meta
    /// saying so. Then commits `unflushed` values without a flush, and finally a commit of
    /// `dying` that writes its pages (it may reuse freed ones) and dies before its meta.
    func commitThenDie(_ path: String, pending: [UInt64], unflushed: [UInt64], dying: UInt64) throws {
        let file = try StorageFile.open(StorageOptions(path: path, durability: .full))
        defer { file.close() }
        var txn = try file.beginWrite()
        try writeGeneration(txn, value: 1, pages: 6)
        try txn.commit()
        for value in pending {
            txn = try file.beginWrite()
            txn.durability = .unsafe
            try writeGeneration(txn, value: value, pages: 6)
            try txn.commit()
        }
        try file.core.awaitDurable(try file.latestVersion())
        for value in unflushed {
            txn = try file.beginWrite()
            txn.durability = .unsafe
            try writeGeneration(txn, value: value, pages: 6)
            try txn.commit()
        }
        file.core.injectedMetaWriteErrno = EIO
        txn = try file.beginWrite()
        try writeGeneration(txn, value: dying, pages: 6)
        #expect(throws: StorageError.self) { try txn.commit() }
    }

    /// Opens the file and checks it holds `value` at `version`, intact and balanced.
    func expectOpens(_ path: String, version: UInt64, value: UInt64) throws {
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        let reader = try file.beginRead()
        defer { reader.end() }
        #expect(reader.version == version)
        #expect(reader.roots[1] == value)
        #expect(try checkGeneration(reader))
        #expect(try file.verify().balances)
    }

    @Test func baseStaysVerifiableWhenTheNextCommitDiesBeforeItsMeta() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try commitThenDie(path, pending: [2, 3], unflushed: [], dying: 4)
        try expectOpens(path, version: 4, value: 3)
    }

    /// Power loss may keep a dying commit's page writes and lose the meta before it. The newest
    /// durable version must still verify: reuse may not touch pages its chain check reads.
    @Test func newestDurableVersionVerifiesWhenALaterMetaIsLost() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        // Version 4 (value 3) is durable with a meta naming durable base 2; version 5 (value 4)
        // is written, unflushed, its meta naming durable base 4; version 6 dies before its meta.
        try commitThenDie(path, pending: [2, 3], unflushed: [4], dying: 5)
        // The process died (the helper's handle closed, which would flush): its last flush
        // recorded version 4.
        try setDurabilityRecord(path, version: 4)
        // The power loss kept version 6's pages but lost version 5's meta (slot 5).
        let fd = open(path, O_RDWR)
        #expect(fd >= 0)
        let zeros = [UInt8](repeating: 0, count: PageLayout.pageSize)
        #expect(zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, PageLayout.pageSize, off_t(5 * PageLayout.pageSize)) } == PageLayout.pageSize)
        close(fd)
        try expectOpens(path, version: 4, value: 3)
    }
}
