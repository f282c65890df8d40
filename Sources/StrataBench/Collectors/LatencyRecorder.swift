// Latency histograms (HdrHistogram) shared by producer, writer and reader threads.
//
// Invariant: values are recorded in nanoseconds and reported in microseconds; a histogram never
// stores samples, so recording costs the same at the millionth value as at the first.

import Foundation
import Histogram

/// Monotonic nanoseconds (CLOCK_MONOTONIC), the one clock of the harness.
@inline(__always)
public func monotonicNanos() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
}

/// CPU time the calling thread has used, in nanoseconds: what an operation costs when the
/// thread may be stopped or preempted while it runs (the gate's alternating rounds stop each
/// build in turn, which wall-clock time would count).
public func threadCPUNanos() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
}

/// Percentiles of one histogram, in microseconds.
public struct LatencySummary: Sendable, Equatable {
    public var count: UInt64
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var max: Double
}

/// A thread-safe HdrHistogram of durations. `@unchecked Sendable`: every access to the histogram
/// goes through `lock`.
public final class LatencyRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var histogram: Histogram<UInt64>

    public init() {
        // 1 ns .. 10 min with 3 significant digits; longer values are clamped to the top.
        histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000_000,
                                      numberOfSignificantValueDigits: .three)
    }

    /// Records one duration in nanoseconds.
    public func record(nanos: UInt64) {
        let value = min(max(nanos, 1), 600_000_000_000)
        lock.lock()
        _ = histogram.record(value)
        lock.unlock()
    }

    /// Records `count` equal durations (a batch whose readings share one commit).
    public func record(nanos: UInt64, count: Int) {
        guard count > 0 else { return }
        let value = min(max(nanos, 1), 600_000_000_000)
        lock.lock()
        _ = histogram.record(value, count: UInt64(count))
        lock.unlock()
    }

    /// nil when nothing was recorded.
    public func summary() -> LatencySummary? {
        lock.lock()
        defer { lock.unlock() }
        guard histogram.totalCount > 0 else { return nil }
        func micros(_ nanos: UInt64) -> Double { Double(nanos) / 1000 }
        return LatencySummary(count: histogram.totalCount,
                              p50: micros(histogram.valueAtPercentile(50)),
                              p90: micros(histogram.valueAtPercentile(90)),
                              p99: micros(histogram.valueAtPercentile(99)),
                              max: micros(histogram.max))
    }
}
