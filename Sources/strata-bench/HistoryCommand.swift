// `strata-bench history list|show|import|changes|export`: the run history (StrataBench/History).
// Only `import` writes the history; the other verbs open it read-only and never create it.
// Exit status: 0 success; 1 a history that is not ours, damaged or unreadable, or a file that is
// not a run report; 64 bad usage.

import ArgumentParser
import Foundation
import StrataBench

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The run history: every run's rows, by revision (default results/history.sqlite).",
        subcommands: [HistoryList.self, HistoryShow.self, HistoryImport.self, HistoryImportStress.self, HistoryStress.self,
                      HistoryChanges.self, HistoryExportCommand.self])
}

struct HistoryLocation: ParsableArguments {
    @Option(name: .customLong("history"), help: ArgumentHelp("History database (default \(HistoryStore.defaultPath)).", valueName: "file.sqlite"))
    var path: String = HistoryStore.defaultPath

    /// The store for reading: a missing file is an error, nothing is created or changed.
    func openForReading() throws -> HistoryStore { try openHistory(path, access: .readOnly) }

    /// The store for appending: created if missing.
    func openForWriting() throws -> HistoryStore { try openHistory(path, access: .readWrite) }
}

/// Opens the store; a bad file ends the command with exit 1 and its message.
func openHistory(_ path: String, access: HistoryStore.Access) throws -> HistoryStore {
    do {
        return try HistoryStore(path: path, access: access)
    } catch let error as BenchError {
        note("error: \(error)")
        throw ExitCode(1)
    }
}

/// Runs `body`, turning a `BenchError` into its message and exit 1.
func failingWithExit1<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as BenchError {
        note("error: \(error)")
        throw ExitCode(1)
    }
}

struct HistoryList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the stored runs, oldest first.")

    @OptionGroup var location: HistoryLocation

    func run() async throws {
        let store = try location.openForReading()
        let runs = try failingWithExit1 { try store.runs() }
        let rows = runs.map { [String($0.id), $0.time, $0.revision, $0.host, $0.suite, String($0.cases), String($0.rows), $0.source] }
        print(TextTable.render(header: ["id", "time", "rev", "host", "suite", "cases", "rows", "source"], rows: rows,
                               rightAligned: [0, 5, 6]), terminator: "")
    }
}

struct HistoryShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "One metric of one case across revisions, oldest first: median, min, max and spread per revision.")

    @OptionGroup var location: HistoryLocation
    @Option(help: "Workload, e.g. sensors.")
    var workload: String
    @Option(help: "Engine: strata or sqlite.")
    var engine: String
    @Option(help: "Writer strategy, e.g. batched.")
    var strategy: String
    @Option(help: "A summary CSV column, e.g. readings_per_s.")
    var metric: String
    @Option(help: "Only this durability (full, unsafe, memory).")
    var durability: String?
    @Option(help: "Only this encryption setting (off, on).")
    var encryption: String?

    func run() async throws {
        let store = try location.openForReading()
        let filter = HistoryStore.Filter(workload: workload, engine: engine, strategy: strategy, durability: durability,
                                         encryption: encryption)
        let series = MetricSeries.make(try failingWithExit1 { try store.observations(metric: metric, filter: filter) }, metric: metric)
        if series.isEmpty {
            let known = (try? store.metrics()) ?? []
            let hint = known.contains(metric) ? "no stored run has that case" : "no stored value of '\(QuotedInput.clip(metric))'"
            note("nothing to show: \(hint) (workload \(workload), engine \(engine), strategy \(strategy))")
            return
        }
        var text = ""
        for one in series {
            text += "\(one.caseKey)  \(one.metric)\n" + one.table()
            if series.count > 1 { text += "\n" }
        }
        print(text, terminator: "")
    }
}

struct HistoryImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add runs' summary CSVs to the history (a run already there is not added twice).")

    @OptionGroup var location: HistoryLocation
    @Argument(help: ArgumentHelp("Summary CSVs of runs.", valueName: "run.csv"))
    var runCSVs: [String]

    func validate() throws {
        if runCSVs.isEmpty { throw ValidationError("give at least one run CSV") }
    }

    func run() async throws {
        // Every file is read and checked before the first is stored: a bad file among good ones
        // adds nothing.
        let records = try failingWithExit1 {
            try OutputFiles.checkNotInputs([OutputFiles.Target(flag: "--history", path: location.path)],
                                           inputs: runCSVs.map { OutputFiles.Target(flag: "run CSV", path: $0) })
            return try runCSVs.map { try RunRecord.read(path: $0) }
        }
        let store = try location.openForWriting()
        for record in records {
            switch try failingWithExit1({ try store.append(record) }) {
            case .added(let id, let rows):
                print("\(record.source): added as run \(id) (\(rows) rows, rev \(record.revision))")
            case .alreadyPresent(let id):
                print("\(record.source): already in the history as run \(id); nothing added")
            }
        }
    }
}

struct HistoryChanges: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Revisions where a metric stepped beyond its noise: the least-squares segmentation of the per-revision medians into levels, with a BIC penalty scaled by the series' residual variance.")

    @OptionGroup var location: HistoryLocation
    @Option(help: "Only this workload.")
    var workload: String?
    @Option(help: "Only this engine.")
    var engine: String?
    @Option(help: "Only this writer strategy.")
    var strategy: String?
    @Option(help: "Only this durability.")
    var durability: String?
    @Option(name: .customLong("metric"), help: "Metric to search (repeatable; default: the metrics compare gates).")
    var metrics: [String] = []
    // Read as text so that `NumericFlag` (one strict decimal reader) judges it.
    @Option(name: .customLong("penalty"), parsing: .unconditional,
            help: "Penalty factor: a change must remove more than about penalty x residual variance x ln(revisions) of squared error (default \(CSVNumber.format(ChangePoints.defaultPenalty))).")
    var penaltyText: String?

    func penalty() throws -> Double {
        try penaltyText.map { try NumericFlag.real($0, flag: "--penalty") } ?? ChangePoints.defaultPenalty
    }

    func validate() throws {
        let penalty: Double
        do {
            penalty = try self.penalty()
        } catch let error as BenchError {
            throw ValidationError(error.message)
        }
        guard penalty > 0 else { throw ValidationError("--penalty must be a number above 0") }
    }

    func run() async throws {
        let store = try location.openForReading()
        let filter = HistoryStore.Filter(workload: workload, engine: engine, strategy: strategy, durability: durability)
        let chosen = metrics.isEmpty ? MetricPolicy.gated.map(\.column) : metrics
        let penalty = try failingWithExit1 { try self.penalty() }
        var rows: [[String]] = []
        var searched = 0
        for metric in chosen {
            let observations = try failingWithExit1 { try store.observations(metric: metric, filter: filter) }
            for series in MetricSeries.make(observations, metric: metric) {
                searched += 1
                for change in ChangePoints.changes(in: series, penalty: penalty) {
                    rows.append([change.caseKey, change.metric, change.previousRevision + " -> " + change.revision,
                                 CSVNumber.format(change.before), CSVNumber.format(change.after),
                                 change.changePercent.map { (($0 >= 0) ? "+" : "") + CSVNumber.format($0, digits: 1) } ?? "-",
                                 String(series.points.count)])
                }
            }
        }
        if rows.isEmpty {
            print("no changes beyond the noise in \(searched) series")
            return
        }
        print(TextTable.render(header: ["case", "metric", "revisions", "before", "after", "change %", "revisions seen"],
                               rows: rows, rightAligned: [3, 4, 5, 6]), terminator: "")
    }
}

struct HistoryExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the history as InfluxDB line protocol or OpenMetrics text on stdout (one point per row; tags: the case, repetition, host, rev).")

    @OptionGroup var location: HistoryLocation
    @Option(help: "influx or openmetrics.")
    var format: String
    @Option(help: ArgumentHelp("Only runs at or after this time (ISO 8601, e.g. 2026-11-01T00:00:00Z).", valueName: "time"))
    var since: String?
    @Option(help: ArgumentHelp("Send the line protocol to this URL (InfluxDB 1.x /write, VictoriaMetrics /write) instead of printing it.", valueName: "url"))
    var push: String?

    func validate() throws {
        guard HistoryExport.Format(rawValue: format) != nil else { throw ValidationError("--format \(format): must be influx or openmetrics") }
        if let since, HistoryExport.parseTime(since) == nil {
            throw ValidationError("--since \(since): not an ISO 8601 time such as 2026-11-01T00:00:00Z")
        }
        if push != nil && format != HistoryExport.Format.influx.rawValue {
            throw ValidationError("--push sends line protocol: use --format influx")
        }
    }

    func run() async throws {
        let store = try location.openForReading()
        let points = try failingWithExit1 { try HistoryExport.points(store, since: since.flatMap(HistoryExport.parseTime)) }
        let text = HistoryExport.render(points, format: HistoryExport.Format(rawValue: format) ?? .influx)
        guard let push else {
            print(text, terminator: "")
            return
        }
        do {
            try await HistoryPush.push(text, to: push)
        } catch let error as BenchError {
            note("error: \(error) (the local history is unchanged)")
            throw ExitCode(1)
        }
        print("pushed \(points.count) points to \(push)")
    }
}

struct HistoryImportStress: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-stress",
        abstract: "Add `strata-bench stress` summary CSVs to the history's stress table (a file already there is not added twice).")

    @OptionGroup var location: HistoryLocation
    @Argument(help: ArgumentHelp("Stress summary CSVs.", valueName: "stress.csv"))
    var stressCSVs: [String]

    func validate() throws {
        if stressCSVs.isEmpty { throw ValidationError("give at least one stress CSV") }
    }

    func run() async throws {
        // Every file is checked before the first is stored: a bad file among good ones adds nothing.
        try failingWithExit1 {
            try OutputFiles.checkNotInputs([OutputFiles.Target(flag: "--history", path: location.path)],
                                           inputs: stressCSVs.map { OutputFiles.Target(flag: "stress CSV", path: $0) })
            for path in stressCSVs { _ = try DurabilityHTMLSection.read(path) }
        }
        let store = try location.openForWriting()
        for path in stressCSVs {
            switch try failingWithExit1({ try store.appendStress(path: path) }) {
            case .added(_, let rows): print("\(path): added \(rows) stress rows")
            case .alreadyPresent: print("\(path): already in the history; nothing added")
            }
        }
    }
}

struct HistoryStress: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stress", abstract: "The stored stress results over revisions, oldest first.")

    @OptionGroup var location: HistoryLocation
    @Option(help: "Only this scenario (kill, full-disk, …).") var scenario: String?
    @Option(help: "Only this engine.") var engine: String?
    @Option(help: "Only this durability.") var durability: String?

    func run() async throws {
        let store = try location.openForReading()
        let rows = try failingWithExit1 { try store.stressResults(scenario: scenario, engine: engine, durability: durability) }
        if rows.isEmpty {
            note("nothing to show: no stored stress row matches (history import-stress adds them)")
            return
        }
        func count(_ value: Int?) -> String { value.map(String.init) ?? "" }
        let body = rows.map { [$0.runTime, String($0.revision.prefix(10)), $0.scenario, $0.engine, $0.durability, $0.encryption,
                               $0.strategy, count($0.acknowledged), count($0.lost), count($0.hangs), $0.verdict] }
        print(TextTable.render(header: ["time", "rev", "scenario", "engine", "dur", "enc", "strategy", "acked", "lost", "hangs", "verdict"],
                               rows: body, rightAligned: [7, 8, 9]), terminator: "")
    }
}
