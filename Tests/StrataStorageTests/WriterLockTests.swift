// The writer lock (WriterLock.swift): the lock file's writer word excludes cores, threads and
// processes, an in-memory file's private word excludes threads; a holder killed with SIGKILL does
// not wedge the file; trylock is `.fileInUse`; a lock file of an earlier layout is refused
// with `.lockFailed` naming it, whether or not another process has it open, and left unchanged.

import Foundation
import Synchronization
import Testing
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

/// Reads the little-endian word of `size` bytes at `offset` of a file.
private func readLockWord(_ path: String, at offset: Int, size: Int = 8) throws -> UInt64 {
    let fd = open(path, O_RDONLY)
    try #require(fd >= 0)
    defer { close(fd) }
    var word: UInt64 = 0
    let n = pread(fd, &word, size, off_t(offset))
    try #require(n == size)
    return UInt64(littleEndian: word)
}

/// Writes `value` as `size` little-endian bytes at `offset` of the file at `path`.
private func writeLockWord(_ path: String, _ value: UInt64, at offset: Int, size: Int = 8) throws {
    let fd = open(path, O_RDWR)
    try #require(fd >= 0)
    defer { close(fd) }
    var word = value.littleEndian
    try #require(pwrite(fd, &word, size, off_t(offset)) == size)
}

/// A lock file of an earlier layout (`magic`: "STRATALK" or "STRATAL2"), as such a build left it.
/// With `holding`, the returned descriptor plays that build's process having the file open
/// (shared open marker, reader slot 5); otherwise it is closed and -1 is returned.
private func earlierLayoutLockFile(_ dataPath: String, magic: UInt64, holding: Bool) throws -> Int32 {
    let fd = open(dataPath + ".lock", O_RDWR | O_CREAT, 0o644)
    try #require(fd >= 0)
    try #require(ftruncate(fd, off_t(LockFile.mappedSize)) == 0)
    var word = magic.littleEndian
    try #require(pwrite(fd, &word, 8, 0) == 8)
    guard holding else {
        close(fd)
        return -1
    }
    try #require(LockFile.setLock(fd, type: F_RDLCK, byte: 1, wait: false))
    try #require(LockFile.setLock(fd, type: F_WRLCK, byte: 1024 + 5, wait: false))
    return fd
}

/// The value (root 1) of the newest version, after checking that every page of it carries it.
private func committedValue(_ file: StorageFile) throws -> UInt64 {
    let reader = try file.beginRead()
    defer { reader.end() }
    #expect(try checkGeneration(reader))
    return reader.roots[1]
}

/// Commits one more generation (value + 1), as the probe's `increment` does.
private func increment(_ file: StorageFile) throws {
    let txn = try file.beginWrite()
    let value = txn.roots[1] + 1
    let directory = PageRef(UInt32(truncatingIfNeeded: txn.roots[0]))
    if !directory.isNull {
        let old = try txn.readPage(directory)
        let count = Int(old.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        let refs = (0..<count).map { PageRef(old.loadUnaligned(fromByteOffset: 16 + 4 * $0, as: UInt32.self)) }
        for ref in refs { txn.freePage(ref) }
        txn.freePage(directory)
    }
    let (newDirectory, d) = try txn.allocatePage()
    d.storeBytes(of: 1, as: UInt8.self)
    d.storeBytes(of: UInt32(1), toByteOffset: 8, as: UInt32.self)
    let (ref, p) = try txn.allocatePage()
    p.storeBytes(of: value, toByteOffset: 8, as: UInt64.self)
    for k in stride(from: 16, to: PageLayout.payloadSize - 7, by: 8) {
        p.storeBytes(of: value &* 0x9E37_79B9_7F4A_7C15, toByteOffset: k, as: UInt64.self)
    }
    d.storeBytes(of: ref.raw, toByteOffset: 16, as: UInt32.self)
    txn.roots[0] = UInt64(newDirectory.raw)
    txn.roots[1] = value
    try txn.commit()
}

/// Runs `body` on another thread; false if it has not returned within `seconds` (a wedged writer
/// lock would otherwise hang the suite — the thread is then left blocked) or if it threw.
private func finishes(within seconds: Double = 20, _ body: @escaping @Sendable () throws -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    let succeeded = Atomic<Bool>(false)
    Thread.detachNewThread {
        if (try? body()) != nil { succeeded.store(true, ordering: .releasing) }
        done.signal()
    }
    return done.wait(timeout: .now() + seconds) == .success && succeeded.load(ordering: .acquiring)
}

@Suite("Writer lock", .serialized)
struct WriterLockTests {
    @Test func aNewFileTakesTheLockFilesWriterWord() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
        defer { file.close() }
        #expect(try readLockWord(path + ".lock", at: 0) == LockFile.magic)
        let lockFile = try #require(file.core.lockFile)
        #expect(file.core.writerLock === lockFile.writerLock)
        #expect(lockFile.token & 0xFF == UInt32(lockFile.slot))
        let txn = try file.beginWrite()
        #expect(try readLockWord(path + ".lock", at: LockFile.writerWordOffset, size: 4) == UInt64(lockFile.token))
        txn.rollback()
        #expect(try readLockWord(path + ".lock", at: LockFile.writerWordOffset, size: 4) == 0)
    }

    @Test func twoCoresExcludeEachOtherAndTryLockRefuses() throws {
        let dir = TemporaryDirectory()
        let a = try LockFile(lockPath: dir.file() + ".lock")
        let b = try LockFile(lockPath: dir.file() + ".lock")
        #expect(a.token != b.token)
        a.writerLock.lock()
        #expect(!b.writerLock.tryLock())
        #expect(!a.writerLock.tryLock(), "another thread of the holding core is refused too")
        a.writerLock.unlock()
        #expect(b.writerLock.tryLock())
        b.writerLock.unlock()
    }

    /// Six threads of one core contend for the writer lock with short transactions (handed over
    /// while the waiters yield) and, every 50th, one held for 2 ms (longer than the yielding
    /// phase: waiters then sleep on the futex or the gate's condition). No two transactions ever
    /// overlap and every increment is kept. A file excludes threads with the lock file's writer
    /// word; a memOnly file, which has no lock file, with a private word.
    @Test(arguments: [Durability.unsafe, .memOnly])
    func contendingThreadsNeverOverlapWhetherYieldingOrSleeping(durability: Durability) throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: durability))
        defer { file.close() }
        #expect((file.core.lockFile == nil) == (durability == .memOnly))
        #expect(WriterLock.yieldsBeforeSleeping > 0)
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        let threads = 6, perThread = 150
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                for index in 0..<perThread {
                    do {
                        let txn = try file.beginWrite()
                        if inside.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue != 1 {
                            overlaps.wrappingAdd(1, ordering: .relaxed)
                        }
                        txn.roots[1] += 1
                        if index % 50 == 0 { usleep(2_000) }
                        inside.wrappingSubtract(1, ordering: .acquiringAndReleasing)
                        try txn.commit()
                    } catch {
                        failures.wrappingAdd(1, ordering: .relaxed)
                    }
                }
            }
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(overlaps.load(ordering: .relaxed) == 0)
        #expect(failures.load(ordering: .relaxed) == 0)
        let reader = try file.beginRead()
        defer { reader.end() }
        #expect(reader.roots[1] == UInt64(threads * perThread))
    }

    /// Threads of one core take the word in the order they queued: the holder that releases it
    /// and asks again at once, while others wait, goes behind them instead of taking it back
    /// (without the queue it did, on a file of one process and on an in-memory one alike).
    @Test(arguments: [false, true])
    func threadsOfACoreTakeTheWordInTheOrderTheyQueued(inMemory: Bool) throws {
        let dir = TemporaryDirectory()
        let lockFile = inMemory ? nil : try LockFile(lockPath: dir.file() + ".lock")
        let lock = lockFile?.writerLock ?? WriterLock()
        lock.lock()
        let order = Mutex<[String]>([])
        let group = DispatchGroup()
        for name in ["B", "C", "D"] {
            let queued = lock.ticketsOut
            group.enter()
            Thread.detachNewThread {
                lock.lock()
                order.withLock { $0.append(name) }
                lock.unlock()
                group.leave()
            }
            // Each thread is in the queue before the next one starts.
            var waited = 0
            while lock.ticketsOut == queued, waited < 10_000 {
                usleep(1_000)
                waited += 1
            }
            try #require(lock.ticketsOut == queued + 1, "thread \(name) did not queue")
        }
        lock.unlock()
        lock.lock()
        order.withLock { $0.append("A") }
        lock.unlock()
        #expect(group.wait(timeout: .now() + 20) == .success)
        #expect(order.withLock { $0 } == ["B", "C", "D", "A"])
        #expect(lock.ticketsOut == 0)
        // Uncontended again: the word is taken without a ticket and tryLock finds it free.
        #expect(lock.tryLock())
        lock.unlock()
        #expect(lock.ticketsOut == 0)
    }

    /// A second thread of the same core sleeps until the first ends its transaction (the writer
    /// word, which belongs to the core, excludes it).
    @Test func anotherThreadOfTheCoreWaitsForTheWriter() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        defer { file.close() }
        try expectSecondThreadWaits(file)
    }

    /// Begins a write, starts a thread that begins another one, and checks that it got it only
    /// after the first ended.
    func expectSecondThreadWaits(_ file: StorageFile) throws {
        let txn = try file.beginWrite()
        let released = Atomic<Bool>(false)
        let sawRelease = Atomic<Int>(0)  // 0: not yet, 1: acquired after the release, 2: before
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            if let second = try? file.beginWrite() {
                sawRelease.store(released.load(ordering: .acquiring) ? 1 : 2, ordering: .releasing)
                second.rollback()
            }
            finished.signal()
        }
        usleep(100_000)
        #expect(sawRelease.load(ordering: .acquiring) == 0, "the second writer did not wait")
        released.store(true, ordering: .releasing)
        txn.rollback()
        #expect(finished.wait(timeout: .now() + 20) == .success)
        #expect(sawRelease.load(ordering: .acquiring) == 1)
    }

    /// The lock belongs to the core, not the thread: a transaction begun on one thread may end on
    /// another (a queue-confined realm's blocks run on any thread of the pool), and the next
    /// writer then gets the lock — what a robust pthread mutex (EPERM) would not allow.
    @Test func aTransactionEndedOnAnotherThreadReleasesTheLock() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        defer { file.close() }
        try increment(file)
        final class Handoff: @unchecked Sendable {
            // @unchecked: written before the thread starts, used only by that thread afterwards.
            var txn: WriteTransaction?
        }
        let handoff = Handoff()
        handoff.txn = try file.beginWrite()
        #expect(finishes {
            guard let txn = handoff.txn else { return }
            txn.roots[2] = 7
            try txn.commit()
            handoff.txn = nil
        })
        #expect(try readLockWord(dir.file() + ".lock", at: LockFile.writerWordOffset, size: 4) == 0)
        try #require(finishes { try increment(file) }, "the lock stayed held after a commit on another thread")
        #expect(try committedValue(file) == 2)
        #expect(try file.beginRead().roots[2] == 7)
    }

    @Test func tryAcquireWhileAnotherProcessWritesIsFileInUse() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
        defer { file.close() }
        let holder = try Probe(["holdwriter", path])
        defer { holder.kill(); _ = holder.waitForExit() }
        #expect(holder.waitForLine { $0 == "writing" } == "writing")
        #expect(storageErrorCode { _ = try file.core.acquireWriter(waiting: false) } == .fileInUse)
        #expect(storageErrorCode { try file.compact() } == .fileInUse)
    }

    /// The holder is killed while this process has the file open (so no lone opener resets the
    /// word): the next writer here takes the word over and the file stays consistent.
    @Test func aKilledHolderIsTakenOverByTheNextWriter() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
        defer { file.close() }
        try increment(file)
        let holder = try Probe(["holdwriter", path])
        #expect(holder.waitForLine { $0 == "writing" } == "writing")
        let word = try readLockWord(path + ".lock", at: LockFile.writerWordOffset, size: 4)
        #expect(word != 0 && UInt32(word) & WriterLock.holderMask != file.core.lockFile?.token)
        holder.kill()
        _ = holder.waitForExit()
        try #require(finishes { try increment(file) }, "the dead holder's word was not taken over")
        #expect(try committedValue(file) == 2)
        #expect(try file.verify().balances)
        #expect(try readLockWord(path + ".lock", at: LockFile.writerWordOffset, size: 4) == 0)
    }

    /// A process sleeping on the word while its holder is killed proceeds.
    @Test func aKilledHolderDoesNotWedgeAWaitingProcess() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
        defer { file.close() }
        let holder = try Probe(["holdwriter", path])
        #expect(holder.waitForLine { $0 == "writing" } == "writing")
        let waiter = try Probe(["increment", path, "5", "unsafe"])
        usleep(300_000)
        #expect(waiter.output().isEmpty, "the waiter wrote while the holder held the lock")
        holder.kill()
        _ = holder.waitForExit()
        let finished = waiter.waitForLine(timeout: 20, where: { $0 == "done" }) != nil
        if !finished { waiter.kill() }
        _ = waiter.waitForExit()
        try #require(finished, "the waiter is still blocked after its holder died")
        #expect(waiter.output() == ["done"])
        #expect(try committedValue(file) == 5)
        #expect(try file.verify().balances)
    }

    @Test func twoProcessesNeverOverlap() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
            file.close()
        }
        #expect(try readLockWord(path + ".lock", at: 0) == LockFile.magic)
        let counter = dir.file("inside")
        #expect(FileManager.default.createFile(atPath: counter, contents: Data(count: 4096)))
        let a = try Probe(["exclusive", path, "300", "unsafe", counter])
        let b = try Probe(["exclusive", path, "300", "unsafe", counter])
        #expect(a.waitForExit() == 0)
        #expect(b.waitForExit() == 0)
        #expect(a.output() == ["done"])
        #expect(b.output() == ["done"])
        let file = try StorageFile.open(StorageOptions(path: path, mustExist: true))
        defer { file.close() }
        #expect(try committedValue(file) == 600)
        #expect(try file.latestVersion() == 601)
        #expect(try file.verify().balances)
    }

    /// A dead holder's word — or garbage in it — is taken over, by trylock at once and by a
    /// waiting lock after one probe interval.
    @Test func aDeadOrGarbageHolderWordIsTakenOver() throws {
        let dir = TemporaryDirectory()
        let lockPath = dir.file() + ".lock"
        let a = try LockFile(lockPath: dir.file() + ".lock")
        let b = try LockFile(lockPath: dir.file() + ".lock")
        // A token of slot 200 whose cell holds another generation (the slot was claimed again),
        // one whose cell matches but whose slot byte nobody holds (the process died), and garbage.
        try writeLockWord(lockPath, UInt64(WriterLock.newToken(slot: 200, previous: 0)), at: LockFile.slotTokensOffset + 4 * 200, size: 4)
        let dead = [WriterLock.newToken(slot: 200, previous: 7 << 8) | WriterLock.waitersBit,
                    WriterLock.newToken(slot: 200, previous: 0), 0xFFFF_FFFF]
        for word in dead {
            try writeLockWord(lockPath, UInt64(word), at: LockFile.writerWordOffset, size: 4)
            try #require(a.writerLock.tryLock(), "trylock did not take over \(word)")
            #expect(!b.writerLock.tryLock())
            a.writerLock.unlock()
            try writeLockWord(lockPath, UInt64(word), at: LockFile.writerWordOffset, size: 4)
            // (On failure the waiting thread stays blocked: stop before anything else waits.)
            try #require(finishes { b.writerLock.lock() }, "a waiter did not take over \(word)")
            #expect(!a.writerLock.tryLock())
            b.writerLock.unlock()
        }
        // A live holder (slot byte held, cell matching) is not taken over.
        try #require(a.writerLock.tryLock())
        #expect(!b.writerLock.isHolderAlive(token: WriterLock.newToken(slot: 200, previous: 0)))
        #expect(b.writerLock.isHolderAlive(token: a.token))
        #expect(!b.writerLock.tryLock())
        a.writerLock.unlock()
    }

    @Test func aLoneOpenerClearsAWordLeftByADeadProcess() throws {
        let dir = TemporaryDirectory()
        let lockPath = dir.file() + ".lock"
        do { _ = try LockFile(lockPath: dir.file() + ".lock") }
        try writeLockWord(lockPath, UInt64(WriterLock.newToken(slot: 3, previous: 0) | WriterLock.waitersBit),
                          at: LockFile.writerWordOffset, size: 4)
        let lock = try LockFile(lockPath: dir.file() + ".lock")
        #expect(try readLockWord(lockPath, at: LockFile.writerWordOffset, size: 4) == 0)
        #expect(lock.writerLock.tryLock())
        lock.writerLock.unlock()
    }

    /// A lock file of an earlier layout is refused with `.lockFailed` naming the layout, whether
    /// a process of that build has it open or nobody does, and is left unchanged; so is a read-only
    /// open. Once it is removed, the file opens.
    @Test(arguments: [(0x4B43_4F4C_4154_5253 as UInt64, "STRATALK"), (0x324C_4154_4152_5453, "STRATAL2")])
    func aLockFileOfAnEarlierLayoutIsRefusedNamingIt(magic: UInt64, name: String) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
            try increment(file)
            file.close()
        }
        for holding in [true, false] {
            let old = try earlierLayoutLockFile(path, magic: magic, holding: holding)
            defer { if old >= 0 { close(old) } }
            for readOnly in [false, true] {
                #expect {
                    _ = try StorageFile.open(StorageOptions(path: path, readOnly: readOnly))
                } throws: { error in
                    let error = error as? StorageError
                    return error?.code == .lockFailed && error?.message.contains(name) == true
                        && error?.path == path + ".lock"
                }
            }
            #expect(try readLockWord(path + ".lock", at: 0) == magic, "the refused lock file was changed")
        }
        #expect(unlink(path + ".lock") == 0)
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
        defer { file.close() }
        #expect(try committedValue(file) == 1)
    }

    /// Writers killed at random moments (mid-commit included) while this process keeps the file
    /// open, so no lone opener clears the word: each time, the next writer here takes the word
    /// over if the child died holding it, every acknowledged commit is there and the file verifies.
    @Test func writersKilledAtRandomMomentsAreTakenOver() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
        defer { file.close() }
        var generator = SystemRandomNumberGenerator()
        var lastAcked: UInt64 = 0
        var diedHolding = 0
        for round in 1...10 {
            let child = try Probe(["crashloop", path, "unsafe"])
            // Even rounds kill mid-loop, where the child holds the writer lock nearly all the time.
            if round % 2 == 0 { _ = child.waitForLine(timeout: 30) { $0.hasPrefix("acked ") } }
            usleep(UInt32.random(in: 2_000...40_000, using: &generator))
            child.kill()
            _ = child.waitForExit()
            let acked = child.output().compactMap { line -> UInt64? in
                line.hasPrefix("acked ") ? UInt64(line.dropFirst(6)) : nil
            }
            if let last = acked.last { lastAcked = last }
            let word = try readLockWord(path + ".lock", at: LockFile.writerWordOffset, size: 4)
            if UInt32(word) & WriterLock.holderMask != 0 { diedHolding += 1 }
            try #require(finishes { try increment(file) }, "the dead child's word was not taken over")
            let value = try committedValue(file)
            // Every acknowledged commit, at most one committed but unacknowledged, and ours.
            #expect(value >= lastAcked + 1 && value <= lastAcked + 2)
            #expect(try file.verify().balances)
            lastAcked = value
        }
        #expect(diedHolding > 0, "no child died holding the writer lock: the takeover was not exercised")
    }
}
