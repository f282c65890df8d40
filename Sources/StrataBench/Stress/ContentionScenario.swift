// `contention`: per round, `processes` writer processes commit to one store at once, each with
// the case's writer threads and its own sensors (`--sensor-prefix p<k>`, so every sensor's seqs
// stay contiguous) and tx ids (`--tx-prefix p<k>.`, so the merged log's ids stay unique); the
// first also runs reader threads that pin versions while the others commit. Each writer thread
// makes `budget.maxAcks` commits.
//
// A watchdog in the parent: when no writer has acknowledged anything for `budget.stall` seconds
// while one still runs, that is a stall or a deadlock: every child's state (`ChildState`: last
// line, /proc State and wchan, stderr tail) is recorded in the round as a hang, then the children
// are killed. Past `budget.duration` plus the stall time the children are stopped (not a fault).
// The checker then opens the store and must find everything any process acknowledged.
//
// The first process is started alone and the others once it has acknowledged a commit: the
// store's creation is not what this scenario contends on, its commits are.

import Foundation

public struct ContentionScenario: StressScenarioDriver {
    public let scenario = StressScenario.contention
    public var processes: Int
    /// Reader threads in the first process.
    public var readers: Int
    /// Test only: the first process's writer thread 0 sleeps forever after this many acks.
    public var pauseAfter: Int?

    public init(processes: Int = 2, readers: Int = 2, pauseAfter: Int? = nil) {
        self.processes = processes
        self.readers = readers
        self.pauseAfter = pauseAfter
    }

    public func run(_ stressCase: StressCase, budget: StressBudget, seed: UInt64, context: StressContext) throws -> [StressRoundResult] {
        var results: [StressRoundResult] = []
        for round in 1...max(1, budget.rounds) {
            if context.stop?.isRequested == true { break }
            results.append(try runRound(round, stressCase, budget: budget, context: context))
        }
        return results
    }

    func runRound(_ round: Int, _ stressCase: StressCase, budget: StressBudget, context: StressContext) throws -> StressRoundResult {
        let roundDirectory = (context.directory as NSString).appendingPathComponent("round-\(round)")
        func path(_ name: String) -> String { (roundDirectory as NSString).appendingPathComponent(name) }
        let store = path("store")
        try StressFiles.makeDirectory(store)
        var writers: [WriterChild] = []
        // Whatever happens below, no child outlives the round.
        defer { for writer in writers { _ = writer.kill() } }
        for index in 1...max(1, processes) {
            var extra = ["--tx-prefix", "p\(index).", "--sensor-prefix", "p\(index)"]
            if index == 1 {
                extra += ["--readers", String(readers)]
                if let pauseAfter { extra += ["--pause-after", String(pauseAfter)] }
            }
            let writer = try WriterChild(executable: context.executable, stressCase: stressCase, directory: store,
                                         stderrPath: path("writer-\(index).stderr"), environment: context.environment,
                                         commits: max(1, budget.maxAcks), extraArguments: extra)
            writers.append(writer)
            if index == 1 { writer.waitForAcks(1, timeout: max(budget.stall, budget.duration)) }
        }
        let hang = watch(writers, budget: budget)
        var failures: [String] = []
        for (offset, writer) in writers.enumerated() {
            let exit = writer.finish(timeout: 0)
            // Killed by the watchdog or at the deadline: stopped, not failed.
            if exit != .exited(0) && exit != .signaled(SIGKILL) {
                failures.append("process \(offset + 1) ended \(exit): \(QuotedInput.clip(writer.errorOutput))")
            }
        }
        var logs: [AckLog] = []
        for (offset, writer) in writers.enumerated() {
            try? writer.text.write(toFile: path("acks-\(offset + 1).log"), atomically: false, encoding: .utf8)
            logs.append(try AckLog.parse(writer.text, source: "ack pipe of \(stressCase.label) contention round \(round) process \(offset + 1)"))
        }
        let snapshot = path("store-as-left")
        try StressFiles.copyDirectory(store, to: snapshot)
        let outcome = try CheckerChild.check(stressCase, directory: store, scratch: roundDirectory, executable: context.executable,
                                             environment: context.environment, timeout: context.checkTimeout)
        var result = StressRoundResult(round: round, log: AckLog.merged(logs), outcome: outcome,
                                       writerFailure: failures.isEmpty ? nil : failures.joined(separator: "; "), snapshot: snapshot)
        result.hang = hang
        return result
    }

    /// Waits for every writer to end. Returns the children's states when all of them were silent
    /// for `budget.stall` seconds (they are then killed), nil otherwise.
    func watch(_ writers: [WriterChild], budget: StressBudget) -> String? {
        let started = Date()
        var lastTotal = -1
        var lastChange = Date()
        while true {
            if writers.allSatisfy(\.pipeEnded) { return nil }
            let total = writers.map(\.acknowledgements).reduce(0, +)
            if total != lastTotal {
                lastTotal = total
                lastChange = Date()
            }
            if Date().timeIntervalSince(lastChange) >= budget.stall {
                let states = writers.enumerated().map { offset, writer in
                    writer.pipeEnded ? "process \(offset + 1): ended, last line '\(QuotedInput.clip(writer.lastLine))'"
                        : "process \(offset + 1) \(ChildState.describe(writer))"
                }
                for writer in writers { _ = writer.kill() }
                return "\(Int(budget.stall)) s without an ack; " + states.joined(separator: "; ")
            }
            if Date().timeIntervalSince(started) >= budget.duration + budget.stall {
                for writer in writers { _ = writer.kill() }
                return nil
            }
            usleep(50_000)
        }
    }
}
