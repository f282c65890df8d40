import Foundation
import Testing
import StrataBench

/// `--trim delete`: the sensors workload trims as the Realm book's batched writer does, deleting
/// the oldest readings straight out of the list; the result must be the `remove` form's.
@Suite("trim style")
struct TrimStyleTests {
    @Test(arguments: TrimStyle.allCases)
    func bothFormsKeepTheNewestReadingsAndDeleteTheRest(trim: TrimStyle) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let engine = try Engines.open(.strata, EngineConfiguration(directory: dir, durability: .unsafe, trim: trim))
        defer { try? engine.close() }
        let writer = try engine.makeWriter(placement: .currentThread)
        defer { writer.close() }
        try writer.createSensors(["o3"])
        let readings = (1...10_300).map { SensorReading(value: Double($0), seq: Int64($0), timestamp: 0) }
        #expect(try writer.addReadings(sensor: "o3", readings: Array(readings.prefix(10_000))) == 0)
        for chunk in stride(from: 10_000, to: 10_300, by: 100) {
            #expect(try writer.addReadings(sensor: "o3", readings: Array(readings[chunk..<(chunk + 100)])) == 100)
        }
        let reader = try engine.makeReader(placement: .currentThread)
        defer { reader.close() }
        #expect(try reader.sequences(sensor: "o3") == Array(301...10_300).map(Int64.init))
        #expect(try reader.stats().readings == SensorModel.keep)
        #expect(try engine.integrityProblems().isEmpty)
    }

    @Test func aDeleteTrimRunIsItsOwnCaseInTheCSV() async throws {
        var spec = CaseSpec(workload: .sensors, engine: .strata, strategy: .dedicated, durability: .unsafe, readings: 30_600)
        let remove = spec
        spec.trim = .delete
        #expect(spec.key == remove.key + "/trim-delete")
        #expect(remove.key.hasSuffix("/count30600"))
        let result = try await runOne(spec)
        #expect(result.lost == 0 && result.verified, "\(result.note)")
        // 10,200 readings per sensor, 10,000 kept: the book's delete trimmed 200 from each list.
        #expect(result.deleted == 600)
        let csv = RunReport.summaryCSV([result], machine: MachineInfo.current(), timestamp: "2026-11-26T00:00:00Z")
        let record = try #require(try SummaryValidation.records(CSVReader.parse(csv), path: "run.csv", role: .current).first)
        #expect(record["trim"] == "delete")
        #expect(record.settings == CaseSettings(spec))
        #expect(record.settings.key == spec.key)
    }
}
