import Foundation
import Testing
import StrataBench

@Suite("the flush floor of durable rows")
struct FloorTests {
    static let machine = MachineInfo(host: "h/0000abcd", cpuModel: "cpu", cores: 2, os: "Linux", swiftVersion: "6.3",
                                     build: "release", gitRevision: "abc")

    static func temporaryDirectory() throws -> String {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("floor-tests-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func theProbeMeasuresBothFlushesAndLeavesNothingBehind() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let floor = try FloorProbe.measure(directory: directory, samples: 3)
        #expect(floor.samples == 3)
        #expect(floor.inPlaceP50 > 0)
        #expect(floor.appendP50 > 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    @Test func aMissingDirectoryIsATypedError() throws {
        #expect(throws: BenchError.self) {
            try FloorProbe.measure(directory: "/nonexistent-floor-directory/below", samples: 1)
        }
        do {
            _ = try FloorProbe.measure(directory: "/nonexistent-floor-directory/below", samples: 1)
        } catch let error as BenchError {
            #expect(error.code == .io)
            #expect(error.message.contains("open"))
        }
    }

    /// A real run: a durable Strata case and an `unsafe` one, in a temporary directory.
    @Test func aDurableRowCarriesTheFloorAndAnUnsafeRowDoesNot() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cases = [
            CaseSpec(workload: .sensors, engine: .strata, strategy: .dedicated, durability: .full, readings: 60),
            CaseSpec(workload: .sensors, engine: .strata, strategy: .dedicated, durability: .unsafe, readings: 60),
        ]
        let results = try await BenchRunner(cases: cases, directory: directory).run()
        #expect(results.count == 2)
        let table = try CSVReader.parse(RunReport.summaryCSV(results, machine: Self.machine, timestamp: "t"))
        for column in FloorColumns.all {
            #expect(table.column(column) != nil, "missing column \(column)")
        }
        let records = try SummaryValidation.records(table, path: "run.csv", role: .current)
        let durable = try #require(records.first { $0.settings.durability == .full })
        let floor = try #require(durable["floor_us"].flatMap(Double.init))
        let append = try #require(durable["floor_append_us"].flatMap(Double.init))
        let p50 = try #require(durable["commit_p50_us"].flatMap(Double.init))
        let ratio = try #require(durable["commit_p50_over_floor"].flatMap(Double.init))
        #expect(floor > 0)
        #expect(append > 0)
        // The cells are rounded (0.1 µs, 0.001): the ratio matches p50 / floor to that precision.
        #expect(abs(ratio - p50 / floor) <= 0.001 + ratio * 0.01)
        let unsafe = try #require(records.first { $0.settings.durability == .unsafe })
        for column in FloorColumns.all {
            #expect(unsafe[column] == "", "\(column) should be empty on an unsafe row")
        }
        // Only durable runs show the floor in the terminal table.
        #expect(RunReport.table(results).contains("p50/floor"))
        #expect(!RunReport.table(results.filter { $0.spec.durability == .unsafe }).contains("p50/floor"))
    }

    @Test(arguments: [
        ("floor_us", "fast"), ("floor_us", "-3"), ("floor_append_us", "nan"), ("commit_p50_over_floor", "1.2x"),
    ])
    func aMalformedFloorCellReadBackIsATypedError(column: String, value: String) throws {
        var result = CaseResult(spec: CaseSpec(workload: .sensors, engine: .sqlite, strategy: .dedicated,
                                               durability: .full, readings: 30))
        result.durationSeconds = 0.5
        result.readings = 30
        result.transactions = 30
        result.floor = FloorMeasurement(inPlaceP50: 80, appendP50: 120, samples: 3)
        let written = try CSVReader.parse(RunReport.summaryCSV([result], machine: Self.machine, timestamp: "t"))
        #expect(written.record(0)["floor_us"] == "80")
        var records = written.records
        records[0][column] = value
        let table = try CSVReader.parse(CSVWriter.render(columns: written.header, records: records))
        do {
            _ = try SummaryValidation.records(table, path: "run.csv", role: .current)
            Issue.record("'\(value)' in \(column) was accepted")
        } catch let error as BenchError {
            #expect(error.code == .invalidCSV)
            #expect(error.message.contains("column '\(column)'"))
        }
    }
}
