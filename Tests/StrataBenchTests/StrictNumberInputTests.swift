import Foundation
import Testing
import StrataBench

/// Numbers read from CSV cells, history imports and flags are decimal text and nothing else: a
/// NUL byte does not end a number ("5\0abc" is not 5) and hexadecimal is not decimal ("0x10" is
/// not 16).
@Suite("strict numbers in the inputs")
struct StrictNumberInputTests {
    static let nonDecimal = ["5\u{0}abc", "0x10", "0X1p4", "1\u{0}", " 5", "5 ", "1 000", "inf", "nan", "+", ".", "1e", "--5", "٥"]

    /// A valid run CSV with one cell replaced.
    static func run(column: String, cell: String) throws -> CSVTable {
        var table = try CSVReader.parse(SyntheticRun.csv(revision: "r1", time: "2026-11-01T00:00:00Z", readingsPerSecond: [10, 11]))
        let index = try #require(table.column(column))
        table.rows[0][index] = cell
        return table
    }

    @Test(arguments: ["readings_per_s", "lost", "repetition", "commit_p50_us", "memory_bytes"])
    func compareRefusesANumberThatIsNotDecimal(column: String) throws {
        let good = try CSVReader.parse(SyntheticRun.csv(revision: "r0", time: "2026-10-01T00:00:00Z", readingsPerSecond: [10, 11]))
        for cell in Self.nonDecimal {
            let bad = try Self.run(column: column, cell: cell)
            let error = #expect(throws: BenchError.self, "\(column) = \(cell.debugDescription)") {
                try Comparison.compare(baseline: good, baselinePath: "base.csv", current: bad, currentPath: "run.csv",
                                       options: ComparisonOptions())
            }
            #expect(error?.code == .invalidCSV)
            #expect(error?.path == "run.csv" && error?.line == 2)
            // The same file is no baseline either, and the history does not take it.
            #expect(throws: BenchError.self) {
                try Comparison.compare(baseline: bad, baselinePath: "base.csv", current: good, currentPath: "run.csv",
                                       options: ComparisonOptions())
            }
            #expect(throws: BenchError.self) { try RunRecord(table: bad, path: "run.csv", suite: "s", source: "run.csv") }
        }
    }

    @Test func baselineAndHistoryImportRefuseAHexadecimalCellOnTheCommandLine() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SyntheticRun.write(CSVWriter.render(header: try Self.run(column: "lost", cell: "0x10").header,
                                                rows: try Self.run(column: "lost", cell: "0x10").rows), to: dir + "/hex.csv")
        let baseline = try CLI.run(["baseline", "hex.csv", "--name", "hex"], in: dir)
        #expect(baseline.status == 1 && baseline.stderr.contains("'lost'"), "\(baseline.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/results/baselines/hex.csv"))
        let imported = try CLI.run(["history", "import", "--history", "h.sqlite", "hex.csv"], in: dir)
        #expect(imported.status == 1 && imported.stderr.contains("invalidCSV"), "\(imported.stderr)")
    }

    @Test func numericFlagsTakeDecimalTextOnly() throws {
        for text in ["0x10", "0x1p4", "5\u{0}", "5\u{0}abc", "1_000", "1 0"] {
            #expect(throws: BenchError.self, "--duration \(text.debugDescription)") { try NumericFlag.real(text, flag: "--duration") }
            #expect(throws: BenchError.self, "--readings \(text.debugDescription)") { try NumericFlag.integer(text, flag: "--readings") }
        }
        #expect(try NumericFlag.real(" 2.5 ", flag: "--duration") == 2.5)
        #expect(try NumericFlag.integer("1e6", flag: "--readings") == 1_000_000)
        #expect(try NumericFlag.integer("9223372036854775807", flag: "--readings") == Int.max)
        #expect(try NumericFlag.integer("-9223372036854775808", flag: "--readings") == Int.min)
        #expect(throws: BenchError.self) { try NumericFlag.integer("9223372036854775808", flag: "--readings") }
    }

    @Test func commandLineNumbersOfCompareAreDecimalToo() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SyntheticRun.write(SyntheticRun.csv(revision: "r1", time: "t", readingsPerSecond: [10]), to: dir + "/a.csv")
        let compare = try CLI.run(["compare", "a.csv", "a.csv", "--threshold", "0x10"], in: dir)
        #expect(compare.status == 64, "\(compare.stderr)")
        let paired = try CLI.run(["compare-paired", "--base", "a.csv", "--current", "a.csv", "--threshold", "0x10"], in: dir)
        #expect(paired.status == 64, "\(paired.stderr)")
    }
}
