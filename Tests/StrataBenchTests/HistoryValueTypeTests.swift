// A history whose cells hold a value of another type than the schema declares (SQLite's columns
// take any type, and quick_check does not look at types: a foreign writer or damage inside a
// record) is a BenchError(.invalidHistory) for every reading verb, never a stop of the process.
// Found by the bench-history fuzz target (Fuzz/Regressions/bench-history holds the files).
import Foundation
import GRDB
import Testing
import StrataBench

@Suite("history values of another type")
struct HistoryValueTypeTests {
    /// A history of one run, then `sql` run on it directly.
    func history(altered sql: String) throws -> String {
        let path = try historyScratch() + "/history.sqlite"
        let store = try HistoryStore(path: path)
        _ = try store.append(RunRecord(table: CSVReader.parse(SyntheticRun.csv(revision: "r1", time: "2026-11-01T00:00:00Z",
                                                                                 readingsPerSecond: [1000, 1100])),
                                       path: "r1.csv", suite: "test", source: "test"))
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: sql) }
        try queue.close()
        return path
    }

    func expectInvalidHistory(_ body: () throws -> Void) {
        do {
            try body()
            Issue.record("read without an error")
        } catch let error as BenchError {
            #expect(error.code == .invalidHistory, "\(error)")
        } catch {
            Issue.record("untyped error \(error)")
        }
    }

    @Test func aTextCountInRunsIsAnError() throws {
        let path = try history(altered: "UPDATE runs SET cases = 'many'")
        expectInvalidHistory { _ = try HistoryStore(path: path, access: .readOnly).runs() }
    }

    @Test func aTextMeasurementIsAnError() throws {
        let path = try history(altered: "UPDATE measurements SET value = 'fast'")
        let store = try HistoryStore(path: path, access: .readOnly)
        expectInvalidHistory { _ = try store.observations(metric: "readings_per_s", filter: .init()) }
    }

    @Test func blobCellsAreAnErrorOfTheExport() throws {
        let path = try history(altered: "UPDATE results SET cells = x'ff00'")
        let store = try HistoryStore(path: path, access: .readOnly)
        expectInvalidHistory { _ = try HistoryExport.points(store) }
    }
}
