import Foundation
import Testing
import StrataBench

/// One synthetic case (the fields the gate reads), as a summary CSV table.
private func run(readingsPerSecond: Double, lost: Int = 0, verified: String = "true",
                 workload: String = "bulk-insert") throws -> CSVTable {
    let record: [String: String] = [
        "timestamp": "2026-11-22T21:00:00Z", "host": "h", "git_rev": "r", "build": "release", "workload": workload,
        "engine": "sqlite", "strategy": "dedicated", "writers": "1", "batch_size": "1", "encryption": "off",
        "durability": "unsafe", "repetition": "1", "readings": "600", "transactions": "600",
        "readings_per_s": CSVNumber.format(readingsPerSecond), "commit_p50_us": "4000", "file_bytes_end": "1000000",
        "live_objects": "603", "lost": String(lost), "verified": verified, "bound": "count", "max_delay_ms": "100",
        "rate": "", "e2e_p50_us": "5000", "commit_p99_us": "8000"]
    return try CSVReader.parse(CSVWriter.render(columns: SummaryColumns.all, records: [record]))
}

private func report(_ baseline: CSVTable, _ current: CSVTable) throws -> ComparisonReport {
    try Comparison.compare(baseline: baseline, baselinePath: "base.csv", current: current, currentPath: "cur.csv",
                           options: ComparisonOptions())
}

private func line(_ report: ComparisonReport, _ metric: String) -> ComparisonLine? {
    report.lines.first { $0.metric == metric }
}

@Suite("compare --confirm")
struct ConfirmationTests {
    @Test func aSlowdownSeenInOnePassOnlyIsNotConfirmed() throws {
        let base = try run(readingsPerSecond: 28_000)
        let first = try report(base, try run(readingsPerSecond: 9_000))   // the slow host
        #expect(first.exitCode == 2)
        let confirmed = Comparison.confirm(first, with: try report(base, try run(readingsPerSecond: 27_000)))
        #expect(confirmed.exitCode == 0)
        let throughput = try #require(line(confirmed, "readings_per_s"))
        #expect(throughput.verdict == .unchanged)
        #expect(throughput.current == 9_000)   // the first pass's figures stay in the report
        #expect(throughput.rule.contains("not confirmed"))
        #expect(throughput.rule.contains("x0.32") && throughput.rule.contains("x0.96"))
    }

    @Test func aSlowdownSeenInBothPassesFails() throws {
        let base = try run(readingsPerSecond: 28_000)
        let confirmed = Comparison.confirm(try report(base, try run(readingsPerSecond: 9_000)),
                                           with: try report(base, try run(readingsPerSecond: 10_000)))
        #expect(confirmed.exitCode == 2)
        #expect(line(confirmed, "readings_per_s")?.verdict == .regressed)
        #expect(line(confirmed, "readings_per_s")?.rule.contains("confirmed by the retry") == true)
    }

    @Test func lostReadingsFailWithoutConfirmationInEitherPass() throws {
        let base = try run(readingsPerSecond: 28_000)
        let clean = try report(base, try run(readingsPerSecond: 28_000))
        let lossy = try report(base, try run(readingsPerSecond: 28_000, lost: 2))
        // Lost in the first pass, clean retry: still a failure.
        let first = Comparison.confirm(lossy, with: clean)
        #expect(first.exitCode == 2)
        #expect(line(first, "lost")?.verdict == .regressed)
        // Clean first pass, lost in the retry: the retry's integrity failure is reported.
        let second = Comparison.confirm(clean, with: lossy)
        #expect(second.exitCode == 2)
        #expect(second.regressions.first?.rule.contains("in the retry") == true)
        // A failed end-of-run check likewise.
        let unchecked = try report(base, try run(readingsPerSecond: 28_000, verified: "false"))
        #expect(Comparison.confirm(unchecked, with: clean).exitCode == 2)
        #expect(Comparison.confirm(clean, with: unchecked).exitCode == 2)
    }

    @Test func aCaseMissingFromTheRetryStaysRegressed() throws {
        let base = try run(readingsPerSecond: 28_000)
        let first = try report(base, try run(readingsPerSecond: 9_000))
        let other = try report(try run(readingsPerSecond: 1_000, workload: "compaction"),
                               try run(readingsPerSecond: 1_000, workload: "compaction"))
        #expect(Comparison.confirm(first, with: other).exitCode == 2)
    }

    @Test func theFileEntryPointReadsAllThreeAndNamesBadInput() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("confirm-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func write(_ table: CSVTable, _ name: String) throws -> String {
            let path = dir + "/" + name
            try CSVWriter.write(CSVWriter.render(columns: SummaryColumns.all, records: table.records), to: path)
            return path
        }
        let base = try write(try run(readingsPerSecond: 28_000), "base.csv")
        let slow = try write(try run(readingsPerSecond: 9_000), "slow.csv")
        let fine = try write(try run(readingsPerSecond: 27_000), "fine.csv")
        #expect(try Comparison.compare(baselinePath: base, currentPath: slow, confirmingPath: fine,
                                       options: ComparisonOptions()).exitCode == 0)
        #expect(try Comparison.compare(baselinePath: base, currentPath: slow, confirmingPath: slow,
                                       options: ComparisonOptions()).exitCode == 2)
        let broken = dir + "/broken.csv"
        try "not,a,summary\n1,2,3\n".write(toFile: broken, atomically: true, encoding: .utf8)
        let error = #expect(throws: BenchError.self) {
            try Comparison.compare(baselinePath: base, currentPath: slow, confirmingPath: broken, options: ComparisonOptions())
        }
        #expect(error?.code == .invalidCSV)
        #expect(error?.path == broken)
    }
}
