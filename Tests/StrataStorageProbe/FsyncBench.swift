// `strata-storage-probe bench-fsync <dir> <count> [spin] [pages=N] [scatter]`: the disk's floor
// for a `.full` commit, without the storage layer — a loop of pwrite(N data pages, default 2) +
// pwrite(1 meta page) + fdatasync on a zero-filled 4 MiB file, the write pattern of a small
// commit. The data pages are one contiguous run (as extent allocation writes them), or with
// `scatter` N single pages at pseudo-random places (as page-by-page allocation could). Prints throughput and latency
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

func benchFsync(dir: String, count: Int, spin: Bool, pages: Int = 2, scatter: Bool = false) throws {
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
    let page = UnsafeMutableRawPointer.allocate(byteCount: pages * 4096, alignment: 4096)
    defer { page.deallocate() }
    page.initializeMemory(as: UInt8.self, repeating: 7, count: pages * 4096)
    let dataPages = fileBytes / 4096 - 8
    var random: UInt64 = 0x9E3779B97F4A7C15
    var latencies: [Double] = []
    latencies.reserveCapacity(count)
    let start = monotonicSeconds()
    for i in 0..<count {
        let t = monotonicSeconds()
        if scatter {
            for k in 0..<pages {
                random = random &* 6364136223846793005 &+ 1442695040888963407
                _ = pwrite(fd, page + k * 4096, 4096, off_t((8 + Int(random >> 33) % dataPages) * 4096))
            }
        } else {
            _ = pwrite(fd, page, pages * 4096, off_t((8 + (i * pages) % (dataPages - pages)) * 4096))
        }
        _ = pwrite(fd, page, 4096, off_t((i % 8) * 4096))
        _ = fdatasync(fd)
        latencies.append(monotonicSeconds() - t)
    }
    let elapsed = monotonicSeconds() - start
    flag.stop = true
    latencies.sort()
    func p(_ q: Double) -> Int { Int(latencies[min(count - 1, Int(Double(count) * q))] * 1e6) }
    say(String(format: "fsync floor, %d %@ data pages + meta%@: %.0f commits/s, p10 %d µs p50 %d µs p90 %d µs p99 %d µs",
               pages, scatter ? "scattered" : "contiguous", spin ? " (spinning companion)" : "",
               Double(count) / elapsed, p(0.1), p(0.5), p(0.9), p(0.99)))
}
