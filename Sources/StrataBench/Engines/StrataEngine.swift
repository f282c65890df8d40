// The Strata engine adapter — not yet wired: the object layer (`Strata`) cannot persist the
// sensors model on this branch yet. Until it can, `isAvailable` is false, `run` defaults to
// SQLite, and asking for `--engine strata` fails with a clear `unsupported` error.
// This file is the only one to replace when the adapter lands (see `Engines`).

/// Placeholder for the Strata adapter: opening it fails with `BenchError.Code.unsupported`.
public final class StrataEngine: BenchEngine {
    /// Whether the Strata object layer in this build can run the harness.
    public static let isAvailable = false

    public let kind = EngineKind.strata
    public let effectiveSettings = ""

    public init(_ configuration: EngineConfiguration) throws {
        throw BenchError(.unsupported, "the Strata engine is not available in this build (object layer not merged yet); use --engine sqlite")
    }

    public func makeWriter(placement: WriterPlacement) throws -> any SensorWriter {
        throw BenchError(.unsupported, "Strata engine unavailable")
    }
    public func makeReader(placement: WriterPlacement) throws -> any SensorReader {
        throw BenchError(.unsupported, "Strata engine unavailable")
    }
    public func fileBytes() -> Int64? { nil }
    public func compact() throws { throw BenchError(.unsupported, "Strata engine unavailable") }
    public func close() throws {}
}
