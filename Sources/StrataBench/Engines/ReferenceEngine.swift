// The reference engine: the sensors model in a dictionary under a lock, with no file at all.
//
// It exists for the harness's own tests: a store whose behaviour is obvious, so that a test of
// the runner, the reports or the verdicts checks the harness and not an engine. It is registered
// like any engine (this file and its line in `Engines.registered` are all it takes) but runs only
// when named (`--engine reference`), never with `--engine all`.
//
// Invariants: every write is one critical section, so a reader sees a write whole or not at all;
// a pinned reader keeps a copy of the contents (copy on write makes that cheap), so later writes
// do not change what it reads. Nothing survives the process: it promises no durability.

import Foundation

extension EngineKind {
    public static let reference = EngineKind(registering: "reference")
}

public final class ReferenceEngine: RegisteredEngine, @unchecked Sendable {
    public static let kind = EngineKind.reference
    public static let summary = "in-memory dictionary for the harness's own tests (runs only when named)"
    public static let role = EngineRole.reference
    public static let colour = "#7f7f7f"
    public static let unavailability: String? = nil
    public static let encryptionUnavailability: String? = "the reference engine keeps plain values in memory"
    public static let reportNote = "reference = the harness's in-memory reference store (no file, no durability)"
    /// Nothing survives the process: not stressed.
    public static let promises: [Durability: DurabilityPromise] = [:]

    /// What the store holds. A value: readers copy it to pin a version.
    struct Contents {
        var sensors: [String: [SensorReading]] = [:]
        var standalone: [SensorReading] = []
    }

    public let effectiveSettings = "memory"
    /// `@unchecked Sendable`: `contents` is only touched under `lock`.
    private let lock = NSLock()
    private var contents = Contents()

    public init(_ configuration: EngineConfiguration) throws {
        if configuration.encryptionKey != nil {
            throw BenchError(.unsupported, Self.encryptionUnavailability ?? "no encryption")
        }
    }

    func withContents<T>(_ body: (inout Contents) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&contents)
    }

    public func makeWriter(placement: WriterPlacement) throws -> any SensorWriter { ReferenceWriter(self) }
    public func makeReader(placement: WriterPlacement) throws -> any SensorReader { ReferenceReader(self) }
    public func fileBytes() -> Int64? { nil }
    public func work() -> EngineWork { EngineWork() }
    public func compact() throws {}
    public func close() throws {}

    /// A list holds readings in the order they were added: a sequence that goes back is damage.
    public func integrityProblems() throws -> [String] {
        withContents { contents in
            contents.sensors.sorted { $0.key < $1.key }.compactMap { symbol, readings in
                zip(readings, readings.dropFirst()).contains { $0.seq >= $1.seq } ? "\(symbol): sequence out of order" : nil
            }
        }
    }
}

final class ReferenceWriter: SensorWriter {
    private let engine: ReferenceEngine

    init(_ engine: ReferenceEngine) { self.engine = engine }

    func createSensors(_ symbols: [String]) throws {
        engine.withContents { contents in
            for symbol in symbols where contents.sensors[symbol] == nil { contents.sensors[symbol] = [] }
        }
    }

    func addReadings(sensor: String, readings: [SensorReading]) throws -> Int {
        try addReadings(batch: [(sensor, readings)])
    }

    /// The whole batch or nothing: a missing sensor fails it before anything changes.
    func addReadings(batch: [(sensor: String, readings: [SensorReading])]) throws -> Int {
        try engine.withContents { contents in
            if let missing = batch.first(where: { contents.sensors[$0.sensor] == nil }) {
                throw BenchError(.engine, "no sensor '\(missing.sensor)' in the reference store")
            }
            var deleted = 0
            for part in batch {
                contents.sensors[part.sensor, default: []].append(contentsOf: part.readings)
                let excess = (contents.sensors[part.sensor]?.count ?? 0) - SensorModel.keep
                if excess > 0 {
                    contents.sensors[part.sensor]?.removeFirst(excess)
                    deleted += excess
                }
            }
            return deleted
        }
    }

    func insertStandalone(_ readings: [SensorReading]) throws {
        engine.withContents { $0.standalone.append(contentsOf: readings) }
    }

    func deleteStandalone(seqBelow bound: Int64) throws -> Int {
        engine.withContents { contents in
            let before = contents.standalone.count
            contents.standalone.removeAll { $0.seq < bound }
            return before - contents.standalone.count
        }
    }

    func close() {}
}

final class ReferenceReader: SensorReader {
    private let engine: ReferenceEngine
    private var pinned: ReferenceEngine.Contents?

    init(_ engine: ReferenceEngine) { self.engine = engine }

    private func current() -> ReferenceEngine.Contents {
        pinned ?? engine.withContents { $0 }
    }

    func stats() throws -> StoreStats {
        let contents = current()
        var averages: [String: Double?] = [:]
        for (symbol, readings) in contents.sensors {
            let latest = readings.suffix(SensorModel.keep)
            averages[symbol] = latest.isEmpty ? nil : latest.reduce(0) { $0 + $1.value } / Double(latest.count)
        }
        let listed = contents.sensors.values.reduce(0) { $0 + $1.count }
        return StoreStats(readings: listed + contents.standalone.count, sensors: contents.sensors.count, averages: averages)
    }

    func sequences(sensor: String) throws -> [Int64] {
        current().sensors[sensor]?.map(\.seq) ?? []
    }

    func readingCount(sensor: String) throws -> Int? {
        current().sensors[sensor]?.count
    }

    func sensors() throws -> [String] {
        current().sensors.keys.sorted()
    }

    func pin() throws {
        pinned = engine.withContents { $0 }
    }

    func unpin() {
        pinned = nil
    }

    func close() {
        pinned = nil
    }
}
