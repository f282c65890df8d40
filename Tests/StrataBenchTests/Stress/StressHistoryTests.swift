import Foundation
import Testing
import StrataBench

@Suite("history: stress results")
struct StressHistoryTests {
    static func stressCSV(in dir: String) throws -> String {
        let rows = [DurabilityHTMLTests.row(.kill, .strata, .pass, lost: 0),
                    DurabilityHTMLTests.row(.fullDisk, .sqlite, .fail, lost: 3, note: "a \"quoted\", comma'd note")]
        let path = dir + "/stress.csv"
        try StressReport.csv(rows, machine: MachineInfo.current(), timestamp: "2026-11-26T00:00:00Z")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func anImportedStressCSVRoundTripsAndIsNotStoredTwice() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Self.stressCSV(in: dir)
        let store = try HistoryStore(path: dir + "/history.sqlite")
        #expect(try store.appendStress(path: path) == .added(id: 1, rows: 2))
        #expect(try store.appendStress(path: path) == .alreadyPresent(id: 1))
        let stored = try store.stressResults()
        #expect(stored.count == 2)
        let rebuilt = CSVTable(header: try #require(stored.first).header, rows: stored.map(\.cells))
        #expect(rebuilt == (try CSVReader.read(path: path)))
        let failing = try store.stressResults(scenario: "full-disk")
        #expect(failing.map(\.verdict) == ["fail"])
        #expect(failing.first?.lost == 3)
        #expect(failing.first?.engine == "sqlite")
        // Stress rows are not runs: the runs table is untouched.
        #expect(try store.runs().isEmpty)
    }

    @Test func theCommandLineImportsAndShowsThem() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Self.stressCSV(in: dir)
        let imported = try CLI.run(["history", "import-stress", "--history", dir + "/h.sqlite", path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("added 2 stress rows"))
        let shown = try CLI.run(["history", "stress", "--history", dir + "/h.sqlite", "--engine", "sqlite"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("full-disk") && shown.stdout.contains("fail"))
        #expect(!shown.stdout.contains("kill"))
        try "workload,engine\nsensors,strata\n".write(toFile: dir + "/run.csv", atomically: true, encoding: .utf8)
        let refused = try CLI.run(["history", "import-stress", "--history", dir + "/h.sqlite", dir + "/run.csv"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("not a stress summary"), "\(refused.stderr)")
    }
}
