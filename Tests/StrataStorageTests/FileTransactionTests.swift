// Milestone 1: commit/reopen round trip, rollback, snapshot isolation, memOnly, writer lock.

import Foundation
import Testing
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

@Suite("File transactions")
struct FileTransactionTests {
    @Test func newFileStartsAtVersionOneWithEmptyRoots() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file()))
        defer { file.close() }
        #expect(try file.latestVersion() == 1)
        let reader = try file.beginRead()
        #expect(reader.version == 1)
        #expect(reader.roots == UserRoots())
    }

    @Test(arguments: [Durability.full, .unsafe])
    func commitThenReopenRoundTrip(durability: Durability) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var refs: [PageRef] = []
        do {
            let file = try StorageFile.open(StorageOptions(path: path, durability: durability))
            let txn = try file.beginWrite()
            // 700 pages: more than the meta's inline commit record (322) holds, so the commit
            // record needs overflow pages.
            for i in 0..<700 {
                let (ref, payload) = try txn.allocatePage()
                stamp(payload, value: UInt64(i), marker: UInt8(i % 251))
                refs.append(ref)
            }
            txn.roots[0] = 42
            txn.roots[7] = UInt64.max
            let version = try txn.commit()
            #expect(version == 2)
            file.close()
        }
        let file = try StorageFile.open(StorageOptions(path: path, durability: durability, mustExist: true))
        defer { file.close() }
        #expect(try file.latestVersion() == 2)
        let reader = try file.beginRead()
        #expect(reader.roots[0] == 42)
        #expect(reader.roots[7] == UInt64.max)
        for (i, ref) in refs.enumerated() {
            let stampRead = readStamp(try reader.readPage(ref))
            #expect(stampRead?.value == UInt64(i))
            #expect(stampRead?.marker == UInt8(i % 251))
        }
        #expect(Set(refs).count == refs.count)
        #expect(try file.verify().balances)
    }

    @Test func rollbackDiscardsPagesAndRoots() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file()))
        defer { file.close() }
        try commitCounter(file, value: 1)
        let sizeBefore = try file.sizes()
        let txn = try file.beginWrite()
        let (ref, payload) = try txn.allocatePage()
        stamp(payload, value: 99, marker: 9)
        txn.roots[0] = UInt64(ref.raw)
        txn.rollback()
        #expect(try file.latestVersion() == 2)
        let reader = try file.beginRead()
        #expect(try readCounter(reader, roots: reader.roots) == 1)
        reader.end()
        // A rolled-back transaction is closed.
        #expect(storageErrorCode { _ = try txn.allocatePage() } == .closed)
        #expect(storageErrorCode { try txn.commit() } == .closed)
        // The writer lock was released, and the space is the same as before.
        let again = try file.beginWrite()
        let (ref2, _) = try again.allocatePage()
        #expect(ref2 == ref)
        again.rollback()
        #expect(try file.sizes() == sizeBefore)
        #expect(try file.verify().balances)
    }

    @Test func dropWithoutCommitRollsBack() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file()))
        defer { file.close() }
        do {
            let txn = try file.beginWrite()
            _ = try txn.allocatePage()
        }
        // The writer lock must be free again (a leaked lock would block here forever).
        try commitCounter(file, value: 5)
        #expect(try file.latestVersion() == 2)
    }

    @Test func readerKeepsItsSnapshotWhileWriterCommits() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        defer { file.close() }
        try commitCounter(file, value: 1, marker: 0x11)
        let pinned = try file.beginRead()
        let pinnedRef = PageRef(UInt32(pinned.roots[0]))
        for value in 2...200 {
            try commitCounter(file, value: UInt64(value), marker: UInt8(value & 0xFF))
            // The pinned reader still sees version 2's page, byte for byte.
            let seen = readStamp(try pinned.readPage(pinnedRef))
            #expect(seen?.value == 1)
            #expect(seen?.marker == 0x11)
        }
        #expect(pinned.version == 2)
        let fresh = try file.beginRead()
        #expect(fresh.version == 201)
        #expect(try readCounter(fresh, roots: fresh.roots) == 200)
        #expect(try file.verify().balances)
        pinned.end()
        #expect(storageErrorCode { _ = try pinned.readPage(pinnedRef) } == .closed)
    }

    @Test func freedPagesAreReusedOnceNoReaderNeedsThem() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        defer { file.close() }
        for value in 1...500 { try commitCounter(file, value: UInt64(value)) }
        // Each commit copies one page and rewrites the free list: without reuse the high-water
        // mark would pass 1,000 pages; with it, it stays tiny.
        let used = try file.sizes().usedBytes / PageLayout.pageSize
        #expect(used <= 14)  // 8 meta slots + counter page + free list
        let accounting = try file.verify()
        #expect(accounting.balances)
        #expect(accounting.totalPages - accounting.freePages <= 22)
    }

    @Test func memOnlyHandlesShareDataUntilTheLastCloses() throws {
        let options = StorageOptions(path: "mem-test-\(getpid())-shared", durability: .memOnly)
        let first = try StorageFile.open(options)
        try commitCounter(first, value: 7)
        let second = try StorageFile.open(options)
        let reader = try second.beginRead()
        #expect(reader.version == 2)
        #expect(try readCounter(reader, roots: reader.roots) == 7)
        reader.end()
        first.close()
        second.close()
        let third = try StorageFile.open(options)
        defer { third.close() }
        #expect(try third.latestVersion() == 1)
        #expect(access("mem-test-\(getpid())-shared", F_OK) != 0)
    }

    @Test func handlesToOnePathShareOneCore() throws {
        let dir = TemporaryDirectory()
        let a = try StorageFile.open(StorageOptions(path: dir.file()))
        let b = try StorageFile.open(StorageOptions(path: dir.path + "/./db.strata"))
        defer { a.close(); b.close() }
        #expect(a.core === b.core)
        try commitCounter(a, value: 3)
        #expect(try b.latestVersion() == 2)
        #expect(StorageFile.isOpenAnywhere(path: dir.file()))
    }

    @Test func writersOnSeveralThreadsAreSerialised() async throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        defer { file.close() }
        try commitCounter(file, value: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<50 {
                        let txn = try file.beginWrite()
                        let current = txn.roots[1]
                        let (ref, payload) = try txn.writablePage(PageRef(UInt32(txn.roots[0])))
                        stamp(payload, value: current + 1, marker: 1)
                        txn.roots[0] = UInt64(ref.raw)
                        txn.roots[1] = current + 1
                        try txn.commit()
                    }
                }
            }
            try await group.waitForAll()
        }
        let reader = try file.beginRead()
        #expect(reader.roots[1] == 200)
        #expect(try readCounter(reader, roots: reader.roots) == 200)
    }

    @Test func ownedPagesAreWrittenInPlaceAndFreedAtOnce() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file()))
        defer { file.close() }
        let txn = try file.beginWrite()
        let (ref, _) = try txn.allocatePage()
        #expect(txn.isOwned(ref))
        let (same, _) = try txn.writablePage(ref)
        #expect(same == ref)
        txn.freePage(ref)
        #expect(!txn.isOwned(ref))
        // The page is free again at once (reusable by this transaction; which allocation gets it
        // depends on the current extent, see ExtentAllocationTests).
        #expect(file.core.freeSpace.reusable.contains { $0.start <= ref.raw && ref.raw < $0.start + $0.count })
        let (_, payload) = try txn.allocatePage()
        // allocatePage hands out zero-filled payloads even when reusing a buffer.
        #expect((0..<PageLayout.payloadSize).allSatisfy { payload.load(fromByteOffset: $0, as: UInt8.self) == 0 })
        txn.rollback()
    }

    @Test func maximumActiveVersionsIsEnforced() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe, maximumActiveVersions: 2))
        defer { file.close() }
        let r1 = try file.beginRead()
        try commitCounter(file, value: 1)
        let r2 = try file.beginRead()
        let r2b = try file.beginRead()  // same version: no new pin
        try commitCounter(file, value: 2)
        #expect(storageErrorCode { _ = try file.beginRead() } == .tooManyActiveVersions)
        r1.end()
        let r3 = try file.beginRead()
        #expect(r3.version == 3)
        _ = (r2, r2b)
    }

    @Test func concurrentFullCommitsShareFlushes() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try StorageFile.open(StorageOptions(path: path, durability: .full))
        try commitCounter(file, value: 0)
        // Slow flushes make committers pile up behind the leader; with 10 threads the ring of 8
        // meta slots fills too, exercising the writer's own flush. Real threads, not tasks: the
        // cooperative pool has only as many threads as cores.
        file.core.injectedFlushDelayMicroseconds = 10_000
        let tally = ThreadTally()
        for _ in 0..<10 {
            Thread.detachNewThread {
                var made = 0
                var failure: String? = nil
                do {
                    for _ in 0..<5 {
                        let txn = try file.beginWrite()
                        let current = txn.roots[1]
                        let (ref, payload) = try txn.writablePage(PageRef(UInt32(txn.roots[0])))
                        stamp(payload, value: current + 1, marker: 2)
                        txn.roots[0] = UInt64(ref.raw)
                        txn.roots[1] = current + 1
                        made += try txn.commitWithStatistics().flushes
                    }
                } catch {
                    failure = "\(error)"
                }
                tally.record(made, failure)
            }
        }
        let (flushes, failures) = tally.wait(for: 10)
        #expect(failures.isEmpty)
        #expect(flushes >= 1)
        #expect(flushes <= 25)  // 50 commits; without sharing there would be 50 flushes
        file.core.injectedFlushDelayMicroseconds = 0
        #expect(file.core.currentDurable() == 52)
        file.close()
        let reopened = try StorageFile.open(StorageOptions(path: path))
        defer { reopened.close() }
        let reader = try reopened.beginRead()
        #expect(reader.version == 52)
        #expect(try readCounter(reader, roots: reader.roots) == 50)
        reader.end()
        #expect(try reopened.verify().balances)
    }
}

/// Results of worker threads, guarded by a condition.
final class ThreadTally: @unchecked Sendable {
    // @unchecked: every field is accessed under `condition`.
    private let condition = NSCondition()
    private var finished = 0
    private var total = 0
    private var failures: [String] = []

    func record(_ value: Int, _ failure: String?) {
        condition.lock()
        finished += 1
        total += value
        if let failure { failures.append(failure) }
        condition.broadcast()
        condition.unlock()
    }

    func wait(for count: Int) -> (total: Int, failures: [String]) {
        condition.lock()
        defer { condition.unlock() }
        while finished < count { condition.wait() }
        return (total, failures)
    }
}
