// Pages built in place: a plain file committed through its writable mapping (`.unsafe`, no
// flush per commit) has its writer build new pages directly in their slot of the mapping
// (FileCore.buildsInPlace), so the commit seals them there and copies nothing. These tests check
// where pages are built, that page accounting and contents stay right over random commits and
// rollbacks (a rolled-back page was written in the file), and that a reader never sees a page
// being built.

import Foundation
import Synchronization
import Testing
@testable import StrataStorage

@Suite("Pages built in place")
struct InPlacePageTests {
    @Test func unsafePlainFilesBuildPagesInTheMapping() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        defer { file.close() }
        #expect(file.core.buildsPlainPagesInMap)
        let txn = try file.beginWrite()
        let (ref, payload) = try txn.allocatePage()
        #expect(payload == file.core.store.pageAddress(Int(ref.raw)) + PageLayout.headerSize)
        stamp(payload, value: 7, marker: 0x5A)
        txn.roots[0] = UInt64(ref.raw)
        try txn.commit()
        // A copy-on-write of a committed page is built in place too.
        let w = try file.beginWrite()
        let (copy, copyPayload) = try w.writablePage(ref)
        #expect(copy != ref)
        #expect(copyPayload == file.core.store.pageAddress(Int(copy.raw)) + PageLayout.headerSize)
        #expect(readStamp(UnsafeRawPointer(copyPayload))?.value == 7)
        w.rollback()
        let reader = try file.beginRead()
        #expect(readStamp(try reader.readPage(ref))?.value == 7)
        reader.end()
    }

    @Test func fullAndEncryptedFilesKeepTheirBuffers() throws {
        let dir = TemporaryDirectory()
        // `.full`: flushed per commit, pwrite (no write map): pooled private buffers.
        let full = try StorageFile.open(StorageOptions(path: dir.file("full.strata"), durability: .full))
        defer { full.close() }
        #expect(!full.core.buildsPlainPagesInMap)
        let txn = try full.beginWrite()
        let (_, payload) = try txn.allocatePage()
        #expect(!full.core.store.contains(payload - PageLayout.headerSize))
        txn.rollback()
        // Encrypted `.unsafe`: the mapping holds ciphertext; pages are built in the decrypted range.
        let key = (0..<64).map { UInt8($0) }
        let encrypted = try StorageFile.open(StorageOptions(path: dir.file("enc.strata"), durability: .unsafe, encryptionKey: key))
        defer { encrypted.close() }
        #expect(!encrypted.core.buildsPlainPagesInMap)
        let e = try encrypted.beginWrite()
        let (ref, encPayload) = try e.allocatePage()
        #expect(encPayload == encrypted.core.store.pageAddress(Int(ref.raw)) + PageLayout.headerSize)
        #expect(encrypted.core.store.writeWindow.map { $0 + Int(ref.raw) * PageLayout.pageSize } != encPayload - PageLayout.headerSize)
        e.rollback()
    }

    /// Random transactions (allocate, copy-on-write, free, in any mix) that commit or roll back,
    /// readers pinned and released at random: after each, the page accounting balances, every
    /// live page holds what was last committed to it, and every pinned reader still sees its own
    /// version's bytes — although rolled-back transactions wrote their pages into the file.
    @Test(arguments: [UInt64(1), 2, 3])
    func randomCommitsAndRollbacksKeepAccountingAndContents(seed: UInt64) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var generator = SplitMix64(seed: 0xB0B0 &+ seed)
        var live: [PageRef: UInt64] = [:]  // page → stamped value
        var readers: [(txn: ReadTransaction, expected: [PageRef: UInt64])] = []
        var nextValue: UInt64 = 1
        var rollbacks = 0
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
        #expect(file.core.buildsPlainPagesInMap)
        for _ in 0..<200 {
            let txn = try file.beginWrite()
            var owned = live
            for _ in 0..<Int(generator.next() % 16) {
                switch generator.next() % 5 {
                case 0, 1:
                    let (ref, payload) = try txn.allocatePage()
                    stamp(payload, value: nextValue, marker: UInt8(truncatingIfNeeded: nextValue))
                    owned[ref] = nextValue
                    nextValue += 1
                case 2:
                    if let victim = owned.keys.randomElement(using: &generator) {
                        txn.freePage(victim)
                        owned[victim] = nil
                    }
                default:
                    if let victim = owned.keys.randomElement(using: &generator) {
                        let (ref, payload) = try txn.writablePage(victim)
                        #expect(readStamp(UnsafeRawPointer(payload))?.value == owned[victim])
                        stamp(payload, value: nextValue, marker: UInt8(truncatingIfNeeded: nextValue))
                        owned[victim] = nil
                        owned[ref] = nextValue
                        nextValue += 1
                    }
                }
            }
            if generator.next() % 3 == 0 {
                txn.rollback()
                rollbacks += 1
            } else {
                try txn.commit()
                live = owned
            }
            switch generator.next() % 4 {
            case 0:
                readers.append((try file.beginRead(), live))
            case 1:
                if !readers.isEmpty {
                    let (reader, expected) = readers.remove(at: Int(generator.next() % UInt64(readers.count)))
                    for (ref, value) in expected { #expect(readStamp(try reader.readPage(ref))?.value == value) }
                    reader.end()
                }
            default: break
            }
            let accounting = try file.verify()
            #expect(accounting.balances)
            let core = file.core
            #expect(accounting.reachablePages == live.count + core.freeListPages.count + core.overflowPages.count)
            let now = try file.beginRead()
            for (ref, value) in live { #expect(readStamp(try now.readPage(ref))?.value == value) }
            now.end()
        }
        #expect(rollbacks > 30)
        for (reader, expected) in readers {
            for (ref, value) in expected { #expect(readStamp(try reader.readPage(ref))?.value == value) }
            reader.end()
        }
        file.close()
        // The file as written opens with every page verifying (checksums) and the same contents.
        let reopened = try StorageFile.open(StorageOptions(path: path, durability: .full))
        defer { reopened.close() }
        #expect(try reopened.verify().balances)
        let reader = try reopened.beginRead()
        for (ref, value) in live { #expect(readStamp(try reader.readPage(ref))?.value == value) }
        reader.end()
    }

    /// A reader thread takes snapshots over and over and checks every page of each against the
    /// snapshot's generation (uniform marker, value = generation, read twice with the same hash)
    /// while the writer rewrites the generation's pages — building each new page in the mapping
    /// in two steps (garbage first) — and commits or rolls back at random. A page being built
    /// that a reader could reach would show a wrong value or a non-uniform marker.
    @Test func readersNeverSeeAPageBeingBuilt() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        defer { file.close() }
        #expect(file.core.buildsPlainPagesInMap)
        try writeGenerationPages(file, generation: 1, pages: 12, commit: true)
        let stop = Atomic<Bool>(false)
        let snapshots = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let reader = Thread {
            while !stop.load(ordering: .relaxed) {
                do {
                    let snapshot = try file.beginRead()
                    let first = try generationHash(snapshot)
                    let second = try generationHash(snapshot)
                    if first == nil || first != second {
                        failures.withLock { $0.append("snapshot \(snapshot.version): \(String(describing: first)) then \(String(describing: second))") }
                    }
                    snapshot.end()
                    snapshots.add(1, ordering: .relaxed)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        reader.start()
        var generator = SplitMix64(seed: 99)
        var generation: UInt64 = 1
        let started = Date()
        var transactions = 0
        while transactions < 3000 && Date().timeIntervalSince(started) < 10 || snapshots.load(ordering: .relaxed) < 50 && Date().timeIntervalSince(started) < 30 {
            let commit = generator.next() % 2 == 0
            try writeGenerationPages(file, generation: generation + 1, pages: 1 + Int(generator.next() % 16), commit: commit)
            if commit { generation += 1 }
            transactions += 1
        }
        stop.store(true, ordering: .relaxed)
        while !reader.isFinished { usleep(1000) }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(snapshots.load(ordering: .relaxed) >= 50)
        #expect(generation > 100)
        #expect(try file.verify().balances)
    }
}

/// Replaces the generation of root 0's directory (kind 1: count u32 @8, refs u32 from 16) by
/// `pages` new pages stamped with `generation` (root 1), each first filled with garbage — the
/// state a half-built page is in — then stamped; commits or rolls back.
func writeGenerationPages(_ file: StorageFile, generation: UInt64, pages: Int, commit: Bool) throws {
    let txn = try file.beginWrite()
    let oldDirectory = PageRef(UInt32(truncatingIfNeeded: txn.roots[0]))
    if !oldDirectory.isNull {
        let old = try txn.readPage(oldDirectory)
        let count = Int(old.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        var refs: [PageRef] = []
        for i in 0..<count { refs.append(PageRef(old.loadUnaligned(fromByteOffset: 16 + 4 * i, as: UInt32.self))) }
        for ref in refs { txn.freePage(ref) }
        txn.freePage(oldDirectory)
    }
    var refs: [PageRef] = []
    for i in 0..<pages {
        let (ref, payload) = try txn.allocatePage()
        for offset in stride(from: 0, to: PageLayout.payloadSize, by: 8) {
            payload.storeBytes(of: UInt64(i) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(offset), toByteOffset: offset, as: UInt64.self)
        }
        stamp(payload, value: generation, marker: UInt8(truncatingIfNeeded: generation))
        refs.append(ref)
    }
    let (directory, payload) = try txn.allocatePage()
    payload.storeBytes(of: 1, as: UInt8.self)
    payload.storeBytes(of: UInt32(pages), toByteOffset: 8, as: UInt32.self)
    for (i, ref) in refs.enumerated() { payload.storeBytes(of: ref.raw, toByteOffset: 16 + 4 * i, as: UInt32.self) }
    txn.roots[0] = UInt64(directory.raw)
    txn.roots[1] = generation
    if commit { try txn.commit() } else { txn.rollback() }
}

/// A hash of a snapshot's generation pages; nil when a page does not carry the generation.
func generationHash(_ snapshot: ReadTransaction) throws -> UInt64? {
    let directory = PageRef(UInt32(truncatingIfNeeded: snapshot.roots[0]))
    let generation = snapshot.roots[1]
    let dir = try snapshot.readPage(directory)
    let count = Int(dir.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for i in 0..<count {
        let ref = PageRef(dir.loadUnaligned(fromByteOffset: 16 + 4 * i, as: UInt32.self))
        let page = try snapshot.readPage(ref)
        guard let seen = readStamp(page), seen.value == generation,
              seen.marker == UInt8(truncatingIfNeeded: generation) else { return nil }
        hash = (hash ^ UInt64(ref.raw)) &* 0x100_0000_01B3
        hash = stripeHash64(page, count: PageLayout.payloadSize, seed: hash)
    }
    return hash
}
