// The scale workload: one store size (`--objects`, a list makes a sweep: one case per size) and
// what a user meets at that size — how fast the store fills, its bytes per object on disk, how
// long a new process takes to open it, what a one-sample commit costs on it (durable and not),
// how long compaction takes (engines that compact), and the reads workload's figures.
//
// Invariants: the fill and the reads are the reads workload's, on a store of its own, with its
// rows (and its checks); the extra rows follow in `ReadOp.scale` order, each a case of its own
// (the `op` column). The store is closed before the open is timed in a child `strata-bench
// open-store` (the parent times the child from spawn to exit: a first open is what a process
// pays before it can read), and reopened for each durability's commits. After everything, the
// store must hold the fill and every commit, read back through a fresh handle; a store that
// does not fails every row. A store without a file (`--durability memory`, the in-memory
// reference engine) has nothing to reopen: its case has the reads workload's rows only.

import Foundation

enum ScaleWorkload {
    /// One-sample commits timed per durability: durable ones are flush-bound (milliseconds).
    static func commits(_ durability: Durability) -> Int { durability == .full ? 100 : 1_000 }

    static func run(kind: EngineKind, configuration: EngineConfiguration, spec: CaseSpec, executable: String?,
                    stop: StopRequest) async throws -> [CaseResult] {
        let store = try Engines.openReadStore(kind, configuration)
        var rows: [CaseResult]
        do {
            rows = try await ReadsWorkload.run(store: store, spec: spec, stop: stop)
            try store.close()
        } catch {
            try? store.close()
            throw error
        }
        // A store without a file (in memory, or an engine that keeps none) would reopen empty.
        guard configuration.durability != .memory, let fill = rows.first, fill.fileBytesEnd != nil,
              let objects = fill.read?.objects else { return rows }
        let template = fill
        func row(_ op: ReadOp, nanos: UInt64, ops: Int) -> CaseResult {
            var result = template
            result.spec.op = op
            result.read = ReadFigures(op: op, ops: ops, nanos: nanos, objectsScanned: 0, objects: objects,
                                      bytesPerObject: template.read?.bytesPerObject)
            result.durationSeconds = Double(nanos) / 1e9
            result.readings = 0
            result.transactions = 0
            return result
        }
        // The child has no key to open an encrypted store with: such a case has no first-open row.
        if let executable, configuration.encryptionKey == nil {
            try stop.check()
            let nanos = try firstOpen(kind: kind, configuration: configuration, executable: executable)
            rows.append(row(.firstOpen, nanos: nanos, ops: 1))
        }
        let dataset = ReadDataset(objects: objects)
        var next = objects
        for durability in [Durability.full, .unsafe] {
            var reopened = configuration
            reopened.durability = durability
            let store = try Engines.openReadStore(kind, reopened)
            let recorder = LatencyRecorder()
            let count = commits(durability)
            var total: UInt64 = 0
            do {
                for _ in 0..<count {
                    try stop.check()
                    let start = monotonicNanos()
                    try store.insert([dataset.sample(next)])
                    let took = monotonicNanos() - start
                    recorder.record(nanos: took)
                    total += took
                    next += 1
                }
                try store.close()
            } catch {
                try? store.close()
                throw error
            }
            var result = row(durability == .full ? .commitFull : .commitUnsafe, nanos: total, ops: count)
            result.commit = recorder.summary()
            result.readings = count
            result.transactions = count
            result.engineSettings = store.effectiveSettings
            rows.append(result)
        }
        let filled = try Engines.openReadStore(kind, configuration)
        do {
            if let compactable = filled as? any CompactableReadStore {
                try stop.check()
                let before = filled.fileBytes()
                let start = monotonicNanos()
                try compactable.compact()
                let nanos = monotonicNanos() - start
                var result = row(.compact, nanos: nanos, ops: 1)
                result.compactMs = Double(nanos) / 1e6
                result.fileBytesPeak = before
                result.fileBytesCompacted = filled.fileBytes()
                result.fileBytesEnd = result.fileBytesCompacted
                rows.append(result)
            }
            let queries = try filled.makeQueries()
            let stored = try queries.iterateAll().count
            queries.close()
            try filled.close()
            if stored != next {
                for index in rows.indices {
                    rows[index].verified = false
                    rows[index].note += (rows[index].note.isEmpty ? "" : "; ")
                        + "the store holds \(stored) samples after the commits, expected \(next)"
                }
            }
        } catch {
            try? filled.close()
            throw error
        }
        return rows
    }

    /// Nanoseconds from spawning `executable open-store` on the closed store to the child's exit.
    static func firstOpen(kind: EngineKind, configuration: EngineConfiguration, executable: String) throws -> UInt64 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["open-store", "--engine", kind.rawValue, "--dir", configuration.directory,
                             "--durability", configuration.durability.rawValue]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let start = monotonicNanos()
        do {
            try process.run()
        } catch {
            throw BenchError(.io, "cannot start \(executable) open-store: \(error.localizedDescription)", path: executable)
        }
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let nanos = monotonicNanos() - start
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let message = String(decoding: said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw BenchError(.engine, "\(executable) open-store failed (status \(process.terminationStatus)): \(QuotedInput.clip(message))",
                             path: configuration.directory)
        }
        return nanos
    }
}
