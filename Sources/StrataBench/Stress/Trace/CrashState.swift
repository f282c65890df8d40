// One possible disk after a power cut: the files under the root, with the bytes a crash at that
// point could have left, and what was decided for each pending change (to describe and replay).

import Foundation

/// What happened to one pending data change in a crash state.
public struct PendingDecision: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        case kept
        case dropped
        /// A torn write: only its first `bytes` bytes (whole 512-byte sectors) reached the disk.
        case torn(bytes: Int)
    }

    /// The record of the change in the trace.
    public let record: Int
    public let outcome: Outcome
}

/// A crash state: the files a crash at `id.crashPoint` could have left, by root-relative path.
public struct CrashState: Sendable {
    public let id: CrashStateID
    public let files: [String: [UInt8]]
    /// The acknowledgements the writer sent before the crash point, in order: what the checker
    /// may demand to find.
    public let acknowledgements: [[UInt8]]
    /// The pending data changes, in the order the state applied them (dropped ones included).
    public let decisions: [PendingDecision]
    /// How many of the pending name changes (a prefix, in trace order) the state applied.
    public let namesApplied: Int
    /// The pending name changes, described ("create db", "rename a→b").
    public let pendingNames: [String]
    /// A 64-bit hash of the paths and contents: equal states have equal hashes.
    public let contentHash: UInt64

    init(id: CrashStateID, files: [String: [UInt8]], acknowledgements: [[UInt8]], decisions: [PendingDecision],
         namesApplied: Int, pendingNames: [String]) {
        self.id = id
        self.files = files
        self.acknowledgements = acknowledgements
        self.decisions = decisions
        self.namesApplied = namesApplied
        self.pendingNames = pendingNames
        contentHash = Self.hash(files)
    }

    /// One line: the id (to replay), the acknowledgements, each pending change's fate, the names.
    public var summary: String {
        let changes = decisions.map { d -> String in
            switch d.outcome {
            case .kept: "#\(d.record) kept"
            case .dropped: "#\(d.record) dropped"
            case .torn(let bytes): "#\(d.record) torn@\(bytes)"
            }
        }
        let names = pendingNames.enumerated().map { "\($1) \($0 < namesApplied ? "kept" : "dropped")" }
        return "\(id) acks=\(acknowledgements.count) data[\(changes.joined(separator: ", "))] "
            + "names[\(names.joined(separator: ", "))] hash=\(String(contentHash, radix: 16))"
    }

    /// Writes the state's files into `directory`, which must exist and be empty.
    public func materialise(into directory: String) throws(BenchError) {
        let manager = FileManager.default
        let entries: [String]
        do { entries = try manager.contentsOfDirectory(atPath: directory) } catch {
            throw BenchError(.io, "cannot list the crash state's directory: \(error)", path: directory)
        }
        guard entries.isEmpty else { throw BenchError(.refused, "the crash state's directory is not empty", path: directory) }
        for (path, content) in files.sorted(by: { $0.key < $1.key }) {
            let url = URL(fileURLWithPath: directory).appendingPathComponent(path)
            do {
                try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(content).write(to: url)
            } catch {
                throw BenchError(.io, "cannot write the crash state's file \(path): \(error)", path: url.path)
            }
        }
    }

    static func hash(_ files: [String: [UInt8]]) -> UInt64 {
        // Eight bytes per step (FNV-style multiply, xor-shift to spread high bits down): states
        // of a multi-MiB store are hashed per variant, and a byte loop dominated building them.
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ word: UInt64) {
            hash = (hash ^ word) &* 0x0000_0100_0000_01B3
            hash ^= hash >> 29
        }
        func mix(_ bytes: UnsafeRawBufferPointer) {
            mix(UInt64(bytes.count))
            var at = 0
            while at + 8 <= bytes.count {
                mix(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
                at += 8
            }
            var tail: UInt64 = 0
            for i in at..<bytes.count { tail |= UInt64(bytes[i]) << (8 * UInt64(i - at)) }
            mix(tail)
        }
        for (path, content) in files.sorted(by: { $0.key < $1.key }) {
            Array(path.utf8).withUnsafeBytes { mix($0) }
            content.withUnsafeBytes { mix($0) }
        }
        return hash
    }
}
