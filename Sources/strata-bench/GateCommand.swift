// `strata-bench gate`: the paired rounds of the performance gate (GateRunner), as scripts/perf-gate
// runs them once both builds exist. Exit status: 0 no regression, 2 a regression, 1 could not judge.

import ArgumentParser
import Foundation
import StrataBench

struct Gate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the performance gate's paired rounds of a base and a current build and judge them (scripts/perf-gate builds both). Exit 0: no regression; 2: a regression; 1: could not judge.")

    @Option(help: "The base build's strata-bench (without it: the current build against the committed baselines).")
    var base: String?
    @Option(help: "The current build's strata-bench (default: this binary).")
    var current: String?
    @Option(help: "How the report names the base (default: the --base path).")
    var baseLabel: String?
    @Option(help: "The output directory; report.md in it is appended to.")
    var out: String
    @Option(parsing: .unconditional, help: "Timing rounds (0: the counted work only; a 95% interval needs at least 6).")
    var rounds: String = "8"
    @Option(parsing: .unconditional, help: "Wall-clock throughput threshold in percent (durable cases).")
    var threshold: String = "25"
    @Option(name: .customLong("cpu-threshold"), parsing: .unconditional, help: "CPU time per reading threshold in percent.")
    var cpuThreshold: String = "3"
    @Option(parsing: .unconditional, help: "The CPU the alternated cases run on.")
    var cpu: String = "0"
    @Option(help: "The program that runs two commands in alternation on one CPU.")
    var alternator: String = "scripts/run-alternating"
    @Option(help: "A library preloaded into every case (the allocator).")
    var preload: String = ""
    @Option(help: "Tolerances of the counted work.")
    var counterThresholds: String = "results/baselines/counter-thresholds.csv"
    @Option(help: "The counters baseline a base without counted work is replaced by.")
    var countersBaseline: String = "results/baselines/counters.csv"
    @Option(help: "The tree's revision, written as current.csv's git_rev.")
    var treeRevision: String?

    func run() async throws {
        let settings: GateSettings
        do {
            let rounds = try NumericFlag.count(self.rounds, flag: "--rounds")
            let threshold = try NumericFlag.real(self.threshold, flag: "--threshold")
            let cpuThreshold = try NumericFlag.real(self.cpuThreshold, flag: "--cpu-threshold")
            let cpu = try NumericFlag.count(self.cpu, flag: "--cpu")
            guard rounds >= 0 else { throw BenchError(.invalidOption, "--rounds \(self.rounds): must be 0 or more") }
            guard cpu >= 0 else { throw BenchError(.invalidOption, "--cpu \(self.cpu): must be 0 or more") }
            guard threshold > 0 && threshold < 100 else { throw BenchError(.invalidOption, "--threshold \(self.threshold): must be between 0 and 100 (percent)") }
            guard cpuThreshold > 0 && cpuThreshold < 100 else { throw BenchError(.invalidOption, "--cpu-threshold \(self.cpuThreshold): must be between 0 and 100 (percent)") }
            func absolute(_ path: String) -> String {
                URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL.path
            }
            let current = self.current ?? Bundle.main.executablePath ?? CommandLine.arguments[0]
            for (flag, path) in [("--base", base ?? current), ("--current", current), ("--alternator", alternator)]
            where !FileManager.default.isExecutableFile(atPath: path) {
                throw BenchError(.invalidOption, "\(flag): no executable at \(path)")
            }
            settings = GateSettings(baseBinary: base.map(absolute), currentBinary: absolute(current), baseLabel: baseLabel ?? base ?? "",
                                    out: absolute(out), rounds: rounds, thresholdPercent: threshold, cpuThresholdPercent: cpuThreshold,
                                    cpu: cpu, alternator: absolute(alternator), preload: preload,
                                    counterThresholds: counterThresholds, countersBaseline: countersBaseline,
                                    treeRevision: treeRevision)
        } catch let error as BenchError {
            note("error: \(error)")
            throw ExitCode(1)
        }
        let runner: GateRunner
        do {
            runner = try GateRunner(settings: settings) { message in
                note("\n=== perf-gate: \(message) (\(ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withTime, .withColonSeparatorInTime])))")
            }
        } catch {
            note("error: \(error)")
            throw ExitCode(1)
        }
        let status = runner.run()
        if status != 0 { throw ExitCode(status) }
    }
}
