// One row of a summary CSV, with the case it measures in the harness's own types.
//
// A run writes its settings from typed values (`CaseSpec`), and a reader parses them back here,
// once, where the CSV is read (`SummaryValidation.records`). Nothing downstream compares
// spellings: a comparison, the HTML report, the gate and the history ask `settings.durability ==
// .full`, and an unknown or misspelt setting never gets past the reader.
//
// Invariant: `CaseSettings.key` is the one rule that names a case; rows with equal keys are
// repetitions of one case. Its text is stable (committed baselines and the history store it).

/// How a case ends: after a count of readings or after a time.
public enum CaseBound: String, Sendable, Hashable, CaseIterable {
    case count, time
}

/// What a case was asked to do: every setting that tells it apart from another case.
public struct CaseSettings: Hashable, Sendable {
    public var workload: WorkloadKind
    public var engine: EngineKind
    public var strategy: StrategyKind
    public var writers: Int
    public var batchSize: Int
    public var encryption: EncryptionSetting
    public var durability: Durability
    /// Open-loop rate (readings per second), nil = closed loop.
    public var rate: Double?
    /// Nil in files of versions that did not record it (as the three below).
    public var maxDelayMs: Int?
    public var bound: CaseBound?
    public var targetReadings: Int?
    /// `.remove` in files of versions without the column: they all trimmed that way.
    public var trim: TrimStyle
    /// The reads workload's operation; nil for every other workload (and in older files).
    public var op: ReadOp?
    /// The reads workload's `--readers`; nil without them (and in older files).
    public var readers: Int?

    public init(_ spec: CaseSpec) {
        workload = spec.workload
        engine = spec.engine
        strategy = spec.strategy
        writers = spec.writers
        batchSize = spec.batchSize
        encryption = spec.encryption
        durability = spec.durability
        rate = spec.rate
        maxDelayMs = spec.maxDelayMs
        bound = spec.readings != nil ? .count : .time
        targetReadings = spec.readings
        trim = spec.trim
        op = spec.op
        readers = spec.readers > 0 ? spec.readers : nil
    }

    /// Columns that identify a case (besides `repetition`), in key order.
    public static let columns = ["workload", "engine", "strategy", "writers", "batch_size", "encryption",
                                 "durability", "rate", "max_delay_ms", "bound", "target_readings", "trim", "op", "readers"]

    /// Key columns a summary file may lack (files of older versions): they read as absent.
    public static let optionalColumns: Set<String> = ["rate", "max_delay_ms", "bound", "target_readings", "trim", "op",
                                                     "readers"]

    /// The case's name in comparisons, baselines and the history, e.g.
    /// `sensors/strata/dedicated/w1/b1/enc-off/full/closed/d100/count3000`.
    public var key: String {
        var parts = [workload.rawValue, engine.rawValue, strategy.rawValue, "w\(writers)", "b\(batchSize)",
                     "enc-" + encryption.rawValue, durability.rawValue,
                     rate.map { "rate" + CSVNumber.format($0) } ?? "closed", "d" + CSVNumber.format(maxDelayMs)]
        if let bound {
            parts.append(bound == .count && targetReadings != nil ? "count" + CSVNumber.format(targetReadings) : bound.rawValue)
        }
        // The default form adds nothing, so keys of files from before the column stay the same.
        if trim != .remove { parts.append("trim-" + trim.rawValue) }
        if let readers { parts.append("readers\(readers)") }
        if let op { parts.append("op-" + op.rawValue) }
        return parts.joined(separator: "/")
    }
}

/// A summary CSV's row: the case's settings, parsed, and every cell as written.
public struct SummaryRecord: Sendable {
    public var settings: CaseSettings
    public var repetition: Int
    /// Every cell by column (the settings' cells included, as written).
    public var cells: [String: String]

    /// The cell of `column`, nil when the file has no such column.
    public subscript(column: String) -> String? { cells[column] }

    /// Parses a row's settings. Throws `invalidCSV` (naming the column) for a setting that is not
    /// one the harness writes; `path` and `line` place the row for the message.
    public init(cells: [String: String], path: String, line: Int) throws {
        func fail(_ column: String, _ expected: String) -> BenchError {
            BenchError(.invalidCSV, "column '\(column)' must be \(expected), found '\(QuotedInput.clip(cells[column] ?? ""))'",
                       path: path, line: line, column: 1)
        }
        func choice<T: RawRepresentable>(_ column: String, _ all: [T]) throws -> T where T.RawValue == String {
            guard let value = cells[column].flatMap(T.init(rawValue:)) else {
                throw fail(column, SummaryValidation.alternatives(all.map(\.rawValue)))
            }
            return value
        }
        func count(_ column: String) throws -> Int {
            guard let value = cells[column].flatMap(DecimalText.integer), value >= 1 else { throw fail(column, "a whole number of at least 1") }
            return value
        }
        func optional<T>(_ column: String, _ parse: (String) -> T?, _ expected: String) throws -> T? {
            guard let cell = cells[column], !cell.isEmpty else { return nil }
            guard let value = parse(cell) else { throw fail(column, expected) }
            return value
        }
        settings = CaseSettings(
            workload: try choice("workload", WorkloadKind.allCases),
            engine: try choice("engine", EngineKind.allCases),
            strategy: try choice("strategy", StrategyKind.allCases),
            writers: try count("writers"),
            batchSize: try count("batch_size"),
            encryption: try choice("encryption", EncryptionSetting.allCases),
            durability: try choice("durability", Durability.allCases),
            rate: try optional("rate", DecimalText.double, "a number"),
            maxDelayMs: try optional("max_delay_ms", DecimalText.integer, "a whole number"),
            bound: try optional("bound", CaseBound.init(rawValue:), "'count' or 'time'"),
            targetReadings: try optional("target_readings", DecimalText.integer, "a whole number"),
            trim: try optional("trim", TrimStyle.init(rawValue:), SummaryValidation.alternatives(TrimStyle.allCases.map(\.rawValue))) ?? .remove,
            op: try optional("op", ReadOp.init(rawValue:), SummaryValidation.alternatives(ReadOp.allCases.map(\.rawValue))),
            readers: try optional("readers", { DecimalText.integer($0).flatMap { $0 >= 1 ? $0 : nil } }, "a whole number of at least 1"))
        repetition = try count("repetition")
        self.cells = cells
    }
}

extension CaseSettings {
    /// Memberwise, for parsing.
    init(workload: WorkloadKind, engine: EngineKind, strategy: StrategyKind, writers: Int, batchSize: Int,
         encryption: EncryptionSetting, durability: Durability, rate: Double?, maxDelayMs: Int?, bound: CaseBound?,
         targetReadings: Int?, trim: TrimStyle, op: ReadOp? = nil, readers: Int? = nil) {
        self.workload = workload
        self.engine = engine
        self.strategy = strategy
        self.writers = writers
        self.batchSize = batchSize
        self.encryption = encryption
        self.durability = durability
        self.rate = rate
        self.maxDelayMs = maxDelayMs
        self.bound = bound
        self.targetReadings = targetReadings
        self.trim = trim
        self.op = op
        self.readers = readers
    }
}
