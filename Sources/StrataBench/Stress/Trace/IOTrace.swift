// Reading an I/O trace written by libStrataIOTrace.so (format: Sources/CStrataIOTrace/include/
// CStrataIOTrace.h). A writer killed mid-record leaves a truncated last record: that is expected
// of a SIGKILL'd writer, so it is tolerated and reported (`truncatedTail`), while a bad magic, a
// newer format or a record whose checksum fails are errors — the trace cannot be trusted.

import Foundation

/// A parsed trace: the root it covered and its records, with file ids resolved to names.
public struct IOTrace: Sendable {
    /// The traced directory (absolute, as the interposer resolved it).
    public let root: String
    public let pid: Int32
    public let version: UInt32
    public let records: [IOTraceRecord]
    /// Set when the trace ends inside a record (the writer died while writing it): the complete
    /// records before it are kept.
    public let truncatedTail: BenchError?
    let bytes: [UInt8]

    /// Reads and parses the trace at `path`.
    public init(contentsOf path: String) throws(BenchError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BenchError(.io, "cannot read the I/O trace", path: path)
        }
        try self.init(bytes: [UInt8](data), path: path)
    }

    public init(bytes: [UInt8], path: String = "<trace>") throws(BenchError) {
        self.bytes = bytes
        let reader = ByteReader(bytes: bytes)
        guard bytes.count >= IOTraceFormat.fileHeaderSize, Array(bytes[0..<8]) == IOTraceFormat.magic else {
            throw BenchError(.invalidTrace, "not an I/O trace (bad magic)", path: path)
        }
        version = reader.u32(8)
        guard version >= 1 else { throw BenchError(.invalidTrace, "corrupt I/O trace header (version 0)", path: path) }
        guard version <= IOTraceFormat.version else {
            throw BenchError(.invalidTrace, "I/O trace format version \(version) is newer than this build reads (\(IOTraceFormat.version))", path: path)
        }
        let headerSize = Int(reader.u32(12))
        let rootLength = Int(reader.u32(20))
        pid = Int32(bitPattern: reader.u32(16))
        guard headerSize == IOTraceFormat.fileHeaderSize + rootLength, headerSize <= bytes.count else {
            throw BenchError(.invalidTrace, "corrupt I/O trace header", path: path)
        }
        root = String(decoding: bytes[IOTraceFormat.fileHeaderSize..<headerSize], as: UTF8.self)

        var records: [IOTraceRecord] = []
        var names = FileNames()
        var at = headerSize
        var tail: BenchError?
        while at < bytes.count {
            let left = bytes.count - at
            let size = left >= 4 ? Int(reader.u32(at)) : 0
            if left < IOTraceFormat.recordHeaderSize || left < size {
                tail = BenchError(.invalidTrace, "I/O trace ends inside record \(records.count) (\(left) bytes at offset \(at)); the records before it are kept", path: path)
                break
            }
            let record = try Self.record(reader, at: at, size: size, index: records.count, names: &names, path: path)
            records.append(record)
            at += size
        }
        self.records = records
        truncatedTail = tail
    }

    /// The bytes of a write, an ack or a snapshot (a copy, indexed from 0).
    public func data(_ record: IOTraceRecord) -> [UInt8] { Array(bytes[record.dataRange]) }

    /// The same bytes without a copy (the crash model keeps many of them).
    func slice(_ record: IOTraceRecord) -> ArraySlice<UInt8> { bytes[record.dataRange] }

    /// The acknowledgements sent before crash point `k` (records 0..<k), in order.
    public func acknowledgements(before k: Int) -> [[UInt8]] {
        records.prefix(max(0, min(k, records.count))).filter { $0.kind == .ack }.map { data($0) }
    }

    /// The crash points just after each acknowledgement.
    public var acknowledgementPoints: [Int] { records.filter { $0.kind == .ack }.map { $0.index + 1 } }

    /// The crash points just before each successful flush (`fsync`, `fdatasync`, `msync` with
    /// MS_SYNC): where the most is pending, and where a flush's ordering promises are tested —
    /// a meta written before its pages reached the disk, a file's growth still unflushed.
    public var flushPoints: [Int] { records.filter(\.isSuccessfulFlush).map(\.index) }

    /// Whether crash point `k` is just before a flush (record `k` is one).
    public func isFlushPoint(_ k: Int) -> Bool { k >= 0 && k < records.count && records[k].isSuccessfulFlush }

    private static func record(_ reader: ByteReader, at: Int, size: Int, index: Int, names: inout FileNames,
                               path: String) throws(BenchError) -> IOTraceRecord {
        func corrupt(_ why: String) -> BenchError {
            BenchError(.invalidTrace, "corrupt I/O trace record \(index) at offset \(at): \(why)", path: path)
        }
        guard size >= IOTraceFormat.recordHeaderSize else { throw corrupt("size \(size) is below the header's") }
        guard reader.checksum(at: at, size: size) == reader.u32(at + 4) else { throw corrupt("checksum mismatch") }
        guard let kind = IOTraceRecord.Kind(rawValue: reader.u16(at + 8)) else { throw corrupt("unknown kind \(reader.u16(at + 8))") }
        let flags = IOTraceRecord.Flags(rawValue: reader.u16(at + 10))
        let file = reader.u32(at + 24)
        let dataStart = at + IOTraceFormat.recordHeaderSize
        var data = dataStart..<(at + size)
        var recordPath: String?
        var newPath: String?
        switch kind {
        case .open, .unlink:
            recordPath = reader.text(data)
            data = data.upperBound..<data.upperBound
        case .rename, .snapshot:
            guard let nul = reader.bytes[data].firstIndex(of: 0) else { throw corrupt("\(kind) without its NUL separator") }
            recordPath = reader.text(data.lowerBound..<nul)
            if kind == .rename {
                newPath = reader.text((nul + 1)..<data.upperBound)
                data = data.upperBound..<data.upperBound
            } else {
                data = (nul + 1)..<data.upperBound
            }
        default:
            break
        }
        let length = Int64(bitPattern: reader.u64(at + 40))
        let offset = Int64(bitPattern: reader.u64(at + 32))
        if kind == .write && !flags.contains(.failed) && Int64(data.count) != length {
            throw corrupt("write of \(length) bytes carries \(data.count)")
        }
        // The crash model holds files in memory: a change it would apply must lie in 0..<1 TiB
        // (a negative or huge extent is damage, not something a writer under test does).
        if [.write, .truncate, .fallocate, .msync].contains(kind) && !flags.contains(.failed) {
            let limit: Int64 = 1 << 40
            guard offset >= 0, length >= 0, offset <= limit, length <= limit - offset else {
                throw corrupt("\(kind) extent \(offset)+\(length) is outside 0..<1 TiB")
            }
        }
        let replaced = reader.u32(at + 52)
        names.apply(kind: kind, flags: flags, file: file, replaced: replaced, path: recordPath, newPath: newPath)
        return IOTraceRecord(
            index: index, kind: kind, flags: flags, sequence: reader.u64(at + 16), thread: reader.u32(at + 12),
            file: file, result: Int32(bitPattern: reader.u32(at + 28)), offset: offset,
            length: length, aux: reader.u32(at + 48), replacedFile: replaced,
            path: recordPath ?? (file == 0 ? nil : names.path(file)), newPath: newPath, dataRange: data)
    }
}

/// File id → current name, following renames (of files and of directories) and unlinks.
struct FileNames {
    private var names: [UInt32: String] = [:]

    func path(_ file: UInt32) -> String? { names[file] }

    mutating func apply(kind: IOTraceRecord.Kind, flags: IOTraceRecord.Flags, file: UInt32, replaced: UInt32,
                        path: String?, newPath: String?) {
        switch kind {
        case .open, .snapshot:
            if let path, file != 0 { names[file] = path }
        case .unlink:
            if file != 0 { names[file] = nil }
        case .rename:
            guard let path, let newPath else { return }
            if replaced != 0 { names[replaced] = nil }
            for (id, name) in names {
                if let moved = TracePath.moved(name, from: path, to: newPath) { names[id] = moved }
            }
        default:
            break
        }
    }
}

/// Root-relative names.
enum TracePath {
    /// `name` after a rename of `from` to `to` (a directory rename moves what is under it), or nil
    /// when the rename does not concern it.
    static func moved(_ name: String, from: String, to: String) -> String? {
        if name == from { return to }
        if name.hasPrefix(from + "/") { return to + name.dropFirst(from.count) }
        return nil
    }

    /// The directory holding `name` ("." for a name at the root).
    static func parent(_ name: String) -> String {
        guard let slash = name.lastIndex(of: "/") else { return "." }
        return String(name[..<slash])
    }
}

/// Little-endian reads (the interposer writes in the machine's order; Strata's platforms are all
/// little-endian) without copying the trace.
struct ByteReader {
    let bytes: [UInt8]

    func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
    func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) } }
    func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    /// FNV-1a 32 of the record with its checksum field read as zero (how the interposer sums it).
    func checksum(at: Int, size: Int) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            var hash: UInt32 = 2_166_136_261
            for i in at..<(at + size) {
                let byte = (i >= at + 4 && i < at + 8) ? 0 : buffer[i]
                hash = (hash ^ UInt32(byte)) &* 16_777_619
            }
            return hash
        }
    }
}
