// The ranges of `run`'s numeric flags: what this harness and the machine can do.
//
// Invariants: every flag's value is checked before the first case, with a typed `invalidOption`
// error that names the flag, the value and the limit with its reason; no value that passes can
// make a case allocate beyond the machine's memory (a batch), run without end (a count at a
// trickle of a rate), or sleep longer than a day.

import Foundation

extension RunOptions {
    /// Longest case: a day. Longer runs are repetitions or several runs.
    public static let maxDuration = 86_400.0
    /// Shortest time-bound case: below this a case measures thread start-up, not the engine.
    public static let minDuration = 0.1
    /// Most readings per case: ~30 s of Strata's bulk insert here, hours for a durable writer.
    public static let maxReadings = 100_000_000
    /// Slowest open-loop rate (one reading every ~17 minutes).
    public static let minRate = 0.001
    /// Fastest open-loop rate: ten times what the fastest strategy commits on this machine class.
    public static let maxRate = 10_000_000.0
    /// Longest batched flush delay: a minute.
    public static let maxDelayLimitMs = 60_000
    public static let maxWriters = 1024
    public static let maxRepetitions = 1000
    /// What one reading of a batch costs in memory while it waits and while its transaction is
    /// built (the hand-over record, the engine's row and list entry), rounded up.
    static let bytesPerBatchedReading: UInt64 = 512

    /// The largest batch the machine holds: an eighth of physical memory (a batched case keeps
    /// up to two batches in flight besides the engine's own pages), at most 10 million.
    public static var maxBatchSize: Int {
        let memory = ProcessInfo.processInfo.physicalMemory
        return Int(min(10_000_000, max(1_000, memory / 8 / bytesPerBatchedReading)))
    }

    /// Throws `invalidOption` for the first value out of range.
    public func checkBounds() throws {
        func fail(_ message: String) -> BenchError { BenchError(.invalidOption, message) }
        let describe = { (value: Double) in NumericFlag.describe(value) }
        if let duration {
            guard duration.isFinite, duration > 0 else {
                throw fail("--duration \(describe(duration)): must be a positive number of seconds")
            }
            guard duration >= Self.minDuration else {
                throw fail("--duration \(describe(duration)): too short to measure anything (at least \(describe(Self.minDuration)) s)")
            }
            guard duration <= Self.maxDuration else {
                throw fail("--duration \(describe(duration)): at most \(describe(Self.maxDuration)) s (a day) per case")
            }
        }
        if duration != nil && readings != nil {
            throw fail("--duration and --readings exclude each other (a case is bounded by time or by count)")
        }
        if let readings {
            guard readings >= 1 else { throw fail("--readings \(NumericFlag.describe(readings)): must be at least 1") }
            guard readings <= Self.maxReadings else {
                throw fail("--readings \(NumericFlag.describe(readings)): at most \(NumericFlag.describe(Self.maxReadings)) per case (use --duration for long runs)")
            }
        }
        if let batchSize {
            guard batchSize >= 1 else { throw fail("--batch-size \(NumericFlag.describe(batchSize)): must be at least 1") }
            let limit = Self.maxBatchSize
            guard batchSize <= limit else {
                let memory = ProcessInfo.processInfo.physicalMemory
                throw fail("--batch-size \(NumericFlag.describe(batchSize)): at most \(NumericFlag.describe(limit)) readings per transaction on this machine (a batch holds ~\(Self.bytesPerBatchedReading) bytes per reading; \(ByteCount.describe(memory)) of memory)")
            }
        }
        if let maxDelayMs, !(0...Self.maxDelayLimitMs).contains(maxDelayMs) {
            throw fail("--max-delay \(NumericFlag.describe(maxDelayMs)): must be between 0 and \(NumericFlag.describe(Self.maxDelayLimitMs)) milliseconds")
        }
        if let writers, !(1...Self.maxWriters).contains(writers) {
            throw fail("--writers \(NumericFlag.describe(writers)): must be between 1 and \(Self.maxWriters)")
        }
        if let rate {
            guard rate.isFinite, rate > 0 else {
                throw fail("--rate \(describe(rate)): must be a positive number of readings per second")
            }
            guard rate >= Self.minRate, rate <= Self.maxRate else {
                throw fail("--rate \(describe(rate)): must be between \(describe(Self.minRate)) and \(describe(Self.maxRate)) readings per second")
            }
            if let readings {
                let seconds = Double(readings) / rate
                guard seconds <= Self.maxDuration else {
                    throw fail("--readings \(NumericFlag.describe(readings)) at --rate \(describe(rate)) would take \(describe(seconds.rounded())) s; a case lasts at most a day (\(describe(Self.maxDuration)) s)")
                }
            }
        }
        for size in objects where !(1...Self.maxReadings).contains(size) {
            throw fail("--objects \(NumericFlag.describe(size)): must be between 1 and \(NumericFlag.describe(Self.maxReadings))")
        }
        if !objects.isEmpty && !workloads.isEmpty && !workloads.contains(.reads) && !workloads.contains(.scale) {
            throw fail("--objects sets the reads and scale workloads' store sizes; add --workload reads or --workload scale")
        }
        if let readers, !(1...ReadersUnderWriter.maxReaders).contains(readers) {
            throw fail("--readers \(NumericFlag.describe(readers)): must be between 1 and \(ReadersUnderWriter.maxReaders) reader threads")
        }
        if let repetitions, !(1...Self.maxRepetitions).contains(repetitions) {
            throw fail("--repetitions \(NumericFlag.describe(repetitions)): must be between 1 and \(Self.maxRepetitions)")
        }
    }
}

/// Byte counts for messages: binary units, one decimal.
enum ByteCount {
    static func describe(_ bytes: UInt64) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) bytes" : String(format: "%.1f %@", value, units[unit])
    }
}
