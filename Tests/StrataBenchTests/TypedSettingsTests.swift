import Foundation
import Testing
import StrataBench

/// A case's settings travel typed from the flag to the CSV and back: a run writes them from its
/// `CaseSpec`, and a reader parses them once, where the CSV is read.
@Suite("typed settings")
struct TypedSettingsTests {
    /// Every setting a case can take comes back from the run's own CSV as the same typed value.
    @Test(arguments: Durability.allCases)
    func aRunsSettingsComeBackFromItsCSVUnchanged(durability: Durability) async throws {
        var results: [CaseResult] = []
        for strategy in [StrategyKind.dedicated, .batched] {
            let spec = CaseSpec(workload: .sensors, engine: .reference, strategy: strategy, batchSize: strategy == .batched ? 7 : 1,
                                maxDelayMs: 5, rate: strategy == .batched ? 5_000 : nil, durability: durability, readings: 30)
            results.append(try await runOne(spec))
        }
        let csv = RunReport.summaryCSV(results, machine: MachineInfo.current(), timestamp: "2026-11-26T00:00:00Z")
        let records = try SummaryValidation.records(CSVReader.parse(csv), path: "run.csv", role: .current)
        #expect(records.map(\.settings) == results.map { CaseSettings($0.spec) })
        #expect(records.map(\.settings.key) == results.map(\.spec.key))
        #expect(records.allSatisfy { $0.settings.durability == durability })
    }

    /// A spelling the harness never writes is refused where the file is read, naming the column.
    @Test(arguments: [("durability", "memOnly"), ("durability", "Full"), ("encryption", "yes"), ("strategy", "main"),
                      ("engine", "postgres"), ("bound", "forever"), ("rate", "fast"), ("max_delay_ms", "1.5")])
    func aSettingTheHarnessNeverWritesIsRefusedWhenRead(column: String, value: String) throws {
        var table = try CSVReader.parse(SyntheticRun.csv(revision: "a", time: "2026-11-01T00:00:00Z", readingsPerSecond: [1, 2]))
        let index = try #require(table.header.firstIndex(of: column))
        table.rows[1][index] = value
        let error = #expect(throws: BenchError.self) { try SummaryValidation.records(table, path: "x.csv", role: .current) }
        #expect(error?.code == .invalidCSV)
        #expect(error?.message.contains(column) == true, "\(error?.message ?? "")")
    }

    /// Files of older versions lack the newest key columns: they still parse, as absent values.
    @Test func olderFilesWithoutTheOptionalColumnsStillParse() throws {
        let full = try CSVReader.parse(SyntheticRun.csv(revision: "a", time: "2026-11-01T00:00:00Z", readingsPerSecond: [1]))
        let keep = full.header.indices.filter { !CaseSettings.optionalColumns.contains(full.header[$0]) }
        let old = CSVTable(header: keep.map { full.header[$0] }, rows: full.rows.map { row in keep.map { row[$0] } })
        let record = try #require(try SummaryValidation.records(old, path: "old.csv", role: .current).first)
        #expect(record.settings.bound == nil && record.settings.maxDelayMs == nil && record.settings.rate == nil)
        #expect(record.settings.key == "sensors/sqlite/dedicated/w1/b1/enc-off/unsafe/closed/d")
    }
}
