import Foundation
import Testing
@testable import StrataBench

/// `integrityProblems()` and `sensors()` of every engine adapter, on intact stores (sensors with
/// and without readings) and on an LMDB store damaged behind the engine's back.
@Suite("engine integrity checks", .serialized)
struct EngineIntegrityTests {
    static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-integrity-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static var engines: [EngineKind] { EngineKind.allCases.filter { $0.isBuiltIn || PeerLibrary.shouldTest($0) } }

    @Test(arguments: engines)
    func intactStoreHasNoProblemsAndListsEverySensor(engine: EngineKind) throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let key = Engines.supports(engine, encryption: .on) ? StressKey.bytes : nil
        let store = try Engines.open(engine, EngineConfiguration(directory: directory, durability: .full, encryptionKey: key))
        defer { try? store.close() }
        let writer = try store.makeWriter(placement: .currentThread)
        try writer.createSensors(["b", "a", "c"])
        _ = try writer.addReadings(sensor: "a", readings: (1...5).map { SensorReading(value: 1, seq: $0, timestamp: 0) })
        writer.close()
        #expect(try store.integrityProblems() == [])
        let reader = try store.makeReader(placement: .currentThread)
        defer { reader.close() }
        #expect(try reader.sensors() == ["a", "b", "c"])
        #expect(try reader.sequences(sensor: "a") == [1, 2, 3, 4, 5])
    }

    @Test(.enabled(if: PeerLibrary.shouldTest(.lmdb), PeerLibrary.reason(.lmdb)))
    func lmdbReadingMissingFromItsWindowIsAProblem() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try LMDBEngine(EngineConfiguration(directory: directory, durability: .full))
        defer { try? store.close() }
        let writer = try store.makeWriter(placement: .currentThread)
        try writer.createSensors(["a"])
        _ = try writer.addReadings(sensor: "a", readings: (1...3).map { SensorReading(value: 1, seq: $0, timestamp: 0) })
        try store.environment.write { txn in
            try LMDBTransaction(environment: store.environment, txn: txn).delete(store.environment.readings, LMDBRecords.readingKey("a", 1))
        }
        let problems = try store.integrityProblems()
        #expect(problems.count == 1)
        #expect(problems.first?.contains("window 0..<3") == true)
    }
}
