// `full-disk`: per round, a store on a small file system of its own (`ScratchFileSystem`), a
// writer committing until the disk is full, then the store checked as the full disk left it,
// then space freed and a second writer on the same store that must open and resume committing.
//
//   state 1  the writer ran until a ballast file took every free byte; it must end with a
//            reported engine error that says the disk is full (`error <tx> <message>` on its
//            pipe), not a signal or a silent stall, and for Strata one that says the disk is full
//            (a peer's vague wording is noted); nothing acknowledged lost.
//   state 2  the ballast deleted, a writer with `--resume` on the same store makes
//            `resumeCommits` commits per thread; the store holds what both runs acknowledged.
//
// The ballast is written once the writer has made some commits (`acksBeforeFill`), so the disk
// fills under a store that is open and committing, not before it exists. A writer that keeps
// committing on the full disk (it reuses space it already has) is not at fault, but the round
// proves nothing about ENOSPC: it is said in the row's note. How long it may keep committing is
// counted in commits, not seconds (`commitsAfterFill`): twice what fills every sensor to the
// window the writer trims to, after which its store no longer grows — so a slow writer (a debug
// build, a loaded machine) gets as far as a fast one; a time limit stays only as a backstop.

import Foundation

public struct FullDiskScenario: StressScenarioDriver {
    public let scenario = StressScenario.fullDisk
    /// The file system's size: small so it fills at once, large enough for any engine to open.
    public static let megabytes = 16
    public static let acksBeforeFill = 20
    public static let resumeCommits = 20
    /// No ack for this long after the fill, with the writer alive and silent: it stopped.
    public static let silence = 5.0

    public init() {}

    public func run(_ stressCase: StressCase, budget: StressBudget, seed: UInt64, context: StressContext) throws -> [StressRoundResult] {
        var results: [StressRoundResult] = []
        for round in 1...max(1, budget.rounds) {
            if context.stop?.isRequested == true { break }
            results += try runRound(round, stressCase, budget: budget, context: context)
        }
        return results
    }

    func runRound(_ round: Int, _ stressCase: StressCase, budget: StressBudget, context: StressContext) throws -> [StressRoundResult] {
        let roundDirectory = (context.directory as NSString).appendingPathComponent("round-\(round)")
        try StressFiles.makeDirectory(roundDirectory)
        func path(_ name: String) -> String { (roundDirectory as NSString).appendingPathComponent(name) }
        let fileSystem = try ScratchFileSystem.mount(at: path("fs"), megabytes: Self.megabytes, scratch: roundDirectory)
        defer { fileSystem.unmount() }
        let store = (fileSystem.mountPoint as NSString).appendingPathComponent("store")
        let ballast = (fileSystem.mountPoint as NSString).appendingPathComponent("ballast")
        try StressFiles.makeDirectory(store)

        // Run 1: fill the disk under the writer.
        let first = try WriterChild(executable: context.executable, stressCase: stressCase, directory: store,
                                    stderrPath: path("writer-1.stderr"), environment: context.environment)
        first.waitForAcks(Self.acksBeforeFill, timeout: max(budget.duration, 60))
        let filled = try ScratchFileSystem.fill(ballast)
        var notes: [String] = []
        let firstExit = waitForEnd(first, acks: first.acknowledgements + Self.commitsAfterFill(stressCase),
                                   limit: max(budget.duration * 10, 300))
        let firstLog = try AckLog.parse(first.text, source: "ack pipe of \(stressCase.label) full-disk round \(round) run 1")
        try? first.text.write(toFile: path("acks-1.log"), atomically: false, encoding: .utf8)
        var firstFailure: String?
        switch (firstExit, firstLog.errors.first) {
        case (.stalled(let state), _):
            firstFailure = "the writer stopped acknowledging on the full disk without reporting an error (\(state))"
        case (.ran(let commits, let seconds), _):
            notes.append("the writer kept committing on the full disk (\(commits) commits in \(Int(seconds)) s, \(filled) ballast bytes); ENOSPC was not reached")
        case (.ended(.signaled(let signal)), _):
            firstFailure = "the writer died of signal \(signal) on the full disk: \(QuotedInput.clip(first.errorOutput))"
        case (.ended(let exit), nil):
            firstFailure = "the writer ended (\(exit)) on the full disk without reporting an engine error: \(QuotedInput.clip(first.errorOutput))"
        case (.ended, let error?):
            if !Self.saysFull(error.message) {
                // Strata's contract is a typed `Realm.Error.diskFull`; a vague error from it fails.
                // A peer's wording is its own (LMDB turns a short write on a full disk into EIO):
                // shown, not failed, since no promise of the peer covers it.
                let vague = "the engine's error on the full disk does not say the disk is full: \(QuotedInput.clip(error.message))"
                if stressCase.engine == .strata { firstFailure = vague } else { notes.append(vague) }
            } else {
                notes.append("full after \(firstLog.acknowledgedCount) acks (\(filled) ballast bytes), \(error.id): \(QuotedInput.clip(error.message))")
            }
        }
        let firstSnapshot = path("state-1")
        try StressFiles.copyDirectory(store, to: firstSnapshot)
        let firstOutcome = try CheckerChild.check(stressCase, directory: store, scratch: roundDirectory, executable: context.executable,
                                                  environment: context.environment, timeout: context.checkTimeout)
        var state1 = StressRoundResult(round: round, state: 1, log: firstLog, outcome: firstOutcome, writerFailure: firstFailure,
                                       snapshot: firstSnapshot)
        state1.notes = notes

        // Run 2: free the space, resume on the same store.
        try? FileManager.default.removeItem(atPath: ballast)
        let second = try WriterChild(executable: context.executable, stressCase: stressCase, directory: store,
                                     stderrPath: path("writer-2.stderr"), environment: context.environment,
                                     commits: Self.resumeCommits, extraArguments: ["--tx-prefix", "r2.", "--resume"])
        let secondExit = second.finish(timeout: max(60, budget.duration * 4))
        let secondLog = try AckLog.parse(second.text, source: "ack pipe of \(stressCase.label) full-disk round \(round) run 2")
        try? second.text.write(toFile: path("acks-2.log"), atomically: false, encoding: .utf8)
        var secondFailure: String?
        if secondExit != .exited(0) || secondLog.acknowledgedCount == 0 {
            secondFailure = "after \(filled) bytes were freed the writer did not resume (\(secondExit), \(secondLog.acknowledgedCount) acks): "
                + QuotedInput.clip(secondLog.errors.first?.message ?? second.errorOutput)
        }
        let secondSnapshot = path("state-2")
        try StressFiles.copyDirectory(store, to: secondSnapshot)
        let secondOutcome = try CheckerChild.check(stressCase, directory: store, scratch: roundDirectory, executable: context.executable,
                                                   environment: context.environment, timeout: context.checkTimeout)
        let state2 = StressRoundResult(round: round, state: 2, log: AckLog.merged([firstLog, secondLog]), outcome: secondOutcome,
                                       writerFailure: secondFailure, snapshot: secondSnapshot)
        return [state1, state2]
    }

    enum RunEnd {
        /// The writer ended by itself.
        case ended(ChildExit)
        /// It was alive but sent nothing for `silence` seconds (then killed); its state.
        case stalled(String)
        /// It kept acknowledging until its commit or time limit (then killed): the commits it
        /// made after the wait began, and the seconds.
        case ran(commits: Int, seconds: Double)
    }

    /// Commits after the fill that take every sensor of every writer thread to the window the
    /// writer trims to (`SensorModel.keep` readings), twice over: past that the store stops
    /// growing, so a writer that has not met the full disk by then never will.
    public static func commitsAfterFill(_ stressCase: StressCase) -> Int {
        let perSensor = (SensorModel.keep + max(1, stressCase.batchSize) - 1) / max(1, stressCase.batchSize)
        let sensorsPerCommit = stressCase.strategy == .batched ? SensorModel.symbols.count : 1
        return 2 * perSensor * SensorModel.symbols.count / sensorsPerCommit * max(1, stressCase.writers)
    }

    /// Waits for the writer to end, stall, reach `acks` acknowledgements or outlast `limit` seconds.
    func waitForEnd(_ writer: WriterChild, acks: Int, limit: Double) -> RunEnd {
        let started = Date()
        let startCount = writer.acknowledgements
        var lastCount = startCount
        var lastChange = Date()
        while true {
            let exit = writer.process.wait(timeout: 0.1)
            if exit != .running {
                _ = writer.finish(timeout: 1)
                return .ended(exit)
            }
            let count = writer.acknowledgements
            if count != lastCount {
                lastCount = count
                lastChange = Date()
            }
            if Date().timeIntervalSince(lastChange) >= Self.silence {
                let state = ChildState.describe(writer)
                _ = writer.kill()
                return .stalled(state)
            }
            if count >= acks || Date().timeIntervalSince(started) >= limit {
                _ = writer.kill()
                return .ran(commits: count - startCount, seconds: Date().timeIntervalSince(started))
            }
        }
    }

    /// Whether an engine's message says the disk is full (ENOSPC's text, SQLite's SQLITE_FULL,
    /// LMDB's and Strata's wording).
    public static func saysFull(_ message: String) -> Bool {
        let text = message.lowercased()
        return ["no space", "enospc", "disk is full", "database or disk is full", "disk full", "full"].contains { text.contains($0) }
    }
}
