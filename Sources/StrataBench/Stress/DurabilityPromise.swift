// What each engine promises, per durability, against process death and against power loss: the
// bar `stress` holds it to. A loss the engine promises against fails the run; a loss its own
// documentation allows is shown and counted, not failed.
//
// Each engine adapter states its own promises (`RegisteredEngine.promises`), with their sources.
// Durability `memory` has no promise: nothing survives a process, so it is not stressed (the
// runner skips it with a note).

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
    /// Where the engine documents that it ignores a failed flush of a directory (so that, after
    /// one, later commits are acknowledged and a power cut may lose them), nil when it does not.
    public var ignoresFailedDirectoryFlush: String? = nil
    /// Where the engine documents that a commit whose flush fails is abandoned whole and that
    /// later commits never depend on its pages (LMDB's copy-on-write never overwrites a live page;
    /// SQLite publishes a WAL commit only after its sync succeeded), so acknowledging them after
    /// the failure is safe: nil when it does not. Those
    /// acknowledgements are then noted, not failed, and the crash state after the failure still
    /// has to keep every one of them.
    public var abandonsCommitOnFailedFlush: String? = nil

    public func guarantee(_ threat: StressThreat) -> StressGuarantee {
        threat == .powerLoss ? powerLoss : processDeath
    }

    /// The promise of `engine` at `durability` (its adapter's `promises`), nil when that
    /// durability is not stressed.
    public static func of(_ engine: EngineKind, _ durability: Durability) -> DurabilityPromise? {
        Engines.adapter(engine)?.promises[durability]
    }

    // Power loss without flushes (sync OFF / MDB_NOSYNC): SQLite's and LMDB's documentation both
    // say the database may be corrupted, not only recent commits lost.
    static let unflushed = StressGuarantee(keepsAcknowledged: false, staysIntact: false, atomic: false)
}
