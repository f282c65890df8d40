import Foundation
import Testing
import StrataBench

@Suite("summary CSV cells and host identity")
struct SummaryValidationTests {
    static let machine = MachineInfo(host: "h/0000abcd", cpuModel: "cpu", cores: 2, os: "Linux", swiftVersion: "6.3",
                                     build: "release", gitRevision: "abc")

    /// A valid two-row run as CSV text, with `change` applied to the second row.
    static func run(_ change: (inout [String: String]) -> Void = { _ in }, interrupted: Bool = false) throws -> CSVTable {
        var results: [CaseResult] = []
        for repetition in 1...2 {
            var result = CaseResult(spec: CaseSpec(workload: .sensors, engine: .sqlite, strategy: .dedicated,
                                                   durability: .unsafe, readings: 30, repetition: repetition))
            result.durationSeconds = 0.5
            result.readings = 30
            result.transactions = 30
            results.append(result)
        }
        let table = try CSVReader.parse(RunReport.summaryCSV(results, machine: machine, timestamp: "t", interrupted: interrupted))
        var records = table.records
        change(&records[1])
        return try CSVReader.parse(CSVWriter.render(columns: table.header, records: records))
    }

    static func rejection(_ table: CSVTable, role: SummaryValidation.Role = .current) -> BenchError? {
        do {
            try SummaryValidation.validate(table, path: "run.csv", role: role)
            return nil
        } catch let error as BenchError {
            return error
        } catch {
            return BenchError(.io, "\(error)")
        }
    }

    @Test func aRunAsWrittenIsValid() throws {
        #expect(Self.rejection(try Self.run()) == nil)
        #expect(Self.rejection(try Self.run(), role: .baseline) == nil)
    }

    @Test(arguments: [
        ("verified", "maybe", "column 'verified' must be 'true' or 'false', found 'maybe'"),
        ("durability", "sometimes", "column 'durability' must be 'full', 'unsafe' or 'memory', found 'sometimes'"),
        ("encryption", "", "column 'encryption' must be 'off' or 'on', found ''"),
        ("bound", "forever", "column 'bound'"),
        ("engine", "oracle", "column 'engine'"),
        ("strategy", "fibers", "column 'strategy'"),
        ("readings_per_s", "-12.5", "column 'readings_per_s' must be a number of at least 0, found '-12.5'"),
        ("commit_p50_us", "nan", "column 'commit_p50_us'"),
        ("file_bytes_end", "1e400", "column 'file_bytes_end'"),
        ("lost", "", "column 'lost'"),
        ("writers", "0", "column 'writers' must be a whole number of at least 1"),
        ("repetition", "1.5", "column 'repetition'"),
        ("pinned_extra_bytes", "lots", "column 'pinned_extra_bytes' must be a number"),
        ("interrupted", "perhaps", "column 'interrupted'"),
    ])
    func aBadCellIsRejectedAtItsLineAndColumn(column: String, value: String, message: String) throws {
        let table = try Self.run { $0[column] = value }
        let error = try #require(Self.rejection(table))
        #expect(error.code == .invalidCSV)
        #expect(error.message.hasPrefix(message), "\(error.message)")
        #expect(error.line == 3)
        let index = try #require(table.column(column))
        #expect(error.column == table.position(row: 1, column: index).column)
    }

    @Test func negativeExtraBytesAreAllowed() throws {
        #expect(Self.rejection(try Self.run { $0["pinned_extra_bytes"] = "-4096" }) == nil)
    }

    @Test func anInterruptedRunIsACurrentRunButNeverABaseline() throws {
        let table = try Self.run(interrupted: true)
        #expect(table.records.allSatisfy { $0["interrupted"] == "true" })
        #expect(Self.rejection(table) == nil)
        let error = try #require(Self.rejection(table, role: .baseline))
        #expect(error.message.contains("cannot be a baseline"))
        #expect(error.line == 2)
    }

    @Test func compareRejectsAnInvalidCurrentRunWithItsPosition() throws {
        let good = try Self.run()
        let bad = try Self.run { $0["verified"] = "maybe" }
        let error = #expect(throws: BenchError.self) {
            try Comparison.compare(baseline: good, baselinePath: "base.csv", current: bad, currentPath: "cur.csv",
                                   options: ComparisonOptions())
        }
        #expect(error?.description.hasPrefix("cur.csv:3:") == true, "\(String(describing: error))")
    }

    @Test func newColumnsComeLastAndOldFilesWithoutThemStillRead() throws {
        // After the machine columns, then the counted-work columns, then the floor's, then the
        // reads workload's (each added after the ones before it).
        let note = try #require(SummaryColumns.all.firstIndex(of: "note"))
        #expect(Array(SummaryColumns.all[(note + 1)...(note + 3)]) == ["memory_bytes", "kernel", "interrupted"])
        #expect(Array(SummaryColumns.all.suffix(WorkFigures.columns.count + FloorColumns.all.count + SummaryColumns.reads.count))
                == WorkFigures.columns + FloorColumns.all + SummaryColumns.reads)
        let old = try Self.run()
        let kept = old.header.filter { !["memory_bytes", "kernel", "interrupted"].contains($0) }
        let records = old.records.map { record in record.filter { kept.contains($0.key) } }
        let table = try CSVReader.parse(CSVWriter.render(columns: kept, records: records))
        #expect(Self.rejection(table, role: .baseline) == nil)
    }

    @Test func theHostIsTheNamePlusAFingerprintOfTheMachine() {
        let here = MachineInfo.current()
        let parts = here.host.split(separator: "/")
        #expect(parts.count == 2)
        #expect(parts.last?.count == 8 && parts.last?.allSatisfy(\.isHexDigit) == true, "\(here.host)")
        #expect(here.memoryBytes > 0)
        #expect(here.kernel != "unknown" && !here.kernel.isEmpty)
        let base = MachineInfo.identity(hostName: "vm", cpuModel: "Xeon", cores: 2, memoryBytes: 24 << 30, kernel: "6.1")
        #expect(base == MachineInfo.identity(hostName: "vm", cpuModel: "Xeon", cores: 2, memoryBytes: (24 << 30) - (3 << 20), kernel: "6.1"))
        for other in [MachineInfo.identity(hostName: "vm", cpuModel: "EPYC", cores: 2, memoryBytes: 24 << 30, kernel: "6.1"),
                      MachineInfo.identity(hostName: "vm", cpuModel: "Xeon", cores: 4, memoryBytes: 24 << 30, kernel: "6.1"),
                      MachineInfo.identity(hostName: "vm", cpuModel: "Xeon", cores: 2, memoryBytes: 16 << 30, kernel: "6.1"),
                      MachineInfo.identity(hostName: "vm", cpuModel: "Xeon", cores: 2, memoryBytes: 24 << 30, kernel: "6.12"),
                      MachineInfo.identity(hostName: "ci", cpuModel: "Xeon", cores: 2, memoryBytes: 24 << 30, kernel: "6.1")] {
            #expect(other != base)
        }
        // A row carries the fingerprint's parts too.
        var info = Self.machine
        info.memoryBytes = 1 << 30
        info.kernel = "6.1.0"
        let row = CaseResult(spec: CaseSpec(workload: .sensors, engine: .sqlite, strategy: .dedicated)).row(machine: info, timestamp: "t")
        #expect(row["memory_bytes"] == "1073741824" && row["kernel"] == "6.1.0" && row["host"] == "h/0000abcd")
    }

    @Test func briefMarkdownListsEachRegressionOnce() throws {
        let base = try Self.run()
        let slow = try Self.run { $0["lost"] = "2" }
        let report = try Comparison.compare(baseline: base, baselinePath: "b", current: slow, currentPath: "c",
                                            options: ComparisonOptions())
        let brief = Comparison.render(report, format: .markdown, verbose: false)
        let lines = brief.split(separator: "\n").filter { $0.contains("| lost |") && $0.contains("regressed") }
        #expect(lines.count == 1, "\(brief)")
    }
}
