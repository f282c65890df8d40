// Soak's samples and their judgement: a least-squares slope per series over the judged window,
// compared with a threshold per series.
//
// The window: the second half of the run (start-up, caches filling and the allocator's first
// arenas are over), and for the series that follow the data (store size, commit latency) only
// the samples after the store reached its steady state: every sensor holding `SensorModel.keep`
// readings, after which each commit deletes as many as it adds. Before that a store rightly grows
// and commits rightly slow down as lists lengthen. A series with fewer than `minimumSamples` in
// its window is not judged, and the note says so (a short run proves less, never passes falsely
// silently).
//
// Thresholds, per minute over the window, and why:
//   RSS          its anonymous part (RssAnon) > 1 MiB beyond the store's own growth. The file-
//                backed part is the store's mapped pages (Strata, LMDB): it follows the data
//                written into a preallocated file, which is not a leak; the anonymous part may
//                follow the file too (SQLite's page cache), but growth faster than the data is
//                a leak. VmRSS is in the timeline for the reader.
//   mapped bytes > 4 MiB beyond the store's growth. Mappings follow the file in chunks (a remap
//                grows by several MiB at once), so the allowance is one chunk a minute.
//   descriptors  any rise (the fitted slope positive and the window's last count above its
//                first): a writer's descriptors are fixed once its store is open.
//   store bytes  > 1 MiB once steady: the store holds a fixed number of readings then, so its
//                file must reuse freed space.
//   commit ms    the fitted line rising by more than the window's mean (latency doubling).
// And for the byte series, the fitted rise over the window must also exceed a floor (RSS 2 MiB,
// mapped and store 8 MiB): a journal (SQLite's WAL grows to its 1,000-page checkpoint, ~4 MiB,
// before it is reused), a preallocated chunk or the allocator's arenas grow by that much at once
// and then stop, which in a short run's window looks like a steep slope. A real leak passes
// the floor in a long run; a short run catches only a gross one.

import Foundation

/// One sample of a soak's writer, taken by the parent once a second.
public struct SoakSample: Sendable, Equatable {
    public var round: Int
    /// Seconds since the writer was started.
    public var seconds: Double
    /// /proc/<pid>/status VmRSS.
    public var rssBytes: Int64
    /// /proc/<pid>/status RssAnon: the process's own memory, without the store's mapped pages.
    public var anonymousBytes: Int64
    /// Sum of the store directory's file sizes.
    public var storeBytes: Int64
    /// Entries of /proc/<pid>/fd.
    public var descriptors: Int
    /// Sum of /proc/<pid>/maps ranges.
    public var mappedBytes: Int64
    /// Acknowledgements since the previous sample.
    public var acks: Int
    /// The writer's acknowledgements so far.
    public var totalAcks: Int
    /// Mean interval between the sample's acks (interval / acks), nil when none came.
    public var meanCommitMs: Double?

    public init(round: Int = 1, seconds: Double, rssBytes: Int64, anonymousBytes: Int64? = nil, storeBytes: Int64, descriptors: Int, mappedBytes: Int64,
                acks: Int, totalAcks: Int, meanCommitMs: Double?) {
        self.round = round
        self.seconds = seconds
        self.rssBytes = rssBytes
        self.anonymousBytes = anonymousBytes ?? rssBytes
        self.storeBytes = storeBytes
        self.descriptors = descriptors
        self.mappedBytes = mappedBytes
        self.acks = acks
        self.totalAcks = totalAcks
        self.meanCommitMs = meanCommitMs
    }
}

public enum SoakTrend {
    public static let minimumSamples = 3
    static let mebibyte = 1_048_576.0

    /// Least-squares slope of y over x (per unit of x); nil with fewer than 2 distinct x.
    public static func slope(_ points: [(x: Double, y: Double)]) -> Double? {
        guard points.count >= 2 else { return nil }
        let n = Double(points.count)
        let meanX = points.map(\.x).reduce(0, +) / n
        let meanY = points.map(\.y).reduce(0, +) / n
        let sxx = points.map { ($0.x - meanX) * ($0.x - meanX) }.reduce(0, +)
        guard sxx > 0 else { return nil }
        return points.map { ($0.x - meanX) * ($0.y - meanY) }.reduce(0, +) / sxx
    }

    /// Judges `samples` of a run of `duration` seconds whose store is steady after `steadyAcks`
    /// acknowledgements. Returns the trends beyond their thresholds (failures) and the notes
    /// (what could not be judged).
    public static func judge(_ samples: [SoakSample], duration: Double, steadyAcks: Int) -> (trends: [String], notes: [String]) {
        var trends: [String] = []
        var notes: [String] = []
        let half = samples.filter { $0.seconds >= duration / 2 }
        let steady = half.filter { $0.totalAcks >= steadyAcks }
        func perMinute(_ window: [SoakSample], _ value: (SoakSample) -> Double?) -> Double? {
            let points = window.compactMap { sample in value(sample).map { (x: sample.seconds, y: $0) } }
            guard points.count >= minimumSamples else { return nil }
            return slope(points).map { $0 * 60 }
        }
        /// The fitted rise over the window: slope per minute × the window's minutes.
        func rise(_ window: [SoakSample], _ perMinute: Double) -> Double {
            guard let first = window.first?.seconds, let last = window.last?.seconds else { return 0 }
            return perMinute * (last - first) / 60
        }
        func mib(_ value: Double) -> String { String(format: "%.2f MiB/min", value / mebibyte) }
        guard half.count >= minimumSamples else {
            return ([], ["\(samples.count) samples: too few to judge any trend (run longer)"])
        }
        let store = perMinute(half) { Double($0.storeBytes) } ?? 0
        if let rss = perMinute(half, { Double($0.anonymousBytes) }), rss - max(0, store) > mebibyte, rise(half, rss - max(0, store)) > 2 * mebibyte {
            trends.append("anonymous RSS grows \(mib(rss)) (store \(mib(store))) over the second half: more than 1 MiB/min beyond the store")
        }
        if let mapped = perMinute(half, { Double($0.mappedBytes) }), mapped - max(0, store) > 4 * mebibyte, rise(half, mapped - max(0, store)) > 8 * mebibyte {
            trends.append("mapped bytes grow \(mib(mapped)) (store \(mib(store))) over the second half: more than 4 MiB/min beyond the store")
        }
        if let descriptors = perMinute(half, { Double($0.descriptors) }), descriptors > 0,
           let first = half.first?.descriptors, let last = half.last?.descriptors, last > first {
            trends.append("open descriptors grow from \(first) to \(last) over the second half")
        }
        if steady.count < minimumSamples {
            notes.append("the store was not steady (every sensor at \(SensorModel.keep) readings, \(steadyAcks) acks) for \(minimumSamples) samples of the second half: store size and commit latency not judged")
            return (trends, notes)
        }
        if let steadyStore = perMinute(steady, { Double($0.storeBytes) }), steadyStore > mebibyte, rise(steady, steadyStore) > 8 * mebibyte {
            trends.append("the store grows \(mib(steadyStore)) while it holds a fixed number of readings")
        }
        let latencies = steady.compactMap(\.meanCommitMs)
        if let latency = perMinute(steady, \.meanCommitMs), latencies.count >= minimumSamples,
           let first = steady.first(where: { $0.meanCommitMs != nil })?.seconds, let last = steady.last(where: { $0.meanCommitMs != nil })?.seconds {
            let mean = latencies.reduce(0, +) / Double(latencies.count)
            let rise = latency / 60 * (last - first)
            if mean > 0 && rise > mean {
                trends.append(String(format: "commit latency rises %.3f ms over the steady window (mean %.3f ms): it more than doubles", rise, mean))
            }
        }
        return (trends, notes)
    }

    /// Acks after which every sensor of the case holds `SensorModel.keep` readings.
    public static func steadyAcks(_ stressCase: StressCase) -> Int {
        let threads = stressCase.strategy == .threads ? stressCase.writers : 1
        let perSensor = (SensorModel.keep + max(1, stressCase.batchSize) - 1) / max(1, stressCase.batchSize)
        let sensorsPerCommit = stressCase.strategy == .batched ? SensorModel.symbols.count : 1
        return threads * perSensor * SensorModel.symbols.count / sensorsPerCommit
    }
}
