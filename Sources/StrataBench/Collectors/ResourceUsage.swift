// CPU time, peak resident memory and allocator figures of the process, per case.
//
// Invariant: CPU figures are deltas over the case (getrusage(RUSAGE_SELF) before and after); peak
// RSS is the high-water mark since the case started, which Linux lets us reset by writing "5" to
// /proc/self/clear_refs. When that reset is refused the figure is the process's lifetime peak and
// `peakIsPerCase` says so.

import Foundation

/// A snapshot of the process's resource counters.
public struct ResourceSnapshot: Sendable {
    public var userSeconds: Double
    public var systemSeconds: Double

    public static func now() -> ResourceSnapshot {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ value: timeval) -> Double { Double(value.tv_sec) + Double(value.tv_usec) / 1_000_000 }
        return ResourceSnapshot(userSeconds: seconds(usage.ru_utime), systemSeconds: seconds(usage.ru_stime))
    }
}

public enum PeakMemory {
    /// Resets the kernel's peak-RSS mark (VmHWM). Returns false if the kernel refused.
    @discardableResult
    public static func reset() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let written = "5".withCString { write(fd, $0, 1) }
        return written == 1
    }

    /// Peak resident bytes: VmHWM from /proc/self/status, else getrusage's lifetime maximum.
    public static func peakBytes() -> Int64 {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
            for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
                let digits = line.dropFirst("VmHWM:".count).filter { $0.isNumber }
                if let kilobytes = Int64(String(digits)) { return kilobytes * 1024 }
            }
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int64(usage.ru_maxrss) * 1024
    }
}

/// jemalloc's own figures, when jemalloc is the process's allocator (e.g. started with
/// `LD_PRELOAD=libjemalloc.so.2`). Found with `dlopen(RTLD_NOLOAD)` + `mallctl`, so the build
/// never depends on jemalloc; loading it on demand would measure an allocator nobody uses, so
/// when it is not already loaded the figures are absent (nil → empty CSV columns), never zero.
public enum AllocatorStats {
    public struct Figures: Sendable, Equatable {
        public var allocatedBytes: Int64
        public var residentBytes: Int64
    }

    typealias Mallctl = @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>?, UnsafeMutableRawPointer?, Int) -> Int32

    /// The active allocator's name for the CSV: "jemalloc", "jemalloc-no-tcache" (thread caches
    /// off, `MALLOC_CONF=tcache:false`: heap request counts are exact, timings are not comparable
    /// with cached runs) or "system".
    public static var allocatorName: String {
        guard let mallctl = mallctl() else { return "system" }
        var enabled = true
        var size = MemoryLayout<Bool>.size
        if mallctl("opt.tcache", &enabled, &size, nil, 0) == 0, !enabled { return "jemalloc-no-tcache" }
        return "jemalloc"
    }

    public static func current() -> Figures? {
        guard let mallctl = mallctl() else { return nil }
        // Writing "epoch" refreshes jemalloc's cached statistics.
        var epochOut: UInt64 = 0
        var epochIn: UInt64 = 1
        var epochSize = MemoryLayout<UInt64>.size
        _ = mallctl("epoch", &epochOut, &epochSize, &epochIn, MemoryLayout<UInt64>.size)
        func read(_ name: String) -> Int64? {
            var value: Int = 0
            var size = MemoryLayout<Int>.size
            return mallctl(name, &value, &size, nil, 0) == 0 ? Int64(value) : nil
        }
        guard let allocated = read("stats.allocated"), let resident = read("stats.resident") else { return nil }
        return Figures(allocatedBytes: allocated, residentBytes: resident)
    }

    static func mallctl() -> Mallctl? {
        for name in ["libjemalloc.so.2", "libjemalloc.so"] {
            if let handle = dlopen(name, RTLD_NOW | RTLD_NOLOAD), let symbol = dlsym(handle, "mallctl") {
                return unsafeBitCast(symbol, to: Mallctl.self)
            }
        }
        return nil
    }
}
