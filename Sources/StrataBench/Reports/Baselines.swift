// Baselines: validated copies of run CSVs under results/baselines/NAME.csv.
//
// Invariants: a baseline is only written from a file `compare` can read as a baseline (same
// validation; an interrupted run is refused), so a committed baseline can never be the reason a
// CI gate fails with "invalid input"; an existing baseline is replaced only when asked
// (`force`), and the refusal says what the replacement would change.

import Foundation

public enum Baselines {
    /// Validates `runPath` and copies it to `directory/NAME.csv`; returns the written path.
    public static func save(runPath: String, name: String, directory: String = "results/baselines") throws -> String {
        try save(runPaths: [runPath], name: name, directory: directory)
    }

    /// Validates each run and writes their rows, in order, to `directory/NAME.csv` (the header of
    /// the first; the others must have the same header). Several passes of a suite make steadier
    /// medians than one.
    public static func save(runPaths: [String], name: String, directory: String = "results/baselines",
                            force: Bool = false) throws -> String {
        try write(runPaths: runPaths, name: name, directory: directory, force: force).path
    }

    /// A written baseline: its path, and what changed when it replaced one (nil when it was new).
    public struct Written: Sendable {
        public var path: String
        public var replaced: String?
    }

    /// `save`, also saying what the new baseline changed in the one it replaced.
    public static func write(runPaths: [String], name: String, directory: String = "results/baselines",
                             force: Bool = false) throws -> Written {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !name.isEmpty, name.count <= 100, name.allSatisfy({ allowed.contains($0) }), !name.hasPrefix(".") else {
            throw BenchError(.invalidOption, "--name '\(QuotedInput.clip(name))': use letters, digits, '.', '_' or '-' (not starting with '.')")
        }
        guard let first = runPaths.first else {
            throw BenchError(.invalidOption, "no run CSV given")
        }
        var header: [String] = []
        var rows: [[String]] = []
        for path in runPaths {
            let table = try CSVReader.read(path: path)
            _ = try Comparison.Side(table: table, path: path, role: .baseline)
            if header.isEmpty {
                header = table.header
            } else if table.header != header {
                throw BenchError(.invalidCSV, "the header differs from \(first)'s", path: path, line: 1, column: 1)
            }
            rows += table.rows
        }
        let target = (directory as NSString).appendingPathComponent(name + ".csv")
        // Checked before the existing baseline is read: merging runs into one of them would
        // replace that run's file.
        try OutputFiles.checkNotInputs([OutputFiles.Target(flag: "baseline", path: target)],
                                       inputs: runPaths.map { OutputFiles.Target(flag: "run CSV", path: $0) })
        var replaced: String?
        if FileManager.default.fileExists(atPath: target) {
            let change: String
            do {
                change = changeSummary(from: try CSVReader.read(path: target), to: CSVTable(header: header, rows: rows))
            } catch {
                change = "the existing file cannot be read (\(error))"
            }
            guard force else {
                throw BenchError(.refused, "\(target) exists and is not replaced without --force; the new one would change it: \(change)")
            }
            replaced = change
        }
        try CSVWriter.write(CSVWriter.render(header: header, rows: rows), to: target)
        return Written(path: target, replaced: replaced)
    }

    /// What replacing `old` by `new` changes, in one line: rows, cases (dropped and new, a few
    /// named), and the revisions, hosts and builds the rows came from.
    public static func changeSummary(from old: CSVTable, to new: CSVTable) -> String {
        // A file that no longer parses (hand-edited, of another tool) has no cases to name.
        func keys(_ table: CSVTable) -> [String] {
            var seen = Set<String>(), ordered: [String] = []
            let records = (try? SummaryValidation.records(table, path: "", role: .current)) ?? []
            for record in records where seen.insert(record.settings.key).inserted {
                ordered.append(record.settings.key)
            }
            return ordered
        }
        func values(_ table: CSVTable, _ column: String) -> String {
            guard let index = table.column(column) else { return "-" }
            let distinct = Set(table.rows.map { $0[index] }).sorted()
            return distinct.count <= 3 ? distinct.map { QuotedInput.clip($0) }.joined(separator: "+") : "\(distinct.count) values"
        }
        func named(_ list: [String]) -> String {
            let shown = list.prefix(2).map { QuotedInput.clip($0) }.joined(separator: ", ")
            return list.count > 2 ? shown + " and \(list.count - 2) more" : shown
        }
        let before = keys(old), after = keys(new)
        let dropped = before.filter { !Set(after).contains($0) }
        let added = after.filter { !Set(before).contains($0) }
        var parts = ["rows \(old.rows.count) -> \(new.rows.count)", "cases \(before.count) -> \(after.count)"]
        if !dropped.isEmpty { parts.append("\(dropped.count) dropped (\(named(dropped)))") }
        if !added.isEmpty { parts.append("\(added.count) new (\(named(added)))") }
        for column in ["git_rev", "host", "build"] {
            let was = values(old, column), now = values(new, column)
            if was != now { parts.append("\(column) \(was) -> \(now)") }
        }
        if dropped.isEmpty && added.isEmpty && old == new { parts.append("identical content") }
        return parts.joined(separator: "; ")
    }
}

/// Parses a command-line choice into one of an enum's raw values.
public enum Choice {
    /// A registered engine's name.
    public static func parse(_ value: String, flag: String, as: EngineKind.Type) throws -> EngineKind {
        if let engine = EngineKind(rawValue: value) { return engine }
        let known = EngineKind.allCases.map(\.rawValue).joined(separator: ", ")
        throw BenchError(.invalidOption, "\(flag) \(QuotedInput.clip(value)): unknown engine (expected one of: \(known))")
    }

    public static func parse<T: RawRepresentable & CaseIterable>(_ value: String, flag: String, as: T.Type) throws -> T
    where T.RawValue == String {
        if let choice = T(rawValue: value) { return choice }
        let known = T.allCases.map(\.rawValue).joined(separator: ", ")
        throw BenchError(.invalidOption, "\(flag) \(QuotedInput.clip(value)): unknown value (expected one of: \(known))")
    }
}
