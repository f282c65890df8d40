// Where the durability record goes (format 7): into the page of the slot after the version it
// names, which the next commit rewrites with its meta anyway, so a flush writes the commit's
// pages and one slot page instead of those and page 8. Open takes the newest intact record of
// all nine places; recovery lowers all of them; a slot page holding an earlier format's meta
// never takes one.

import Foundation
import Testing
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

@Suite("Durability record placement")
struct DurabilityRecordPlacementTests {
    /// The version the record at `place` names, nil when none is intact there.
    private func record(_ path: String, at place: Int) throws -> UInt64? {
        let bytes = try readBytes(path, at: place, count: DurabilityRecord.size)
        return bytes.withUnsafeBytes { DurabilityRecord.decode($0.baseAddress!) }
    }

    private func newestRecord(_ path: String) throws -> UInt64? {
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        return try FileCore.readDurabilityRecord(fd: fd, path: path)
    }

    private func slotMeta(_ path: String, slot: Int) throws -> MetaState? {
        let page = try readBytes(path, at: slot * PageLayout.pageSize, count: PageLayout.pageSize)
        guard case .success(let meta) = page.withUnsafeBytes({ MetaState.decode($0.baseAddress!) }) else { return nil }
        return meta
    }

    /// From the eighth version of a new file on, a `.full` commit's record lands in the next slot's
    /// page, page 8 is left alone, and the next commit's slot page carries that record with its meta.
    @Test func aFullCommitsRecordRidesInTheNextSlotPage() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        var pageEight: UInt64? = nil
        for value in UInt64(1)...20 {
            let version = try commitCounter(file, value: value)
            let next = Int((version + 1) % UInt64(MetaLayout.slotCount))
            let own = Int(version % UInt64(MetaLayout.slotCount))
            if version < 8 {
                #expect(try record(path, at: DurabilityRecord.offset) == version, "the first versions still use page 8")
                pageEight = version
                continue
            }
            #expect(try record(path, at: DurabilityRecord.offset(inSlot: next)) == version)
            #expect(try record(path, at: DurabilityRecord.offset) == pageEight, "page 8 is not written any more")
            // The commit's own slot page: its meta and the record of the version before it.
            #expect(try slotMeta(path, slot: own)?.version == version)
            #expect(try record(path, at: DurabilityRecord.offset(inSlot: own)) == version - 1)
            #expect(try newestRecord(path) == version)
        }
    }

    /// Only the slot pages name the newest acknowledged version: damage to it is still an error
    /// naming it (not a silent fall back to the version before), and recovery lowers every record,
    /// so that the file then opens without the option.
    @Test(arguments: [nil, testKey])
    func slotRecordsGuardTheNewestVersionAndRecoveryLowersThem(key: [UInt8]?) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var version: UInt64 = 0
        do {
            let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
            defer { file.close() }
            for value in UInt64(1)...12 { version = try commitCounter(file, value: value) }
        }
        #expect(try record(path, at: DurabilityRecord.offset) == 7)
        #expect(try newestRecord(path) == version)
        let newest = try #require(try slotMeta(path, slot: Int(version % UInt64(MetaLayout.slotCount))))
        let page = try #require(newest.inlineEntries.first?.page)
        try overwrite(path, at: Int(page) * PageLayout.pageSize + 3000, with: [0x5A, 0xA5])
        do {
            _ = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
            Issue.record("a damaged acknowledged version must not open as an older one")
        } catch let error as StorageError {
            #expect(error.code == .corruptFile)
            #expect(error.message.contains("version \(version) was made durable"))
        }
        do {
            let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key, recoversToLastIntactVersion: true))
            defer { file.close() }
            #expect(try file.latestVersion() == version - 1)
        }
        #expect(try newestRecord(path) == version - 1)
        let file = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
        defer { file.close() }
        let reader = try file.beginRead()
        #expect(reader.version == version - 1)
        #expect(try readCounter(reader, roots: reader.roots) == 11)
        reader.end()
        _ = try commitCounter(file, value: 99)
        #expect(try file.verify().balances)
    }

    /// A damaged slot record is ignored: the file opens, following the other records.
    @Test func aDamagedSlotRecordIsIgnored() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var version: UInt64 = 0
        do {
            let file = try StorageFile.open(StorageOptions(path: path))
            defer { file.close() }
            for value in UInt64(1)...12 { version = try commitCounter(file, value: value) }
        }
        let place = DurabilityRecord.offset(inSlot: Int((version + 1) % UInt64(MetaLayout.slotCount)))
        try overwrite(path, at: place + 9, with: [0xFF])
        #expect(try record(path, at: place) == nil)
        #expect(try newestRecord(path) == version - 1, "the newest slot page carries the record before it")
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        #expect(try file.latestVersion() == version)
        let next = try commitCounter(file, value: 50)
        #expect(try newestRecord(path) == next)
    }

    /// A file whose slots hold metas of format 6 (which may reach into the record's bytes): no
    /// record is written into a page while it holds one, and records move to the slot pages only
    /// once every slot page holds a format-7 meta.
    @Test func slotPagesOfAnEarlierFormatNeverTakeARecord() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            let file = try StorageFile.open(StorageOptions(path: path))
            defer { file.close() }
            for value in UInt64(1)...9 { _ = try commitCounter(file, value: value) }
        }
        // Every slot as a format-6 meta whose unsealed tail, where format 7 keeps the record,
        // holds other bytes, as an earlier build's long meta would.
        let filler = [UInt8](repeating: 0xC3, count: DurabilityRecord.size)
        for slot in 0..<MetaLayout.slotCount {
            var page = try readBytes(path, at: slot * PageLayout.pageSize, count: PageLayout.pageSize)
            guard case .success = page.withUnsafeBytes({ MetaState.decode($0.baseAddress!) }) else { continue }
            try page.withUnsafeMutableBytes { page throws in
                page.storeBytes(of: UInt32(6).littleEndian, toByteOffset: MetaLayout.formatOffset, as: UInt32.self)
                try FileCore.sealMeta(page.baseAddress!, cipher: nil, path: path)
                for i in 0..<filler.count { page[MetaLayout.recordOffset + i] = filler[i] }
            }
            try overwrite(path, at: slot * PageLayout.pageSize, with: page)
        }
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        var first: UInt64? = nil
        for value in UInt64(10)...30 {
            let version = try commitCounter(file, value: value)
            if first == nil { first = version }
            for slot in 0..<MetaLayout.slotCount {
                guard let meta = try slotMeta(path, slot: slot), meta.format < MetaLayout.recordFormat else { continue }
                let tail = try readBytes(path, at: DurabilityRecord.offset(inSlot: slot), count: DurabilityRecord.size)
                #expect(tail == filler, "slot \(slot), format \(meta.format), after version \(version)")
            }
            let next = DurabilityRecord.offset(inSlot: Int((version + 1) % UInt64(MetaLayout.slotCount)))
            if version >= first! + 7 {
                #expect(try record(path, at: next) == version)
            } else {
                #expect(try record(path, at: DurabilityRecord.offset) == version)
            }
        }
    }

    /// A format-7 meta that reaches into the record's bytes is damage; the same meta of format 6
    /// (whose metas ran up to the seal) decodes.
    @Test func aFormat7MetaReachingIntoTheRecordIsDamaged() throws {
        var meta = MetaState()
        meta.version = 9
        meta.durableBase = 9
        meta.totalEntries = UInt32(MetaLayout.inlineCapacity)
        meta.inlineEntries = (0..<MetaLayout.inlineCapacity).map { CommitEntry(page: UInt32(10 + $0), checksum: UInt64($0)) }
        #expect(!MetaLayout.fitsWritten(inline: meta.inlineEntries.count, freeRecords: 0, rootData: 0))
        #expect(MetaLayout.inlineCapacity(rootData: 0) == 320)
        var page = [UInt8](repeating: 0, count: PageLayout.pageSize)
        page.withUnsafeMutableBytes { meta.encode(into: $0.baseAddress!) }
        let decoded7 = page.withUnsafeBytes { MetaState.decode($0.baseAddress!) }
        guard case .failure(let failure) = decoded7 else {
            Issue.record("a format-7 meta over the record's bytes decoded")
            return
        }
        #expect(failure.kind == .damaged)
        page.withUnsafeMutableBytes {
            $0.storeBytes(of: UInt32(6).littleEndian, toByteOffset: MetaLayout.formatOffset, as: UInt32.self)
        }
        guard case .success(let earlier) = page.withUnsafeBytes({ MetaState.decode($0.baseAddress!) }) else {
            Issue.record("a format-6 meta running up to the seal must decode")
            return
        }
        #expect(earlier.inlineEntries.count == MetaLayout.inlineCapacity)
    }
}
