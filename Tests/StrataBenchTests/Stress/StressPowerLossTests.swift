import Foundation
import Testing
import StrataBench

private func scratch() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-power-\(UUID())").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

private func context(_ directory: String) throws -> StressContext {
    let executable = try #require(CLI.executable, "strata-bench is not built beside the tests: run `swift build --build-tests`")
    return StressContext(executable: executable, directory: directory)
}

/// The power-loss and io-error scenarios on real traced writers, and proof that they catch what
/// they exist to catch (a missing flush, an acknowledgement after a failed flush).
@Suite("stress power-loss and io-error", .serialized)
struct StressPowerLossTests {
    static let strataFull = StressCase(engine: .strata, durability: .full, encryption: .off, strategy: .dedicated)

    @Test func powerLossStatesOfStrataAndSQLiteAtFullKeepEveryAcknowledgedCommit() throws {
        var options = StressOptions.scenario("power-loss", engines: ["strata", "sqlite"])
        options.states = 10
        let rows = try ScenarioHarness.rows(options)
        #expect(rows.count == 2)
        ScenarioHarness.expectEveryAckKept(rows, states: 10)
    }

    /// A real Strata trace without the flush of its last commit is the trace of a Strata that
    /// acknowledged before its pages and meta were durable: power lost right after that ack must
    /// be judged a failure.
    @Test func aCommitAcknowledgedWithoutItsFlushIsCaught() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let context = try context(directory)
        let run = try TracedWriterRun.run(Self.strataFull, directory: directory + "/writer", commits: 3, timeout: 60, context: context)
        #expect(run.exit == .exited(0), "\(run.errorOutput)")
        let trace = try run.trace()
        let ackText = { (r: IOTraceRecord) in String(decoding: trace.data(r), as: UTF8.self) }
        let lastBegin = try #require(trace.records.last { $0.kind == .ack && ackText($0).hasPrefix("begin ") })
        let lastAck = try #require(trace.records.last { $0.kind == .ack && ackText($0).hasPrefix("ack ") })
        let flushes = trace.records[lastBegin.index..<lastAck.index].filter { $0.kind == .fdatasync || $0.kind == .fsync }
        #expect(!flushes.isEmpty, "the last commit made no flush")
        // Unbroken: the state just after the last ack keeps every acknowledged commit.
        let guarantee = try #require(DurabilityPromise.of(.strata, .full)).powerLoss
        let intact = CrashStateBuilder(trace: trace).state(CrashStateID(crashPoint: lastAck.index + 1, variant: .dropped))
        #expect(try judge(intact, in: directory + "/intact", context: context, guarantee: guarantee).verdict == .pass)
        // Broken: the same trace without that commit's flushes.
        let broken = try trace.removingRecords(Set(flushes.map(\.index)))
        let point = lastAck.index + 1 - flushes.count
        let state = CrashStateBuilder(trace: broken).state(CrashStateID(crashPoint: point, variant: .dropped))
        let judged = try judge(state, in: directory + "/broken", context: context, guarantee: guarantee)
        #expect(judged.verdict == .fail, "\(state.summary): \(judged.findings)")
        #expect(judged.counts.lost + judged.counts.typedErrors + judged.counts.corrupt > 0, "\(judged.findings)")
    }

    func judge(_ state: CrashState, in directory: String, context: StressContext, guarantee: StressGuarantee) throws -> StateJudgement {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = directory + "/store"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        try state.materialise(into: store)
        let outcome = try CheckerChild.check(Self.strataFull, directory: store, scratch: directory, executable: context.executable, timeout: 60)
        return StressJudge.judge(try state.ackLog(source: "test"), outcome, guarantee: guarantee)
    }

    /// N chosen so that the injected failure is the first commit's fdatasync: the writer is told
    /// (an `error` line for that transaction) and nothing is acknowledged after it.
    @Test func aFailedCommitFlushIsReportedAndNothingIsAcknowledgedAfterIt() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let context = try context(directory)
        let clean = try TracedWriterRun.run(Self.strataFull, directory: directory + "/clean", commits: 3, timeout: 60, context: context)
        let cleanTrace = try clean.trace()
        let firstBegin = try #require(cleanTrace.records.first {
            $0.kind == .ack && String(decoding: cleanTrace.data($0), as: UTF8.self).hasPrefix("begin ")
        })
        let flushKinds: Set<IOTraceRecord.Kind> = [.fsync, .fdatasync, .msync, .syncFileRange]
        let setupFlushes = cleanTrace.records[..<firstBegin.index].filter { flushKinds.contains($0.kind) }.count
        let injection = IOErrorScenario.Injection(at: setupFlushes + 1, ops: "flush", errno: "EIO")
        let run = try TracedWriterRun.run(Self.strataFull, directory: directory + "/failing", commits: 3, timeout: 60, context: context,
                                          environment: injection.environment)
        let trace = try run.trace()
        let failed = try #require(trace.records.first { $0.flags.contains(.injected) })
        #expect(failed.kind == .fdatasync)
        let log = try AckLog.parse(run.text)
        #expect(log.transactions.first?.failed == true, "\(run.text)")
        #expect(log.acknowledgedCount == 0)
        #expect(run.exit == .exited(1))
        #expect(run.errorOutput.contains("fdatasync"), "\(run.errorOutput)")
        #expect(IOErrorScenario.judge(failed: failed, trace: trace, log: log, exit: run.exit, durable: true, injection: injection).isEmpty)
        // Had the engine gone on acknowledging (the clean run's first commit flush standing for a
        // failed one, its later acks after it), the same judgement fails it.
        let cleanFlush = try #require(cleanTrace.records[firstBegin.index...].first { $0.kind == .fdatasync })
        let violations = IOErrorScenario.judge(failed: cleanFlush, trace: cleanTrace, log: try AckLog.parse(clean.text),
                                               exit: .exited(0), durable: true, injection: injection)
        #expect(violations.count == 2, "\(violations)")
        #expect(violations.contains { $0.contains("acknowledged after a failed flush") })
    }

    @Test func theWriterNamesTheTransactionTheEngineRefused() throws {
        let log = try AckLog.parse("ready\nbegin w0-1 s:1-1\nack w0-1\nbegin w0-2 s:2-2\nerror w0-2\n")
        #expect(log.transactions.map(\.failed) == [false, true])
        #expect(log.acknowledgedCount == 1)
        #expect(throws: BenchError.self) { try AckLog.parse("begin a s:1-1\nerror a\nack a\n") }
        #expect(throws: BenchError.self) { try AckLog.parse("begin a s:1-1\nack a\nerror a\n") }
        #expect(throws: BenchError.self) { try AckLog.parse("error b\n") }
    }

    @Test func ioErrorSweepOnStrataAtFullPasses() throws {
        var options = StressOptions.scenario("io-error", engines: ["strata"], seed: 3)
        // The sweep's budget is --injections alone: --states is power-loss's.
        options.states = 40
        options.injections = 12
        let rows = try ScenarioHarness.rows(options)
        let row = try #require(rows.first)
        #expect(row.verdict == .pass, "\(row.findings)")
        #expect(row.states == 24, "two states per injection: as left, and power lost with unflushed writes dropped")
    }

    /// `--commits` sets how many transactions each traced writer makes, in power-loss and io-error.
    @Test func theCommitBudgetSetsTheTracedWritersTransactions() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let powerLoss = try PowerLossScenario().run(Self.strataFull, budget: StressBudget(rounds: 1, states: 4, commits: 2),
                                                     seed: 5, context: try context(directory + "/power-loss"))
        let acknowledged = powerLoss.map { $0.log.transactions.filter(\.acknowledged).count }
        #expect(acknowledged.max() == 2, "\(acknowledged)")
        let longer = try PowerLossScenario().run(Self.strataFull, budget: StressBudget(rounds: 1, states: 4, commits: 15),
                                                  seed: 5, context: try context(directory + "/longer"))
        #expect(longer.map { $0.log.transactions.filter(\.acknowledged).count }.max() == 15)
        // io-error: no traced run begins more transactions than --commits, and a run whose
        // failure comes late makes them all.
        let ioError = try IOErrorScenario().run(Self.strataFull, budget: StressBudget(rounds: 1, injections: 6, commits: 3),
                                                seed: 5, context: try context(directory + "/io-error"))
        #expect(ioError.map { $0.log.transactions.count }.max() == 3, "\(ioError.map { $0.log.transactions.count })")
    }

    /// `stress-replay` rebuilds a state of a kept trace bit for bit (same content hash).
    @Test func replayRebuildsTheSameState() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let context = try context(directory)
        let run = try TracedWriterRun.run(Self.strataFull, directory: directory + "/writer", commits: 3, timeout: 60, context: context)
        let trace = try run.trace()
        let builder = CrashStateBuilder(trace: trace)
        let point = try #require(builder.crashPoints(randomBetweenAcks: 1, seed: 9).dropLast().last)
        let original = try #require(builder.states(at: point, budget: 3, seed: 9).last)
        let out = directory + "/replayed"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: context.executable)
        process.arguments = CrashStateReplay.arguments(Self.strataFull, trace: run.tracePath, state: original.id, out: out) + ["--no-check"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: out) {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: out + "/" + name, isDirectory: &isDirectory)
            if !isDirectory.boolValue { files[name] = try #require(FileManager.default.contents(atPath: out + "/" + name)).map { $0 } }
        }
        #expect(files == original.files, "\(original.id) rebuilt differently")
    }

    @Test func theInterposerMissingIsATypedErrorNamingItsBuild() {
        #expect(throws: BenchError.self) { try IOTraceInterposer.path(besides: "/nonexistent/strata-bench") }
        do {
            _ = try IOTraceInterposer.path(besides: "/nonexistent/strata-bench")
        } catch let error as BenchError {
            #expect(error.code == .unavailable && error.message.contains("swift build --product StrataIOTrace"))
        } catch {
            Issue.record("untyped \(error)")
        }
    }
}
