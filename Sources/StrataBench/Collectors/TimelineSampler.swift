// Samples file size and counts on a timer while a case runs (for growth plots).
//
// Uses a DispatchSourceTimer: on Linux Foundation's `Timer` fired immediately in a test here;
// the dispatch timer is the dependable one. The peak file size is tracked from
// these samples plus explicit `sample()` calls at phase boundaries.

import Foundation

/// One timeline point.
public struct TimelinePoint: Sendable, Equatable {
    public var elapsedMs: Double
    public var fileBytes: Int64?
    public var liveObjects: Int
    public var totalWrites: Int
}

/// `@unchecked Sendable`: `points` and `peak` are guarded by `lock`; the timer runs on `queue`.
public final class TimelineSampler: @unchecked Sendable {
    private let lock = NSLock()
    private var points: [TimelinePoint] = []
    private var peak: Int64?
    private let start = monotonicNanos()
    private let queue = DispatchQueue(label: "strata-bench.timeline")
    private var timer: DispatchSourceTimer?
    private let probe: @Sendable () -> (fileBytes: Int64?, liveObjects: Int, totalWrites: Int)

    /// `probe` is called on the sampler's queue; it must be cheap and thread-safe.
    public init(probe: @escaping @Sendable () -> (fileBytes: Int64?, liveObjects: Int, totalWrites: Int)) {
        self.probe = probe
    }

    /// Starts periodic sampling every `intervalMs` milliseconds (one sample immediately).
    public func start(intervalMs: Int) {
        sample()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(intervalMs), repeating: .milliseconds(intervalMs))
        timer.setEventHandler { [weak self] in self?.sample() }
        self.timer = timer
        timer.resume()
    }

    /// Stops the timer and takes a last sample.
    public func stop() {
        timer?.cancel()
        timer = nil
        queue.sync {}
        sample()
    }

    /// Takes one sample now.
    public func sample() {
        let value = probe()
        let elapsed = Double(monotonicNanos() - start) / 1_000_000
        lock.lock()
        points.append(TimelinePoint(elapsedMs: elapsed, fileBytes: value.fileBytes,
                                    liveObjects: value.liveObjects, totalWrites: value.totalWrites))
        if let bytes = value.fileBytes { peak = max(peak ?? 0, bytes) }
        lock.unlock()
    }

    public var peakFileBytes: Int64? {
        lock.lock()
        defer { lock.unlock() }
        return peak
    }

    public var timeline: [TimelinePoint] {
        lock.lock()
        defer { lock.unlock() }
        return points
    }
}
