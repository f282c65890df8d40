import Foundation
import Testing
import StrataBench

/// A message that repeats input shows at most 80 characters of it and says how long it was: a
/// 10 MB cell must not become a 10 MB error line.
@Suite("messages clip the input they quote")
struct QuotedInputTests {
    static let huge = String(repeating: "x", count: 10 * 1024 * 1024)

    static func expectClipped(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(message.utf8.count < 2_000, "message of \(message.utf8.count) bytes", sourceLocation: sourceLocation)
        #expect(message.contains("… (\(huge.utf8.count) bytes)"), "\(message.prefix(300))", sourceLocation: sourceLocation)
    }

    @Test func theBaselineRefusalClipsAHugeCell() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SyntheticRun.write(SyntheticRun.csv(revision: "r0", time: "t", readingsPerSecond: [9]), to: dir + "/baselines/smoke.csv")
        try SyntheticRun.write(SyntheticRun.csv(revision: Self.huge, time: "t", readingsPerSecond: [9]), to: dir + "/run.csv")
        let error = #expect(throws: BenchError.self) {
            try Baselines.save(runPaths: [dir + "/run.csv"], name: "smoke", directory: dir + "/baselines")
        }
        #expect(error?.code == .refused)
        Self.expectClipped(error?.description ?? "")
    }

    @Test func aBadCellIsQuotedClipped() throws {
        var table = try CSVReader.parse(SyntheticRun.csv(revision: "r1", time: "t", readingsPerSecond: [10]))
        for column in ["verified", "readings_per_s", "repetition"] {
            let index = try #require(table.column(column))
            let saved = table.rows[0][index]
            table.rows[0][index] = Self.huge
            let error = #expect(throws: BenchError.self) { try RunRecord(table: table, path: "run.csv", suite: "s", source: "run.csv") }
            Self.expectClipped(error?.description ?? "")
            table.rows[0][index] = saved
        }
    }

    @Test func aFlagValueIsQuotedClipped() {
        let error = #expect(throws: BenchError.self) { try NumericFlag.real(Self.huge, flag: "--duration") }
        Self.expectClipped(error?.description ?? "")
        let comparison = try? CSVReader.parse(SyntheticRun.csv(revision: "r1", time: "t", readingsPerSecond: [10], host: Self.huge))
        let other = try? CSVReader.parse(SyntheticRun.csv(revision: "r1", time: "t", readingsPerSecond: [10]))
        if let comparison, let other {
            let report = try? Comparison.compare(baseline: other, baselinePath: "a", current: comparison, currentPath: "b",
                                                 options: ComparisonOptions())
            let warning = report?.warnings.first { $0.hasPrefix("host differs") } ?? ""
            Self.expectClipped(warning)
        }
    }
}
