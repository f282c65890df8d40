// Runs a stress plan: each item's scenario produces checked states, each state is judged against
// the engine's promise, a failing state's store is kept as a reproducer, and each item becomes
// one summary row.
//
// Invariants: the states of a case are judged by one function (`StressJudge`) whatever the
// scenario; a failing state's store (as the checker was given it) is moved under `keepDirectory`
// with its ack log, and the row names it with the one line that replays its check; every other
// store is removed.

import Foundation

/// One case's outcome: a row of the summary.
public struct StressRow: Sendable {
    public var scenario: StressScenario
    public var stressCase: StressCase
    public var seed: UInt64
    public var rounds: Int
    public var states: Int
    public var counts: StressCounts
    public var recoveryMs: [Double]
    public var verdict: StressVerdict
    public var promise: String
    /// Kept reproducers, each with its replay command.
    public var reproducers: [(directory: String, replay: String)]
    public var findings: [String]
    /// The file system the crash states were built on (power-loss, io-error); nil for the others.
    public var fileSystem: CrashFileSystem? = nil
    /// Soak's samples, for the timeline CSV.
    public var timeline: [SoakSample] = []

    public init(scenario: StressScenario, stressCase: StressCase, seed: UInt64, rounds: Int, states: Int, counts: StressCounts,
                recoveryMs: [Double], verdict: StressVerdict, promise: String, reproducers: [(directory: String, replay: String)],
                findings: [String], timeline: [SoakSample] = []) {
        self.scenario = scenario
        self.stressCase = stressCase
        self.seed = seed
        self.rounds = rounds
        self.states = states
        self.counts = counts
        self.recoveryMs = recoveryMs
        self.verdict = verdict
        self.promise = promise
        self.reproducers = reproducers
        self.findings = findings
        self.timeline = timeline
    }

    public var recoveryP50: Double? { Self.percentile(recoveryMs, 0.5) }
    public var recoveryP99: Double? { Self.percentile(recoveryMs, 0.99) }

    /// Nearest rank.
    static func percentile(_ values: [Double], _ fraction: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }
}

public struct StressRunner: Sendable {
    public var plan: StressPlan
    public var executable: String
    /// Where failing stores are kept.
    public var keepDirectory: String
    /// Parent of the per-case work directories (removed afterwards).
    public var workDirectory: String
    public var environment: [String: String] = [:]
    public var checkTimeout: Double = 60
    /// The scenarios that can run (tests add their own).
    public var drivers: [StressScenario: any StressScenarioDriver] = StressScenarios.drivers
    public var note: @Sendable (String) -> Void = { _ in }

    public init(plan: StressPlan, executable: String, keepDirectory: String, workDirectory: String) {
        self.plan = plan
        self.executable = executable
        self.keepDirectory = keepDirectory
        self.workDirectory = workDirectory
    }

    /// Runs every item; `stop` is polled between cases and between rounds (a case cut short has
    /// fewer rounds in its row).
    public func run(stop: StopRequest? = nil) throws -> [StressRow] {
        var rows: [StressRow] = []
        for (index, item) in plan.items.enumerated() {
            if stop?.isRequested == true { break }
            note("[\(index + 1)/\(plan.items.count)] \(item.scenario.rawValue) \(item.stressCase.label)  seed \(item.seed)")
            do {
                rows.append(try run(item, index: index + 1, stop: stop))
            } catch let error as BenchError where error.code == .unsupported {
                // This machine cannot stage the scenario (full-disk without the right to mount):
                // said, never faked, and the other cases still run.
                note("skipped: \(item.scenario.rawValue) \(item.stressCase.label): \(error.message)")
            }
        }
        return rows
    }

    func run(_ item: StressPlanItem, index: Int, stop: StopRequest?) throws -> StressRow {
        let directory = (workDirectory as NSString).appendingPathComponent("case-\(index)")
        try StressFiles.makeDirectory(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard let driver = drivers[item.scenario] else {
            throw BenchError(.unsupported, "--scenario \(item.scenario.rawValue): not implemented in this build")
        }
        let context = StressContext(executable: executable, directory: directory, environment: environment,
                                    checkTimeout: checkTimeout, note: note, stop: stop, fileSystem: plan.fileSystem)
        let results = try driver.run(item.stressCase, budget: plan.budget, seed: item.seed, context: context)
        guard let promise = DurabilityPromise.of(item.stressCase.engine, item.stressCase.durability) else {
            throw BenchError(.unsupported, "\(item.stressCase.label): no durability promise to judge against")
        }
        let guarantee = promise.guarantee(item.scenario.threat)
        let powerLossGuarantee = promise.guarantee(.powerLoss)
        var row = StressRow(scenario: item.scenario, stressCase: item.stressCase, seed: item.seed,
                            rounds: Set(results.map(\.round)).count, states: results.count, counts: StressCounts(),
                            recoveryMs: [], verdict: .pass, promise: "\(item.scenario.threat.rawValue): \(guarantee.summary)",
                            reproducers: [], findings: [])
        if item.scenario == .powerLoss || item.scenario == .ioError { row.fileSystem = plan.fileSystem }
        for result in results {
            var stateGuarantee = result.threat == .powerLoss ? powerLossGuarantee : guarantee
            if result.documentedLoss != nil { stateGuarantee.keepsAcknowledged = false }
            var judged = StressJudge.judge(result.log, result.outcome, guarantee: stateGuarantee,
                                           writerFailure: result.writerFailure)
            if let source = result.documentedLoss { judged.findings.append("note: a loss here is documented: \(source)") }
            if !result.violations.isEmpty {
                judged.verdict = .fail
                judged.findings += result.violations
            }
            let stateName = result.crashState.map { " [\($0)]" } ?? ""
            // What the scenario saw itself: a stall of every writer, a series that kept growing.
            if let hang = result.hang {
                judged.counts.hangs += 1
                judged.findings.append("no writer acknowledged for the watchdog's time: \(hang)")
                judged.verdict = .fail
            }
            judged.counts.trends += result.trends.count
            judged.findings += result.trends
            if !result.trends.isEmpty { judged.verdict = .fail }
            judged.findings += result.notes.map { "note: \($0)" }
            row.timeline += result.timeline
            row.counts = row.counts + judged.counts
            if let ms = judged.recoveryMs { row.recoveryMs.append(ms) }
            row.verdict = max(row.verdict, judged.verdict)
            row.findings += judged.findings.map { "round \(result.round)\(result.state > 1 ? " state \(result.state)" : "")\(stateName): \($0)" }
            if judged.verdict == .fail, let snapshot = result.snapshot {
                row.reproducers.append(try keep(snapshot, item: item, result: result))
            }
        }
        return row
    }

    /// Moves a failing state's store (and the ack log beside it) under `keepDirectory`.
    func keep(_ snapshot: String, item: StressPlanItem, result: StressRoundResult) throws -> (directory: String, replay: String) {
        let stressCase = item.stressCase
        let name = "\(item.scenario.rawValue)-\(stressCase.engine.rawValue)-\(stressCase.durability.rawValue)-\(stressCase.encryption.rawValue)-\(stressCase.strategy.rawValue)-seed\(item.seed)-r\(result.round)s\(result.state)"
        let kept = (keepDirectory as NSString).appendingPathComponent(name)
        let store = (kept as NSString).appendingPathComponent("store")
        try StressFiles.makeDirectory(kept)
        try? FileManager.default.removeItem(atPath: store)
        do {
            try FileManager.default.moveItem(atPath: snapshot, toPath: store)
        } catch {
            try StressFiles.copyDirectory(snapshot, to: store)
        }
        var acks = ""
        for transaction in result.log.transactions {
            acks += AckLog.beginLine(transaction.id, transaction.parts)
            if transaction.acknowledged { acks += AckLog.ackLine(transaction.id) }
            if transaction.failed { acks += AckLog.errorLine(transaction.id) }
        }
        try? ((result.log.ready ? AckLog.readyLine : "") + acks).write(toFile: (kept as NSString).appendingPathComponent("acks.log"),
                                                                      atomically: true, encoding: .utf8)
        if let trace = result.trace, let id = result.crashState {
            // A crash state is rebuilt from its trace alone: keep the trace, name the state.
            let keptTrace = (kept as NSString).appendingPathComponent("trace.iot")
            try? FileManager.default.removeItem(atPath: keptTrace)
            do {
                try FileManager.default.copyItem(atPath: trace, toPath: keptTrace)
            } catch {
                throw BenchError(.io, "cannot keep the I/O trace: \(error.localizedDescription)", path: trace)
            }
            try? "\(id)\n".write(toFile: (kept as NSString).appendingPathComponent("state-id"), atomically: true, encoding: .utf8)
            return (kept, CrashStateReplay.command(stressCase, trace: keptTrace, state: id,
                                                   out: (kept as NSString).appendingPathComponent("replayed"),
                                                   fileSystem: plan.fileSystem))
        }
        return (kept, CheckerChild.replayCommand(stressCase, directory: store))
    }
}
