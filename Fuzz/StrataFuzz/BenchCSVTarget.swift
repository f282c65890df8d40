// Fuzzes strata-bench's CSV reader (Reports/CSV.swift) and the summary validation a run's CSV
// goes through before it enters the history (RunRecord): the input is the file's text.
//
// Invariant: `CSVReader.parse` throws `BenchError` or gives a table that `CSVWriter` writes back
// to text parsing to the same header and rows; `RunRecord(table:)` then throws `BenchError` or
// accepts. No crash, trap or hang.
import Foundation
import StrataBench

public enum BenchCSVTarget: FuzzTarget {
    public static let name = "bench-csv"
    public static let invariant = "CSVReader.parse throws BenchError or round-trips through CSVWriter; RunRecord throws BenchError or accepts"

    public static func run(_ input: [UInt8]) throws(FuzzFailure) {
        // As CSVReader.read does: text that is not UTF-8 is refused before parsing.
        guard let text = String(validating: input, as: UTF8.self) else { return }
        let table: CSVTable
        do { table = try CSVReader.parse(text) } catch is BenchError { return } catch {
            throw FuzzFailure("parse threw an untyped error \(type(of: error)): \(error)")
        }
        let written = CSVWriter.render(header: table.header, rows: table.rows)
        do {
            let again = try CSVReader.parse(written)
            guard again.header == table.header, again.rows == table.rows else {
                throw FuzzFailure("written back and read again, the table changed:\n\(table.header) \(table.rows)\n---\n\(again.header) \(again.rows)")
            }
        } catch let failure as FuzzFailure {
            throw failure
        } catch {
            throw FuzzFailure("the table written back does not parse: \(error)\n\(written.debugDescription)")
        }
        do { _ = try RunRecord(table: table, path: "fuzz.csv", suite: "fuzz", source: "fuzz") } catch is BenchError {} catch {
            throw FuzzFailure("RunRecord threw an untyped error \(type(of: error)): \(error)")
        }
    }
}
