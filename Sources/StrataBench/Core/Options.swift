// The vocabulary of a run: workloads, writer strategies, durability, encryption, suites (engines:
// Engines/EngineRegistry.swift).
//
// Invariant: every raw value here is the exact spelling used on the command line and in the CSV
// columns (`strategy` as on the command line, `encryption` on|off,
// `durability` full|unsafe|memory). Renaming one breaks committed baselines.

/// A workload: what the writers and readers do (`strata-bench list` describes each).
public enum WorkloadKind: String, CaseIterable, Sendable, Codable {
    case sensors
    case bulkInsert = "bulk-insert"
    case pinnedGrowth = "pinned-growth"
    case compaction
    case encryption
    case readWhileWrite = "read-while-write"
    case reads
    case scale

    public var summary: String {
        switch self {
        case .sensors: return "Realm book's sensors app: 3 sensors, lists trimmed to 10,000, stats reader each second"
        case .bulkInsert: return "N readings in transactions of --batch-size (Realm docs: 1,000 x 1,000)"
        case .pinnedGrowth: return "a reader pins a version while the writer commits small transactions; file size per phase"
        case .compaction: return "build a file that is mostly garbage, time compact, report sizes"
        case .encryption: return "bulk-insert with the key off and on in the same run; overhead ratio"
        case .readWhileWrite: return "count/average/primary-key queries on a reader thread while the writer runs"
        case .reads: return "fill --objects samples, then time scans, aggregates, filters, top-100, key and index lookups, list traversal; answers checked"
        case .scale: return "per --objects size: fill rate, bytes/object, first open in a new process, durable and unsafe one-sample commits, compaction, then the reads"
        }
    }
}

/// How writes travel from the producers to the engine (a writer strategy).
public enum StrategyKind: String, CaseIterable, Sendable, Codable {
    case mainSync = "main-sync"
    case mainAsync = "main-async"
    case gcd
    case dedicated
    case batched
    case async
    case threads

    public var summary: String {
        switch self {
        case .mainSync: return "each reading written synchronously on the main queue"
        case .mainAsync: return "producers enqueue DispatchQueue.main.async { write }"
        case .gcd: return "concurrent DispatchQueue; each block writes through its thread's handle (--writers bounds width)"
        case .dedicated: return "one writer thread owns one handle; one transaction per reading"
        case .batched: return "the dedicated thread buffers; commits per --batch-size or --max-delay; flushes on shutdown"
        case .async: return "Swift concurrency: producers await an actor that owns the handle"
        case .threads: return "--writers threads (default 8), each owning its handle; one transaction per reading"
        }
    }

    /// Whether the strategy needs the main queue drained by the caller.
    public var usesMainQueue: Bool { self == .mainSync || self == .mainAsync }

    /// Whether several writers commit at once (their commit latency is mostly waiting).
    public var hasConcurrentWriters: Bool { self == .gcd || self == .threads }
}

/// The durability promise, identical for every engine: what a returned commit survives.
public enum Durability: String, CaseIterable, Sendable, Codable {
    /// Data durable when the write returns (SQLite: WAL + synchronous=FULL).
    case full
    /// The OS decides when to flush (SQLite: WAL + synchronous=OFF).
    case unsafe
    /// In memory only (SQLite: `:memory:`).
    case memory
}

/// How the sensors workload drops the readings beyond a sensor's cap: the Realm book's two forms.
/// Raw values are the `--trim` spellings and the CSV's `trim` column.
public enum TrimStyle: String, CaseIterable, Sendable, Codable {
    /// Take the oldest out of the list (`removeFirst`), then delete them: the fast form.
    case remove
    /// Delete the oldest (`realm.delete(Array(readings.prefix(excess)))`), which takes them out
    /// of the list as it deletes them: what the book's batched writer does.
    case delete

    public var summary: String {
        switch self {
        case .remove: return "readings.removeFirst(excess), then delete them (default)"
        case .delete: return "realm.delete(Array(readings.prefix(excess))): the book's form (object engines; SQL is the same)"
        }
    }
}

/// Whether the store is encrypted.
public enum EncryptionSetting: String, CaseIterable, Sendable, Codable {
    case off
    case on
}

/// `--encryption off|on|both`.
public enum EncryptionChoice: String, CaseIterable, Sendable {
    case off, on, both

    public var settings: [EncryptionSetting] {
        switch self {
        case .off: return [.off]
        case .on: return [.on]
        case .both: return [.off, .on]
        }
    }
}

/// Named sets of cases.
public enum Suite: String, CaseIterable, Sendable {
    /// CI: small, fixed-count cases; the whole suite finishes in well under 3 minutes.
    case smoke
    /// The Realm book's experiment: every strategy, 10 s each.
    case sensors
    /// Every workload and strategy.
    case full
    /// The scale workload over store sizes (`RunPlan.defaultScaleSizes`; `--objects` overrides).
    case scale

    public var summary: String {
        switch self {
        case .smoke: return "CI gate: every workload on every engine, fixed counts, 3 repetitions, < 3 min"
        case .sensors: return "the book's experiment: every strategy, 10 s each (default)"
        case .full: return "every workload and strategy, longer runs (scale has its own suite)"
        case .scale: return "store sizes 10k, 100k, 1M (--objects overrides): fill, bytes/object, first open, commits, compaction, reads"
        }
    }
}
