// The performance gate's rounds as data: which build starts each case, which files a round leaves,
// how they are joined, and how the statuses of its judgements combine. `GateRunner` runs them.
//
// Invariants:
// - Which build starts first alternates by case and by round, so neither build always meets the
//   host first: the base starts case `i` of round `r` when `r + i` is odd (the counted round is
//   round 0).
// - A round's files: `rounds/<side>-<tag>.csv` (the cases run in alternation on one CPU) and
//   `rounds/<side>-<tag>-side.csv` (the cases run side by side), each one header and the cases'
//   rows in case order. Every case file of one build has the same columns: a file whose header
//   differs is refused, never silently re-aligned.
// - The current build's run (`current.csv`): every round's rows, alternated then side by side,
//   round after round, with `repetition` = the round and `git_rev` = the tree's revision when given.

/// The two builds the gate compares.
public enum GateSide: String, Sendable, CaseIterable {
    case base
    case current
}

public enum GateRounds {
    /// Whether the base build starts case `caseIndex` (0-based) of round `round` (1-based; the
    /// counted round is 0).
    public static func baseStartsFirst(round: Int, caseIndex: Int) -> Bool {
        (round + caseIndex) % 2 == 1
    }

    /// The two builds of one case in the order they are started.
    public static func order(round: Int, caseIndex: Int) -> [GateSide] {
        baseStartsFirst(round: round, caseIndex: caseIndex) ? [.base, .current] : [.current, .base]
    }

    /// A round's joined file of one side, relative to the gate's output directory.
    public static func roundFile(_ side: GateSide, tag: String, alternated: Bool) -> String {
        "rounds/\(side.rawValue)-\(tag)\(alternated ? "" : "-side").csv"
    }

    /// One case's file of one side in a round, relative to the gate's output directory.
    public static func caseFile(_ side: GateSide, tag: String, caseIndex: Int) -> String {
        "rounds/\(side.rawValue)-\(tag)-c\(caseIndex).csv"
    }

    /// Tables of one build joined under one header, rows in the tables' order.
    public static func join(_ tables: [(path: String, table: CSVTable)]) throws(BenchError) -> CSVTable {
        guard let first = tables.first else { throw BenchError(.invalidCSV, "nothing to join: no case file") }
        var rows: [[String]] = []
        for (path, table) in tables {
            guard table.header == first.table.header else {
                throw BenchError(.invalidCSV, "its columns differ from \(first.path)'s: the case files of one build must share a header",
                                 path: path)
            }
            rows += table.rows
        }
        return CSVTable(header: first.table.header, rows: rows)
    }

    /// The current build's rounds as one run: `rounds[k]` holds round `k + 1`'s tables (alternated,
    /// then side by side); each row's `repetition` becomes its round, `git_rev` the tree's revision
    /// when one is given.
    public static func currentRun(rounds: [[(path: String, table: CSVTable)]], gitRev: String?) throws(BenchError) -> CSVTable {
        let all = rounds.flatMap { $0 }
        let joined = try join(all)
        guard let repetition = joined.column("repetition") else {
            throw BenchError(.invalidCSV, "no repetition column", path: all.first?.path)
        }
        let revision = joined.column("git_rev")
        var rows: [[String]] = []
        for (index, round) in rounds.enumerated() {
            for (_, table) in round {
                for var row in table.rows {
                    row[repetition] = String(index + 1)
                    if let revision, let gitRev { row[revision] = gitRev }
                    rows.append(row)
                }
            }
        }
        return CSVTable(header: joined.header, rows: rows)
    }

    /// The most severe of two gate statuses: 2 (a regression) over 1 (could not judge) over 0.
    public static func severest(_ first: Int32, _ second: Int32) -> Int32 {
        if first == 2 || second == 2 { return 2 }
        if first != 0 || second != 0 { return 1 }
        return 0
    }

    /// Whether a case process's exit status lets the gate go on: 0, or 3 (the run finished but lost
    /// readings or failed a check, which the comparison reports).
    public static func caseFinished(_ status: Int32) -> Bool {
        status == 0 || status == 3
    }

    /// Whether the counted round can be judged against the base build's own counts: a base too old
    /// to count its work has no counter columns (its counted pass falls back to the committed
    /// counters baseline).
    public static func baseCountsWork(_ header: [String]) -> Bool {
        header.contains("pages_written_per_txn")
    }
}
