// `strata-bench stress` and its two hidden children: `stress-writer` (commits readings and
// reports each on its ack pipe) and `stress-check` (opens a store as its engine recovers it and
// prints what it holds as one JSON object). The work is in StrataBench/Stress; this is the
// command line only.
//
// Exit status of `stress`: 0 every case kept its engine's promise (documented losses included);
// 3 a case failed (a loss or damage the engine promises against); 1 the harness itself failed;
// 64 bad usage; 130/143 stopped by SIGINT/SIGTERM between rounds (what finished is written).

import ArgumentParser
import Foundation
import StrataBench

struct Stress: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Kill writers (and more) at random moments; check every acknowledged commit against each engine's own promise.",
        discussion: """
        With no --scenario: a short pass of every implemented scenario on the default engines, durability full and \
        unsafe, strategies dedicated, batched and threads. A failing store is kept under --keep with the command that \
        replays its check.
        """)

    @Option(name: .customLong("scenario"), help: "Scenario (repeatable): \(StressScenario.allCases.map(\.rawValue).joined(separator: ", ")).")
    var scenarios: [String] = []
    @Option(name: .customLong("engine"), help: "Engine (repeatable): strata, sqlite, lmdb, sqlcipher, all.")
    var engines: [String] = []
    @Option(help: "full or unsafe (default both; memory is not stressed).")
    var durability: String?
    @Option(help: "off (default), on or both.")
    var encryption: String?
    @Option(name: .customLong("workload"), help: "sensors (the only one stress writes).")
    var workloads: [String] = []
    @Option(name: .customLong("strategy"), help: "Writer strategy (repeatable): dedicated, batched, threads, all (default all).")
    var strategies: [String] = []
    @Option(parsing: .unconditional, help: ArgumentHelp("Writer processes per case (default \(StressOptions.defaultRounds)).", valueName: "count"))
    var rounds: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("power-loss: crash states checked per round (default \(StressOptions.defaultStates)).", valueName: "count"))
    var states: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("io-error: injected failures per case, swept flush 1, write 1, flush 2, … (default \(StressOptions.defaultInjections)).", valueName: "count"))
    var injections: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("power-loss, io-error: transactions per writer thread of each traced run (default \(PowerLossScenario.commitsPerWriter) and \(IOErrorScenario.commitsPerWriter)); more commits grow the file further and give more crash states per round.", valueName: "count"))
    var commits: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Longest a writer runs per round before it is stopped (default 5).", valueName: "seconds"))
    var duration: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("threads strategy: writer threads (default \(StressOptions.defaultThreadWriters)).", valueName: "count"))
    var writers: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Readings per sensor per transaction (default 1; batched 10).", valueName: "count"))
    var batchSize: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Seed of the random choices (default: random, printed).", valueName: "n"))
    var seed: String?
    @Option(name: .customLong("fs-model"), help: ArgumentHelp("power-loss, io-error: the file system whose rules build crash states: \(CrashFileSystem.allCases.map(\.rawValue).joined(separator: ", ")) (default posix).", valueName: "model"))
    var fileSystem: String?
    @Option(help: ArgumentHelp("Summary CSV path (default results/stress/<timestamp>.csv).", valueName: "file.csv"))
    var out: String?
    @Option(help: ArgumentHelp("Where failing stores are kept (default: stress-failures-<timestamp> beside the CSV).", valueName: "dir"))
    var keep: String?
    @Flag(help: "No progress lines on stderr.")
    var quiet = false

    func options() throws -> StressOptions {
        var options = StressOptions()
        options.scenarios = scenarios
        options.engines = engines
        options.durability = try durability.map { try Choice.parse($0, flag: "--durability", as: Durability.self) }
        options.encryption = try encryption.map { try Choice.parse($0, flag: "--encryption", as: EncryptionChoice.self) }
        options.workloads = workloads
        options.strategies = strategies
        options.rounds = try rounds.map { try NumericFlag.integer($0, flag: "--rounds") }
        options.states = try states.map { try NumericFlag.integer($0, flag: "--states") }
        options.injections = try injections.map { try NumericFlag.integer($0, flag: "--injections") }
        options.commits = try commits.map { try NumericFlag.integer($0, flag: "--commits") }
        options.duration = try duration.map { try NumericFlag.real($0, flag: "--duration") }
        options.writers = try writers.map { try NumericFlag.integer($0, flag: "--writers") }
        options.batchSize = try batchSize.map { try NumericFlag.integer($0, flag: "--batch-size") }
        options.fileSystem = fileSystem
        if let seed {
            guard let value = UInt64(seed.trimmingCharacters(in: .whitespaces)) else {
                throw BenchError(.invalidOption, "--seed \(QuotedInput.clip(seed)): must be a whole number from 0 to \(UInt64.max)")
            }
            options.seed = value
        }
        return options
    }

    mutating func validate() throws {
        do {
            _ = try StressPlan.make(options())
        } catch let error as BenchError {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        let plan = try StressPlan.make(options())
        let started = Date()
        let outPath = out ?? "results/stress/\(RunReport.fileStamp(started)).csv"
        let keepPath = keep ?? ((outPath as NSString).deletingLastPathComponent as NSString)
            .appendingPathComponent("stress-failures-\(RunReport.fileStamp(started))")
        do {
            try OutputFiles.check([OutputFiles.Target(flag: "--out", path: outPath)])
        } catch let error as BenchError {
            note("error: \(error.message)")
            throw ExitCode(64)
        }
        let quiet = self.quiet
        for line in plan.skipped where !quiet { note("skipped: \(line)") }
        if !quiet { note("strata-bench stress: \(plan.items.count) cases, \(plan.budget.rounds) rounds each, seed \(plan.seed) (repeat with --seed \(plan.seed))") }
        let work = (NSTemporaryDirectory() as NSString).appendingPathComponent("strata-bench-stress-\(getpid())-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let rows: [StressRow]
        let signals = SignalStop()
        signals.install { signal in
            // A second signal: the round in progress did not come back; leave at once.
            try? FileManager.default.removeItem(atPath: work)
            note("interrupted by \(SignalStop.name(signal)) twice: stopped at once, nothing written")
            Foundation.exit(128 + signal)
        }
        do {
            var runner = StressRunner(plan: plan, executable: try SelfExecutable.path(), keepDirectory: keepPath, workDirectory: work)
            runner.note = { if !quiet { note($0) } }
            rows = try runner.run(stop: signals.stop)
        } catch let error as BenchError {
            note("error: \(error)")
            throw ExitCode(1)
        }
        print(StressReport.table(rows), terminator: "")
        let text = StressReport.csv(rows, machine: MachineInfo.current(), timestamp: RunReport.timestamp(started))
        switch OutputFiles.writeKeeping(text, to: outPath) {
        case .written(let path):
            if !quiet { note("wrote \(path) (\(String(format: "%.0f", Date().timeIntervalSince(started)))s)") }
        case .rescued(let fallback, let error):
            note("error: cannot write \(outPath) (\(error.message)); the CSV is in \(fallback)")
        case .unwritten(let error, _):
            note("error: cannot write \(outPath) (\(error.message)); the CSV follows")
            print(text, terminator: "")
        }
        if let timeline = StressReport.timelineCSV(rows) {
            let timelinePath = StressReport.timelinePath(summary: outPath)
            switch OutputFiles.writeKeeping(timeline, to: timelinePath) {
            case .written(let path): if !quiet { note("wrote the soak timeline \(path)") }
            case .rescued(let fallback, let error): note("error: cannot write \(timelinePath) (\(error.message)); the timeline is in \(fallback)")
            case .unwritten(let error, _): note("error: cannot write \(timelinePath) (\(error.message))")
            }
        }
        for row in rows where row.verdict != .pass {
            let label = "\(row.scenario.rawValue) \(row.stressCase.label)"
            note("\(row.verdict == .fail ? "FAILED" : "documented loss"): \(label): \(row.findings.prefix(3).joined(separator: " | "))")
            for kept in row.reproducers {
                note("  kept \(kept.directory); replay: \(kept.replay)")
            }
        }
        if let signal = signals.received {
            note("interrupted by \(SignalStop.name(signal)): the rounds that finished are above and in the CSV")
            throw ExitCode(128 + signal)
        }
        if rows.contains(where: { $0.verdict == .fail }) { throw ExitCode(3) }
    }
}

/// The engine, durability and encryption flags the children and stress-replay take.
struct StressEngineFlags: ParsableArguments {
    @Option(help: "strata, sqlite, lmdb or sqlcipher.")
    var engine: String
    @Option(help: "full or unsafe.")
    var durability: String
    @Option(help: "off or on (the fixed stress key).")
    var encryption: String = "off"

    func parsed() throws -> (EngineKind, Durability, EncryptionSetting) {
        (try Choice.parse(engine, flag: "--engine", as: EngineKind.self),
         try Choice.parse(durability, flag: "--durability", as: Durability.self),
         try Choice.parse(encryption, flag: "--encryption", as: EncryptionSetting.self))
    }
}

struct StressWriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stress-writer", abstract: "Child of `stress`: commit readings, report each on the ack pipe.",
        shouldDisplay: false)

    @OptionGroup var store: StressEngineFlags
    @Option(help: ArgumentHelp("The store's directory.", valueName: "dir"))
    var dir: String
    @Option var strategy: String = StrategyKind.dedicated.rawValue
    @Option(parsing: .unconditional) var writers: String = "1"
    @Option(parsing: .unconditional) var batchSize: String = "1"
    @Option(parsing: .unconditional, help: "Transactions per writer thread; 0: until killed.") var commits: String = "0"
    @Option(parsing: .unconditional) var ackFd: String
    @Option(help: "Put before every tx id (several writer processes of one store).") var txPrefix: String = ""
    @Option(help: "Put before every sensor symbol (each writer process its own sensors).") var sensorPrefix: String = ""
    @Flag(help: "Continue each sensor after the newest seq the store holds.") var resume = false
    @Option(parsing: .unconditional, help: "Reader threads pinning versions while the writers commit.") var readers: String = "0"
    @Option(parsing: .unconditional, help: "Test only: writer thread 0 sleeps forever after this many acks (a forced stall).")
    var pauseAfter: String?

    func run() throws {
        var options: StressWriterOptions
        do {
            let (engine, durability, encryption) = try store.parsed()
            let stressCase = StressCase(engine: engine, durability: durability, encryption: encryption,
                                        strategy: try Choice.parse(strategy, flag: "--strategy", as: StrategyKind.self),
                                        writers: try NumericFlag.integer(writers, flag: "--writers"),
                                        batchSize: try NumericFlag.integer(batchSize, flag: "--batch-size"))
            let descriptor = try NumericFlag.integer(ackFd, flag: "--ack-fd")
            guard descriptor >= 0, descriptor <= Int(Int32.max), fcntl(Int32(descriptor), F_GETFD) >= 0 else {
                throw BenchError(.invalidOption, "--ack-fd \(ackFd): not an open descriptor")
            }
            options = StressWriterOptions(stressCase: stressCase, commits: try NumericFlag.integer(commits, flag: "--commits"),
                                          directory: dir, ackDescriptor: Int32(descriptor))
            for (flag, prefix) in [("--tx-prefix", txPrefix), ("--sensor-prefix", sensorPrefix)] where !prefix.isEmpty && !AckLog.isName(prefix) {
                throw BenchError(.invalidOption, "\(flag) \(QuotedInput.clip(prefix)): only letters, digits, '_', '.', '-'")
            }
            options.txPrefix = txPrefix
            options.sensorPrefix = sensorPrefix
            options.resume = resume
            options.readers = try NumericFlag.integer(readers, flag: "--readers")
            options.pauseAfter = try pauseAfter.map { try NumericFlag.integer($0, flag: "--pause-after") }
        } catch let error as BenchError {
            note("error: \(error.message)")
            throw ExitCode(64)
        }
        do {
            try StressWriter.run(options)
        } catch {
            note("error: \(error)")
            throw ExitCode(1)
        }
    }
}

struct StressCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stress-check",
        abstract: "Open a store as its engine recovers it, read it fully, run its integrity check; print one JSON object (exit 0 intact, 1 not).",
        shouldDisplay: false)

    @OptionGroup var store: StressEngineFlags
    @Option(help: ArgumentHelp("The store's directory.", valueName: "dir"))
    var dir: String

    func run() throws {
        let (engine, durability, encryption): (EngineKind, Durability, EncryptionSetting)
        do {
            (engine, durability, encryption) = try store.parsed()
        } catch let error as BenchError {
            note("error: \(error.message)")
            throw ExitCode(64)
        }
        guard FileManager.default.fileExists(atPath: dir) else {
            note("error: --dir \(dir): no such directory")
            throw ExitCode(64)
        }
        let report = StressChecker.check(engine: engine, durability: durability, encryption: encryption, directory: dir)
        print(report.json())
        if report.error != nil || !report.problems.isEmpty { throw ExitCode(1) }
    }
}

struct StressReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stress-replay",
        abstract: "Rebuild one power-loss crash state from a kept I/O trace into --out, then check it as stress-check does (exit 0 intact, 1 not).",
        shouldDisplay: false)

    @Option(help: ArgumentHelp("The kept I/O trace (trace.iot).", valueName: "file"))
    var trace: String
    @Option(help: ArgumentHelp("The crash state's id, e.g. k=120:dropped or k=120:seed=0x1f3a.", valueName: "id"))
    var state: String
    @OptionGroup var store: StressEngineFlags
    @Option(name: .customLong("fs-model"), help: "posix or ext4: the file system the run built its states on.")
    var fileSystem: String = CrashFileSystem.posix.rawValue
    @Option(help: ArgumentHelp("An empty (or absent) directory for the rebuilt store.", valueName: "dir"))
    var out: String
    @Flag(help: "Only rebuild the state; do not open it.")
    var noCheck = false

    func run() throws {
        let parsed: (EngineKind, Durability, EncryptionSetting)
        let model: CrashFileSystem
        do {
            parsed = try store.parsed()
            model = try Choice.parse(fileSystem, flag: "--fs-model", as: CrashFileSystem.self)
        } catch let error as BenchError {
            note("error: \(error.message)")
            throw ExitCode(64)
        }
        guard let id = CrashStateID(state) else {
            note("error: --state \(state): expected k=<n>:dropped, k=<n>:kept or k=<n>:seed=0x<hex>")
            throw ExitCode(64)
        }
        let rebuilt: CrashState
        do {
            rebuilt = try CrashStateReplay.materialise(trace: trace, state: id, out: out, fileSystem: model)
        } catch let error as BenchError {
            note("error: \(error)")
            throw ExitCode(1)
        }
        // The hash says it is the very state the run checked (the run's findings name it).
        note("rebuilt \(rebuilt.summary)")
        if noCheck { return }
        let report = StressChecker.check(engine: parsed.0, durability: parsed.1, encryption: parsed.2, directory: out)
        print(report.json())
        if report.error != nil || !report.problems.isEmpty { throw ExitCode(1) }
    }
}
