// The stress scenarios and the shape every scenario plugs into.
//
// A scenario is given a case (engine, durability, encryption, strategy), a budget and a seed, and
// returns the states it checked: for each, what the writer child acknowledged (`AckLog`) and what
// the checker child found (`CheckOutcome`). Judging them against the engine's promise
// (`DurabilityPromise`, `StressJudge`) is the runner's job, the same for every scenario, so a
// scenario only has to produce states. `StressScenarios.drivers` is the one table of scenarios
// that can run; the others are named (`StressScenario`) and refused with a typed error.
//
// Invariant: a scenario checks a store only through the checker child (`CheckerChild`), so a
// crash or hang of the engine while recovering is counted, never fatal to the harness.

import Foundation

/// A kind of failure the harness inflicts. Raw values are the `--scenario` spellings and the
/// CSV's `scenario` column.
public enum StressScenario: String, CaseIterable, Sendable, Codable {
    /// The writer process is SIGKILLed at a random moment.
    case kill
    /// The machine loses power: only what was flushed survives (Stress/Trace builds the states).
    case powerLoss = "power-loss"
    /// Writes or flushes fail with an I/O error.
    case ioError = "io-error"
    /// The disk fills up under the writer.
    case fullDisk = "full-disk"
    /// Several processes write the same store at once.
    case contention
    /// A long run under load.
    case soak

    /// What the engine's promise is judged against in this scenario.
    public var threat: StressThreat {
        self == .powerLoss ? .powerLoss : .processDeath
    }

    public var summary: String {
        switch self {
        case .kill: return "SIGKILL the writer at a random moment, check what it acknowledged"
        case .powerLoss: return "cut power: only flushed writes survive"
        case .ioError: return "writes and flushes fail with EIO"
        case .fullDisk: return "the disk fills under the writer"
        case .contention: return "several processes write one store"
        case .soak: return "a long run under load"
        }
    }
}

/// What survives: the process only, or the machine too.
public enum StressThreat: String, Sendable, Codable {
    /// The writer dies; the OS keeps what it was given (page cache).
    case processDeath = "process-death"
    /// The machine stops; only what reached the disk survives.
    case powerLoss = "power-loss"
}

/// One stressed configuration.
public struct StressCase: Sendable, Hashable, Codable {
    public var engine: EngineKind
    public var durability: Durability
    public var encryption: EncryptionSetting
    public var strategy: StrategyKind
    /// Writer threads (`threads`), 1 otherwise.
    public var writers: Int
    /// Readings per sensor per transaction.
    public var batchSize: Int

    public init(engine: EngineKind, durability: Durability, encryption: EncryptionSetting, strategy: StrategyKind,
                writers: Int = 1, batchSize: Int = 1) {
        self.engine = engine
        self.durability = durability
        self.encryption = encryption
        self.strategy = strategy
        self.writers = writers
        self.batchSize = batchSize
    }

    /// e.g. "strata/full/off/threads".
    public var label: String { "\(engine.rawValue)/\(durability.rawValue)/\(encryption.rawValue)/\(strategy.rawValue)" }

    /// The key the writer and the checker both use when encryption is on.
    public var encryptionKey: [UInt8]? { encryption == .on ? StressKey.bytes : nil }

    public func configuration(directory: String) -> EngineConfiguration {
        EngineConfiguration(directory: directory, durability: durability, encryptionKey: encryptionKey)
    }
}

/// How much a scenario may do for one case.
public struct StressBudget: Sendable, Equatable {
    /// Writer processes started (kill: one state each).
    public var rounds: Int
    /// Crash states checked per round, for scenarios that build several (power-loss).
    public var states: Int
    /// Failures injected per case (io-error's sweep).
    public var injections: Int
    /// Transactions per writer thread of a traced run (power-loss, io-error); nil: the scenario's own.
    public var commits: Int?
    /// Longest a writer runs before it is stopped, in seconds (kill: the latest kill moment).
    public var duration: Double
    /// Most acknowledgements before the kill (kill picks a number in 1...this).
    public var maxAcks: Int
    /// Contention's watchdog: no acknowledgement from any writer for this long is a hang.
    public var stall: Double

    public init(rounds: Int, states: Int = 1, injections: Int = 1, commits: Int? = nil, duration: Double = 5,
                maxAcks: Int = 200, stall: Double = 10) {
        self.rounds = rounds
        self.states = states
        self.injections = injections
        self.commits = commits
        self.duration = duration
        self.maxAcks = maxAcks
        self.stall = stall
    }
}

/// What a scenario may use: the executable to start as writer and checker, a work directory of
/// its own, environment for the children, and where notes go.
public struct StressContext: Sendable {
    /// `strata-bench` itself (`SelfExecutable.path()`), or the built binary in tests.
    public var executable: String
    /// An empty directory the scenario owns for this case.
    public var directory: String
    /// Added to the children's environment (power-loss: LD_PRELOAD of the interposer).
    public var environment: [String: String]
    /// Longest the checker may take before it counts as a hang and is killed.
    public var checkTimeout: Double
    /// A line for the user (stderr); never the result.
    public var note: @Sendable (String) -> Void
    /// Polled between rounds: once requested, return the rounds finished so far.
    public var stop: StopRequest?
    /// The file system whose rules build crash states (power-loss, io-error).
    public var fileSystem: CrashFileSystem

    public init(executable: String, directory: String, environment: [String: String] = [:], checkTimeout: Double = 60,
                note: @escaping @Sendable (String) -> Void = { _ in }, stop: StopRequest? = nil,
                fileSystem: CrashFileSystem = .posix) {
        self.executable = executable
        self.directory = directory
        self.environment = environment
        self.checkTimeout = checkTimeout
        self.note = note
        self.stop = stop
        self.fileSystem = fileSystem
    }
}

/// One checked store state: what was acknowledged and what the checker saw.
public struct StressRoundResult: Sendable {
    /// 1-based writer round.
    public var round: Int
    /// 1-based state of the round (kill: always 1).
    public var state: Int
    public var log: AckLog
    public var outcome: CheckOutcome
    /// Why the writer stopped on its own before the scenario ended it (an engine error), nil if
    /// it was still running.
    public var writerFailure: String?
    /// A copy of the store exactly as the checker was given it (kept as a reproducer when the
    /// state fails; removed otherwise), nil when none was made.
    public var snapshot: String?
    /// The parent's watchdog saw no acknowledgement from any writer for too long: every child's
    /// state (contention). Counted as a hang; fails the state.
    public var hang: String?
    /// Trends beyond their thresholds (soak): each counted, each fails the state.
    public var trends: [String] = []
    /// What the scenario could not judge and why (shown in the row's note; not a failure).
    public var notes: [String] = []
    /// Samples over time (soak), written to the timeline CSV.
    public var timeline: [SoakSample] = []
    /// The threat this state is judged against when it is not the scenario's (io-error's
    /// power-loss state after a failed flush); nil: the scenario's.
    public var threat: StressThreat?
    /// Failures the scenario itself established, beyond what the judge sees in the store
    /// (io-error: an acknowledgement after a failed flush); each fails the state.
    public var violations: [String] = []
    /// The I/O trace the state was built from and its id, when it is a crash state: kept with a
    /// failing state so that `stress-replay` rebuilds it exactly.
    public var trace: String?
    public var crashState: CrashStateID?
    /// A loss in this state is one the engine documents (the source), though its promise for the
    /// threat says otherwise: shown and counted as a documented loss, not failed.
    public var documentedLoss: String?

    public init(round: Int, state: Int = 1, log: AckLog, outcome: CheckOutcome, writerFailure: String? = nil,
                snapshot: String? = nil, threat: StressThreat? = nil, violations: [String] = [],
                trace: String? = nil, crashState: CrashStateID? = nil) {
        self.round = round
        self.state = state
        self.log = log
        self.outcome = outcome
        self.writerFailure = writerFailure
        self.snapshot = snapshot
        self.threat = threat
        self.violations = violations
        self.trace = trace
        self.crashState = crashState
    }
}

/// A scenario that can run: produces the checked states of one case.
public protocol StressScenarioDriver: Sendable {
    var scenario: StressScenario { get }
    /// Runs `budget` on `stressCase`; `seed` makes its random choices reproducible. Throws only
    /// when the harness itself fails (cannot start a child, cannot create a directory); what
    /// the engine does is in the results.
    func run(_ stressCase: StressCase, budget: StressBudget, seed: UInt64, context: StressContext) throws -> [StressRoundResult]
}

/// The scenarios this build can run.
public enum StressScenarios {
    /// One entry per implemented scenario.
    public static let drivers: [StressScenario: any StressScenarioDriver] = [
        .kill: KillScenario(),
        .fullDisk: FullDiskScenario(),
        .contention: ContentionScenario(),
        .soak: SoakScenario(),
        .powerLoss: PowerLossScenario(),
        .ioError: IOErrorScenario(),
    ]

    public static var implemented: [StressScenario] { StressScenario.allCases.filter { drivers[$0] != nil } }

    /// The driver of `scenario`, or `unsupported` naming the scenarios that exist.
    public static func driver(_ scenario: StressScenario) throws -> any StressScenarioDriver {
        guard let driver = drivers[scenario] else {
            throw BenchError(.unsupported, "--scenario \(scenario.rawValue): not implemented in this build (implemented: \(implemented.map(\.rawValue).joined(separator: ", ")))")
        }
        return driver
    }
}

/// The fixed key of encrypted stress stores: the writer and the checker are separate processes,
/// and a kept reproducer must open with `stress-check` alone, so it cannot be random per case as
/// `run`'s is. Not a secret: these stores hold generated readings.
public enum StressKey {
    public static let bytes: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
}
