// A case that fails its end-of-run check carries the state of its store in its note.
import Foundation
import Testing
import StrataBench

@Suite("Store summary of a failed case")
struct StoreSummaryTests {
    private func withStrataStore(_ body: (StrataEngine) throws -> Void) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let engine = try StrataEngine(EngineConfiguration(directory: dir, durability: .unsafe))
        defer { try? engine.close() }
        let writer = try engine.makeWriter(placement: .currentThread)
        try writer.createSensors(["o3", "no2"])
        _ = try writer.addReadings(sensor: "o3", readings: (1...3).map { SensorReading(value: Double($0), seq: Int64($0), timestamp: 0) })
        writer.close()
        try body(engine)
    }

    @Test func aFailedCaseNamesItsStore() throws {
        try withStrataStore { engine in
            var result = CaseResult(spec: CaseSpec(workload: .sensors, engine: .strata, strategy: .dedicated, readings: 3))
            result.verified = false
            result.note = "store holds 3 readings, expected 4"
            BenchRunner.attachStoreSummary(&result, engine: engine)
            #expect(result.note.hasPrefix("store holds 3 readings, expected 4; store: version "))
            #expect(result.note.contains("2 classes: Reading 3, Sensor 2"), "\(result.note)")
        }
    }

    @Test func aPassingCaseIsLeftAlone() throws {
        try withStrataStore { engine in
            var result = CaseResult(spec: CaseSpec(workload: .sensors, engine: .strata, strategy: .dedicated, readings: 3))
            BenchRunner.attachStoreSummary(&result, engine: engine)
            #expect(result.note.isEmpty)
        }
    }

    @Test func anEngineWithoutASummaryAddsNothing() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let engine = try SQLiteEngine(EngineConfiguration(directory: dir, durability: .unsafe))
        defer { try? engine.close() }
        var result = CaseResult(spec: CaseSpec(workload: .sensors, engine: .sqlite, strategy: .dedicated, readings: 3))
        result.lost = 1
        BenchRunner.attachStoreSummary(&result, engine: engine)
        #expect(result.note.isEmpty)
    }
}
