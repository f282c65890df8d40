// `strata stat`: which trees take the file's pages and how full they are, the free space by run
// length, and the pages held for readers by the versions that hold them (the file-growth question
// the harness measures).
import Foundation
import Strata

public enum StatReport {
    public static func text(_ file: StrataFile) throws(ToolError) -> String {
        let s: StrataFile.Storage
        let trees: [NamedTreeStatistics]
        do {
            s = try file.storage()
            trees = try file.treeStatistics()
        } catch { throw ToolError(error, path: file.path) }
        var out = "pages: \(s.accounting.totalPages) in all = \(s.accounting.metaPages) meta + \(s.accounting.reachablePages) reachable + "
            + "\(s.accounting.heldForReaderPages) held + \(s.accounting.freePages) free\n\n"
        var rows: [[String]] = [["tree", "trees", "depth", "pages", "branch", "leaf", "overflow", "large values", "entries", "leaf fill"]]
        var total = StrataFile.TreeStatistics()
        for t in trees {
            rows.append([t.name, "\(t.trees)", "\(t.statistics.depth)", "\(t.statistics.pages)", "\(t.statistics.branchPages)",
                         "\(t.statistics.leafPages)", "\(t.statistics.overflowPages)", "\(t.statistics.overflowValues)",
                         "\(t.statistics.entries)", fill(t.statistics)])
            total.add(t.statistics)
        }
        rows.append(["all trees", "\(trees.reduce(0) { $0 + $1.trees })", "", "\(total.pages)", "\(total.branchPages)", "\(total.leafPages)",
                     "\(total.overflowPages)", "\(total.overflowValues)", "\(total.entries)", fill(total)])
        out += table(rows)
        out += "\nfree space by run length (pages): " + histogram(s.freeRuns.map(\.count))
        if s.preallocatedPages > 0 { out += "; plus \(s.preallocatedPages) preallocated pages at the end" }
        out += "\n"
        if s.heldRuns.isEmpty {
            out += "held: none\n"
        } else {
            out += "held (pages written by version a and freed by version b: reusable once no reader pins a version in a..<b and a later commit is durable):\n"
            var byRange: [String: Int] = [:]
            for run in s.heldRuns { byRange["\(run.writtenBy)..<\(run.freedBy)", default: 0] += run.count }
            for (range, pages) in byRange.sorted(by: { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }).prefix(20) {
                out += "  \(range): \(pages) pages\n"
            }
            if byRange.count > 20 { out += "  … and \(byRange.count - 20) more ranges\n" }
        }
        out += "readers: \(InfoReport.readers(s))\n"
        return out
    }

    static func fill(_ s: StrataFile.TreeStatistics) -> String {
        s.leafPages == 0 ? "" : String(format: "%.0f%%", 100 * s.leafFill)
    }

    /// Counts of runs by length class: 1, 2–3, 4–15, 16–63, 64+.
    static func histogram(_ lengths: [Int]) -> String {
        guard !lengths.isEmpty else { return "none" }
        let classes: [(String, ClosedRange<Int>)] = [("1", 1...1), ("2–3", 2...3), ("4–15", 4...15), ("16–63", 16...63), ("64+", 64...Int.max)]
        return classes.compactMap { name, range in
            let runs = lengths.filter { range.contains($0) }
            return runs.isEmpty ? nil : "\(name): \(runs.count) runs, \(runs.reduce(0, +)) pages"
        }.joined(separator: "; ")
    }

    /// Left-aligned first column, right-aligned numbers.
    static func table(_ rows: [[String]]) -> String {
        let widths = rows[0].indices.map { c in rows.map { $0[c].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { c, cell in
                c == 0 ? cell.padding(toLength: widths[c], withPad: " ", startingAt: 0)
                       : String(repeating: " ", count: widths[c] - cell.count) + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
