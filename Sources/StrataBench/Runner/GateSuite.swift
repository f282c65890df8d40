// The performance gate's suite: the smoke suite's cases, each sized for the paired rounds.
//
// The gate runs every case as its own process of both builds, so each case is given by flags the
// base build understands too (`run --suite smoke --repetitions 1` plus these). Sizes follow one rule
// per kind of case, next to `RunPlan.smokeReadings`:
// - CPU-judged Strata cases (everything but `durability full`): ~0.3 s of CPU per side in release,
//   so the reading count follows the strategy's CPU cost per reading;
// - SQLite's cases check the harness's SQLite path and serve as a control: ~0.15 s each;
// - durable cases (judged on wall-clock throughput, flush-bound): 200 readings;
// - Strata's reads case: a 20,000-object store filled, then every read operation timed; its
//   `fill` row carries the whole case's CPU time over its objects, so a slower scan, aggregate or
//   lookup raises that row's CPU per reading and fails the gate like a slower commit (the
//   operations' own rows have no readings: shown, not judged).
// The counted round runs the same cases at the smoke suite's own size (no `--readings`): the
// counters' tolerances were set at that size, and at the timing sizes identical builds differed
// beyond them (SQLite's pages per transaction by up to 1.6% at 1,500 readings, Strata main-sync's
// allocations by 2.8% at 30,000).

/// One case of the gate's suite.
public struct GateCase: Sendable, Equatable {
    public var workload: WorkloadKind
    public var engine: EngineKind
    /// Sensors cases only.
    public var strategy: StrategyKind?
    /// Sensors cases only; the other workloads run the smoke suite's `unsafe`.
    public var durability: Durability?
    /// Readings of a timing round.
    public var readings: Int

    public init(workload: WorkloadKind, engine: EngineKind, strategy: StrategyKind?, durability: Durability?, readings: Int) {
        self.workload = workload
        self.engine = engine
        self.strategy = strategy
        self.durability = durability
        self.readings = readings
    }

    /// Whether the case runs in alternation on one CPU and is judged on CPU time. Durable cases are
    /// flush-bound: they run side by side and are judged on wall-clock throughput.
    public var alternates: Bool { durability != .full }

    /// The flags of a timing round (after `run --suite smoke --repetitions 1`).
    public var flags: [String] { countedFlags + ["--readings", String(readings)] }

    /// The flags of the counted round: the smoke suite's size.
    public var countedFlags: [String] {
        var words = ["--workload", workload.rawValue, "--engine", engine.rawValue]
        if let durability { words += ["--durability", durability.rawValue] }
        if let strategy { words += ["--strategy", strategy.rawValue] }
        return words
    }
}

extension RunPlan {
    /// The strategies of the gate's sensors cases, in the order they run.
    static let gateStrategies: [StrategyKind] = [.mainSync, .mainAsync, .gcd, .dedicated, .batched, .async, .threads]
    /// The store workloads the gate times, in the order they run.
    static let gateStoreWorkloads: [WorkloadKind] = [.bulkInsert, .compaction, .encryption, .pinnedGrowth, .readWhileWrite]

    /// The gate's suite, in run order: Strata's and SQLite's CPU-judged sensors cases, the store
    /// workloads of both engines, Strata's reads, then the durable sensors cases of both.
    public static var gateSuite: [GateCase] {
        var cases: [GateCase] = []
        for engine in [EngineKind.strata, .sqlite] {
            for strategy in gateStrategies {
                cases.append(GateCase(workload: .sensors, engine: engine, strategy: strategy, durability: .unsafe,
                                      readings: gateReadings(.sensors, engine: engine, strategy: strategy, durability: .unsafe)))
            }
        }
        for engine in [EngineKind.strata, .sqlite] {
            for workload in gateStoreWorkloads {
                cases.append(GateCase(workload: workload, engine: engine, strategy: nil, durability: nil,
                                      readings: gateReadings(workload, engine: engine, strategy: nil, durability: .unsafe)))
            }
        }
        cases.append(GateCase(workload: .reads, engine: .strata, strategy: nil, durability: nil,
                              readings: gateReadings(.reads, engine: .strata, strategy: nil, durability: .unsafe)))
        for engine in [EngineKind.strata, .sqlite] {
            for strategy in gateStrategies {
                cases.append(GateCase(workload: .sensors, engine: engine, strategy: strategy, durability: .full,
                                      readings: gateReadings(.sensors, engine: engine, strategy: strategy, durability: .full)))
            }
        }
        return cases
    }

    /// A gate case's readings per timing round (the rule at the top of this file).
    static func gateReadings(_ workload: WorkloadKind, engine: EngineKind, strategy: StrategyKind?,
                             durability: Durability) -> Int {
        if durability == .full { return 200 }
        if engine == .strata {
            switch workload {
            case .sensors:
                switch strategy ?? .dedicated {
                case .mainSync: return 30_000
                case .threads: return 16_000
                case .batched: return 50_000
                case .dedicated, .mainAsync, .gcd, .async: return 12_000
                }
            case .bulkInsert: return 300_000
            case .compaction, .encryption: return 200_000
            case .pinnedGrowth: return 16_000
            case .readWhileWrite: return 12_000
            case .reads: return 20_000
            case .scale: return 10_000
            }
        }
        switch workload {
        case .sensors: return 1_500
        case .bulkInsert, .compaction, .encryption: return 40_000
        case .pinnedGrowth: return 4_000
        case .readWhileWrite: return 2_000
        case .reads, .scale: return 1_000
        }
    }
}
