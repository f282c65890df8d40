// `strata-bench gate`: the paired performance gate's rounds and verdict. The head's build drives
// both builds: each case is one `run` process per build with flags the base understands too
// (`GateCase`), so an older base needs nothing of this file.
//
// How a case runs. CPU-judged cases run in alternation on one CPU (the `alternator` program,
// scripts/run-alternating: both builds pinned to one CPU, taking turns every 5 ms): side by side
// on this VM's two CPUs identical builds were charged CPU times ~0.12 apart (standard deviation of
// the log ratio) because the CPUs' speeds differ from moment to moment; in alternation ~0.025.
// Their wall times include the stops, so only their CPU time is judged. Durable cases, judged on
// wall-clock throughput, run side by side, both builds started together, so both meet the same
// host. The counted round runs every case side by side with the allocator's thread caches off
// (`MALLOC_CONF=tcache:false`) so every heap request is counted (CounterGate): counts do not depend
// on timing, one round is enough.
//
// Cases run in a directory outside any git checkout: a run records `git describe --dirty` of its
// working directory, which costs a few tenths of a second per process in a checkout.
//
// Invariants: a case process that fails (status other than 0 and 3) ends the gate with status 1
// and a "Could not judge" line; the report and the files `.ci/run` and the plots read
// (`report.md`, `current.csv`, `paired.csv`, `counters-all.csv`, `rounds/`) keep their names.

import Foundation

/// What the gate is given (the `gate` command's flags).
public struct GateSettings: Sendable {
    /// The base build's strata-bench; nil judges the current build against the committed baselines
    /// (`GateBaselineMode.swift`).
    public var baseBinary: String?
    public var currentBinary: String
    public var baseLabel: String
    /// The output directory (`report.md` is appended to, the rest written).
    public var out: String
    public var rounds: Int
    public var thresholdPercent: Double
    public var cpuThresholdPercent: Double
    /// The CPU the alternated cases run on.
    public var cpu: Int
    /// The program that runs two commands in alternation (scripts/run-alternating).
    public var alternator: String
    /// The allocator preloaded into every case (empty: none).
    public var preload: String
    public var counterThresholds: String
    /// The committed counters baseline, for a base that counts no work.
    public var countersBaseline: String
    /// The tree's revision for `current.csv`'s `git_rev` (nil: as the runs recorded it).
    public var treeRevision: String?
    public var cases: [GateCase]

    public init(baseBinary: String?, currentBinary: String, baseLabel: String, out: String, rounds: Int,
                thresholdPercent: Double, cpuThresholdPercent: Double, cpu: Int, alternator: String, preload: String,
                counterThresholds: String, countersBaseline: String, treeRevision: String?, cases: [GateCase] = RunPlan.gateSuite) {
        self.baseBinary = baseBinary
        self.currentBinary = currentBinary
        self.baseLabel = baseLabel
        self.out = out
        self.rounds = rounds
        self.thresholdPercent = thresholdPercent
        self.cpuThresholdPercent = cpuThresholdPercent
        self.cpu = cpu
        self.alternator = alternator
        self.preload = preload
        self.counterThresholds = counterThresholds
        self.countersBaseline = countersBaseline
        self.treeRevision = treeRevision
        self.cases = cases
    }
}

public final class GateRunner {
    let settings: GateSettings
    let caseDirectory: String
    let log: (String) -> Void

    public init(settings: GateSettings, log: @escaping (String) -> Void) throws(BenchError) {
        self.settings = settings
        self.log = log
        let template = NSTemporaryDirectory() + "strata-perf-gate.XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else { throw BenchError(.io, "cannot create a directory for the cases", path: template) }
        caseDirectory = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: caseDirectory) }

    func path(_ relative: String) -> String { (settings.out as NSString).appendingPathComponent(relative) }

    /// Runs the rounds, the counted round and the judgements; returns the gate's status (0, 2, or 1
    /// when it could not judge). Appends its sections to `report.md`.
    public func run() -> Int32 {
        do {
            try FileManager.default.createDirectory(atPath: path("rounds"), withIntermediateDirectories: true)
            if settings.baseBinary == nil { return try againstBaselines() }
            var status: Int32 = 0
            if settings.rounds == 0 {
                try report("\n## Timings: not judged (PERF_GATE_ROUNDS=0, counted work only)\n")
                log("no timing rounds (PERF_GATE_ROUNDS=0)")
            } else {
                status = try timings()
            }
            return GateRounds.severest(status, try countedWork())
        } catch {
            try? report("**Could not judge:** \(error)\n")
            log("could not judge: \(error)")
            return 1
        }
    }

    // MARK: - Timing rounds

    func timings() throws -> Int32 {
        var currentRounds: [[(path: String, table: CSVTable)]] = []
        for round in 1...settings.rounds {
            log("round \(round)/\(settings.rounds) (\(settings.cases.count) cases, both builds)")
            try runRound(tag: String(round), seed: round, timing: true, environment: [:])
            currentRounds.append(try [true, false].compactMap { alternated in
                let file = path(GateRounds.roundFile(.current, tag: String(round), alternated: alternated))
                return FileManager.default.fileExists(atPath: file) ? (file, try CSVReader.read(path: file)) : nil
            })
        }
        let run = try GateRounds.currentRun(rounds: currentRounds, gitRev: settings.treeRevision)
        try CSVWriter.write(CSVWriter.render(header: run.header, rows: run.rows), to: path("current.csv"))
        try joinTimelines()

        // Two comparisons: the alternated cases on CPU time only, the side-by-side ones as usual.
        var markdown = ""
        var csv = ""
        var status: Int32 = 0
        for alternated in [true, false] {
            let tags = (1...settings.rounds).map(String.init)
            let base = tags.map { path(GateRounds.roundFile(.base, tag: $0, alternated: alternated)) }
            let current = tags.map { path(GateRounds.roundFile(.current, tag: $0, alternated: alternated)) }
            guard base.allSatisfy(FileManager.default.fileExists(atPath:)) else { continue }
            let options = PairedOptions(thresholdPercent: settings.thresholdPercent, cpuThresholdPercent: settings.cpuThresholdPercent,
                                        judgesWallClock: !alternated)
            do {
                let judged = try PairedComparison.compare(basePaths: base, currentPaths: current, options: options)
                markdown += Comparison.render(judged, format: .markdown, verbose: true, title: "strata-bench paired comparison")
                let rendered = Comparison.render(judged, format: .csv, verbose: true, title: "strata-bench paired comparison")
                csv += csv.isEmpty ? rendered : rendered.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().joined(separator: "\n")
                status = GateRounds.severest(status, PairedComparison.exitCode(judged))
            } catch {
                markdown += "error: \(error)\n"
                status = GateRounds.severest(status, 1)
            }
        }
        try CSVWriter.write(markdown, to: path("paired.md"))
        try CSVWriter.write(csv, to: path("paired.csv"))
        // The report keeps regressions, improvements and undecided cases in full, plus every case's
        // throughput line (ratio and interval), not the unchanged counter lines.
        let kept = markdown.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("| info |") }
            .map { $0.hasPrefix("### ") ? "" : String($0) }
        try report("\n## Timings, paired rounds against \(settings.baseLabel)\n\n" + kept.joined(separator: "\n"))
        log("paired comparison: status \(status)")
        return status
    }

    /// Every case of `cases`, both builds; leaves the round's joined files (`GateRounds.roundFile`).
    func runRound(tag: String, seed: Int, timing: Bool, environment: [String: String]) throws {
        var files: [String: [(path: String, table: CSVTable)]] = [:]
        for (index, gateCase) in settings.cases.enumerated() {
            let sides = GateRounds.order(round: seed, caseIndex: index)
            let flags = timing ? gateCase.flags : gateCase.countedFlags
            let commands = sides.map { side in
                command(side, out: path(GateRounds.caseFile(side, tag: tag, caseIndex: index)), flags: flags)
            }
            let alternated = timing && gateCase.alternates
            let status: Int32
            if alternated {
                status = try wait(start([settings.alternator, String(settings.cpu), "5", "--"] + commands[0] + ["--"] + commands[1],
                                        environment: environment))
            } else {
                let processes = try commands.map { try start($0, environment: environment) }
                status = try processes.map(wait).first { !GateRounds.caseFinished($0) } ?? 0
            }
            guard GateRounds.caseFinished(status) else {
                throw BenchError(.childProtocol, "round \(tag) (case \(flags.joined(separator: " "))) failed (exit \(status))")
            }
            for side in GateSide.allCases {
                let file = path(GateRounds.caseFile(side, tag: tag, caseIndex: index))
                files["\(side.rawValue)-\(alternated)", default: []].append((file, try CSVReader.read(path: file)))
            }
        }
        for side in GateSide.allCases {
            for alternated in [true, false] {
                guard let tables = files["\(side.rawValue)-\(alternated)"] else { continue }
                let joined = try GateRounds.join(tables)
                try CSVWriter.write(CSVWriter.render(header: joined.header, rows: joined.rows),
                                    to: path(GateRounds.roundFile(side, tag: tag, alternated: alternated)))
                // The current build's file-size timelines, joined the same way (the HTML report draws them).
                if side == .current { try joinCaseTimelines(tables.map(\.path), into: GateRounds.roundFile(side, tag: tag, alternated: alternated)) }
            }
        }
        for side in GateSide.allCases {
            for index in settings.cases.indices {
                let file = path(GateRounds.caseFile(side, tag: tag, caseIndex: index))
                try? FileManager.default.removeItem(atPath: file)
                try? FileManager.default.removeItem(atPath: Self.timeline(of: file))
            }
        }
    }

    static func timeline(of csv: String) -> String { String(csv.dropLast(4)) + ".timeline.csv" }

    func joinCaseTimelines(_ caseFiles: [String], into roundFile: String) throws {
        let tables = try caseFiles.map(Self.timeline).filter { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 > 0 }
            .map { ($0, try CSVReader.read(path: $0)) }
        guard !tables.isEmpty else { return }
        let joined = try GateRounds.join(tables)
        try CSVWriter.write(CSVWriter.render(header: joined.header, rows: joined.rows), to: Self.timeline(of: path(roundFile)))
    }

    /// The current build's timelines of every round as one file (repetition = round), beside
    /// `current.csv`, where `strata-bench report` looks.
    func joinTimelines() throws {
        var rounds: [[(path: String, table: CSVTable)]] = []
        for round in 1...settings.rounds {
            rounds.append(try [true, false].compactMap { alternated in
                let file = Self.timeline(of: path(GateRounds.roundFile(.current, tag: String(round), alternated: alternated)))
                return FileManager.default.fileExists(atPath: file) ? (file, try CSVReader.read(path: file)) : nil
            })
        }
        guard rounds.contains(where: { !$0.isEmpty }) else { return }
        let joined = try GateRounds.currentRun(rounds: rounds, gitRev: nil)
        try CSVWriter.write(CSVWriter.render(header: joined.header, rows: joined.rows), to: path("current.timeline.csv"))
    }

    // MARK: - Counted work

    func countedWork() throws -> Int32 {
        log("counted round of both builds (allocator caches off)")
        try runRound(tag: "counted", seed: 0, timing: false, environment: ["MALLOC_CONF": "tcache:false"])
        let base = path("counters-base.csv"), current = path("counters-current.csv")
        try copy(path(GateRounds.roundFile(.base, tag: "counted", alternated: false)), to: base)
        try copy(path(GateRounds.roundFile(.current, tag: "counted", alternated: false)), to: current)
        if GateRounds.baseCountsWork(try CSVReader.read(path: base).header) {
            return try judgeCounters(baseline: base, label: "against \(settings.baseLabel), same machine")
        }
        // A base too old to count its work: the current build's counted smoke pass against the
        // committed counters baseline, whose cases are the smoke suite's.
        try report("\nThe base build reports no counted work; the counted pass is judged against \(settings.countersBaseline).\n")
        log("counted smoke pass of the current build")
        let status = try wait(start([settings.currentBinary, "run", "--suite", "smoke", "--repetitions", "1", "--quiet", "--no-history",
                                     "--out", current, "--timeline", Self.timeline(of: current)],
                                    environment: ["MALLOC_CONF": "tcache:false"]))
        guard GateRounds.caseFinished(status) else { throw BenchError(.childProtocol, "the current build's counted pass failed (exit \(status))") }
        return try judgeCounters(baseline: settings.countersBaseline, label: "against \(settings.countersBaseline)")
    }

    func judgeCounters(baseline: String, label: String) throws -> Int32 {
        let options = ComparisonOptions(counterThresholds: try CounterGate.thresholds(path: settings.counterThresholds), countersOnly: true)
        let judged = try Comparison.compare(baselinePath: baseline, currentPath: path("counters-current.csv"), options: options)
        let markdown = Comparison.render(judged, format: .markdown, verbose: false)
        try CSVWriter.write(markdown, to: path("counters.md"))
        try CSVWriter.write(Comparison.render(judged, format: .csv), to: path("counters-all.csv"))
        let kept = markdown.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasPrefix("### ") ? "" : String($0) }
        try report("\n## Counted work (\(label))\n\n" + kept.joined(separator: "\n"))
        log("counted work: status \(judged.exitCode)")
        return judged.exitCode
    }

    // MARK: - Processes and files

    /// The words of one case's command.
    func command(_ side: GateSide, out: String, flags: [String]) -> [String] {
        [side == .base ? settings.baseBinary ?? settings.currentBinary : settings.currentBinary, "run", "--suite", "smoke", "--repetitions", "1"] + flags
            + ["--quiet", "--no-history", "--out", out, "--timeline", Self.timeline(of: out)]
    }

    /// Starts a process in the cases' directory (`directory` nil) or in `directory`.
    func start(_ words: [String], environment: [String: String], directory: String? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: words[0])
        process.arguments = Array(words.dropFirst())
        var variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if !settings.preload.isEmpty { variables["LD_PRELOAD"] = settings.preload }
        process.environment = variables
        process.currentDirectoryURL = URL(fileURLWithPath: directory ?? caseDirectory)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw BenchError(.io, "cannot start \(words[0]): \(error)")
        }
        return process
    }

    func wait(_ process: Process) throws -> Int32 {
        process.waitUntilExit()
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    func copy(_ source: String, to target: String) throws {
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: source, toPath: target)
    }

    func report(_ text: String) throws {
        let file = path("report.md")
        guard let handle = FileHandle(forWritingAtPath: file) else {
            try CSVWriter.write(text, to: file)
            return
        }
        defer { try? handle.close() }
        handle.seekToEndOfFile()
        handle.write(Data(text.utf8))
    }
}
