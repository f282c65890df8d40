// What each engine promises, per durability, against process death and against power loss: the
// bar `stress` holds it to. A loss the engine promises against fails the run; a loss its own
// documentation allows is shown and counted, not failed.
//
// One table keyed by `EngineKind.rawValue` (not a switch over engines), so a new engine adds a
// row and the engine registry can take the table over. Durability `memory` has no row: nothing
// survives a process, so it is not stressed (the runner skips it with a note).

/// What survives one threat.
public struct StressGuarantee: Sendable, Equatable {
    /// Every acknowledged commit is there afterwards.
    public var keepsAcknowledged: Bool
    /// The store opens and passes its integrity check afterwards.
    public var staysIntact: Bool
    /// No transaction is seen in part, no sensor's readings have a gap (no wrong data).
    public var atomic: Bool

    public init(keepsAcknowledged: Bool, staysIntact: Bool, atomic: Bool) {
        self.keepsAcknowledged = keepsAcknowledged
        self.staysIntact = staysIntact
        self.atomic = atomic
    }

    public static let everything = StressGuarantee(keepsAcknowledged: true, staysIntact: true, atomic: true)

    /// For the CSV's `promise` column.
    public var summary: String {
        if self == .everything { return "keeps every ack" }
        var parts: [String] = []
        if !keepsAcknowledged { parts.append("may lose recent acks") }
        if !staysIntact { parts.append("may refuse to open") }
        if !atomic { parts.append("may corrupt") }
        return parts.joined(separator: ", ")
    }
}

/// One engine's promise at one durability.
public struct DurabilityPromise: Sendable, Equatable {
    public var processDeath: StressGuarantee
    public var powerLoss: StressGuarantee
    /// Where the engine documents it.
    public var source: String

    public func guarantee(_ threat: StressThreat) -> StressGuarantee {
        threat == .powerLoss ? powerLoss : processDeath
    }

    /// The promise of `engine` at `durability`, nil when that durability is not stressed.
    public static func of(_ engine: EngineKind, _ durability: Durability) -> DurabilityPromise? {
        table[engine.rawValue]?[durability]
    }

    // Power loss without flushes (sync OFF / MDB_NOSYNC): SQLite's and LMDB's documentation both
    // say the database may be corrupted, not only recent commits lost.
    private static let unflushed = StressGuarantee(keepsAcknowledged: false, staysIntact: false, atomic: false)

    static let sqlite: [Durability: DurabilityPromise] = [
        .full: DurabilityPromise(processDeath: .everything, powerLoss: .everything,
                                 source: "sqlite.org/pragma.html#pragma_synchronous (WAL, synchronous=FULL: durable)"),
        .unsafe: DurabilityPromise(processDeath: .everything, powerLoss: unflushed,
                                   source: "sqlite.org/pragma.html#pragma_synchronous (OFF: safe if the application crashes; OS crash or power loss may corrupt)"),
    ]

    static let table: [String: [Durability: DurabilityPromise]] = [
        EngineKind.strata.rawValue: [
            .full: DurabilityPromise(processDeath: .everything, powerLoss: .everything,
                                     source: "Sources/StrataStorage/File/StorageOptions.swift, Durability.full (durable when the commit returns)"),
            // A torn or damaged previous version is reported as .corruptFile, never as wrong data.
            .unsafe: DurabilityPromise(processDeath: .everything,
                                       powerLoss: StressGuarantee(keepsAcknowledged: false, staysIntact: false, atomic: true),
                                       source: "Sources/StrataStorage/File/StorageOptions.swift, Durability.unsafe (process crash loses nothing; power loss may lose recent commits or open as .corruptFile, never wrong data)"),
        ],
        EngineKind.sqlite.rawValue: sqlite,
        EngineKind.sqlcipher.rawValue: sqlite.mapValues {
            DurabilityPromise(processDeath: $0.processDeath, powerLoss: $0.powerLoss, source: "as SQLite (SQLCipher is SQLite's pager with a page codec): " + $0.source)
        },
        EngineKind.lmdb.rawValue: [
            .full: DurabilityPromise(processDeath: .everything, powerLoss: .everything,
                                     source: "lmdb.tech/doc, mdb_env_open (default: every commit flushed; crash-proof)"),
            .unsafe: DurabilityPromise(processDeath: .everything, powerLoss: unflushed,
                                       source: "lmdb.tech/doc, mdb_env_open MDB_NOSYNC (a system crash may undo the last transactions or corrupt the database; an application crash does not)"),
        ],
    ]
}
