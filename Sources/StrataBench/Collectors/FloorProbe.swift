// The flush floor: what one durable 4 KiB write costs on the file system a run writes to, so that
// every durable row can be scored against the machine and the moment it ran on.
//
// Two figures, from two back-to-back bursts (well under a second together):
// - in place: one 4 KiB page rewritten at the same offset of an existing file, then `fdatasync`
//   (a pure data flush: no size change, no allocation — the least a durable commit can cost);
// - append: one 4 KiB page written at the end of the file, then `fdatasync` (the file's size
//   changes and a block is allocated, so the flush also commits the journal — what a log append
//   pays).
// Not interleaved sample by sample: an append's journal commit is still finishing when the next
// in-place flush starts, which then waits for it (measured on ext4: in-place samples of 4–16 ms
// between appends against 0.14–0.3 ms in a burst of their own), so the floor would count the
// appends' cost.
//
// Invariants: the probe's file lives in the directory it is given (the run's `--dir`) and is
// removed before `measure` returns, also on failure; a failing system call is a
// `BenchError(.io)` naming it, never a made-up figure; each figure is the median of `samples`
// timings (≥ 1).

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The medians of one burst of floor samples, in microseconds.
public struct FloorMeasurement: Sendable, Equatable {
    /// 4 KiB rewritten in place + fdatasync.
    public var inPlaceP50: Double
    /// 4 KiB appended + fdatasync.
    public var appendP50: Double
    /// Samples of each kind behind the medians.
    public var samples: Int

    public init(inPlaceP50: Double, appendP50: Double, samples: Int) {
        self.inPlaceP50 = inPlaceP50
        self.appendP50 = appendP50
        self.samples = samples
    }
}

public enum FloorProbe {
    public static let pageBytes = 4096
    /// Samples of each kind in the burst before a durable case: at ~0.1–2 ms per flush the burst
    /// takes well under a second, short enough to sit beside every durable case.
    public static let defaultSamples = 24

    /// Times `samples` in-place, then `samples` append flushes of 4 KiB in `directory`.
    public static func measure(directory: String, samples: Int = defaultSamples) throws -> FloorMeasurement {
        guard samples >= 1 else {
            throw BenchError(.invalidOption, "the floor needs at least 1 sample, got \(samples)")
        }
        let path = (directory as NSString).appendingPathComponent("floor-probe-\(getpid())-\(UUID().uuidString.prefix(8))")
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ioError("open", errno, path: path) }
        defer {
            close(fd)
            unlink(path)
        }
        let page = UnsafeMutableRawPointer.allocate(byteCount: pageBytes, alignment: pageBytes)
        defer { page.deallocate() }
        page.initializeMemory(as: UInt8.self, repeating: 0xA5, count: pageBytes)

        // The in-place page exists and is flushed before timing starts: its first write allocates
        // a block, which a rewrite never does.
        try write(fd, page, offset: 0, path: path)
        try sync(fd, path: path)
        var inPlace: [Double] = []
        var append: [Double] = []
        inPlace.reserveCapacity(samples)
        append.reserveCapacity(samples)
        for index in 0..<samples {
            // A different byte each time, so no layer below can skip an identical page.
            page.storeBytes(of: UInt8(truncatingIfNeeded: index), as: UInt8.self)
            inPlace.append(try timed { () throws -> Void in
                try write(fd, page, offset: 0, path: path)
                try sync(fd, path: path)
            })
        }
        var end = pageBytes
        for index in 0..<samples {
            page.storeBytes(of: UInt8(truncatingIfNeeded: index), as: UInt8.self)
            append.append(try timed { () throws -> Void in
                try write(fd, page, offset: end, path: path)
                try sync(fd, path: path)
            })
            end += pageBytes
        }
        return FloorMeasurement(inPlaceP50: Statistics.median(inPlace), appendP50: Statistics.median(append), samples: samples)
    }

    /// Microseconds `body` took on the monotonic clock.
    private static func timed(_ body: () throws -> Void) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1000
    }

    private static func write(_ fd: Int32, _ page: UnsafeMutableRawPointer, offset: Int, path: String) throws {
        var done = 0
        while done < pageBytes {
            let written = pwrite(fd, page + done, pageBytes - done, off_t(offset + done))
            if written < 0 {
                if errno == EINTR { continue }
                throw ioError("pwrite", errno, path: path)
            }
            done += written
        }
    }

    private static func sync(_ fd: Int32, path: String) throws {
        while fdatasync(fd) != 0 {
            if errno == EINTR { continue }
            throw ioError("fdatasync", errno, path: path)
        }
    }

    private static func ioError(_ call: String, _ code: Int32, path: String) -> BenchError {
        BenchError(.io, "the floor probe's \(call) failed: \(String(cString: strerror(code)))", path: path)
    }
}
