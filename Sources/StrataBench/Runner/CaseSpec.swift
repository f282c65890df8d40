// One case of a run: a workload on an engine with a strategy and options, at one repetition.
//
// Invariants: a case is either count-bound (`readings` set: producers stop after that many, so
// counts and sizes are reproducible) or time-bound (`duration` set); never both. `key` names
// the case without its repetition: rows with equal keys are repetitions of one another and
// `compare` takes their medians.

import Foundation

/// Parameters of one case.
public struct CaseSpec: Sendable, Equatable {
    public var workload: WorkloadKind
    public var engine: EngineKind
    public var strategy: StrategyKind
    /// Width bound of the gcd strategy, writer threads of the threads strategy; 1 for the others.
    public var writers: Int
    /// Readings per transaction (batched, bulk-insert, encryption); 1 when not batching.
    public var batchSize: Int
    /// Batched strategy: the longest a buffered reading waits before a flush.
    public var maxDelayMs: Int
    /// Open-loop production rate in readings per second (all sensors together), nil = closed loop.
    public var rate: Double?
    public var encryption: EncryptionSetting
    public var durability: Durability
    /// Seconds to produce for (time-bound case).
    public var duration: Double?
    /// Readings to produce in total (count-bound case).
    public var readings: Int?
    /// 1-based.
    public var repetition: Int
    /// How the sensors workload trims a sensor's list (the engine adapters that store objects
    /// honour it; for SQL both forms are the same statements).
    public var trim: TrimStyle
    /// The read operation a row of the reads workload measures (set on its result rows, nil in
    /// the plan and for every other workload).
    public var op: ReadOp?
    /// The reads workload's `--readers`: reader threads timed alone and under a writer; 0 = none.
    public var readers: Int

    public init(workload: WorkloadKind, engine: EngineKind, strategy: StrategyKind, writers: Int = 1,
                batchSize: Int = 1, maxDelayMs: Int = 100, rate: Double? = nil,
                encryption: EncryptionSetting = .off, durability: Durability = .full,
                duration: Double? = nil, readings: Int? = nil, repetition: Int = 1, trim: TrimStyle = .remove) {
        self.workload = workload
        self.engine = engine
        self.strategy = strategy
        self.writers = writers
        self.batchSize = batchSize
        self.maxDelayMs = maxDelayMs
        self.rate = rate
        self.encryption = encryption
        self.durability = durability
        self.duration = duration
        self.readings = readings
        self.repetition = repetition
        self.trim = trim
        op = nil
        readers = 0
    }

    /// "count" or "time".
    public var bound: String { readings != nil ? "count" : "time" }

    /// The case without its repetition, as `compare` groups rows (`CaseSettings.key`).
    public var key: String { CaseSettings(self).key }

    /// Short human label for progress lines and tables.
    public var label: String {
        var parts = [workload.rawValue, engine.rawValue, strategy.rawValue]
        if strategy.hasConcurrentWriters { parts.append("w\(writers)") }
        if batchSize > 1 { parts.append("b\(batchSize)") }
        if let rate { parts.append("rate \(CSVNumber.format(rate))/s") }
        parts.append("enc \(encryption.rawValue)")
        parts.append(durability.rawValue)
        if trim != .remove { parts.append("trim \(trim.rawValue)") }
        if readers > 0 { parts.append("readers \(readers)") }
        if let op { parts.append("op \(op.rawValue)") }
        parts.append("#\(repetition)")
        return parts.joined(separator: " ")
    }
}

/// Number formatting for CSV cells: plain digits, '.' decimal point, no units, no separators.
public enum CSVNumber {
    /// Integers print without a fraction; others with up to `digits` decimals, trailing zeros cut.
    public static func format(_ value: Double, digits: Int = 3) -> String {
        guard value.isFinite else { return "" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(format: "%.\(digits)f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    public static func format(_ value: Double?, digits: Int = 3) -> String {
        value.map { format($0, digits: digits) } ?? ""
    }

    public static func format<I: BinaryInteger>(_ value: I?) -> String {
        value.map { String($0) } ?? ""
    }
}
