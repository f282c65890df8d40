import Foundation
import Testing
import StrataBench

@Suite("CSV writing and reading")
struct CSVTests {
    @Test func roundTripKeepsEveryCell() throws {
        let header = ["name", "value", "note"]
        let rows = [
            ["plain", "1.5", ""],
            ["with,comma", "2", "say \"hi\""],
            ["multi\nline", "3", " leading space"],
            ["trailing ", "", "a\r\nb"],
        ]
        let text = CSVWriter.render(header: header, rows: rows)
        let table = try CSVReader.parse(text)
        #expect(table.header == header)
        #expect(table.rows == rows)
    }

    /// A record of one empty cell is not a blank line: written as `""`, read back as [""], with or
    /// without a final newline (found by the bench-csv fuzz target: the row was lost).
    @Test func aRecordOfOneEmptyCellRoundTrips() throws {
        let table = CSVTable(header: ["time"], rows: [[""], ["x"], [""]])
        let text = CSVWriter.render(header: table.header, rows: table.rows)
        let read = try CSVReader.parse(text)
        #expect(read.header == table.header && read.rows == table.rows)
        #expect(try CSVReader.parse("time\n\"\"\n").rows == [[""]])
        #expect(try CSVReader.parse("time\n\"\"").rows == [[""]])
        #expect(try CSVReader.parse("time\n\nx\n").rows == [["x"]])  // a blank line is still skipped
    }

    /// A quote followed by a combining mark is one Character but two scalars: the writer doubles
    /// the quote all the same (found by the bench-csv fuzz target: the cell ended early).
    @Test func aQuoteBeforeACombiningMarkIsDoubled() throws {
        let rows = [["b \"q\"\u{5C5}x", "a\"\u{301}"]]
        let text = CSVWriter.render(header: ["h1", "h2"], rows: rows)
        #expect(text.unicodeScalars.filter { $0 == "\"" }.count == 10)
        #expect(try CSVReader.parse(text).rows == rows)
    }

    @Test func recordsRenderMissingKeysAsEmptyCells() throws {
        let text = CSVWriter.render(columns: ["a", "b", "c"], records: [["a": "1", "c": "3"]])
        #expect(text == "a,b,c\n1,,3\n")
        #expect(try CSVReader.parse(text).record(0) == ["a": "1", "b": "", "c": "3"])
    }

    @Test func acceptsCRLFAndMissingFinalNewline() throws {
        let table = try CSVReader.parse("a,b\r\n1,2\r\n3,4")
        #expect(table.rows == [["1", "2"], ["3", "4"]])
        #expect(table.rowLines == [2, 3])
    }

    @Test func reportsCellPositions() throws {
        let table = try CSVReader.parse("a,bb,c\n1,\"x,y\",zz\n")
        #expect(table.position(row: 0, column: 0) == (2, 1))
        #expect(table.position(row: 0, column: 1).column == 3)
        #expect(table.position(row: 0, column: 2).column == 9)
    }

    @Test func unterminatedQuoteNamesWhereItOpened() {
        let error = #expect(throws: BenchError.self) { try CSVReader.parse("a,b\n1,\"open\n2,3\n", path: "x.csv") }
        #expect(error?.code == .invalidCSV)
        #expect(error?.path == "x.csv")
        #expect(error?.line == 2)
        #expect(error?.column == 3)
        #expect(error?.description.hasPrefix("x.csv:2:3: ") == true)
    }

    @Test func quoteInsideUnquotedCellIsAnError() {
        let error = #expect(throws: BenchError.self) { try CSVReader.parse("a,b\n1,x\"y\n") }
        #expect(error?.code == .invalidCSV)
        #expect(error?.line == 2)
        #expect(error?.column == 4)
    }

    @Test func textAfterClosingQuoteIsAnError() {
        let error = #expect(throws: BenchError.self) { try CSVReader.parse("a\n\"x\"y\n") }
        #expect(error?.code == .invalidCSV)
        #expect(error?.line == 2)
        #expect(error?.column == 4)
    }

    @Test func rowWidthMustMatchHeader() {
        let error = #expect(throws: BenchError.self) { try CSVReader.parse("a,b\n1,2\n1,2,3\n") }
        #expect(error?.code == .invalidCSV)
        #expect(error?.line == 3)
        #expect(error?.message.contains("3 cells") == true)
    }

    @Test func emptyFileAndBadHeadersAreErrors() {
        #expect(throws: BenchError.self) { try CSVReader.parse("") }
        let duplicate = #expect(throws: BenchError.self) { try CSVReader.parse("a,b,a\n1,2,3\n") }
        #expect(duplicate?.column == 3)
        let empty = #expect(throws: BenchError.self) { try CSVReader.parse("a,,c\n") }
        #expect(empty?.column == 2)
    }

    @Test func missingFileIsAnIOError() {
        let error = #expect(throws: BenchError.self) { try CSVReader.read(path: "/nonexistent/run.csv") }
        #expect(error?.code == .io)
        #expect(error?.path == "/nonexistent/run.csv")
    }

    @Test func numbersHaveNoUnitsOrSeparators() {
        #expect(CSVNumber.format(1234567.0) == "1234567")
        #expect(CSVNumber.format(12.3456, digits: 2) == "12.35")
        #expect(CSVNumber.format(0.5) == "0.5")
        #expect(CSVNumber.format(Double?.none) == "")
        #expect(CSVNumber.format(Double.nan) == "")
    }
}

@Suite("Summary rows")
struct SummaryRowTests {
    static let machine = MachineInfo(host: "h", cpuModel: "cpu, fast", cores: 2, os: "Linux", swiftVersion: "6.3",
                                     build: "release", gitRevision: "abc")

    @Test func requiredColumnsComeFirstInTheIssuesOrder() {
        let issue = "timestamp, host, git_rev, build, workload, engine, strategy, writers, batch_size, encryption, durability, repetition, duration_s, readings, transactions, readings_per_s, transactions_per_s, commit_p50_us, commit_p99_us, commit_max_us, e2e_p50_us, e2e_p99_us, backlog_max, file_bytes_end, file_bytes_peak, file_bytes_compacted, compact_ms, live_objects, lost, cpu_user_s, cpu_sys_s, peak_rss_bytes"
        let expected = issue.components(separatedBy: ", ")
        #expect(Array(SummaryColumns.all.prefix(expected.count)) == expected)
        #expect(Set(SummaryColumns.all).count == SummaryColumns.all.count)
    }

    @Test func rowRendersValuesAndLeavesUnknownsEmpty() throws {
        var result = CaseResult(spec: CaseSpec(workload: .sensors, engine: .sqlite, strategy: .gcd, writers: 8, readings: 90))
        result.durationSeconds = 2
        result.readings = 90
        result.transactions = 90
        result.lost = 0
        result.allocatorFigures = nil
        let text = RunReport.summaryCSV([result], machine: Self.machine, timestamp: "2026-11-21T21:00:00Z")
        let table = try CSVReader.parse(text)
        let row = table.record(0)
        #expect(row["readings_per_s"] == "45")
        #expect(row["strategy"] == "gcd")
        #expect(row["writers"] == "8")
        #expect(row["bound"] == "count")
        #expect(row["commit_p50_us"] == "")
        #expect(row["jemalloc_allocated_bytes"] == "")
        #expect(row["cpu_model"] == "cpu, fast")
        #expect(row["encryption"] == "off")
        #expect(row["durability"] == "full")
    }
}
