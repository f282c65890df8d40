import Foundation
import Testing
import StrataBench

/// Damaged traces: a truncated tail is tolerated and reported; anything else is a typed error.
@Suite("I/O trace parsing")
struct StressTraceParsingTests {
    private func sample() throws -> [UInt8] {
        let run = try TracedRun.run(["create:f", "pwrite:f:0:100:1", "fdatasync:f", "ack:one"])
        defer { run.remove() }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: run.tracePath)))
    }

    private func error(_ bytes: [UInt8]) -> BenchError? {
        do { _ = try IOTrace(bytes: bytes); return nil } catch { return error }
    }

    @Test func aTruncatedLastRecordIsToleratedAndReported() throws {
        let bytes = try sample()
        let whole = try IOTrace(bytes: bytes)
        #expect(whole.truncatedTail == nil && whole.records.count == 5)
        for cut in [1, 10, 55] {
            let trace = try IOTrace(bytes: Array(bytes.dropLast(cut)))
            #expect(trace.records.count == 4, "cut \(cut)")
            #expect(trace.truncatedTail?.code == .invalidTrace)
            #expect(trace.truncatedTail?.message.contains("ends inside record 4") == true)
        }
    }

    @Test func aBadMagicANewerVersionAndACorruptRecordAreTypedErrors() throws {
        let bytes = try sample()
        var magic = bytes
        magic[0] = UInt8(ascii: "X")
        #expect(error(magic)?.code == .invalidTrace)
        #expect(error(magic)?.message.contains("bad magic") == true)
        #expect(error([1, 2, 3])?.message.contains("bad magic") == true)

        var newer = bytes
        newer[8] = 2
        #expect(error(newer)?.code == .invalidTrace)
        #expect(error(newer)?.message.contains("version 2 is newer") == true)

        // A flipped byte inside the ack record's header: the checksum catches it.
        var flipped = bytes
        flipped[flipped.count - 100] ^= 0xFF
        let corrupt = error(flipped)
        #expect(corrupt?.code == .invalidTrace)
        #expect(corrupt?.message.contains("corrupt I/O trace record") == true)
        #expect(corrupt?.message.contains("checksum") == true)
    }

    @Test func aWriteOutsideWhatTheModelCanHoldIsCorrupt() throws {
        var bytes = try sample()
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        // Record 1 (the pwrite): offset := -1, then a valid checksum, so only the extent is wrong.
        let record = u32(12) + u32(u32(12))
        for i in 0..<8 { bytes[record + 32 + i] = 0xFF }
        var hash: UInt32 = 2_166_136_261
        for i in record..<(record + u32(record)) {
            hash = (hash ^ UInt32((4..<8).contains(i - record) ? 0 : bytes[i])) &* 16_777_619
        }
        for i in 0..<4 { bytes[record + 4 + i] = UInt8(truncatingIfNeeded: hash >> (8 * UInt32(i))) }
        let damaged = error(bytes)
        #expect(damaged?.code == .invalidTrace)
        #expect(damaged?.message.contains("record 1") == true && damaged?.message.contains("outside 0..<1 TiB") == true)
    }

    @Test func aMissingFileIsAnIOError() {
        #expect(throws: BenchError(.io, "cannot read the I/O trace", path: "/nonexistent/trace")) {
            try IOTrace(contentsOf: "/nonexistent/trace")
        }
    }
}
