// `strata-bench run`: flags to `RunOptions`, output paths checked before the first case, the
// runner, the files and the table; SIGINT/SIGTERM keep the finished cases (Interruption.swift).

import ArgumentParser
import Foundation
import StrataBench

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run benchmark cases, write a summary CSV (and timeline CSV), print a table.",
        discussion: """
        With no options: the sensors suite (every writer strategy, 10 s each) on Strata and on SQLite \
        (GRDB), durability full, about 2.5 minutes. Ctrl-C keeps the cases that finished.
        """)

    @Option(help: "Named set of cases: smoke, sensors (default), full, scale.")
    var suite: String?
    @Option(name: .customLong("workload"), help: "Workload to run (repeatable): sensors, bulk-insert, pinned-growth, compaction, encryption, read-while-write, reads, scale.")
    var workloads: [String] = []
    @Option(name: .customLong("engine"), help: "Engine (repeatable): strata, sqlite, lmdb, sqlcipher, all (default: strata and sqlite; lmdb and sqlcipher need their libraries: see list).")
    var engines: [String] = []
    @Option(name: .customLong("strategy"), help: "Writer strategy (repeatable): main-sync, main-async, gcd, threads, dedicated, batched, async, all.")
    var strategies: [String] = []
    // Numbers are read as text (and `.unconditional`, so "-1" is a value, not a flag) so that
    // every bad value gets a message naming the flag and the value as typed.
    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds each time-bound case produces readings (0.1 to 86400).", valueName: "seconds"))
    var duration: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Readings each case produces (count-bound; excludes --duration).", valueName: "count"))
    var readings: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Readings per transaction for batched / bulk workloads.", valueName: "count"))
    var batchSize: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Batched strategy: longest wait before a flush, in milliseconds (default 100).", valueName: "ms"))
    var maxDelay: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("gcd strategy: concurrent writers (default 64); threads strategy: writer threads (default 8).", valueName: "count"))
    var writers: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Open loop: readings per second for all sensors together (default: closed loop).", valueName: "per-second"))
    var rate: String?
    @Option(parsing: .unconditional, help:  ArgumentHelp("Store sizes of the reads and scale workloads, one case each: 10k,100k,1M (default 100000; scale suite 10k,100k,1M).", valueName: "sizes"))
    var objects: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Reads workload: reader threads timed alone, then while one writer commits a sample per transaction (1 to 64; default none).", valueName: "count"))
    var readers: String?
    @Option(help: "off, on or both (default off; the encryption workload defaults to both).")
    var encryption: String?
    @Option(help: "full (default), unsafe or memory.")
    var durability: String?
    @Option(help: "How sensors drops the readings beyond the cap: remove (default: removeFirst, then delete) or delete (realm.delete of the oldest: the Realm book's batched writer).")
    var trim: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Repetitions of every case (default 3 for smoke, 1 otherwise).", valueName: "count"))
    var repetitions: String?
    @Option(help: ArgumentHelp("Summary CSV path (default results/runs/<timestamp>.csv).", valueName: "file.csv"))
    var out: String?
    @Option(help: ArgumentHelp("Timeline CSV path (default: the summary path with .timeline.csv).", valueName: "file.csv"))
    var timeline: String?
    @Option(help: ArgumentHelp("Directory for the stores under test (default: the system temp directory).", valueName: "dir"))
    var dir: String?
    @Option(name: .customLong("history"), help: ArgumentHelp("History database the run is appended to (default \(HistoryStore.defaultPath)).", valueName: "file.sqlite"))
    var historyPath: String = HistoryStore.defaultPath
    @Flag(help: "Do not append the run to the history.")
    var noHistory = false
    @Flag(help: "No progress, skip or 'wrote' lines on stderr (errors and failures are still reported).")
    var quiet = false
    /// Words that are no flag: a mistyped subcommand lands here (run is the default command).
    @Argument(help: .hidden)
    var stray: [String] = []

    func options() throws -> RunOptions {
        var options = RunOptions()
        options.suite = try suite.map { try Choice.parse($0, flag: "--suite", as: Suite.self) }
        options.workloads = try workloads.map { try Choice.parse($0, flag: "--workload", as: WorkloadKind.self) }
        options.engines = engines
        options.strategies = strategies
        options.duration = try duration.map { try NumericFlag.real($0, flag: "--duration") }
        options.readings = try readings.map { try NumericFlag.integer($0, flag: "--readings") }
        options.batchSize = try batchSize.map { try NumericFlag.integer($0, flag: "--batch-size") }
        options.maxDelayMs = try maxDelay.map { try NumericFlag.integer($0, flag: "--max-delay") }
        options.writers = try writers.map { try NumericFlag.integer($0, flag: "--writers") }
        options.rate = try rate.map { try NumericFlag.real($0, flag: "--rate") }
        options.encryption = try encryption.map { try Choice.parse($0, flag: "--encryption", as: EncryptionChoice.self) }
        options.durability = try durability.map { try Choice.parse($0, flag: "--durability", as: Durability.self) }
        options.trim = try trim.map { try Choice.parse($0, flag: "--trim", as: TrimStyle.self) }
        options.repetitions = try repetitions.map { try NumericFlag.integer($0, flag: "--repetitions") }
        options.objects = try objects.map { try NumericFlag.counts($0, flag: "--objects") } ?? []
        options.readers = try readers.map { try NumericFlag.integer($0, flag: "--readers") }
        return options
    }

    mutating func validate() throws {
        if let word = stray.first {
            let looksLikeAPath = word.contains("/") || word.contains(".")
            if !looksLikeAPath, let command = closest(to: word, in: StrataBenchCommand.commandNames) {
                throw ValidationError("unknown command '\(QuotedInput.clip(word))' — did you mean '\(command)'? (commands: \(StrataBenchCommand.commandNames.joined(separator: ", ")))")
            }
            if !looksLikeAPath && stray.count == 1 {
                throw ValidationError("unknown command '\(QuotedInput.clip(word))' (commands: \(StrataBenchCommand.commandNames.joined(separator: ", ")))")
            }
            throw ValidationError("unexpected argument\(stray.count > 1 ? "s" : "") \(stray.prefix(5).map { "'\(QuotedInput.clip($0))'" }.joined(separator: " ")) (run takes only --flags; see --help)")
        }
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
        do {
            let targets = [OutputFiles.Target(flag: "--out", path: outPath), OutputFiles.Target(flag: "--timeline", path: timelinePath)]
            // The history is the one file a run reads and keeps: a CSV must not replace it.
            if !noHistory { try OutputFiles.checkNotInputs(targets, inputs: [OutputFiles.Target(flag: "--history", path: historyPath)]) }
            try OutputFiles.check(targets)
        } catch let error as BenchError {
            note("error: \(error.message)")
            throw ExitCode(64)
        }
        // Opened (and checked) before the first case: a bad history fails the run at once.
        let history = noHistory ? nil : try openHistory(historyPath, access: .readWrite)
        let quiet = self.quiet
        let finished = FinishedCases()
        let progress: ProgressHandler = { event in
            switch event {
            case .caseStarted(let index, let total, let label):
                if !quiet { note(String(format: "[%d/%d] %@  (run %.0fs)", index, total, label, Date().timeIntervalSince(started))) }
            case .tick(_, let elapsed, let committed, let rate):
                if !quiet { note(String(format: "        %5.1fs  %d readings committed  %.0f readings/s", elapsed, committed, rate)) }
            case .caseFinished(_, _, _, let result):
                finished.add(result)
                if !quiet { note(ProgressLine.finished(result)) }
            case .abandoned:
                break  // the closing line names it
            case .skipped(let label, let reason):
                if !quiet { note("skipped: \(label): \(reason)") }
            case .note(let text):
                if !quiet { note(text) }
            }
        }
        if !quiet { note("strata-bench: \(cases.count) cases, \(MachineInfo.buildConfiguration) build") }
        let files = ResultFiles(summary: outPath, timeline: timelinePath, started: started, total: cases.count)
        let signals = SignalStop()
        // The scale workload times a first open in a child of this very binary.
        let runner = BenchRunner(cases: cases, directory: dir, progress: progress, stop: signals.stop,
                                 executable: try? SelfExecutable.path())
        signals.install { signal in
            // A second signal: the current case did not come back. Keep what finished and go.
            try? FileManager.default.removeItem(atPath: runner.runDirectory)
            var results = finished.all
            BenchRunner.fillEncryptionOverhead(&results)
            let saved = files.save(results, interrupted: true)
            note(files.interruptionLine(SignalStop.name(signal), results: results, saved: saved, forced: true))
            Foundation.exit(128 + signal)
        }
        let outcome: BenchRunner.Outcome
        do {
            outcome = try await runner.execute()
        } catch let error as BenchError {
            note("error: \(error)")
            throw ExitCode(1)
        }
        let results = outcome.results
        if let signal = signals.received, outcome.cutShort {
            print(RunReport.table(results), terminator: "")
            let saved = files.save(results, interrupted: true)
            note(files.interruptionLine(SignalStop.name(signal), results: results, saved: saved, forced: false))
            throw ExitCode(128 + signal)
        }
        if let signal = signals.received {
            note("\(SignalStop.name(signal)) arrived after the last case: the run is complete and saved as such")
        }
        print(RunReport.table(results), terminator: "")
        print(RunReport.footnote(results), terminator: "")
        let saved = files.save(results, interrupted: false)
        if !saved.complete { throw ExitCode(1) }
        if !quiet { note("wrote \(outPath) and \(timelinePath) (\(String(format: "%.0f", Date().timeIntervalSince(started)))s)") }
        if let history, !results.isEmpty {
            try appendToHistory(history, results: results, summaryPath: saved.summary ?? outPath)
        }
        let failed = results.filter { $0.lost != 0 || !$0.verified }
        if !failed.isEmpty {
            for result in failed { note("FAILED: \(result.spec.label): lost \(result.lost); \(result.note)") }
            throw ExitCode(3)
        }
    }
}

extension Run {
    /// Appends the run's summary, read back from the file just written, so that the history
    /// holds exactly the CSV's rows (and `history import` of that file later adds nothing).
    func appendToHistory(_ history: HistoryStore, results: [CaseResult], summaryPath: String) throws {
        let label = suite ?? (workloads.isEmpty && engines.isEmpty && strategies.isEmpty ? Suite.sensors.rawValue : "custom")
        do {
            let table = try CSVReader.read(path: summaryPath)
            let record = try RunRecord(table: table, path: summaryPath, suite: label, source: "run")
            if case .added(let id, _) = try history.append(record), !quiet {
                note("history: run \(id) in \(history.path)")
            }
        } catch let error as BenchError {
            note("error: the run is saved but not in the history: \(error)")
            throw ExitCode(1)
        }
    }
}

/// Writes a run's two CSVs; a file that cannot be written goes to a fallback path that the
/// error line names, and if even that fails the CSV is printed on stdout: results are never lost.
struct ResultFiles: Sendable {
    let summary: String
    let timeline: String
    let started: Date
    let total: Int

    struct Saved {
        /// Where the summary and the timeline ended up (nil: printed on stdout).
        var summary: String?
        var timeline: String?
        /// Both at the paths asked for.
        var complete: Bool
    }

    func save(_ results: [CaseResult], interrupted: Bool) -> Saved {
        let machine = MachineInfo.current()
        let summaryText = RunReport.summaryCSV(results, machine: machine, timestamp: RunReport.timestamp(started),
                                               interrupted: interrupted)
        let summaryPlace = keep(summaryText, at: summary, what: "summary CSV")
        let timelinePlace = keep(RunReport.timelineCSV(results), at: timeline, what: "timeline CSV")
        return Saved(summary: summaryPlace, timeline: timelinePlace,
                     complete: summaryPlace == summary && timelinePlace == timeline)
    }

    private func keep(_ text: String, at path: String, what: String) -> String? {
        switch OutputFiles.writeKeeping(text, to: path) {
        case .written(let written):
            return written
        case .rescued(let fallback, let error):
            note("error: cannot write the \(what) to \(path) (\(error.message)); it is in \(fallback) instead")
            return fallback
        case .unwritten(let error, let fallbackError):
            note("error: cannot write the \(what) to \(path) (\(error.message)) nor to \(fallbackError.path ?? "a temporary file") (\(fallbackError.message)); it follows on stdout")
            print(text, terminator: "")
            return nil
        }
    }

    /// The one line an interrupted run ends with.
    func interruptionLine(_ signal: String, results: [CaseResult], saved: Saved, forced: Bool) -> String {
        let place = saved.summary.map { "in \($0)" + (saved.timeline.map { " and \($0)" } ?? "") } ?? "on stdout"
        let how = forced ? "stopped at once on a second signal" : "the running case was abandoned"
        return "interrupted by \(signal): kept the \(results.count) finished case\(results.count == 1 ? "" : "s") of \(total) \(place) (marked interrupted); \(how); stores removed"
    }
}
