import Foundation
import Testing
import StrataBench

@Suite("HTML report: durability section")
struct DurabilityHTMLTests {
    static func row(_ scenario: StressScenario, _ engine: EngineKind, _ verdict: StressVerdict, lost: Int, note: String = "") -> StressRow {
        var counts = StressCounts()
        counts.acknowledged = 100
        counts.present = 100 - lost
        counts.lost = lost
        return StressRow(scenario: scenario, stressCase: StressCase(engine: engine, durability: .full, encryption: .off, strategy: .threads, writers: 2),
                         seed: 1, rounds: 1, states: 1, counts: counts, recoveryMs: [2.5], verdict: verdict,
                         promise: "process-death: keeps every ack", reproducers: [], findings: note.isEmpty ? [] : [note])
    }

    @Test func theSectionShowsExactlyTheCSVsRowsAndHighlightsFailures() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SyntheticRun.write(SyntheticRun.csv(revision: "r", time: "t", readingsPerSecond: [1]), to: dir + "/run.csv")
        let rows = [Self.row(.kill, .strata, .pass, lost: 0),
                    Self.row(.fullDisk, .sqlite, .fail, lost: 3, note: "<script>x</script>"),
                    Self.row(.soak, .lmdb, .documentedLoss, lost: 1)]
        try StressReport.csv(rows, machine: MachineInfo.current(), timestamp: "2026-11-26T00:00:00Z")
            .write(toFile: dir + "/stress.csv", atomically: true, encoding: .utf8)
        let html = try RunHTMLReport.render(.init(runPath: dir + "/run.csv", stressPath: dir + "/stress.csv"))
        #expect(!html.contains("<script>"))
        let start = try #require(html.range(of: "<table id=\"durability-table\">"))
        let table = String(html[start.lowerBound...].prefix { _ in true }).components(separatedBy: "</table>")[0]
        let bodyRows = table.components(separatedBy: "<tr").dropFirst(2)  // the header row, then the body's
        #expect(bodyRows.count == 3)
        let csv = try CSVReader.read(path: dir + "/stress.csv")
        for (record, htmlRow) in zip(csv.records, bodyRows) {
            for column in DurabilityHTMLSection.columns {
                #expect(htmlRow.contains("<td data-col=\"\(column)\">\(HTML.text(record[column] ?? ""))</td>"), "\(column) in \(htmlRow)")
            }
        }
        #expect(bodyRows.map { $0.hasPrefix(" class=\"failed\"") } == [false, true, false])
        #expect(bodyRows.map { $0.hasPrefix(" class=\"documented\"") } == [false, false, true])
        #expect(html.contains("3 cases, 1 failed, 1 with a documented loss"))
        // Without --stress there is no section.
        #expect(!(try RunHTMLReport.render(.init(runPath: dir + "/run.csv"))).contains("durability-table"))
    }

    @Test func aFileThatIsNotAStressSummaryIsRefused() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "scenario,engine,durability,encryption,verdict\nkill,strata,full,off,great\n".write(toFile: dir + "/bad.csv", atomically: true, encoding: .utf8)
        #expect { try DurabilityHTMLSection.read(dir + "/bad.csv") } throws: { error in
            (error as? BenchError)?.code == .invalidCSV && (error as? BenchError)?.line == 2
        }
        try "workload,engine\nsensors,strata\n".write(toFile: dir + "/run.csv", atomically: true, encoding: .utf8)
        #expect(throws: BenchError.self) { try DurabilityHTMLSection.read(dir + "/run.csv") }
    }
}
