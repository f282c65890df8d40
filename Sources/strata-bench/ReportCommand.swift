// `strata-bench report RUN.csv [--baseline B.csv] [--history DB] [--stress S.csv] --out report.html`: one
// self-contained HTML page for a run (StrataBench/Reports/HTML).
// Exit status: 0 written; 1 a file that is not a run report (or timeline, baseline, history), a
// missing history, or the page cannot be written; 64 bad usage, including an --out that is one of
// the inputs.

import ArgumentParser
import Foundation
import StrataBench

struct Report: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one self-contained HTML report of a run: its table, charts, verdicts against a baseline, trends from the history.")

    @Argument(help: ArgumentHelp("The run's summary CSV.", valueName: "run.csv"))
    var runCSV: String
    @Option(help: ArgumentHelp("Timeline CSV (default: RUN.timeline.csv beside the run, when it exists).", valueName: "file.csv"))
    var timeline: String?
    @Option(help: ArgumentHelp("Baseline summary CSV: adds compare's verdicts.", valueName: "baseline.csv"))
    var baseline: String?
    @Option(name: .customLong("history"), help: ArgumentHelp("History database: adds the trend of each gated metric.", valueName: "file.sqlite"))
    var historyPath: String?
    @Option(help: ArgumentHelp("A `strata-bench stress` summary CSV: adds the Durability section.", valueName: "stress.csv"))
    var stress: String?
    @Option(help: ArgumentHelp("Where to write the page.", valueName: "report.html"))
    var out: String

    /// The files the report reads, with their flags (the timeline beside the run included).
    var inputs: [OutputFiles.Target] {
        let besideRun = (runCSV.hasSuffix(".csv") ? String(runCSV.dropLast(4)) : runCSV) + ".timeline.csv"
        let timelineTarget = timeline.map { OutputFiles.Target(flag: "--timeline", path: $0) }
            ?? (FileManager.default.fileExists(atPath: besideRun) ? OutputFiles.Target(flag: "the run's timeline", path: besideRun) : nil)
        return [OutputFiles.Target(flag: "run CSV", path: runCSV)]
            + [timelineTarget, baseline.map { OutputFiles.Target(flag: "--baseline", path: $0) },
               historyPath.map { OutputFiles.Target(flag: "--history", path: $0) },
               stress.map { OutputFiles.Target(flag: "--stress", path: $0) }].compactMap { $0 }
    }

    func run() async throws {
        // Before anything is read or written: the page must not replace one of its inputs.
        do {
            try OutputFiles.checkNotInputs([OutputFiles.Target(flag: "--out", path: out)], inputs: inputs)
        } catch let error as BenchError {
            note("error: \(error.message)")
            throw ExitCode(64)
        }
        // A report reads a history; it never creates or changes one.
        let history = try historyPath.map { try openHistory($0, access: .readOnly) }
        try failingWithExit1 {
            let html = try RunHTMLReport.render(RunHTMLReport.Inputs(runPath: runCSV, timelinePath: timeline, baselinePath: baseline,
                                                                     history: history, stressPath: stress))
            try OutputFiles.write(html, to: out)
        }
        print(out)
    }
}
