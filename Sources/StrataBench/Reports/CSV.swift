// CSV writing and reading (RFC 4180: comma separator, '"' quoting, '""' for a quote inside).
//
// Invariants: `CSVWriter` quotes exactly the cells that need it (comma, quote, CR, LF, or leading
// or trailing space), so `CSVReader.parse(CSVWriter.render(t)) == t` for every table `t`.
// The reader reports every malformed input as `BenchError(.invalidCSV)` with the file, the 1-based
// line and column of the offending character: unterminated quote, a quote inside an unquoted
// cell, text after a closing quote, a row whose width differs from the header, an empty file,
// duplicate header names.

import Foundation

/// A parsed CSV file: a header and rows of the same width.
public struct CSVTable: Sendable, Equatable {
    // Equality compares header and cells only (positions are provenance, not content).
    public var header: [String]
    public var rows: [[String]]
    /// 1-based line on which each row starts (for error messages).
    public var rowLines: [Int]
    /// 1-based line and column at which each cell of each row starts (for error messages).
    public var cellPositions: [[(line: Int, column: Int)]]

    public init(header: [String], rows: [[String]], rowLines: [Int]? = nil,
                cellPositions: [[(line: Int, column: Int)]]? = nil) {
        self.header = header
        self.rows = rows
        self.rowLines = rowLines ?? rows.indices.map { $0 + 2 }
        self.cellPositions = cellPositions ?? rows.enumerated().map { index, row in
            row.indices.map { (line: index + 2, column: $0 + 1) }
        }
    }

    public static func == (lhs: CSVTable, rhs: CSVTable) -> Bool {
        lhs.header == rhs.header && lhs.rows == rhs.rows
    }

    /// Where cell `column` of row `row` starts.
    public func position(row: Int, column: Int) -> (line: Int, column: Int) {
        guard row < cellPositions.count, column < cellPositions[row].count else { return (rowLines[row], 1) }
        return cellPositions[row][column]
    }

    /// Row `index` as a dictionary keyed by header name.
    public func record(_ index: Int) -> [String: String] {
        var record: [String: String] = [:]
        for (column, name) in header.enumerated() { record[name] = rows[index][column] }
        return record
    }

    public var records: [[String: String]] { rows.indices.map(record) }

    /// Column index of `name`, nil if absent.
    public func column(_ name: String) -> Int? { header.firstIndex(of: name) }
}

public enum CSVWriter {
    /// Renders a header and rows (missing keys render as empty cells), ending with a newline.
    public static func render(columns: [String], records: [[String: String]]) -> String {
        render(header: columns, rows: records.map { record in columns.map { record[$0] ?? "" } })
    }

    public static func render(header: [String], rows: [[String]]) -> String {
        var text = line(header)
        for row in rows { text += line(row) }
        return text
    }

    static func line(_ cells: [String]) -> String {
        // A record of one empty cell is written quoted: unquoted it would be a blank line, which
        // the reader skips.
        if cells == [""] { return "\"\"\n" }
        return cells.map(quote).joined(separator: ",") + "\n"
    }

    static func quote(_ cell: String) -> String {
        // Scalars, not Characters: "\r\n" is one Character equal to neither "\r" nor "\n".
        let needs = cell.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            || cell.hasPrefix(" ") || cell.hasSuffix(" ")
        guard needs else { return cell }
        // Quotes doubled scalar by scalar: `replacingOccurrences` compares Characters, and a quote
        // followed by a combining mark is one Character that is not `"`, so it stayed single and
        // the reader (which reads scalars) saw the cell end there.
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in cell.unicodeScalars {
            quoted.append(scalar)
            if scalar == "\"" { quoted.append(scalar) }
        }
        quoted.append("\"")
        return String(quoted)
    }

    /// Writes `text` to `path`, creating parent directories; replaces only a regular file
    /// (`OutputFiles.write`).
    public static func write(_ text: String, to path: String) throws {
        try OutputFiles.write(text, to: path)
    }
}

public enum CSVReader {
    /// Reads and parses a file.
    public static func read(path: String) throws -> CSVTable {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BenchError(.io, "cannot read the file (missing or unreadable)", path: path)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw BenchError(.invalidCSV, "not UTF-8 text", path: path, line: 1, column: 1)
        }
        return try parse(text, path: path)
    }

    /// Parses CSV text; `path` only labels errors.
    public static func parse(_ text: String, path: String = "<input>") throws -> CSVTable {
        var records: [[String]] = []
        var recordLines: [Int] = []
        var positions: [[(line: Int, column: Int)]] = []
        var recordPositions: [(line: Int, column: Int)] = []
        var cell = ""
        var record: [String] = []
        var line = 1
        var column = 0
        var recordLine = 1
        var inQuotes = false
        var afterQuote = false   // just closed a quoted cell: only , or end of line may follow
        var cellStarted = false
        var quoteLine = 1
        var quoteColumn = 1

        func fail(_ message: String) -> BenchError {
            BenchError(.invalidCSV, message, path: path, line: line, column: column)
        }

        var iterator = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        while let scalar = pending ?? iterator.next() {
            pending = nil
            column += 1
            if !inQuotes && !cellStarted && !afterQuote && recordPositions.count == record.count
                && scalar != "," && scalar != "\n" && scalar != "\r" {
                recordPositions.append((line, column))
            }
            if inQuotes {
                if scalar == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" {
                            cell.unicodeScalars.append("\"")
                            column += 1
                        } else {
                            inQuotes = false
                            afterQuote = true
                            pending = next
                        }
                    } else {
                        inQuotes = false
                        afterQuote = true
                    }
                } else {
                    cell.unicodeScalars.append(scalar)
                    if scalar == "\n" { line += 1; column = 0 }
                }
                continue
            }
            switch scalar {
            case ",":
                if recordPositions.count == record.count { recordPositions.append((line, column)) }
                record.append(cell)
                cell = ""
                afterQuote = false
                cellStarted = false
            case "\r":
                // Accept CRLF line ends: the LF that follows ends the record.
                column -= 1
            case "\n":
                if recordPositions.count == record.count { recordPositions.append((line, column)) }
                record.append(cell)
                // A blank line is skipped; `""` alone on a line is a record of one empty cell.
                if !(record.count == 1 && record[0].isEmpty && !afterQuote) {
                    records.append(record)
                    recordLines.append(recordLine)
                    positions.append(recordPositions)
                }
                record = []
                recordPositions = []
                cell = ""
                afterQuote = false
                cellStarted = false
                line += 1
                column = 0
                recordLine = line
            case "\"":
                if afterQuote || cellStarted {
                    throw fail("a quote inside an unquoted cell (quote the whole cell and double inner quotes)")
                }
                inQuotes = true
                cellStarted = true
                quoteLine = line
                quoteColumn = column
            default:
                if afterQuote { throw fail("text after a closing quote") }
                cell.unicodeScalars.append(scalar)
                cellStarted = true
            }
        }
        if inQuotes {
            throw BenchError(.invalidCSV, "a quoted cell is never closed", path: path, line: quoteLine, column: quoteColumn)
        }
        if !record.isEmpty || !cell.isEmpty || afterQuote {
            if recordPositions.count == record.count { recordPositions.append((line, column + 1)) }
            record.append(cell)
            records.append(record)
            recordLines.append(recordLine)
            positions.append(recordPositions)
        }
        guard let header = records.first else {
            throw BenchError(.invalidCSV, "empty file: expected a header row", path: path, line: 1, column: 1)
        }
        var seen = Set<String>()
        for (index, name) in header.enumerated() {
            if name.isEmpty {
                throw BenchError(.invalidCSV, "header cell \(index + 1) is empty", path: path, line: recordLines[0], column: index + 1)
            }
            if !seen.insert(name).inserted {
                throw BenchError(.invalidCSV, "duplicate column '\(QuotedInput.clip(name))' in the header", path: path, line: recordLines[0], column: index + 1)
            }
        }
        for (index, row) in records.enumerated().dropFirst() where row.count != header.count {
            throw BenchError(.invalidCSV, "row has \(row.count) cells, the header has \(header.count)",
                             path: path, line: recordLines[index], column: 1)
        }
        return CSVTable(header: header, rows: Array(records.dropFirst()), rowLines: Array(recordLines.dropFirst()),
                        cellPositions: Array(positions.dropFirst()))
    }
}
