// `strata-storage-probe bench-log <dir> <rounds> [pages=N] [record=R] [checkpoint=K]`: would a commit that flushes
// only a small log record reach the disk's floor? Raw writes, without the storage layer. Each
// round takes three write patterns in turn, so that all three see the same moment of the disk:
//   floor   one 4 KiB page rewritten in place + fdatasync (what the harness calls the floor);
//   cow     N contiguous data pages at moving offsets + the meta page + fdatasync (the write
//           pattern of a small copy-on-write commit today);
//   log     the same N pages and meta written without a flush, then an R-page record written
//           through a second descriptor opened O_DSYNC into a ring of 1 MiB that is rewritten in
//           turn. An O_DSYNC write makes only its own range durable (the kernel writes back that
//           range and flushes the device cache), not the file's other dirty pages, so the pages
//           can reach the disk later while the record alone is flushed.
// Each pattern has its own file. `checkpoint=K` (default 256) flushes the log pattern's file every
// K rounds, as a checkpoint would, inside that round's time. Prints p50/p90 of each and the p50
// ratios to the floor.

import Foundation
import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

func benchLogRecord(dir: String, rounds: Int, pages: Int, recordPages: Int, checkpointEvery: Int) throws {
    // One file per pattern: a flush of one file would otherwise also write the pages another
    // pattern left unflushed, and charge them to the wrong pattern.
    let floorFile = try ScratchFile(dir + "/bench-log-floor.tmp")
    let cowFile = try ScratchFile(dir + "/bench-log-cow.tmp")
    let logFile = try ScratchFile(dir + "/bench-log-log.tmp")
    defer { floorFile.remove(); cowFile.remove(); logFile.remove() }
    let dsync = open(logFile.path, O_RDWR | O_DSYNC | O_CLOEXEC)
    guard dsync >= 0 else { throw StorageError(.io, "cannot open \(logFile.path) with O_DSYNC") }
    defer { close(dsync) }

    let bufferPages = max(pages, recordPages)
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferPages * 4096, alignment: 4096)
    defer { buffer.deallocate() }
    buffer.initializeMemory(as: UInt8.self, repeating: 7, count: bufferPages * 4096)
    // Layout: page 0 the meta, page 1 the floor's page, the ring at 1 MiB, data from 2 MiB on.
    let ringBytes = 1 << 20, ringStart = 1 << 20, dataStart = 2 << 20
    var ring = 0, cowData = dataStart, logData = dataStart
    var floor: [Double] = [], cow: [Double] = [], log: [Double] = []

    func writeDataAndMeta(_ file: ScratchFile, at data: inout Int) throws {
        guard pwrite(file.fd, buffer, pages * 4096, off_t(data)) == pages * 4096,
              pwrite(file.fd, buffer, 4096, 0) == 4096 else { throw StorageError(.io, "write failed in \(file.path)") }
        data += pages * 4096
        if data + pages * 4096 > ScratchFile.bytes { data = dataStart }
    }
    for round in 0..<rounds {
        buffer.storeBytes(of: UInt64(round), as: UInt64.self)
        var t = monotonicSeconds()
        guard pwrite(floorFile.fd, buffer, 4096, 4096) == 4096, fdatasync(floorFile.fd) == 0 else {
            throw StorageError(.io, "floor write failed")
        }
        floor.append(monotonicSeconds() - t)

        t = monotonicSeconds()
        try writeDataAndMeta(cowFile, at: &cowData)
        guard fdatasync(cowFile.fd) == 0 else { throw StorageError(.io, "flush failed in \(cowFile.path)") }
        cow.append(monotonicSeconds() - t)

        t = monotonicSeconds()
        try writeDataAndMeta(logFile, at: &logData)
        if ring + recordPages * 4096 > ringBytes { ring = 0 }
        guard pwrite(dsync, buffer, recordPages * 4096, off_t(ringStart + ring)) == recordPages * 4096 else {
            throw StorageError(.io, "record write failed in \(logFile.path)")
        }
        ring += recordPages * 4096
        // The checkpoint: the pages written since the last one become durable in place, and the
        // ring can be reused. Its cost is charged to the commit that triggers it.
        if checkpointEvery > 0, (round + 1) % checkpointEvery == 0, fdatasync(logFile.fd) != 0 {
            throw StorageError(.io, "checkpoint flush failed in \(logFile.path)")
        }
        log.append(monotonicSeconds() - t)
    }
    func percentile(_ values: [Double], _ q: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] * 1e6
    }
    func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) * 1e6 }
    let floorP50 = percentile(floor, 0.5)
    say(String(format: "floor (1 page in place + fdatasync): p50 %.0f µs p90 %.0f µs mean %.0f µs",
               floorP50, percentile(floor, 0.9), mean(floor)))
    say(String(format: "cow (%d pages + meta + fdatasync): p50 %.0f µs p90 %.0f µs mean %.0f µs, p50/floor %.2f",
               pages, percentile(cow, 0.5), percentile(cow, 0.9), mean(cow), percentile(cow, 0.5) / floorP50))
    say(String(format: "log (%d pages + meta unflushed, %d-page O_DSYNC record, checkpoint every %d): p50 %.0f µs p90 %.0f µs p99 %.0f µs mean %.0f µs, p50/floor %.2f",
               pages, recordPages, checkpointEvery, percentile(log, 0.5), percentile(log, 0.9), percentile(log, 0.99),
               mean(log), percentile(log, 0.5) / floorP50))
}

/// A zero-filled, flushed file of `bytes`, so that no write of the benchmark allocates blocks.
private final class ScratchFile {
    static let bytes = 64 << 20
    let path: String
    let fd: Int32

    init(_ path: String) throws {
        self.path = path
        unlink(path)
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StorageError(.io, "cannot create \(path)") }
        let chunk = 1 << 20
        let zeros = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 4096)
        defer { zeros.deallocate() }
        zeros.initializeMemory(as: UInt8.self, repeating: 0, count: chunk)
        for offset in stride(from: 0, to: Self.bytes, by: chunk) where pwrite(fd, zeros, chunk, off_t(offset)) != chunk {
            close(fd)
            throw StorageError(.io, "cannot fill \(path)")
        }
        guard fsync(fd) == 0 else {
            close(fd)
            throw StorageError(.io, "cannot flush \(path)")
        }
    }

    func remove() {
        close(fd)
        unlink(path)
    }
}
