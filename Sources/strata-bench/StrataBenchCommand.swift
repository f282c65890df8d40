// strata-bench: argument parsing and wiring only. Everything else lives in StrataBench.
//
// stdout carries only the result (table, markdown or CSV); progress and notes go to stderr.
// Exit status: 0 success; 1 invalid input file (compare/baseline) or I/O failure; 2 compare found
// a regression; 3 a run finished but lost readings or failed its end-of-run check; 64 bad usage.

import ArgumentParser
import Foundation
import StrataBench

@main
struct StrataBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-bench",
        abstract: "Benchmark and stress harness for the Strata object database and SQLite (GRDB).",
        subcommands: [Run.self, Compare.self, ComparePaired.self, Baseline.self, List.self],
        defaultSubcommand: Run.self)
}

/// Writes a line to stderr.
func note(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run benchmark cases, write a summary CSV (and timeline CSV), print a table.")

    @Option(help: "Named set of cases: smoke, sensors (default), full.")
    var suite: String?
    @Option(name: .customLong("workload"), help: "Workload to run (repeatable): sensors, bulk-insert, pinned-growth, compaction, encryption, read-while-write.")
    var workloads: [String] = []
    @Option(name: .customLong("engine"), help: "Engine (repeatable): strata, sqlite, all. Default: the embedded engine when available, else sqlite.")
    var engines: [String] = []
    @Option(name: .customLong("strategy"), help: "Writer strategy (repeatable): main-sync, main-async, gcd, threads, dedicated, batched, async, all.")
    var strategies: [String] = []
    @Option(help: "Seconds each time-bound case produces readings.")
    var duration: Double?
    @Option(help: "Readings each case produces (count-bound; excludes --duration).")
    var readings: Int?
    @Option(help: "Readings per transaction for batched / bulk workloads.")
    var batchSize: Int?
    @Option(help: "Batched strategy: longest wait before a flush, in milliseconds (default 100).")
    var maxDelay: Int?
    @Option(help: "gcd strategy: concurrent writers (default 64); threads strategy: writer threads (default 8).")
    var writers: Int?
    @Option(help: "Open loop: readings per second for all sensors together (default: closed loop).")
    var rate: Double?
    @Option(help: "off, on or both (default off; the encryption workload defaults to both).")
    var encryption: String?
    @Option(help: "full (default), unsafe or memory.")
    var durability: String?
    @Option(help: "Repetitions of every case (default 3 for smoke, 1 otherwise).")
    var repetitions: Int?
    @Option(help: "Summary CSV path (default results/runs/<timestamp>.csv).")
    var out: String?
    @Option(help: "Timeline CSV path (default: the summary path with .timeline.csv).")
    var timeline: String?
    @Option(help: "Directory for the stores under test (default: the system temp directory).")
    var dir: String?
    @Flag(help: "No progress on stderr.")
    var quiet = false

    func options() throws -> RunOptions {
        var options = RunOptions()
        options.suite = try suite.map { try Choice.parse($0, flag: "--suite", as: Suite.self) }
        options.workloads = try workloads.map { try Choice.parse($0, flag: "--workload", as: WorkloadKind.self) }
        options.engines = engines
        options.strategies = strategies
        options.duration = duration
        options.readings = readings
        options.batchSize = batchSize
        options.maxDelayMs = maxDelay
        options.writers = writers
        options.rate = rate
        options.encryption = try encryption.map { try Choice.parse($0, flag: "--encryption", as: EncryptionChoice.self) }
        options.durability = try durability.map { try Choice.parse($0, flag: "--durability", as: Durability.self) }
        options.repetitions = repetitions
        return options
    }

    mutating func validate() throws {
        do {
            _ = try RunPlan.make(options())
        } catch let error as BenchError {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        let cases = try RunPlan.make(options())
        let started = Date()
        let outPath = out ?? "results/runs/\(RunReport.fileStamp(started)).csv"
        let timelinePath = timeline ?? (outPath.hasSuffix(".csv") ? String(outPath.dropLast(4)) : outPath) + ".timeline.csv"
        let quiet = self.quiet
        let progress: ProgressHandler = { event in
            switch event {
            case .caseStarted(let index, let total, let label):
                if !quiet { note(String(format: "[%d/%d] %@  (run %.0fs)", index, total, label, Date().timeIntervalSince(started))) }
            case .tick(_, let elapsed, let committed, let rate):
                if !quiet { note(String(format: "        %5.1fs  %d readings committed  %.0f readings/s", elapsed, committed, rate)) }
            case .caseFinished(_, _, _, let result):
                if !quiet {
                    note(String(format: "        done in %.1fs: %.0f readings/s, lost %d%@", result.durationSeconds,
                                result.readingsPerSecond ?? 0, result.lost, result.note.isEmpty ? "" : " — " + result.note))
                }
            case .skipped(let label, let reason):
                note("skipped: \(label): \(reason)")
            case .note(let text):
                note(text)
            }
        }
        if !quiet { note("strata-bench: \(cases.count) cases, \(MachineInfo.buildConfiguration) build") }
        let results: [CaseResult]
        do {
            results = try await BenchRunner(cases: cases, directory: dir, progress: progress).run()
        } catch let error as BenchError {
            note("error: \(error)")
            throw ExitCode(1)
        }
        let machine = MachineInfo.current()
        do {
            try CSVWriter.write(RunReport.summaryCSV(results, machine: machine, timestamp: RunReport.timestamp(started)), to: outPath)
            try CSVWriter.write(RunReport.timelineCSV(results), to: timelinePath)
        } catch let error as BenchError {
            note("error: \(error)")
            throw ExitCode(1)
        }
        print(RunReport.table(results), terminator: "")
        note("wrote \(outPath) and \(timelinePath) (\(String(format: "%.0f", Date().timeIntervalSince(started)))s)")
        let failed = results.filter { $0.lost != 0 || !$0.verified }
        if !failed.isEmpty {
            for result in failed { note("FAILED: \(result.spec.label): lost \(result.lost); \(result.note)") }
            throw ExitCode(3)
        }
    }
}

struct Compare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare a run against a baseline. Exit 0: nothing regressed; 2: a regression; 1: invalid input.")

    @Argument(help: "Baseline summary CSV.")
    var baseline: String
    @Argument(help: "Current summary CSV.")
    var current: String
    @Option(help: "Timing slowdown threshold in percent (default 60: throughput below 0.4x or latency above 2.5x).")
    var threshold: Double = Comparison.defaultThreshold
    @Option(help: "table (default), markdown or csv.")
    var format: String = "table"
    @Flag(help: "Show only regressions, improvements, new and missing cases (table and markdown).")
    var brief = false
    @Flag(help: "Also gate the timings of durability=full cases (flush-bound; off by default because flush latency is bimodal here).")
    var gateDurableTimings = false
    @Option(help: "A second pass of the same suite: a regression fails only if it shows in both passes (lost readings and failed checks fail at once).")
    var confirm: String?
    @Option(help: "Tolerances of the counted work (CSV: metric,tolerance_percent,floor,reason), e.g. results/baselines/counter-thresholds.csv. Without it counters are shown, not gated.")
    var counterThresholds: String?
    @Flag(help: "Accept baseline cases that the current run lacks (by default they fail the comparison with exit 1).")
    var allowMissing = false
    @Flag(help: "Judge only lost readings, end-of-run checks and the counted work (for a counted pass run with MALLOC_CONF=tcache:false).")
    var countersOnly = false

    mutating func validate() throws {
        guard threshold > 0 && threshold < 100 else { throw ValidationError("--threshold must be between 0 and 100 (percent)") }
        guard OutputFormat(rawValue: format) != nil else { throw ValidationError("--format must be table, markdown or csv") }
    }

    func run() async throws {
        let report: ComparisonReport
        do {
            let thresholds = try counterThresholds.map { try CounterGate.thresholds(path: $0) }
            let options = ComparisonOptions(timingThreshold: threshold, gateDurableTimings: gateDurableTimings,
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
    @Option(help: "Slowdown in percent the whole confidence interval must lie beyond to regress (default \(CSVNumber.format(PairedComparison.defaultThreshold))).")
    var threshold: Double = PairedComparison.defaultThreshold
    @Option(help: "Two-sided confidence of the interval (default \(CSVNumber.format(PairedComparison.defaultConfidence))).")
    var confidence: Double = PairedComparison.defaultConfidence
    @Option(help: "Tolerances of the counted work (CSV: metric,tolerance_percent,floor,reason).")
    var counterThresholds: String?
    @Flag(help: "Accept base cases that the current rounds lack.")
    var allowMissing = false
    @Option(help: "table (default), markdown or csv.")
    var format: String = "table"
    @Flag(help: "Show only regressions, improvements, new and missing cases and cases without enough data.")
    var brief = false

    mutating func validate() throws {
        guard !base.isEmpty, base.count == current.count else {
            throw ValidationError("give as many --base rounds as --current rounds (got \(base.count) and \(current.count))")
        }
        guard threshold > 0 && threshold < 100 else { throw ValidationError("--threshold must be between 0 and 100 (percent)") }
        guard confidence >= 0.5 && confidence < 1 else { throw ValidationError("--confidence must be at least 0.5 and below 1") }
        guard OutputFormat(rawValue: format) != nil else { throw ValidationError("--format must be table, markdown or csv") }
    }

    func run() async throws {
        let report: ComparisonReport
        do {
            let thresholds = try counterThresholds.map { try CounterGate.thresholds(path: $0) }
            report = try PairedComparison.compare(basePaths: base, currentPaths: current,
                                                  options: PairedOptions(thresholdPercent: threshold, confidence: confidence,
                                                                         counterThresholds: thresholds, allowMissing: allowMissing))
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
    static let configuration = CommandConfiguration(abstract: "Save one or more run CSVs as results/baselines/NAME.csv.")

    @Argument(help: "The run's summary CSV; several runs of the same suite are merged (more repetitions, steadier medians).")
    var runCSVs: [String]
    @Option(help: "Baseline name (letters, digits, '.', '_', '-').")
    var name: String

    func validate() throws {
        if runCSVs.isEmpty { throw ValidationError("give at least one run CSV") }
    }

    func run() async throws {
        do {
            print(try Baselines.save(runPaths: runCSVs, name: name))
        } catch let error as BenchError {
            note("error: \(error)")
            throw ExitCode(1)
        }
    }
}

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List workloads, strategies, engines and suites.")

    func run() async throws {
        func pad(_ text: String) -> String { text.padding(toLength: 18, withPad: " ", startingAt: 0) }
        var text = "workloads:\n"
        for workload in WorkloadKind.allCases { text += "  \(pad(workload.rawValue))\(workload.summary)\n" }
        text += "strategies:\n"
        for strategy in StrategyKind.allCases { text += "  \(pad(strategy.rawValue))\(strategy.summary)\n" }
        text += "engines:\n"
        for engine in EngineKind.allCases {
            let state = Engines.isAvailable(engine) ? "available" : "not available in this build"
            text += "  \(pad(engine.rawValue))\(state)\(Engines.defaultKind == engine ? " (default)" : "")\n"
        }
        text += "suites:\n"
        for suite in Suite.allCases { text += "  \(pad(suite.rawValue))\(suite.summary)\n" }
        print(text, terminator: "")
    }
}
