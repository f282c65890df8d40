// `strata-bench stress`'s flags turned into the cases to run: scenario × engine × durability ×
// encryption (where the engine has it) × strategy, each with its own seed.
//
// Invariants: every flag is judged here with a typed `invalidOption` naming it (an unknown
// scenario too); a scenario that exists but is not implemented is `unsupported` when asked for
// by name and skipped with a note in the default pass (no `--scenario`); durability `memory`
// and engine × encryption pairs the engine lacks are skipped with a note, never faked.

import Foundation

/// The flags of `strata-bench stress`, already split into values; nil/empty = not given.
public struct StressOptions: Sendable, Equatable {
    public var scenarios: [String] = []
    public var engines: [String] = []
    public var durability: Durability?
    public var encryption: EncryptionChoice?
    public var workloads: [String] = []
    public var strategies: [String] = []
    public var rounds: Int?
    public var states: Int?
    /// `--injections`: io-error's sweep, injected failures per case.
    public var injections: Int?
    /// `--commits`: power-loss and io-error, transactions per writer thread of each traced run.
    public var commits: Int?
    public var duration: Double?
    public var writers: Int?
    public var batchSize: Int?
    public var seed: UInt64?
    /// `--fs-model`: posix (default) or ext4.
    public var fileSystem: String?

    public init() {}

    /// Rounds per case in the default pass.
    public static let defaultRounds = 10
    /// Crash states checked per round (power-loss).
    public static let defaultStates = 24
    /// Injected failures per case (io-error's sweep: flush 1, write 1, flush 2, …).
    public static let defaultInjections = 24
    /// Most transactions per writer thread a traced run may be asked for: each one lengthens the
    /// trace every crash state of the round is built from.
    public static let maxCommits = 100_000
    /// `threads`: writer threads (fewer than `run`'s 8: each round starts them anew).
    public static let defaultThreadWriters = 4
    /// `batched`: readings per sensor per transaction.
    public static let defaultBatchSize = 10
}

/// One case to stress with one scenario.
public struct StressPlanItem: Sendable, Equatable {
    public var scenario: StressScenario
    public var stressCase: StressCase
    public var seed: UInt64
}

/// The plan: what runs, what was skipped and why, and the budget.
public struct StressPlan: Sendable, Equatable {
    public var items: [StressPlanItem] = []
    public var skipped: [String] = []
    public var budget: StressBudget
    public var seed: UInt64
    /// The file system whose rules build the crash states.
    public var fileSystem: CrashFileSystem = .posix

    public static func make(_ options: StressOptions) throws -> StressPlan {
        func fail(_ message: String) -> BenchError { BenchError(.invalidOption, message) }
        var scenarios: [StressScenario] = []
        var skipped: [String] = []
        for name in options.scenarios {
            guard let scenario = StressScenario(rawValue: name) else {
                throw fail("--scenario \(QuotedInput.clip(name)): unknown scenario (expected one of: \(StressScenario.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            _ = try StressScenarios.driver(scenario)
            if !scenarios.contains(scenario) { scenarios.append(scenario) }
        }
        if options.scenarios.isEmpty {
            scenarios = StressScenarios.implemented
            for scenario in StressScenario.allCases where !scenarios.contains(scenario) {
                skipped.append("scenario \(scenario.rawValue): not implemented yet")
            }
        }
        for workload in options.workloads where workload != WorkloadKind.sensors.rawValue {
            throw fail("--workload \(QuotedInput.clip(workload)): stress writes the sensors model only (expected: sensors)")
        }
        let engines = options.engines.isEmpty ? Engines.defaultKinds : try RunPlan.parseEngines(options.engines)
        var strategies = StressWriter.strategies
        if !options.strategies.isEmpty {
            strategies = []
            for name in options.strategies {
                let chosen = name == "all" ? StressWriter.strategies : [try Choice.parse(name, flag: "--strategy", as: StrategyKind.self)]
                for strategy in chosen {
                    guard StressWriter.strategies.contains(strategy) else {
                        throw fail("--strategy \(name): stress writes with \(StressWriter.strategies.map(\.rawValue).joined(separator: ", ")) (or all)")
                    }
                    if !strategies.contains(strategy) { strategies.append(strategy) }
                }
            }
        }
        var durabilities: [Durability] = [.full, .unsafe]
        if let durability = options.durability {
            durabilities = durability == .memory ? [] : [durability]
            if durability == .memory { skipped.append("durability memory: nothing outlives the process, so it is not stressed") }
        }
        let rounds = options.rounds ?? StressOptions.defaultRounds
        guard (1...100_000).contains(rounds) else { throw fail("--rounds \(NumericFlag.describe(rounds)): must be 1 to 100,000") }
        let states = options.states ?? StressOptions.defaultStates
        guard (1...100_000).contains(states) else { throw fail("--states \(NumericFlag.describe(states)): must be 1 to 100,000") }
        let injections = options.injections ?? StressOptions.defaultInjections
        guard (1...100_000).contains(injections) else {
            throw fail("--injections \(NumericFlag.describe(injections)): must be 1 to 100,000")
        }
        if let commits = options.commits, !(1...StressOptions.maxCommits).contains(commits) {
            throw fail("--commits \(NumericFlag.describe(commits)): must be 1 to 100,000 transactions per writer thread")
        }
        let duration = options.duration ?? 5
        guard duration.isFinite, duration >= 0.1, duration <= RunOptions.maxDuration else {
            throw fail("--duration \(NumericFlag.describe(duration)): must be 0.1 to 86,400 seconds")
        }
        if let writers = options.writers, !(1...256).contains(writers) {
            throw fail("--writers \(NumericFlag.describe(writers)): must be 1 to 256")
        }
        if let batch = options.batchSize, !(1...100).contains(batch) {
            // A begin line names its parts' ranges only, but a transaction's readings are held in memory.
            throw fail("--batch-size \(NumericFlag.describe(batch)): must be 1 to 100 readings per sensor per transaction")
        }
        let seed = options.seed ?? UInt64.random(in: 0...UInt64(Int64.max))
        var plan = StressPlan(skipped: skipped, budget: StressBudget(rounds: rounds, states: states, injections: injections,
                                                                         commits: options.commits, duration: duration),
                              seed: seed)
        if let model = options.fileSystem { plan.fileSystem = try Choice.parse(model, flag: "--fs-model", as: CrashFileSystem.self) }
        for scenario in scenarios {
            for engine in engines {
                for durability in durabilities {
                    for encryption in (options.encryption ?? .off).settings {
                        guard Engines.supports(engine, encryption: encryption) else {
                            plan.skipped.append("\(scenario.rawValue) \(engine.rawValue)/\(durability.rawValue)/\(encryption.rawValue): \(engine.rawValue) has no encryption")
                            continue
                        }
                        for strategy in strategies {
                            let writers = strategy == .threads ? options.writers ?? StressOptions.defaultThreadWriters : 1
                            let batch = options.batchSize ?? (strategy == .batched ? StressOptions.defaultBatchSize : 1)
                            let stressCase = StressCase(engine: engine, durability: durability, encryption: encryption,
                                                        strategy: strategy, writers: writers, batchSize: batch)
                            plan.items.append(StressPlanItem(scenario: scenario, stressCase: stressCase,
                                                             seed: caseSeed(seed, "\(scenario.rawValue)/\(stressCase.label)")))
                        }
                    }
                }
            }
        }
        return plan
    }

    /// A case's seed: the run's seed mixed with the case's name (FNV-1a), so a case gets the same
    /// seed whatever else the run contains.
    public static func caseSeed(_ seed: UInt64, _ name: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return seed ^ hash
    }
}
