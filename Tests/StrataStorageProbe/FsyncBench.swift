// `strata-storage-probe bench-fsync <dir> <count> [spin]`: the disk's floor for a `.full` commit,
// without the storage layer — a loop of pwrite(2 pages) + pwrite(1 meta page) + fdatasync on a
// zero-filled 4 MiB file, the write pattern of a small commit. Prints throughput and latency
// percentiles. With `spin`, a second thread busy-loops meanwhile: on this VM that cut the
// single-thread flush latency several-fold in some runs (the idle vCPU's wake-up after the I/O
// completes is part of the latency), which is also why concurrent committers see cheaper flushes.

import Foundation
import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

/// Tells the spinning thread to stop.
final class SpinFlag: @unchecked Sendable {
    // @unchecked: a benign race on a Bool read in a loop; only a stop signal.
    var stop = false
}

func benchFsync(dir: String, count: Int, spin: Bool) throws {
    let path = dir + "/bench-fsync.tmp"
    unlink(path)
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw StorageError(.io, "cannot create \(path)") }
    defer { close(fd); unlink(path) }
    let fileBytes = 4 << 20
    let zeros = UnsafeMutableRawPointer.allocate(byteCount: fileBytes, alignment: 4096)
    defer { zeros.deallocate() }
    zeros.initializeMemory(as: UInt8.self, repeating: 0, count: fileBytes)
    _ = pwrite(fd, zeros, fileBytes, 0)
    _ = fsync(fd)
    let flag = SpinFlag()
    if spin {
        Thread.detachNewThread {
            var x = 0
            while !flag.stop { x &+= 1 }
            if x == -1 { say("unreachable") }
        }
    }
    let page = UnsafeMutableRawPointer.allocate(byteCount: 8192, alignment: 4096)
    defer { page.deallocate() }
    page.initializeMemory(as: UInt8.self, repeating: 7, count: 8192)
    var latencies: [Double] = []
    latencies.reserveCapacity(count)
    let start = monotonicSeconds()
    for i in 0..<count {
        let t = monotonicSeconds()
        _ = pwrite(fd, page, 8192, off_t((8 + (i % 100) * 2) * 4096))
        _ = pwrite(fd, page, 4096, off_t((i % 8) * 4096))
        _ = fdatasync(fd)
        latencies.append(monotonicSeconds() - t)
    }
    let elapsed = monotonicSeconds() - start
    flag.stop = true
    latencies.sort()
    func p(_ q: Double) -> Int { Int(latencies[min(count - 1, Int(Double(count) * q))] * 1e6) }
    say(String(format: "fsync floor%@: %.0f commits/s, p10 %d µs p50 %d µs p90 %d µs p99 %d µs",
               spin ? " (spinning companion)" : "", Double(count) / elapsed, p(0.1), p(0.5), p(0.9), p(0.99)))
}
