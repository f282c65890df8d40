// Turns run options (the CLI's flags) into the list of cases to run.
//
// Invariants: every option is validated here with a typed `invalidOption` error naming the flag;
// a suite supplies defaults per workload, explicit flags override them; the plan is the whole
// set of cases (workload × engine × strategy × encryption) once per repetition, repetition
// outermost, so the repetitions of a case are spread over the run and drifting machine noise
// hits every case alike.

import Foundation

/// The flags of `strata-bench run`, already split into values; nil/empty = not given.
public struct RunOptions: Sendable, Equatable {
    public var suite: Suite?
    public var workloads: [WorkloadKind] = []
    public var engines: [String] = []
    public var strategies: [String] = []
    public var duration: Double?
    public var readings: Int?
    public var batchSize: Int?
    public var maxDelayMs: Int?
    public var writers: Int?
    public var rate: Double?
    public var encryption: EncryptionChoice?
    public var durability: Durability?
    /// How sensors trims; nil = `.remove`.
    public var trim: TrimStyle?
    public var repetitions: Int?
    /// Store sizes of the reads and scale workloads (`--objects`, one case per size); empty =
    /// the suite's.
    public var objects: [Int] = []
    /// Reader threads the reads workload times alone and under a writer (`--readers`); nil = none.
    public var readers: Int?

    public init() {}
}

/// Per-workload defaults of a suite.
struct WorkloadDefaults {
    var duration: Double?
    var readings: Int?
    var batchSize: Int
    var strategies: [StrategyKind]
    var durabilities: [Durability] = [.full]
}

public enum RunPlan {
    /// Workloads a suite runs when no `--workload` is given.
    public static func workloads(of suite: Suite) -> [WorkloadKind] {
        switch suite {
        case .sensors: return [.sensors]
        // The gate's smoke suite times the write workloads its baselines hold.
        case .smoke: return WorkloadKind.allCases.filter { $0 != .reads && $0 != .scale }
        // Scale sweeps sizes up to millions of objects: a suite of its own.
        case .full: return WorkloadKind.allCases.filter { $0 != .scale }
        case .scale: return [.scale]
        }
    }

    static func repetitions(of suite: Suite) -> Int {
        suite == .smoke ? 3 : 1
    }

    static func defaults(_ workload: WorkloadKind, suite: Suite) -> WorkloadDefaults {
        let all = StrategyKind.allCases
        switch (suite, workload) {
        // Smoke: `unsafe` (no flush per commit) makes timings measure the engines' own work, which
        // is stable enough to gate; the sensors cases also run `full`, whose timings are the
        // machine's flush latency (bimodal here: ~0.2 ms or ~4 ms) and are shown, not gated.
        // Counts are chosen so each gated case runs a few hundred milliseconds in release: shorter
        // cases measure thread start-up jitter, not the engine (`smokeReadings`).
        case (.smoke, .sensors):
            return WorkloadDefaults(readings: 10_000, batchSize: 100, strategies: all, durabilities: [.unsafe, .full])
        case (.smoke, .readWhileWrite):
            return WorkloadDefaults(readings: 10_000, batchSize: 100, strategies: [.dedicated], durabilities: [.unsafe])
        case (.smoke, .bulkInsert), (.smoke, .encryption):
            return WorkloadDefaults(readings: 100_000, batchSize: 1_000, strategies: [.dedicated], durabilities: [.unsafe])
        case (.smoke, .pinnedGrowth):
            return WorkloadDefaults(readings: 5_000, batchSize: 1, strategies: [.dedicated], durabilities: [.unsafe])
        case (.smoke, .compaction):
            return WorkloadDefaults(readings: 100_000, batchSize: 1_000, strategies: [.dedicated], durabilities: [.unsafe])
        case (.smoke, .reads):
            return WorkloadDefaults(readings: 10_000, batchSize: 10_000, strategies: [.dedicated], durabilities: [.unsafe])
        case (_, .reads), (_, .scale):
            return WorkloadDefaults(readings: 100_000, batchSize: 10_000, strategies: [.dedicated], durabilities: [.unsafe])
        case (_, .sensors): return WorkloadDefaults(duration: 10, batchSize: 1_000, strategies: all)
        case (_, .readWhileWrite): return WorkloadDefaults(duration: 10, batchSize: 1_000, strategies: [.dedicated, .batched])
        case (_, .bulkInsert): return WorkloadDefaults(readings: 1_000_000, batchSize: 1_000, strategies: [.dedicated])
        case (_, .encryption): return WorkloadDefaults(readings: 200_000, batchSize: 1_000, strategies: [.dedicated])
        case (_, .pinnedGrowth): return WorkloadDefaults(readings: 20_000, batchSize: 1, strategies: [.dedicated])
        case (_, .compaction): return WorkloadDefaults(readings: 200_000, batchSize: 1_000, strategies: [.dedicated])
        }
    }

    /// Smoke sensors counts per strategy and durability: durable cases are flush-bound (~250
    /// commits/s here, timings not gated) and stay short; `batched` is ~10x faster per reading and
    /// writes ten times more, which also makes every list trim (33,333 readings per sensor).
    static func smokeReadings(_ base: Int, strategy: StrategyKind, durability: Durability) -> Int {
        if durability == .full { return strategy == .batched ? base : base / 30 }
        return strategy == .batched ? base * 10 : base
    }

    /// The scale suite's store sizes: 1M fills in seconds here in release, so the suite on the
    /// built-in engines takes a few minutes.
    public static let defaultScaleSizes = [10_000, 100_000, 1_000_000]

    /// The store sizes of `workload`'s cases: one per `--objects` size; nil for a workload that
    /// has no store size (its count is `readings`).
    static func sizes(_ workload: WorkloadKind, suite: Suite, options: RunOptions, defaults: WorkloadDefaults) -> [Int?] {
        switch workload {
        case .reads:
            return options.objects.isEmpty ? [options.readings ?? defaults.readings] : options.objects.map { $0 }
        case .scale:
            if !options.objects.isEmpty { return options.objects }
            if let readings = options.readings { return [readings] }
            return suite == .scale ? defaultScaleSizes : [defaults.readings]
        default:
            return [nil]
        }
    }

    /// gcd's default width: about the ~70 threads the book saw, bounded by libdispatch's pool.
    public static let defaultGCDWriters = 64
    /// `threads`: the "8 concurrent writers" case. Not a pool: libdispatch on Linux sizes
    /// its pool to the cores, so `gcd` gets ~2 concurrently committing threads on this machine.
    public static let defaultThreadWriters = 8

    /// Builds the cases, or throws `invalidOption` naming the bad flag.
    public static func make(_ options: RunOptions) throws -> [CaseSpec] {
        let suite = options.suite ?? .sensors
        try options.checkBounds()
        // Every engine built in by default: the first question about an embedded database is how
        // it compares with the one a Swift user would otherwise pick (SQLite), at the same
        // durability.
        let engines = options.engines.isEmpty
            ? Engines.defaultKinds
            : try parseEngines(options.engines)
        let chosenStrategies = try parseStrategies(options.strategies)
        let workloads = options.workloads.isEmpty ? workloads(of: suite) : unique(options.workloads)
        let repetitions = options.repetitions ?? repetitions(of: suite)
        if let readers = options.readers, !workloads.contains(.reads) {
            throw BenchError(.invalidOption, "--readers \(NumericFlag.describe(readers)): readers time the reads workload's operations; add --workload reads")
        }

        var cases: [CaseSpec] = []
        for repetition in 1...repetitions {
        for workload in workloads {
            let defaults = defaults(workload, suite: suite)
            let usesStrategies = workload == .sensors || workload == .readWhileWrite
            let strategies = usesStrategies ? (chosenStrategies ?? defaults.strategies) : [.dedicated]
            let encryptions: [EncryptionSetting] = workload == .encryption
                ? (options.encryption ?? .both).settings
                : (options.encryption ?? .off).settings
            var duration = options.duration ?? (options.readings == nil ? defaults.duration : nil)
            var readings = options.readings ?? (options.duration == nil ? defaults.readings : nil)
            if !usesStrategies && readings == nil {
                // Store workloads are count-bound by nature; --duration does not apply to them.
                readings = defaults.readings
                duration = nil
            }
            let durabilities = options.durability.map { [$0] } ?? defaults.durabilities
            for size in sizes(workload, suite: suite, options: options, defaults: defaults) {
            if let size { readings = size }
            for durability in durabilities {
            for engine in engines {
                for strategy in strategies {
                    let batch = strategy == .batched || !usesStrategies ? (options.batchSize ?? defaults.batchSize) : 1
                    let writers = switch strategy {
                    case .gcd: options.writers ?? defaultGCDWriters
                    case .threads: options.writers ?? defaultThreadWriters
                    default: 1
                    }
                    var readings = readings
                    if suite == .smoke && workload == .sensors && options.readings == nil, let base = readings {
                        readings = smokeReadings(base, strategy: strategy, durability: durability)
                    }
                    for encryption in encryptions {
                        var spec = CaseSpec(workload: workload, engine: engine, strategy: strategy, writers: writers,
                                            batchSize: batch, maxDelayMs: options.maxDelayMs ?? 100,
                                            rate: usesStrategies ? options.rate : nil, encryption: encryption,
                                            durability: durability, duration: duration, readings: readings,
                                            repetition: repetition, trim: options.trim ?? .remove)
                        if workload == .reads { spec.readers = options.readers ?? 0 }
                        cases.append(spec)
                    }
                }
            }
            }
            }
        }
        }
        try checkOpenLoopLength(cases)
        return cases
    }

    /// A count-bound case at a slow `--rate` (the suite's count, not one given with `--readings`,
    /// which `checkBounds` already judged) must still end within a day.
    static func checkOpenLoopLength(_ cases: [CaseSpec]) throws {
        for spec in cases {
            guard let rate = spec.rate, let readings = spec.readings else { continue }
            let seconds = Double(readings) / rate
            if seconds > RunOptions.maxDuration {
                throw BenchError(.invalidOption, "--rate \(NumericFlag.describe(rate)): the \(spec.workload.rawValue) case's \(NumericFlag.describe(readings)) readings would take \(NumericFlag.describe(seconds.rounded())) s; a case lasts at most a day (give --duration or a higher rate)")
            }
        }
    }

    static func parseEngines(_ names: [String]) throws -> [EngineKind] {
        if names.isEmpty { return [Engines.defaultKind] }
        var engines: [EngineKind] = []
        for name in names {
            if name == "all" {
                engines += Engines.allKinds
            } else if let engine = EngineKind(rawValue: name) {
                if let reason = Engines.unavailability(engine) {
                    throw BenchError(.invalidOption, "--engine \(name): \(reason)")
                }
                engines.append(engine)
            } else {
                throw BenchError(.invalidOption, "--engine \(name): unknown engine (expected \(EngineKind.allCases.map(\.rawValue).joined(separator: ", ")) or all)")
            }
        }
        return unique(engines)
    }

    static func parseStrategies(_ names: [String]) throws -> [StrategyKind]? {
        if names.isEmpty { return nil }
        var strategies: [StrategyKind] = []
        for name in names {
            if name == "all" {
                strategies += StrategyKind.allCases
            } else if let strategy = StrategyKind(rawValue: name) {
                strategies.append(strategy)
            } else {
                let known = StrategyKind.allCases.map(\.rawValue).joined(separator: ", ")
                throw BenchError(.invalidOption, "--strategy \(name): unknown strategy (expected \(known) or all)")
            }
        }
        return unique(strategies)
    }

    static func unique<T: Equatable>(_ values: [T]) -> [T] {
        var seen: [T] = []
        for value in values where !seen.contains(value) { seen.append(value) }
        return seen
    }
}
