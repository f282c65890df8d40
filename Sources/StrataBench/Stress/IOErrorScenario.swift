// `io-error`: the writer runs under libStrataIOTrace.so with IOTRACE_FAIL_AT=N, so its N-th
// write (or flush) under the store fails with EIO or ENOSPC without being made; N sweeps 1, 2,
// 3, … (flushes and writes alternating, EIO and ENOSPC alternating per N) up to
// `budget.injections` (`--injections`), one traced writer run each.
// Three questions per run:
//
// 1. Did the failing call report it? The injected failure is marked in the trace; a failed flush
//    the writer never heard of (it went on and acknowledged) is the fsyncgate bug: after a failed
//    fsync the kernel may have dropped the dirty pages and a retry succeeds on nothing.
// 2. Was any commit acknowledged after a failed flush? An ack record after the injected flush
//    failure fails the run when the engine promises acknowledged commits across power loss at
//    this durability, unless the engine reported the error (an `error <tx>` line) — the engine may
//    then reopen or retry, but it must have said so.
// 3. Does the store hold every commit acknowledged? Two states are checked: the directory as the
//    writer left it (judged as process death), and the trace's end with every unflushed change
//    dropped (judged as power loss: the pages a failed fsync dropped are gone).
//
// A run whose N lies beyond the operations the writer made had nothing injected: that kind's
// sweep ends there.

import Foundation

public struct IOErrorScenario: StressScenarioDriver {
    public let scenario = StressScenario.ioError
    /// Transactions per writer thread unless `--commits` says: enough for N to reach past the
    /// setup into commits.
    public static let commitsPerWriter = 6

    public init() {}

    /// The operations the N-th failure is drawn from, with the errno.
    public struct Injection: Sendable, Equatable, CustomStringConvertible {
        public var at: Int
        public var ops: String
        public var errno: String

        public init(at: Int, ops: String, errno: String) {
            self.at = at
            self.ops = ops
            self.errno = errno
        }

        public var environment: [String: String] {
            ["IOTRACE_FAIL_AT": String(at), "IOTRACE_FAIL_OPS": ops, "IOTRACE_FAIL_ERRNO": errno]
        }

        public var description: String { "\(ops) #\(at) fails with \(errno)" }
    }

    /// The sweep: flush 1, write 1, flush 2, write 2, … (EIO on odd N, ENOSPC on even N).
    public static func injections(count: Int) -> [Injection] {
        (0..<count).map { i in
            let at = i / 2 + 1
            return Injection(at: at, ops: i % 2 == 0 ? "flush" : "write", errno: at % 2 == 1 ? "EIO" : "ENOSPC")
        }
    }

    public func run(_ stressCase: StressCase, budget: StressBudget, seed: UInt64, context: StressContext) throws -> [StressRoundResult] {
        guard let promise = DurabilityPromise.of(stressCase.engine, stressCase.durability) else {
            throw BenchError(.unsupported, "\(stressCase.label): no durability promise to judge against")
        }
        let durable = promise.powerLoss.keepsAcknowledged
        var results: [StressRoundResult] = []
        var exhausted: Set<String> = []
        for (offset, injection) in Self.injections(count: budget.injections).enumerated() {
            if context.stop?.isRequested == true { break }
            if exhausted.contains(injection.ops) { continue }
            let round = offset + 1
            let directory = (context.directory as NSString).appendingPathComponent("round-\(round)")
            let run = try TracedWriterRun.run(stressCase, directory: directory, commits: budget.commits ?? max(1, min(budget.maxAcks, Self.commitsPerWriter)),
                                              timeout: max(30, budget.duration * 6), context: context, environment: injection.environment)
            let trace = try run.trace()
            let source = "ack pipe of \(stressCase.label) round \(round) (\(injection))"
            let log = try AckLog.parse(run.text, source: source)
            guard let failed = trace.records.first(where: { $0.flags.contains(.injected) }) else {
                // N is past every such operation of the run: nothing to inject any more.
                exhausted.insert(injection.ops)
                context.note("  round \(round): \(injection): the writer made fewer such operations; that sweep ends")
                continue
            }
            // An engine that documents ignoring a failed directory flush is held to that, not failed.
            let ignoredDirectoryFlush = Self.flushesADirectory(failed, in: trace) ? promise.ignoresFailedDirectoryFlush : nil
            var verdicts = ignoredDirectoryFlush != nil ? []
                : Self.judge(failed: failed, trace: trace, log: log, exit: run.exit, durable: durable, injection: injection)
            var notes: [String] = []
            if let source = promise.abandonsCommitOnFailedFlush {
                // Question 2 is answered (noted), and question 3 — the power-loss state below —
                // decides whether those acknowledgements really survive.
                let later = verdicts.filter { $0.contains(Self.acknowledgedAfterFailure) }
                verdicts.removeAll { $0.contains(Self.acknowledgedAfterFailure) }
                notes = later.map { "\($0); documented as safe: \(source)" }
            }
            // State 1: the directory as the writer left it (the process ended; the OS kept its pages).
            let leftSnapshot = (directory as NSString).appendingPathComponent("as-left")
            try StressFiles.copyDirectory(run.store, to: leftSnapshot)
            let left = try CheckerChild.check(stressCase, directory: run.store, scratch: directory, executable: context.executable,
                                              timeout: context.checkTimeout)
            var asLeft = StressRoundResult(round: round, state: 1, log: log, outcome: left, snapshot: leftSnapshot,
                                           threat: .processDeath, violations: verdicts)
            asLeft.notes = notes
            results.append(asLeft)
            // State 2: power lost at the end of the trace, every unflushed change dropped.
            let id = CrashStateID(crashPoint: trace.records.count, variant: .dropped)
            let state = CrashStateBuilder(trace: trace, fileSystem: context.fileSystem).state(id)
            let stateDirectory = (directory as NSString).appendingPathComponent("power-loss")
            let snapshot = (stateDirectory as NSString).appendingPathComponent("as-crashed")
            let store = (stateDirectory as NSString).appendingPathComponent("store")
            try StressFiles.makeDirectory(snapshot)
            try state.materialise(into: snapshot)
            try StressFiles.copyDirectory(snapshot, to: store)
            let dropped = try CheckerChild.check(stressCase, directory: store, scratch: stateDirectory, executable: context.executable,
                                                 timeout: context.checkTimeout)
            // The violations were counted with state 1 (they are the run's, not a state's).
            var crashed = StressRoundResult(round: round, state: 2, log: log, outcome: dropped, snapshot: snapshot,
                                            threat: .powerLoss, trace: run.tracePath, crashState: id)
            crashed.documentedLoss = ignoredDirectoryFlush
            results.append(crashed)
        }
        return results
    }

    /// The words of question 2's violation.
    static let acknowledgedAfterFailure = "acknowledged after a failed flush"

    /// Whether `failed` is a flush of a directory (the trace marks a directory where it is opened
    /// or first seen).
    static func flushesADirectory(_ failed: IOTraceRecord, in trace: IOTrace) -> Bool {
        [.fsync, .fdatasync].contains(failed.kind) && trace.records.contains {
            ($0.kind == .open || $0.kind == .snapshot) && $0.file == failed.file && $0.flags.contains(.directory)
        }
    }

    /// Questions 1 and 2: the failures the trace and the writer's report show, whatever the store
    /// holds. `failed` is the injected record.
    public static func judge(failed: IOTraceRecord, trace: IOTrace, log: AckLog, exit: ChildExit, durable: Bool,
                      injection: Injection) -> [String] {
        let isFlush = [.fsync, .fdatasync, .msync].contains(failed.kind)
        guard isFlush, durable else { return [] }
        let reported = log.transactions.contains(where: \.failed) || exit != .exited(0)
        // The pipe's lines after the failure, in order with it. Once the engine has reported an
        // error it must not acknowledge again; before it reports, nothing may be acknowledged
        // either (the failed flush may have been that commit's, or one it depends on).
        // An ack is excused only when a flush of the same file succeeded after its transaction
        // began and before the failure (with several writer threads, a commit made durable by
        // an earlier flush may write its ack line after another thread's flush failed).
        func text(_ record: IOTraceRecord) -> String { String(decoding: trace.data(record), as: UTF8.self) }
        var begun: [String: Int] = [:]
        for record in trace.records where record.kind == .ack {
            let fields = text(record).split(separator: " ")
            if fields.count >= 2, fields[0] == "begin" { begun[String(fields[1])] = record.index }
        }
        let flushedBefore = { (start: Int) -> Bool in
            trace.records[start..<failed.index].contains { [.fsync, .fdatasync].contains($0.kind) && !$0.failed && $0.file == failed.file }
        }
        let later = trace.records[(failed.index + 1)...].filter { $0.kind == .ack }.map(text).filter { line in
            guard line.hasPrefix("ack ") else { return false }
            let id = line.dropFirst(4).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let start = begun[id], start < failed.index else { return true }
            return !flushedBefore(start)
        }
        var violations: [String] = []
        if !reported {
            violations.append("\(injection) (\(failed.kind) of \(failed.path ?? "?")): the writer was never told, it finished its commits")
        }
        if !later.isEmpty {
            let ids = later.map { $0.dropFirst(4).trimmingCharacters(in: .whitespacesAndNewlines) }
            violations.append("\(later.count) commit(s) \(acknowledgedAfterFailure) (\(failed.kind) of \(failed.path ?? "?")): "
                + ids.prefix(5).joined(separator: ", "))
        }
        return violations
    }
}
