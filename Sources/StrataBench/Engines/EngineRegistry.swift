// The engines the harness drives, each described once, by its own adapter.
//
// An adapter states its name, whether it can run here, whether it has encryption, its chart
// colour and the line the report prints about it, next to the code that opens it. The command
// line (`--engine`, `list`), the runner, the text and HTML reports and the plots (through
// `strata-bench list --json`) read those facts from `Engines.registered` and from nowhere else.
// Adding an engine is one adapter file (conforming to `RegisteredEngine` and declaring its
// `EngineKind`) plus its line in `Engines.registered`.
//
// Invariant: `EngineKind` values exist only for registered engines: the command line, CSV files
// and the history can name no other (`EngineKind(rawValue:)` fails for an unknown name).

/// The name of an engine under test: the spelling used on the command line and in CSV columns.
public struct EngineKind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// A kind for a registration (an adapter's `kind`); everything else parses names.
    init(registering name: String) {
        rawValue = name
    }

    /// The registered engine of that name, nil for any other name.
    public init?(rawValue: String) {
        guard Engines.registered.contains(where: { $0.kind.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    /// Every registered engine, in registration order (the order of reports and charts).
    public static var allCases: [EngineKind] { Engines.registered.map { $0.kind } }

    public var description: String { rawValue }

    /// Whether the engine runs without being named (see `EngineRole`).
    public var isBuiltIn: Bool { Engines.adapter(self)?.role == .builtIn }
}

/// When an engine takes part in a run.
public enum EngineRole: String, Sendable, Codable {
    /// Built into every binary; a run without `--engine` compares these, so the same cases run
    /// on every machine (and in the perf gate's base builds).
    case builtIn = "built-in"
    /// A peer loaded at run time when installed: runs when named or with `--engine all`.
    case peer
    /// A reference for the harness's own tests: runs only when named.
    case reference
}

/// An engine adapter together with the facts the rest of the harness needs about it.
public protocol RegisteredEngine: BenchEngine {
    static var kind: EngineKind { get }
    /// One line for `list`.
    static var summary: String { get }
    static var role: EngineRole { get }
    /// Its colour in the HTML report's charts and in the plots (`#rrggbb`).
    static var colour: String { get }
    /// Why it cannot run here (its library is missing: the line that installs it), nil if it can.
    static var unavailability: String? { get }
    /// Why it cannot run encrypted, nil if it can.
    static var encryptionUnavailability: String? { get }
    /// What the engine is and what each durability means for it, for the note under the table.
    static var reportNote: String { get }
    /// What a commit survives at each durability it can be stressed at, with where the engine
    /// documents it (`strata-bench stress` holds the engine to it).
    static var promises: [Durability: DurabilityPromise] { get }
    /// Opens a store in `configuration.directory`: a fresh one in an empty directory, the one
    /// there (recovered as the engine recovers it) otherwise.
    init(_ configuration: EngineConfiguration) throws
}

extension RegisteredEngine {
    public var kind: EngineKind { Self.kind }
}

/// The registry, and opening engines by kind.
public enum Engines {
    /// Every engine the harness knows, in the order reports and charts show them.
    public static let registered: [any RegisteredEngine.Type] = [
        StrataEngine.self,
        SQLiteEngine.self,
        LMDBEngine.self,
        SQLCipherEngine.self,
        ReferenceEngine.self,
    ]

    /// The adapter registered as `kind`.
    public static func adapter(_ kind: EngineKind) -> (any RegisteredEngine.Type)? {
        registered.first { $0.kind == kind }
    }

    /// Whether `kind` can honour `encryption`.
    public static func supports(_ kind: EngineKind, encryption: EncryptionSetting) -> Bool {
        encryption == .off || encryptionUnavailability(kind) == nil
    }

    /// Why `kind` cannot run encrypted, nil if it can.
    public static func encryptionUnavailability(_ kind: EngineKind) -> String? {
        guard let adapter = adapter(kind) else { return "\(kind) is not a registered engine" }
        return adapter.unavailability ?? adapter.encryptionUnavailability
    }

    /// Whether `kind` is built into this binary and usable.
    public static func isAvailable(_ kind: EngineKind) -> Bool {
        unavailability(kind) == nil
    }

    /// Why `kind` cannot run here, or nil when it can.
    public static func unavailability(_ kind: EngineKind) -> String? {
        guard let adapter = adapter(kind) else { return "\(kind) is not a registered engine" }
        return adapter.unavailability
    }

    /// The engines a run without `--engine` compares: the built-in ones.
    public static var defaultKinds: [EngineKind] {
        registered.filter { $0.role == .builtIn && $0.unavailability == nil }.map { $0.kind }
    }

    /// The engines `--engine all` names: every available one but the references.
    public static var allKinds: [EngineKind] {
        registered.filter { $0.role != .reference && $0.unavailability == nil }.map { $0.kind }
    }

    /// The engine `run` uses when none is named: the first built-in one that can run.
    public static var defaultKind: EngineKind { defaultKinds.first ?? StrataEngine.kind }

    /// Opens a store of `kind` (see `RegisteredEngine.init`).
    public static func open(_ kind: EngineKind, _ configuration: EngineConfiguration) throws -> any BenchEngine {
        guard let adapter = adapter(kind) else {
            throw BenchError(.invalidOption, "\(kind) is not a registered engine")
        }
        return try adapter.init(configuration)
    }

    /// A chart colour per engine name, for series that are engines.
    public static func colour(_ name: String) -> String? {
        registered.first { $0.kind.rawValue == name }?.colour
    }
}
