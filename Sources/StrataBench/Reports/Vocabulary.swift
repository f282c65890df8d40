// What the harness knows how to run, as `strata-bench list --json` prints it: every registered
// engine with its colour and availability, and the workloads, strategies, durabilities, suites
// and stress scenarios in their report order. Scripts (the plots) read this instead of keeping copies of their own.

import Foundation

public struct Vocabulary: Codable, Sendable, Equatable {
    public struct Engine: Codable, Sendable, Equatable {
        public var name: String
        public var summary: String
        public var role: EngineRole
        public var colour: String
        /// Nil when the engine can run here.
        public var unavailable: String?
        /// Nil when the engine can run encrypted.
        public var noEncryption: String?
    }

    public struct Entry: Codable, Sendable, Equatable {
        public var name: String
        public var summary: String
    }

    public var engines: [Engine]
    public var workloads: [Entry]
    public var strategies: [Entry]
    public var durabilities: [String]
    public var encryption: [String]
    public var suites: [Entry]
    /// `strata-bench stress --scenario` values (those not built yet say so).
    public var scenarios: [Entry]

    /// The vocabulary of this build on this machine.
    public static func current() -> Vocabulary {
        Vocabulary(
            engines: Engines.registered.map {
                Engine(name: $0.kind.rawValue, summary: $0.summary, role: $0.role, colour: $0.colour,
                       unavailable: $0.unavailability, noEncryption: $0.encryptionUnavailability)
            },
            workloads: WorkloadKind.allCases.map { Entry(name: $0.rawValue, summary: $0.summary) },
            strategies: StrategyKind.allCases.map { Entry(name: $0.rawValue, summary: $0.summary) },
            durabilities: Durability.allCases.map(\.rawValue),
            encryption: EncryptionSetting.allCases.map(\.rawValue),
            suites: Suite.allCases.map { Entry(name: $0.rawValue, summary: $0.summary) },
            scenarios: StressScenario.allCases.map {
                Entry(name: $0.rawValue, summary: $0.summary + (StressScenarios.drivers[$0] == nil ? " (not implemented yet)" : ""))
            })
    }

    /// Pretty-printed JSON with sorted keys (stable output for scripts and diffs).
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            return String(decoding: try encoder.encode(self), as: UTF8.self)
        } catch {
            throw BenchError(.io, "cannot encode the vocabulary: \(error)")
        }
    }
}
