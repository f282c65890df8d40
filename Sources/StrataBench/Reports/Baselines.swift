// Baselines: validated copies of run CSVs under results/baselines/NAME.csv.
//
// Invariant: a baseline is only written from a file `compare` can read (same validation), so a
// committed baseline can never be the reason a CI gate fails with "invalid input".

import Foundation

public enum Baselines {
    /// Validates `runPath` and copies it to `directory/NAME.csv`; returns the written path.
    public static func save(runPath: String, name: String, directory: String = "results/baselines") throws -> String {
        try save(runPaths: [runPath], name: name, directory: directory)
    }

    /// Validates each run and writes their rows, in order, to `directory/NAME.csv` (the header of
    /// the first; the others must have the same header). Several passes of a suite make steadier
    /// medians than one.
    public static func save(runPaths: [String], name: String, directory: String = "results/baselines") throws -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !name.isEmpty, name.count <= 100, name.allSatisfy({ allowed.contains($0) }), !name.hasPrefix(".") else {
            throw BenchError(.invalidOption, "--name '\(name)': use letters, digits, '.', '_' or '-' (not starting with '.')")
        }
        guard let first = runPaths.first else {
            throw BenchError(.invalidOption, "no run CSV given")
        }
        var header: [String] = []
        var rows: [[String]] = []
        for path in runPaths {
            let table = try CSVReader.read(path: path)
            _ = try Comparison.Side(table: table, path: path)
            if header.isEmpty {
                header = table.header
            } else if table.header != header {
                throw BenchError(.invalidCSV, "the header differs from \(first)'s", path: path, line: 1, column: 1)
            }
            rows += table.rows
        }
        let target = (directory as NSString).appendingPathComponent(name + ".csv")
        try CSVWriter.write(CSVWriter.render(header: header, rows: rows), to: target)
        return target
    }
}

/// Parses a command-line choice into one of an enum's raw values.
public enum Choice {
    public static func parse<T: RawRepresentable & CaseIterable>(_ value: String, flag: String, as: T.Type) throws -> T
    where T.RawValue == String {
        if let choice = T(rawValue: value) { return choice }
        let known = T.allCases.map(\.rawValue).joined(separator: ", ")
        throw BenchError(.invalidOption, "\(flag) \(value): unknown value (expected one of: \(known))")
    }
}
