import Foundation
import Testing
import StrataBench

/// `GateRunner` end to end on one small case, with the built strata-bench as both builds (or a
/// wrapper around it that fails, or that reports more work than it did).
@Suite("performance gate: runs and exit statuses", .serialized)
struct GateRunnerTests {
    static let smallCase = GateCase(workload: .sensors, engine: .strata, strategy: .dedicated, durability: .unsafe, readings: 500)

    static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-gate-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func script(_ directory: String, _ name: String, _ body: String) throws -> String {
        let path = (directory as NSString).appendingPathComponent(name)
        try ExecutableScript.write(path, body: body)
        return path
    }

    static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    static func settings(base: String, current: String, out: String, rounds: Int, alternator: String) -> GateSettings {
        GateSettings(baseBinary: base, currentBinary: current, baseLabel: "base", out: out, rounds: rounds,
                     thresholdPercent: 25, cpuThresholdPercent: 3, cpu: 0, alternator: alternator, preload: "",
                     counterThresholds: repositoryRoot + "/results/baselines/counter-thresholds.csv",
                     countersBaseline: repositoryRoot + "/results/baselines/counters.csv", treeRevision: "tree-rev",
                     cases: [smallCase])
    }

    static func run(_ settings: GateSettings) throws -> (status: Int32, report: String) {
        let status = try GateRunner(settings: settings) { _ in }.run()
        let report = (try? String(contentsOfFile: settings.out + "/report.md", encoding: .utf8)) ?? ""
        return (status, report)
    }

    @Test func identicalBuildsPassAndLeaveTheFilesTheReportsRead() throws {
        let bench = try #require(CLI.executable)
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Runs the two commands one after the other (the gate's alternator takes them the same way).
        let alternator = try Self.script(directory, "alternate", """
            first=""; second=""; part=0
            shift 2
            for word in "$@"; do
              if [ "$word" = "--" ]; then part=$((part + 1)); continue; fi
              if [ $part -eq 1 ]; then first="$first '$word'"; else second="$second '$word'"; fi
            done
            eval "$first" && eval "$second"
            """)
        let out = directory + "/out"
        let outcome = try Self.run(Self.settings(base: bench, current: bench, out: out, rounds: 2, alternator: alternator))
        // Two rounds are too few for a confidence interval: the timings cannot be judged.
        #expect(outcome.status == 1)
        #expect(outcome.report.contains("## Timings, paired rounds against base"))
        #expect(outcome.report.contains("## Counted work (against base, same machine)"))
        for file in ["rounds/base-1.csv", "rounds/current-2.csv", "rounds/current-counted-side.csv", "current.csv", "paired.csv",
                     "paired.md", "counters-all.csv", "counters-base.csv", "counters-current.csv"] {
            #expect(FileManager.default.fileExists(atPath: out + "/" + file), "\(file)")
        }
        #expect(!FileManager.default.fileExists(atPath: out + "/rounds/base-1-c0.csv"))
        let run = try CSVReader.read(path: out + "/current.csv")
        let repetition = try #require(run.column("repetition")), revision = try #require(run.column("git_rev"))
        #expect(run.rows.map { $0[repetition] } == ["1", "2"])
        #expect(run.rows.allSatisfy { $0[revision] == "tree-rev" })
    }

    @Test func countedWorkOnlyPassesForIdenticalBuilds() throws {
        let bench = try #require(CLI.executable)
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = try Self.run(Self.settings(base: bench, current: bench, out: directory + "/out", rounds: 0, alternator: "/bin/false"))
        #expect(outcome.status == 0, "\(outcome.report)")
        #expect(outcome.report.contains("not judged (PERF_GATE_ROUNDS=0"))
    }

    @Test func moreWorkPerCommitIsARegression() throws {
        let bench = try #require(CLI.executable)
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The current build: the same binary, reporting 50% more pages written per commit.
        let current = try Self.script(directory, "more-pages", """
            "\(bench)" "$@"; status=$?
            while [ $# -gt 0 ]; do [ "$1" = "--out" ] && out="$2"; shift; done
            awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "pages_written_per_txn") c = i; print; next }
                              { $c = $c * 1.5; print }' "$out" > "$out.tmp" && mv "$out.tmp" "$out"
            exit $status
            """)
        let outcome = try Self.run(Self.settings(base: bench, current: current, out: directory + "/out", rounds: 0, alternator: "/bin/false"))
        #expect(outcome.status == 2, "\(outcome.report)")
        #expect(outcome.report.contains("pages_written_per_txn"))
    }

    @Test func aFailingCaseCannotBeJudged() throws {
        let bench = try #require(CLI.executable)
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let broken = try Self.script(directory, "broken", "exit 1\n")
        let outcome = try Self.run(Self.settings(base: broken, current: bench, out: directory + "/out", rounds: 0, alternator: "/bin/false"))
        #expect(outcome.status == 1)
        #expect(outcome.report.contains("**Could not judge:**"))
        #expect(outcome.report.contains("failed (exit 1)"))
    }

    @Test func withoutABaseAFailedSmokeRunCannotBeJudged() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let broken = try Self.script(directory, "broken", "exit 4\n")
        var settings = Self.settings(base: broken, current: broken, out: directory + "/out", rounds: 8, alternator: "/bin/false")
        settings.baseBinary = nil
        let outcome = try Self.run(settings)
        #expect(outcome.status == 1)
        #expect(outcome.report.contains("the smoke run smoke.csv failed (exit 4)"))
    }
}

@Suite("performance gate: the gate command")
struct GateCommandTests {
    @Test(arguments: [
        (["gate", "--base", "/nonexistent/strata-bench", "--out", "/tmp"], "--base: no executable"),
        (["gate", "--rounds", "-1", "--out", "/tmp"], "--rounds"),
        (["gate", "--threshold", "150", "--out", "/tmp"], "--threshold"),
    ])
    func badInputExits1WithAClearMessage(arguments: [String], mention: String) throws {
        let outcome = try CLI.run(arguments)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains(mention), "stderr: \(outcome.stderr)")
    }
}
