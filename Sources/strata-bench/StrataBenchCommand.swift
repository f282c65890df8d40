// strata-bench: argument parsing and wiring only. Everything else lives in StrataBench.
//
// stdout carries only the result (table, markdown or CSV); progress and notes go to stderr.
// Exit status: 0 success; 1 invalid input file (compare/baseline/history), an I/O failure, or a baseline
// that exists (without --force); 2 compare found a regression; 3 a run finished but lost readings
// or failed its end-of-run check; 64 bad usage; 130/143 a run stopped by SIGINT/SIGTERM (the
// finished cases are written, marked interrupted).

import ArgumentParser
import Foundation
import StrataBench

@main
struct StrataBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-bench",
        abstract: "Benchmark and stress harness for the Strata object database and SQLite (GRDB).",
        version: MachineInfo.versionLine(),
        subcommands: [Run.self, Compare.self, ComparePaired.self, Gate.self, Baseline.self, List.self, History.self, Report.self, Stress.self,
                      StressWriterCommand.self, StressCheckCommand.self, StressReplayCommand.self, OpenStoreCommand.self],
        defaultSubcommand: Run.self)

    /// The subcommands' names, for "did you mean" messages.
    static let commandNames = ["run", "compare", "gate", "baseline", "list", "history", "report", "stress"]
}

/// Writes a line to stderr.
func note(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

struct Compare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare a run against a baseline. Exit 0: nothing regressed; 2: a regression; 1: invalid input.")

    @Argument(help: ArgumentHelp("Baseline summary CSV.", valueName: "baseline.csv"))
    var baseline: String
    @Argument(help: ArgumentHelp("Current summary CSV.", valueName: "current.csv"))
    var current: String
    @Option(parsing: .unconditional,
            help: "Timing slowdown threshold in percent (default 60: throughput below 0.4x or latency above 2.5x).")
    var threshold: String?
    @Option(help: "table (default), markdown or csv.")
    var format: String = "table"
    @Flag(help: "Show only regressions, improvements, new and missing cases (table and markdown).")
    var brief = false
    @Flag(help: "Also gate the timings of durability=full cases (flush-bound; off by default because flush latency is bimodal here).")
    var gateDurableTimings = false
    @Option(help: ArgumentHelp("A second pass of the same suite: a regression fails only if it shows in both passes (lost readings and failed checks fail at once).",
                               valueName: "retry.csv"))
    var confirm: String?
    @Option(help: "Tolerances of the counted work (CSV: metric,tolerance_percent,floor,reason), e.g. results/baselines/counter-thresholds.csv. Without it counters are shown, not gated.")
    var counterThresholds: String?
    @Flag(help: "Accept baseline cases that the current run lacks (by default they fail the comparison with exit 1).")
    var allowMissing = false
    @Flag(help: "Judge only lost readings, end-of-run checks and the counted work (for a counted pass run with MALLOC_CONF=tcache:false).")
    var countersOnly = false

    func thresholdPercent() throws -> Double {
        guard let threshold else { return Comparison.defaultThreshold }
        let value = try NumericFlag.real(threshold, flag: "--threshold")
        guard value > 0 && value < 100 else {
            throw BenchError(.invalidOption, "--threshold \(threshold): must be between 0 and 100 (percent)")
        }
        return value
    }

    mutating func validate() throws {
        do {
            _ = try thresholdPercent()
        } catch let error as BenchError {
            throw ValidationError(error.message)
        }
        guard OutputFormat(rawValue: format) != nil else { throw ValidationError("--format \(format): must be table, markdown or csv") }
    }

    func run() async throws {
        let report: ComparisonReport
        do {
            let thresholds = try counterThresholds.map { try CounterGate.thresholds(path: $0) }
            let options = ComparisonOptions(timingThreshold: try thresholdPercent(), gateDurableTimings: gateDurableTimings,
                                            counterThresholds: thresholds, allowMissing: allowMissing, countersOnly: countersOnly)
            if let confirm {
                report = try Comparison.compare(baselinePath: baseline, currentPath: current, confirmingPath: confirm,
                                                options: options)
            } else {
                report = try Comparison.compare(baselinePath: baseline, currentPath: current, options: options)
            }
        } catch let error as BenchError {
            note("error: \(error)")
            throw ExitCode(1)
        }
        print(Comparison.render(report, format: OutputFormat(rawValue: format) ?? .table, verbose: !brief), terminator: "")
        if report.exitCode != 0 {
            note("regressions: \(report.regressions.count), missing cases: \(report.count(.missing))")
            throw ExitCode(report.exitCode)
        }
    }
}

struct ComparePaired: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare-paired",
        abstract: "Judge paired rounds of a base and a current build (one summary CSV per round and side, run alternately on one machine). Exit 0: nothing regressed; 2: a regression; 1: nothing could be judged, a case is missing, or invalid input.")

    @Option(name: .customLong("base"), help: "Summary CSV of one base round (repeat, in round order).")
    var base: [String] = []
    @Option(name: .customLong("current"), help: "Summary CSV of one current round (repeat, in round order; pairs with --base of the same position).")
    var current: [String] = []
    // Numbers are read as text so that `NumericFlag` (one strict decimal reader) judges them.
    @Option(name: .customLong("threshold"), parsing: .unconditional,
            help: "Slowdown in percent the whole confidence interval of the wall-clock throughput must lie beyond to regress (default \(CSVNumber.format(PairedComparison.defaultThreshold))).")
    var thresholdText: String?
    @Option(name: .customLong("cpu-threshold"), parsing: .unconditional,
            help: "Rise in percent the whole confidence interval of the CPU time per reading must lie beyond to regress (default \(CSVNumber.format(PairedComparison.defaultCPUThreshold))).")
    var cpuThresholdText: String?
    @Option(name: .customLong("confidence"), parsing: .unconditional,
            help: "Two-sided confidence of the interval (default \(CSVNumber.format(PairedComparison.defaultConfidence))).")
    var confidenceText: String?
    @Option(help: "Tolerances of the counted work (CSV: metric,tolerance_percent,floor,reason).")
    var counterThresholds: String?
    @Flag(help: "Accept base cases that the current rounds lack.")
    var allowMissing = false
    @Flag(help: "Judge CPU time only: the rounds ran the builds in alternation (scripts/run-alternating), so wall-clock throughput is shown, not judged.")
    var noWallClock = false
    @Option(help: "table (default), markdown or csv.")
    var format: String = "table"
    @Flag(help: "Show only regressions, improvements, new and missing cases and cases without enough data.")
    var brief = false

    mutating func validate() throws {
        guard !base.isEmpty, base.count == current.count else {
            throw ValidationError("give as many --base rounds as --current rounds (got \(base.count) and \(current.count))")
        }
        let (threshold, cpuThreshold, confidence): (Double, Double, Double)
        do {
            (threshold, cpuThreshold, confidence) = try numbers()
        } catch let error as BenchError {
            throw ValidationError(error.message)
        }
        guard threshold > 0 && threshold < 100 else { throw ValidationError("--threshold must be between 0 and 100 (percent)") }
        guard cpuThreshold > 0 && cpuThreshold < 100 else { throw ValidationError("--cpu-threshold must be between 0 and 100 (percent)") }
        guard confidence >= 0.5 && confidence < 1 else { throw ValidationError("--confidence must be at least 0.5 and below 1") }
        guard OutputFormat(rawValue: format) != nil else { throw ValidationError("--format must be table, markdown or csv") }
    }

    /// --threshold, --cpu-threshold and --confidence, read by `NumericFlag`.
    func numbers() throws -> (threshold: Double, cpuThreshold: Double, confidence: Double) {
        (try thresholdText.map { try NumericFlag.real($0, flag: "--threshold") } ?? PairedComparison.defaultThreshold,
         try cpuThresholdText.map { try NumericFlag.real($0, flag: "--cpu-threshold") } ?? PairedComparison.defaultCPUThreshold,
         try confidenceText.map { try NumericFlag.real($0, flag: "--confidence") } ?? PairedComparison.defaultConfidence)
    }

    func run() async throws {
        let report: ComparisonReport
        do {
            let thresholds = try counterThresholds.map { try CounterGate.thresholds(path: $0) }
            let (threshold, cpuThreshold, confidence) = try numbers()
            report = try PairedComparison.compare(basePaths: base, currentPaths: current,
                                                  options: PairedOptions(thresholdPercent: threshold, cpuThresholdPercent: cpuThreshold, confidence: confidence,
                                                                         counterThresholds: thresholds, allowMissing: allowMissing,
                                                                         judgesWallClock: !noWallClock))
        } catch let error as BenchError {
            note("error: \(error)")
            throw ExitCode(1)
        }
        print(Comparison.render(report, format: OutputFormat(rawValue: format) ?? .table, verbose: !brief,
                                title: "strata-bench paired comparison"), terminator: "")
        let code = PairedComparison.exitCode(report)
        if code != 0 {
            note("regressions: \(report.regressions.count), cases without enough data: \(report.count(.insufficient)), missing: \(report.count(.missing))")
            throw ExitCode(code)
        }
    }
}

struct Baseline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Save one or more run CSVs as results/baselines/NAME.csv (an existing baseline only with --force).")

    @Argument(help: ArgumentHelp("The run's summary CSV; several runs of the same suite are merged (more repetitions, steadier medians).",
                                 valueName: "run.csv"))
    var runCSVs: [String]
    @Option(help: "Baseline name (letters, digits, '.', '_', '-').")
    var name: String
    @Flag(help: "Replace an existing baseline of that name (the message says what changed).")
    var force = false

    func validate() throws {
        if runCSVs.isEmpty { throw ValidationError("give at least one run CSV") }
    }

    func run() async throws {
        do {
            let written = try Baselines.write(runPaths: runCSVs, name: name, force: force)
            if let change = written.replaced { note("replaced \(written.path): \(change)") }
            print(written.path)
        } catch let error as BenchError {
            note("error: \(error)")
            throw ExitCode(1)
        }
    }
}

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List workloads, strategies, engines, suites and stress scenarios.")

    @Flag(help: "Print them as JSON (engines with their chart colours and availability; every list in report order).")
    var json = false

    func run() async throws {
        let vocabulary = Vocabulary.current()
        if json {
            print(try vocabulary.json())
            return
        }
        func pad(_ text: String) -> String { text.padding(toLength: 18, withPad: " ", startingAt: 0) }
        var text = "workloads:\n"
        for workload in vocabulary.workloads { text += "  \(pad(workload.name))\(workload.summary)\n" }
        text += "strategies:\n"
        for strategy in vocabulary.strategies { text += "  \(pad(strategy.name))\(strategy.summary)\n" }
        text += "engines:\n"
        for engine in vocabulary.engines {
            var line = engine.summary
            if let reason = engine.unavailable {
                line += " — unavailable: \(reason)"
            } else if engine.role == .peer {
                line += " (runs when named: --engine \(engine.name) or --engine all)"
            } else if engine.role == .reference {
                line += " (--engine \(engine.name))"
            }
            text += "  \(pad(engine.name))\(line)\n"
        }
        text += "suites:\n"
        for suite in vocabulary.suites { text += "  \(pad(suite.name))\(suite.summary)\n" }
        text += "stress scenarios:\n"
        for scenario in vocabulary.scenarios { text += "  \(pad(scenario.name))\(scenario.summary)\n" }
        print(text, terminator: "")
    }
}

/// The closest of `candidates` to `word` (Levenshtein distance at most 2), for "did you mean".
func closest(to word: String, in candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
    let scored = candidates.map { ($0, distance(Array(word.lowercased()), Array($0))) }
    guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2 else { return nil }
    return best.0
}
