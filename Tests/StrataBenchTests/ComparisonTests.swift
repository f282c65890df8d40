import Foundation
import Testing
import StrataBench

/// Synthetic summary CSVs: one case per `Row`, repetitions as separate rows.
private struct Row {
    var strategy = "dedicated"
    var bound = "count"
    var repetition = 1
    var readingsPerSecond = 1000.0
    var commitP50 = 4000.0
    var fileBytesEnd = 1_000_000.0
    var readings = 600
    var transactions = 600
    var liveObjects = 603
    var lost = 0
    var verified = "true"
    var build = "release"
    var durability = "unsafe"
    var rate = ""
    var workload = "bulk-insert"
    var e2eP50 = 5000.0
    var commitP99 = 8000.0

    var record: [String: String] {
        ["timestamp": "2026-11-21T21:00:00Z", "host": "h", "git_rev": "r", "build": build, "workload": workload,
         "engine": "sqlite", "strategy": strategy, "writers": "1", "batch_size": "1", "encryption": "off",
         "durability": durability, "repetition": String(repetition), "readings": String(readings),
         "transactions": String(transactions), "readings_per_s": CSVNumber.format(readingsPerSecond),
         "commit_p50_us": CSVNumber.format(commitP50), "file_bytes_end": CSVNumber.format(fileBytesEnd),
         "live_objects": String(liveObjects), "lost": String(lost), "verified": verified, "bound": bound,
         "max_delay_ms": "100", "rate": rate, "e2e_p50_us": CSVNumber.format(e2eP50),
         "commit_p99_us": CSVNumber.format(commitP99)]
    }
}

private func table(_ rows: [Row]) throws -> CSVTable {
    try CSVReader.parse(CSVWriter.render(columns: SummaryColumns.all, records: rows.map(\.record)))
}

private func compare(_ baseline: [Row], _ current: [Row], threshold: Double = Comparison.defaultThreshold,
                     gateDurable: Bool = false) throws -> ComparisonReport {
    try Comparison.compare(baseline: table(baseline), baselinePath: "base.csv", current: table(current),
                           currentPath: "cur.csv",
                           options: ComparisonOptions(timingThreshold: threshold, gateDurableTimings: gateDurable))
}

private func verdict(_ report: ComparisonReport, _ metric: String) -> Verdict? {
    report.lines.first { $0.metric == metric }?.verdict
}

@Suite("compare verdicts")
struct ComparisonTests {
    @Test func identicalRunsAreUnchanged() throws {
        let rows = [Row(repetition: 1), Row(repetition: 2), Row(repetition: 3)]
        let report = try compare(rows, rows)
        #expect(report.exitCode == 0)
        #expect(report.regressions.isEmpty)
        #expect(verdict(report, "readings_per_s") == .unchanged)
        #expect(verdict(report, "lost") == .unchanged)
    }

    @Test func noiseWithinTheThresholdPasses() throws {
        // 2.1x slower throughput and latency: the worst noise seen between identical smoke passes
        // while the machine ran four parallel builds.
        let base = [Row(readingsPerSecond: 1000, commitP50: 4000)]
        let noisy = [Row(readingsPerSecond: 470, commitP50: 8400)]
        let report = try compare(base, noisy)
        #expect(report.exitCode == 0)
        #expect(verdict(report, "readings_per_s") == .unchanged)
        #expect(verdict(report, "commit_p50_us") == .unchanged)
    }

    @Test func mediansIgnoreOneOutlierRepetition() throws {
        let base = [Row(repetition: 1), Row(repetition: 2), Row(repetition: 3)]
        let current = [Row(repetition: 1, readingsPerSecond: 100), Row(repetition: 2, readingsPerSecond: 990),
                       Row(repetition: 3, readingsPerSecond: 1010)]
        let report = try compare(base, current)
        #expect(verdict(report, "readings_per_s") == .unchanged)
        #expect(report.lines.first { $0.metric == "readings_per_s" }?.current == 990)
    }

    @Test func aRealSlowdownRegressesTiming() throws {
        let report = try compare([Row(readingsPerSecond: 1000)], [Row(readingsPerSecond: 300)])
        #expect(verdict(report, "readings_per_s") == .regressed)
        #expect(report.exitCode == 2)
        let latency = try compare([Row(commitP50: 4000)], [Row(commitP50: 12000)])
        #expect(verdict(latency, "commit_p50_us") == .regressed)
    }

    @Test func durableCommitTimingsAreShownNotGatedUnlessAsked() throws {
        // The flush-latency flip seen here: 150 us vs 4 ms per durable commit, identical code.
        let base = [Row(readingsPerSecond: 750, commitP50: 150, fileBytesEnd: 1_000_000, durability: "full")]
        let flipped = [Row(readingsPerSecond: 220, commitP50: 3980, fileBytesEnd: 1_000_000, durability: "full")]
        let report = try compare(base, flipped)
        #expect(report.exitCode == 0)
        #expect(verdict(report, "readings_per_s") == .info)
        #expect(report.lines.first { $0.metric == "commit_p50_us" }?.rule.contains("not gated") == true)
        // Sizes, counts and integrity stay gated for durable cases.
        let grown = [Row(fileBytesEnd: 2_000_000, lost: 1, durability: "full")]
        let bad = try compare(base, grown)
        #expect(verdict(bad, "file_bytes_end") == .regressed)
        #expect(verdict(bad, "lost") == .regressed)
        let strict = try compare(base, flipped, gateDurable: true)
        #expect(verdict(strict, "readings_per_s") == .regressed)
    }

    @Test func concurrentWriterCommitLatencyIsShownButThroughputStaysGated() throws {
        // SQLite's gcd commit p50 in two identical smoke runs: 31 us and 340 us.
        let base = [Row(strategy: "gcd", commitP50: 31, workload: "sensors")]
        let contended = [Row(strategy: "gcd", commitP50: 340, workload: "sensors")]
        let report = try compare(base, contended)
        #expect(report.exitCode == 0)
        #expect(verdict(report, "commit_p50_us") == .info)
        // The same latency jump on a single writer is a regression...
        let single = try compare([Row(commitP50: 300, workload: "sensors")], [Row(commitP50: 3400, workload: "sensors")])
        #expect(verdict(single, "commit_p50_us") == .regressed)
        // ...and a gcd throughput collapse still fails.
        let slow = try compare(base, [Row(strategy: "gcd", readingsPerSecond: 100, commitP50: 31, workload: "sensors")])
        #expect(verdict(slow, "readings_per_s") == .regressed)
    }

    @Test func tailLatencyNoiseUnderTheFloorPassesAndGrossTailsFail() throws {
        // A preempted commit: 109 us -> 3,146 us p99 in identical runs.
        let noisy = try compare([Row(commitP99: 109)], [Row(commitP99: 3_146)])
        #expect(verdict(noisy, "commit_p99_us") == .unchanged)
        let gross = try compare([Row(commitP99: 3_000)], [Row(commitP99: 30_000)])
        #expect(verdict(gross, "commit_p99_us") == .regressed)
    }

    @Test func endToEndLatencyIsGatedInOpenLoopOnly() throws {
        let closed = try compare([Row(e2eP50: 5_000)], [Row(e2eP50: 20_000)])
        #expect(verdict(closed, "e2e_p50_us") == .info)
        let open = try compare([Row(rate: "300", e2eP50: 5_000)], [Row(rate: "300", e2eP50: 20_000)])
        #expect(verdict(open, "e2e_p50_us") == .regressed)
    }

    @Test func timingsWhoseBaselineSpreadsWiderThanTheBandAreNotGated() throws {
        let base = [Row(repetition: 1, readingsPerSecond: 9_800), Row(repetition: 2, readingsPerSecond: 30_000),
                    Row(repetition: 3, readingsPerSecond: 38_500)]
        let report = try compare(base, [Row(readingsPerSecond: 8_300)])
        #expect(verdict(report, "readings_per_s") == .info)
        let steady = [Row(repetition: 1, readingsPerSecond: 30_000), Row(repetition: 2, readingsPerSecond: 32_000),
                      Row(repetition: 3, readingsPerSecond: 34_000)]
        #expect(verdict(try compare(steady, [Row(readingsPerSecond: 8_300)]), "readings_per_s") == .regressed)
    }

    @Test func aStricterThresholdCatchesSmallerChanges() throws {
        let report = try compare([Row(readingsPerSecond: 1000)], [Row(readingsPerSecond: 850)], threshold: 10)
        #expect(verdict(report, "readings_per_s") == .regressed)
    }

    @Test func bigSpeedupsAreImprovements() throws {
        let report = try compare([Row(readingsPerSecond: 1000, commitP50: 4000)], [Row(readingsPerSecond: 3000, commitP50: 1000)])
        #expect(verdict(report, "readings_per_s") == .improved)
        #expect(verdict(report, "commit_p50_us") == .improved)
        #expect(report.exitCode == 0)
    }

    @Test func latencyChangesBelowTheFloorAreUnchanged() throws {
        let report = try compare([Row(commitP50: 10)], [Row(commitP50: 40)])
        #expect(verdict(report, "commit_p50_us") == .unchanged)
    }

    @Test func countBoundFileGrowthRegressesBytes() throws {
        let report = try compare([Row(fileBytesEnd: 1_000_000)], [Row(fileBytesEnd: 1_200_000)])
        #expect(verdict(report, "file_bytes_end") == .regressed)
        #expect(report.exitCode == 2)
        let within = try compare([Row(fileBytesEnd: 1_000_000)], [Row(fileBytesEnd: 1_050_000)])
        #expect(verdict(within, "file_bytes_end") == .unchanged)
    }

    @Test func sizesWithConcurrentReadersAreJudgedLoosely() throws {
        let sensors = try compare([Row(fileBytesEnd: 5_242_880, workload: "sensors")], [Row(fileBytesEnd: 6_291_456, workload: "sensors")])
        #expect(verdict(sensors, "file_bytes_end") == .unchanged)
        let leak = try compare([Row(fileBytesEnd: 2_000_000, workload: "sensors")], [Row(fileBytesEnd: 20_000_000, workload: "sensors")])
        #expect(verdict(leak, "file_bytes_end") == .regressed)
        let reader = try compare([Row(fileBytesEnd: 44_723_872, workload: "read-while-write")],
                                 [Row(fileBytesEnd: 67_968_888, workload: "read-while-write")])
        #expect(verdict(reader, "file_bytes_end") == .info)
    }

    @Test func timeBoundSizesUseTheTimingRule() throws {
        let report = try compare([Row(bound: "time", fileBytesEnd: 1_000_000)], [Row(bound: "time", fileBytesEnd: 1_400_000)])
        #expect(verdict(report, "file_bytes_end") == .unchanged)
    }

    @Test func lostReadingsAlwaysFail() throws {
        let report = try compare([Row(lost: 0)], [Row(lost: 3)])
        #expect(verdict(report, "lost") == .regressed)
        #expect(report.exitCode == 2)
        // Even when the baseline itself lost readings.
        #expect(try compare([Row(lost: 3)], [Row(lost: 3)]).exitCode == 2)
    }

    @Test func aFailedEndOfRunCheckFails() throws {
        let report = try compare([Row()], [Row(verified: "false")])
        #expect(verdict(report, "verified") == .regressed)
    }

    @Test func deterministicCountsCompareExactly() throws {
        let report = try compare([Row(liveObjects: 603)], [Row(liveObjects: 602)])
        #expect(verdict(report, "live_objects") == .regressed)
        let timeBound = try compare([Row(bound: "time", liveObjects: 603)], [Row(bound: "time", liveObjects: 602)])
        #expect(verdict(timeBound, "live_objects") == .info)
    }

    @Test func batchedTransactionCountsDependOnTiming() throws {
        let report = try compare([Row(strategy: "batched", transactions: 6)], [Row(strategy: "batched", transactions: 9)])
        let rates = try compare([Row(strategy: "batched")], [Row(strategy: "batched")])
        #expect(verdict(rates, "readings_per_s") == .unchanged)
        #expect(verdict(report, "transactions") == .info)
        #expect(report.exitCode == 0)
    }

    @Test func aMissingCaseFailsUnlessAllowedAndANewOneIsReported() throws {
        let report = try compare([Row(strategy: "dedicated")], [Row(strategy: "gcd")])
        #expect(report.lines.contains { $0.verdict == .new })
        #expect(report.lines.contains { $0.verdict == .missing })
        #expect(report.warnings.contains { $0.contains("--allow-missing") })
        #expect(report.exitCode == 1)
        let allowed = try Comparison.compare(baseline: table([Row(strategy: "dedicated")]), baselinePath: "base.csv",
                                             current: table([Row(strategy: "gcd")]), currentPath: "cur.csv",
                                             options: ComparisonOptions(allowMissing: true))
        #expect(allowed.exitCode == 0)
        // A new case alone never fails.
        let onlyNew = try compare([Row(strategy: "dedicated")], [Row(strategy: "dedicated"), Row(strategy: "gcd")])
        #expect(onlyNew.exitCode == 0)
    }

    @Test func rowsMatchOnTheFullCaseKeyBoundIncluded() throws {
        // The same workload and strategy, once count-bound and once time-bound: two cases.
        let report = try compare([Row(bound: "count")], [Row(bound: "time")])
        #expect(report.count(.missing) == 1 && report.count(.new) == 1)
    }

    @Test func aDifferentCPUOrAllocatorIsWarnedAbout() throws {
        var base = Row().record, current = Row().record
        base["cpu_model"] = "Xeon A"; current["cpu_model"] = "EPYC B"
        base["allocator"] = "jemalloc"; current["allocator"] = "system"
        let report = try Comparison.compare(
            baseline: CSVReader.parse(CSVWriter.render(columns: SummaryColumns.all, records: [base])), baselinePath: "b",
            current: CSVReader.parse(CSVWriter.render(columns: SummaryColumns.all, records: [current])), currentPath: "c",
            options: ComparisonOptions())
        #expect(report.warnings.contains { $0.contains("cpu_model differs") })
        #expect(report.warnings.contains { $0.contains("allocator differs") })
    }

    @Test func aDifferentBuildIsWarnedAbout() throws {
        let report = try compare([Row(build: "release")], [Row(build: "debug")])
        #expect(report.warnings.contains { $0.contains("build differs") })
    }

    @Test func malformedInputNamesFileLineAndColumn() throws {
        var text = CSVWriter.render(columns: SummaryColumns.all, records: [Row().record])
        text = text.replacingOccurrences(of: ",1000,", with: ",fast,")
        let bad = try CSVReader.parse(text, path: "cur.csv")
        let error = #expect(throws: BenchError.self) {
            try Comparison.compare(baseline: table([Row()]), baselinePath: "base.csv", current: bad, currentPath: "cur.csv",
                                   options: ComparisonOptions())
        }
        #expect(error?.code == .invalidCSV)
        #expect(error?.path == "cur.csv")
        #expect(error?.line == 2)
        let column = try #require(error?.column)
        let line = text.split(separator: "\n")[1]
        #expect(Array(line)[column - 1] == "f")
    }

    @Test func aFileWithoutTheKeyColumnsIsRejected() throws {
        let other = try CSVReader.parse("a,b\n1,2\n")
        let error = #expect(throws: BenchError.self) {
            try Comparison.compare(baseline: other, baselinePath: "other.csv", current: table([Row()]), currentPath: "cur.csv",
                                   options: ComparisonOptions())
        }
        #expect(error?.code == .invalidCSV)
        #expect(error?.message.contains("missing column 'workload'") == true)
        #expect(error?.line == 1)
    }

    @Test func aHeaderOnlyFileIsRejected() throws {
        let empty = try CSVReader.parse(SummaryColumns.all.joined(separator: ",") + "\n")
        #expect(throws: BenchError.self) {
            try Comparison.compare(baseline: empty, baselinePath: "b.csv", current: table([Row()]), currentPath: "c.csv",
                                   options: ComparisonOptions())
        }
    }

    @Test func thresholdOutsideZeroToHundredIsRejected() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cmp-\(UUID())").path
        try CSVWriter.write(CSVWriter.render(columns: SummaryColumns.all, records: [Row().record]), to: dir + "/a.csv")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let error = #expect(throws: BenchError.self) {
            try Comparison.compare(baselinePath: dir + "/a.csv", currentPath: dir + "/a.csv", options: ComparisonOptions(timingThreshold: 100))
        }
        #expect(error?.code == .invalidOption)
        #expect(try Comparison.compare(baselinePath: dir + "/a.csv", currentPath: dir + "/a.csv", options: ComparisonOptions()).exitCode == 0)
    }

    @Test func rendersTableMarkdownAndCSV() throws {
        let report = try compare([Row(readingsPerSecond: 1000)], [Row(readingsPerSecond: 300)])
        let markdown = Comparison.render(report, format: .markdown)
        #expect(markdown.contains("**Regressions:**"))
        #expect(markdown.contains("| readings_per_s |") || markdown.contains("readings_per_s | 1000 | 300"))
        let csv = try CSVReader.parse(Comparison.render(report, format: .csv))
        #expect(csv.header == ["case", "metric", "baseline", "current", "ratio", "verdict", "rule"])
        #expect(csv.records.contains { $0["metric"] == "readings_per_s" && $0["verdict"] == "regressed" && $0["ratio"] == "0.3" })
        let text = Comparison.render(report, format: .table, verbose: false)
        #expect(text.contains("regressed"))
        #expect(!text.contains("unchanged  "))
    }
}

@Suite("baselines")
struct BaselineTests {
    @Test func severalRunsMergeIntoOneBaselineAndBadInputIsRefused() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("baselines-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let one = dir + "/one.csv", two = dir + "/two.csv", other = dir + "/other.csv"
        try CSVWriter.write(CSVWriter.render(columns: SummaryColumns.all, records: [Row(repetition: 1).record]), to: one)
        try CSVWriter.write(CSVWriter.render(columns: SummaryColumns.all, records: [Row(repetition: 2).record]), to: two)
        let saved = try Baselines.save(runPaths: [one, two], name: "smoke", directory: dir + "/baselines")
        #expect(saved == dir + "/baselines/smoke.csv")
        #expect(try CSVReader.read(path: saved).rows.count == 2)

        try CSVWriter.write(CSVWriter.render(columns: SummaryColumns.all + ["more"], records: [Row().record]), to: other)
        let mismatch = #expect(throws: BenchError.self) { try Baselines.save(runPaths: [one, other], name: "x", directory: dir) }
        #expect(mismatch?.code == .invalidCSV)
        #expect(mismatch?.path == other)
        let badName = #expect(throws: BenchError.self) { try Baselines.save(runPaths: [one], name: "a/b", directory: dir) }
        #expect(badName?.code == .invalidOption)
    }
}
