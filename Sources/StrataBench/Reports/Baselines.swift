// Baselines: validated copies of run CSVs under results/baselines/NAME.csv.
//
// Invariant: a baseline is only written from a file `compare` can read (same validation), so a
// committed baseline can never be the reason a CI gate fails with "invalid input".

import Foundation

public enum Baselines {
    /// Validates `runPath` and copies it to `directory/NAME.csv`; returns the written path.
    public static func save(runPath: String, name: String, directory: String = "results/baselines") throws -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !name.isEmpty, name.count <= 100, name.allSatisfy({ allowed.contains($0) }), !name.hasPrefix(".") else {
            throw BenchError(.invalidOption, "--name '\(name)': use letters, digits, '.', '_' or '-' (not starting with '.')")
        }
        let table = try CSVReader.read(path: runPath)
        _ = try Comparison.Side(table: table, path: runPath)
        let target = (directory as NSString).appendingPathComponent(name + ".csv")
        try CSVWriter.write(CSVWriter.render(header: table.header, rows: table.rows), to: target)
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
