// One record of an I/O trace, as libStrataIOTrace.so wrote it (the layout is the contract in
// Sources/CStrataIOTrace/include/CStrataIOTrace.h; this file mirrors its numbers).

/// One file operation (or marker) of a traced writer, in trace order.
public struct IOTraceRecord: Sendable, Equatable {
    /// What the record is. The raw values are the format's `kind` numbers.
    public enum Kind: UInt16, Sendable, CaseIterable {
        case open = 1
        case close = 2
        case write = 3
        case fsync = 4
        case fdatasync = 5
        case syncFileRange = 6
        case msync = 7
        case truncate = 8
        case fallocate = 9
        case rename = 10
        case unlink = 11
        case ack = 12
        case mmap = 13
        case munmap = 14
        /// A file that existed before the writer touched it, with its contents at that moment.
        case snapshot = 15
        case exit = 16
    }

    /// The format's flag bits.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        /// The call failed (or was made to fail) and changed nothing; `result` is the errno.
        public static let failed = Flags(rawValue: 1)
        /// A write found by comparing a shared mapping with its shadow (one 4 KiB block).
        public static let mapped = Flags(rawValue: 2)
        /// `open` with O_CREAT created the file.
        public static let created = Flags(rawValue: 4)
        public static let directory = Flags(rawValue: 8)
        /// `open` with O_TRUNC emptied an existing file.
        public static let truncated = Flags(rawValue: 16)
        /// The write was durable when it returned (O_SYNC/O_DSYNC, RWF_SYNC/RWF_DSYNC).
        public static let sync = Flags(rawValue: 32)
        /// The failure was injected by IOTRACE_FAIL_AT: the call was never made.
        public static let injected = Flags(rawValue: 64)
    }

    /// Position in the trace, from 0. A crash point k means "records 0..<k happened".
    public let index: Int
    public let kind: Kind
    public let flags: Flags
    /// The interposer's sequence number (1, 2, 3...).
    public let sequence: UInt64
    public let thread: UInt32
    /// The file id (stable for one file under the root for the whole trace); 0 = none.
    public let file: UInt32
    /// errno of a failed call; the descriptor of open/close.
    public let result: Int32
    public let offset: Int64
    public let length: Int64
    /// open flags, fallocate mode, msync/sync_file_range flags, renameat2 flags, unlinkat flags.
    public let aux: UInt32
    /// rename: the file the new name replaced (0 = none).
    public let replacedFile: UInt32
    /// The record's own path (open, snapshot, unlink, the old name of a rename), else the file's
    /// name when the record was written, relative to the root ("." is the root); nil if unknown.
    public let path: String?
    /// rename: the new name.
    public let newPath: String?
    /// Where the record's data (written bytes, ack bytes, snapshot contents) lies in the trace.
    let dataRange: Range<Int>

    public var failed: Bool { flags.contains(.failed) }
}

/// The format's fixed numbers.
enum IOTraceFormat {
    static let magic: [UInt8] = Array("STRIOTRC".utf8)
    static let version: UInt32 = 1
    static let fileHeaderSize = 24
    static let recordHeaderSize = 56
}

extension IOTraceRecord {
    /// A flush that did its work: `fsync`, `fdatasync`, `msync` with MS_SYNC (4; MS_ASYNC only
    /// schedules writeback), or a write durable when it returned (O_DSYNC, RWF_DSYNC…).
    var isSuccessfulFlush: Bool {
        !failed && (kind == .fsync || kind == .fdatasync || (kind == .msync && aux & 4 != 0)
                    || (kind == .write && flags.contains(.sync)))
    }
}
