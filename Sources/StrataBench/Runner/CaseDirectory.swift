// Where a case keeps its stores: a directory of its own under the run's directory, created empty
// before the case and removed after it (also when it fails), and the engine configuration that
// points there, with a fresh random key when the case is encrypted.

import Foundation

enum CaseDirectory {
    /// Creates `path` (and its parents), or throws `.io` naming `what`.
    static func create(_ path: String, what: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw BenchError(.io, "cannot create \(what): \(error.localizedDescription)", path: path)
        }
    }

    /// Runs `body` with `path` created for it, and removes `path` afterwards.
    static func using<R>(_ path: String, _ body: () async throws -> R) async throws -> R {
        try create(path, what: "the case directory")
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body()
    }

    /// The key an encrypted case runs with: 64 random bytes; nil for a plain case.
    static func key(for spec: CaseSpec) -> [UInt8]? {
        spec.encryption == .on ? (0..<64).map { _ in UInt8.random(in: 0...255) } : nil
    }

    /// The configuration of `spec`'s engine with its stores in `path`.
    static func configuration(_ spec: CaseSpec, in path: String, key: [UInt8]?) -> EngineConfiguration {
        EngineConfiguration(directory: path, durability: spec.durability, encryptionKey: key, trim: spec.trim)
    }
}
