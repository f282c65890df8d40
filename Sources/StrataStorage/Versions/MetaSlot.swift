// The ring of eight meta slots (pages 0–7): what a committed version is, and the commit record
// that lets one flush per commit be crash safe. Page 8 and the tail of each slot page hold
// durability records (DurabilityRecord.swift); data pages start at page 9.
//
// Layout of a meta page (little endian):
//   0  magic "STRATAPF"           8  format version u32      12 page size u32
//   16 flags u32 (bit 0: encrypted)                          20 reserved u32
//   24 version u64                32 user roots 8 × u64
//   96 free-list head page u32   100 free-list page count u32
//  104 page count u32 (high-water mark: pages [0, pageCount) are in use or in the free list)
//  108 inline commit entries u32 112 overflow head page u32  116 overflow head checksum u64
//  124 total commit entries u32  128 key check value (32 bytes, encrypted files only)
//  160 durable base u64 (newest version durable when this was written)
//  168 inline free-space records u32 (F)                    172 user root data length u32 (D)
//  176 reserved
//  192 inline commit entries, 12 bytes each (page u32, checksum u64); then F free-space records
//      (24 bytes each, FreeSpace's record format); then D bytes of user root data
// 4040 durability record, 24 bytes (format 7 on; DurabilityRecord.swift): outside the seal, so
//      it can be rewritten without touching the meta; a format-7 meta ends before it
// 4064 seal of [0, 192 + 12 × inline + 24 × F + D), 32 bytes: XXH64 (plain, 8 bytes then zeros);
//      encrypted: GMAC nonce 12 bytes + tag 16 bytes (PageCipher.sealTag), then zeros.
//
// Formats: this build writes format 7 and reads 4 to 7. Format 5 added the free-list directory:
// a format-5 meta may name one (FreeListDirectory.swift) where format 4 always names a chain.
// Format 6 added compact sealing: an encrypted page may be sealed without its free space
// (PageCipher.swift); and a bytes-tree leaf cell with an empty value may be the key alone
// (NodeLayout.swift). Earlier builds would read either as damage. Format 7 keeps every meta
// clear of bytes 4040–4063 of its page, where the durability record may be written after the
// meta (an earlier build's meta may reach into them, and an earlier build could write such a
// meta beside records). A file of format 4 to 6 is read as it is; its next commit writes
// format-7 slots beside the older ones. A slot of an earlier
// format (3 and before) makes open fail with `.notAStrataFile` naming the version when no slot is
// readable; a slot of a later format makes open fail whatever the other slots hold, since choosing
// an older slot of ours would silently drop the later commits. Nothing is converted or guessed.
//
// A commit whose free-space records fit beside its commit record keeps them in the meta (F > 0,
// no free-list page); otherwise they go to free-list pages (F = 0, the free-list head names them).
//
// Invariants:
// - A slot is valid only if magic, format, page size and seal verify.
// - The commit record (inline entries + overflow chain) lists every page the commit wrote with
//   the checksum it must have. Open accepts the newest valid slot only if every listed page
//   verifies; a commit torn by a crash therefore falls back to an older slot, whose pages the
//   torn commit never overwrote (a commit writes only pages free in its base version, and pages
//   freed by a commit are reused only once that commit is durable AND the base meta records it
//   durable: see FileCore.reuseHorizon — otherwise a commit killed between its page writes and its
//   meta write could overwrite a page that the base version's own chain check still reads).
//   Falling back is allowed only below a version the durability record names: that version was
//   flushed, so its failing to verify is damage, reported, never skipped (FileOpen.swift).
// - Version v is written to slot v % 8. A commit may be written only while v − durable < 8, so the
//   slots of every version after the newest durable one are intact; open accepts version v only if
//   every version in (max(durableBase, floor), v] is in its slot and its commit record verifies
//   (pages written by those versions and still referenced are then intact), where the floor is the
//   newest durable base any slot names (versions up to it are known durable).
// - Reuse never overwrites a page that the newest durable version's chain check reads (see
//   FileCore.reuseHorizon), so after a process kill or a power loss the newest durable version
//   always verifies.

enum MetaLayout {
    /// Meta slots form a ring of `slotCount` pages at the start of the file; version v lives in
    /// slot v % slotCount. Eight slots let up to seven commits wait for one shared flush (group
    /// commit) without overwriting the newest durable version's meta.
    static let slotCount = 8
    static let ringBytes = slotCount * PageLayout.pageSize
    /// The durability record (DurabilityRecord.swift), right after the ring.
    static let durabilityRecordPage = slotCount
    /// The first page that can hold data (pages below are the meta slots and the durability record).
    static let firstDataPage: UInt32 = 9
    /// Pages 0 ..< firstDataPage: what every file starts with.
    static let headerPages = Int(firstDataPage)
    static let headerBytes = headerPages * PageLayout.pageSize
    static let durableBaseOffset = 160
    static let magic: UInt64 = 0x4650_4154_4152_5453  // "STRATAPF" little endian
    /// The format this build writes.
    static let formatVersion: UInt32 = 7
    /// The formats this build reads: 4 never names a free-list directory, 4 and 5 never seal a
    /// page compactly nor store a bytes key without its value header, 4 to 6 may hold meta bytes
    /// where format 7 keeps a durability record.
    static let readableFormats: ClosedRange<UInt32> = 4...7
    /// The first format whose metas leave the durability record's bytes free.
    static let recordFormat: UInt32 = 7
    /// The first format whose free list may be a directory.
    static let directoryFormat: UInt32 = 5
    static let formatOffset = 8
    static let freeRecordCountOffset = 168
    static let rootDataLengthOffset = 172
    static let freeRecordSize = 24
    static let entriesOffset = 192
    static let entrySize = 12
    static let sealOffset = 4064
    /// The most inline entries a meta of any readable format holds (earlier formats ran up to the seal).
    static let inlineCapacity = (sealOffset - entriesOffset) / entrySize  // 322
    /// Where a slot page keeps its durability record (DurabilityRecord.swift): the 24 bytes
    /// before the seal, which a meta of format 7 never covers.
    static let recordOffset = sealOffset - 24

    /// Bytes covered by the seal of a meta with these parts.
    static func sealedLength(inline: Int, freeRecords: Int, rootData: Int) -> Int {
        entriesOffset + inline * entrySize + freeRecords * freeRecordSize + rootData
    }

    /// Whether a meta of some readable format with these parts fits in front of the seal.
    static func fits(inline: Int, freeRecords: Int, rootData: Int) -> Bool {
        sealedLength(inline: inline, freeRecords: freeRecords, rootData: rootData) <= sealOffset
    }

    /// Whether a meta this build writes with these parts fits in front of the durability record.
    static func fitsWritten(inline: Int, freeRecords: Int, rootData: Int) -> Bool {
        sealedLength(inline: inline, freeRecords: freeRecords, rootData: rootData) <= recordOffset
    }

    /// Inline commit entries a written meta holds beside `rootData` bytes of root data (no
    /// inline free space).
    static func inlineCapacity(rootData: Int) -> Int {
        (recordOffset - entriesOffset - rootData) / entrySize
    }
    static let keyCheckOffset = 128
    static let keyCheckSize = 32
}

/// One page written by a commit and the checksum it must verify with.
struct CommitEntry: Equatable {
    var page: UInt32
    var checksum: UInt64
}

/// The decoded content of a meta slot.
struct MetaState: Equatable {
    /// The format of the slot it was read from (written: always `MetaLayout.formatVersion`).
    var format = MetaLayout.formatVersion
    var version: UInt64 = 0
    var roots = UserRoots()
    var freeListHead: UInt32 = 0
    var freeListPageCount: UInt32 = 0
    var pageCount: UInt32 = MetaLayout.firstDataPage
    /// The newest version known durable when this one was written: open accepts this version
    /// only if every version in (durableBase, version] is in its slot and verifies.
    var durableBase: UInt64 = 0
    var encrypted = false
    /// The inline part of the commit record.
    var inlineEntries: [CommitEntry] = []
    var overflowHead: UInt32 = 0
    var overflowChecksum: UInt64 = 0
    var totalEntries: UInt32 = 0
    var keyCheck: [UInt8] = []
    /// Free-space records kept in the meta itself (empty when they are in free-list pages).
    var inlineFree: [HeldRun] = []

    /// Encodes into a 4096-byte page, without the seal.
    func encode(into page: UnsafeMutableRawPointer) {
        page.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.pageSize)
        page.storeBytes(of: MetaLayout.magic.littleEndian, toByteOffset: 0, as: UInt64.self)
        page.storeBytes(of: MetaLayout.formatVersion.littleEndian, toByteOffset: MetaLayout.formatOffset, as: UInt32.self)
        page.storeBytes(of: UInt32(PageLayout.pageSize).littleEndian, toByteOffset: 12, as: UInt32.self)
        page.storeBytes(of: UInt32(encrypted ? 1 : 0).littleEndian, toByteOffset: 16, as: UInt32.self)
        page.storeBytes(of: version.littleEndian, toByteOffset: 24, as: UInt64.self)
        for i in 0..<UserRoots.count {
            page.storeBytes(of: roots.words[i].littleEndian, toByteOffset: 32 + 8 * i, as: UInt64.self)
        }
        page.storeBytes(of: freeListHead.littleEndian, toByteOffset: 96, as: UInt32.self)
        page.storeBytes(of: freeListPageCount.littleEndian, toByteOffset: 100, as: UInt32.self)
        page.storeBytes(of: pageCount.littleEndian, toByteOffset: 104, as: UInt32.self)
        page.storeBytes(of: UInt32(inlineEntries.count).littleEndian, toByteOffset: 108, as: UInt32.self)
        page.storeBytes(of: overflowHead.littleEndian, toByteOffset: 112, as: UInt32.self)
        page.storeBytes(of: overflowChecksum.littleEndian, toByteOffset: 116, as: UInt64.self)
        page.storeBytes(of: totalEntries.littleEndian, toByteOffset: 124, as: UInt32.self)
        page.storeBytes(of: durableBase.littleEndian, toByteOffset: MetaLayout.durableBaseOffset, as: UInt64.self)
        for (i, byte) in keyCheck.prefix(MetaLayout.keyCheckSize).enumerated() {
            page.storeBytes(of: byte, toByteOffset: MetaLayout.keyCheckOffset + i, as: UInt8.self)
        }
        page.storeBytes(of: UInt32(inlineFree.count).littleEndian, toByteOffset: MetaLayout.freeRecordCountOffset, as: UInt32.self)
        page.storeBytes(of: UInt32(roots.data.count).littleEndian, toByteOffset: MetaLayout.rootDataLengthOffset, as: UInt32.self)
        var offset = MetaLayout.entriesOffset
        for entry in inlineEntries {
            page.storeBytes(of: entry.page.littleEndian, toByteOffset: offset, as: UInt32.self)
            page.storeBytes(of: entry.checksum.littleEndian, toByteOffset: offset + 4, as: UInt64.self)
            offset += MetaLayout.entrySize
        }
        for record in inlineFree {
            FreeSpace.store(record, into: page + offset)
            offset += MetaLayout.freeRecordSize
        }
        roots.data.withUnsafeBytes { bytes in
            if let source = bytes.baseAddress { (page + offset).copyMemory(from: source, byteCount: bytes.count) }
        }
    }

    enum DecodeFailure: Equatable {
        case notOurs, damaged
        /// The Strata magic with another format version (an earlier build's file).
        case otherFormat(UInt32)
    }

    /// Decodes a page whose seal the caller has already checked (or will check).
    static func decode(_ page: UnsafeRawPointer) -> Result<MetaState, DecodeFailure.Box> {
        let magic = UInt64(littleEndian: page.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        guard magic == MetaLayout.magic else { return .failure(.init(.notOurs)) }
        let format = UInt32(littleEndian: page.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        let pageSize = UInt32(littleEndian: page.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        guard MetaLayout.readableFormats.contains(format) else { return .failure(.init(.otherFormat(format))) }
        guard pageSize == UInt32(PageLayout.pageSize) else { return .failure(.init(.notOurs)) }
        var meta = MetaState()
        meta.format = format
        let flags = UInt32(littleEndian: page.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
        meta.encrypted = flags & 1 != 0
        meta.version = UInt64(littleEndian: page.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        for i in 0..<UserRoots.count {
            meta.roots.words[i] = UInt64(littleEndian: page.loadUnaligned(fromByteOffset: 32 + 8 * i, as: UInt64.self))
        }
        meta.freeListHead = UInt32(littleEndian: page.loadUnaligned(fromByteOffset: 96, as: UInt32.self))
        meta.freeListPageCount = UInt32(littleEndian: page.loadUnaligned(fromByteOffset: 100, as: UInt32.self))
        meta.pageCount = UInt32(littleEndian: page.loadUnaligned(fromByteOffset: 104, as: UInt32.self))
        let inlineCount = Int(UInt32(littleEndian: page.loadUnaligned(fromByteOffset: 108, as: UInt32.self)))
        meta.overflowHead = UInt32(littleEndian: page.loadUnaligned(fromByteOffset: 112, as: UInt32.self))
        meta.overflowChecksum = UInt64(littleEndian: page.loadUnaligned(fromByteOffset: 116, as: UInt64.self))
        meta.totalEntries = UInt32(littleEndian: page.loadUnaligned(fromByteOffset: 124, as: UInt32.self))
        meta.durableBase = UInt64(littleEndian: page.loadUnaligned(fromByteOffset: MetaLayout.durableBaseOffset, as: UInt64.self))
        let freeCount = Int(UInt32(littleEndian: page.loadUnaligned(fromByteOffset: MetaLayout.freeRecordCountOffset, as: UInt32.self)))
        let dataLength = Int(UInt32(littleEndian: page.loadUnaligned(fromByteOffset: MetaLayout.rootDataLengthOffset, as: UInt32.self)))
        guard inlineCount <= MetaLayout.inlineCapacity, meta.pageCount >= MetaLayout.firstDataPage,
              meta.durableBase <= meta.version,
              Int(meta.totalEntries) >= inlineCount,
              freeCount <= MetaLayout.sealOffset / MetaLayout.freeRecordSize, dataLength <= UserRoots.maxDataSize,
              MetaLayout.fits(inline: inlineCount, freeRecords: freeCount, rootData: dataLength),
              format < MetaLayout.recordFormat
                || MetaLayout.fitsWritten(inline: inlineCount, freeRecords: freeCount, rootData: dataLength) else {
            return .failure(.init(.damaged))
        }
        meta.keyCheck = (0..<MetaLayout.keyCheckSize).map {
            page.load(fromByteOffset: MetaLayout.keyCheckOffset + $0, as: UInt8.self)
        }
        var offset = MetaLayout.entriesOffset
        meta.inlineEntries.reserveCapacity(inlineCount)
        for _ in 0..<inlineCount {
            let ref = UInt32(littleEndian: page.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            let sum = UInt64(littleEndian: page.loadUnaligned(fromByteOffset: offset + 4, as: UInt64.self))
            meta.inlineEntries.append(CommitEntry(page: ref, checksum: sum))
            offset += MetaLayout.entrySize
        }
        meta.inlineFree.reserveCapacity(freeCount)
        for _ in 0..<freeCount {
            meta.inlineFree.append(FreeSpace.loadRecord(from: page + offset))
            offset += MetaLayout.freeRecordSize
        }
        if dataLength > 0 {
            meta.roots.data = Array(UnsafeRawBufferPointer(start: page + offset, count: dataLength))
        }
        return .success(meta)
    }
}

extension MetaState {
    /// The format and version of a slot written by a later build (the Strata magic, a format
    /// above what this build reads); nil for any other page.
    static func laterFormat(_ page: UnsafeRawPointer) -> (format: UInt32, version: UInt64)? {
        guard UInt64(littleEndian: page.loadUnaligned(fromByteOffset: 0, as: UInt64.self)) == MetaLayout.magic else { return nil }
        let format = UInt32(littleEndian: page.loadUnaligned(fromByteOffset: MetaLayout.formatOffset, as: UInt32.self))
        guard format > MetaLayout.readableFormats.upperBound else { return nil }
        return (format, UInt64(littleEndian: page.loadUnaligned(fromByteOffset: 24, as: UInt64.self)))
    }
}

extension MetaLayout {
    /// "this build reads formats 4 to 7", for errors about a format it cannot read.
    static var readableFormatsPhrase: String {
        "this build reads formats \(readableFormats.lowerBound) to \(readableFormats.upperBound)"
    }
}

extension MetaState.DecodeFailure {
    /// `Result` needs an `Error`; this box carries the failure kind.
    struct Box: Error { let kind: MetaState.DecodeFailure; init(_ kind: MetaState.DecodeFailure) { self.kind = kind } }
}

/// Pager-owned page kinds (the first payload byte), 16–31 per the contract.
enum PagerPageKind {
    static let freeList: UInt8 = 16
    static let commitRecord: UInt8 = 17
    /// The list of a free list's pages (format 5, FreeListDirectory.swift).
    static let freeListDirectory: UInt8 = 18
}

/// Commit-record overflow page payload: kind u8 @0, count u32 @4, next page u32 @8,
/// next checksum u64 @16, entries (page u32, checksum u64) from 24.
enum CommitRecordLayout {
    static let entriesOffset = 24
    static let capacity = (PageLayout.payloadSize - entriesOffset) / MetaLayout.entrySize  // 336
}
