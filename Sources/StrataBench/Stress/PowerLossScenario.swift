// `power-loss`: for each round, a writer under libStrataIOTrace.so makes a bounded number of
// commits on an empty store and ends; from its trace, crash states are built (Stress/Trace: only
// what was flushed survives, plus any mix of what was pending), and the checker child opens each.
//
// A SIGKILL cannot show a missing or misordered flush — the page cache outlives the process — so
// this is the scenario that judges an engine's flushes. Each state is judged against what was
// acknowledged before its crash point only (the ack lines in the trace before it), under the
// engine's power-loss promise.
//
// Budget: `commitsPerWriter` per writer thread unless `--commits` says (a longer trace makes
// every state dearer to build in a debug build). Crash points are drawn (seeded) from the points
// just before each flush, every acknowledgement point, and random records between each two — one
// per gap, more when `--states` asks for more states than that gives. Each point is owed states:
// three just before a flush (all dropped, all kept, the first single omission — the flushed
// file's growth if it grew: the most is pending there, and a flush's ordering is what power loss
// tests), one elsewhere; the points taken are the flush points first, then the others, while
// what they are owed fits in `--states`, and the trace's end, where every ack was sent, always.
// Each point then gets what it is owed plus an even part of the budget left over (more omissions
// and random mixes as `--states` grows), so an early point never takes what a later flush is
// owed. States with the same content and the same acks as one already checked in the round are
// skipped; at most `budget.states` are checked per round.

import Foundation

public struct PowerLossScenario: StressScenarioDriver {
    public let scenario = StressScenario.powerLoss
    /// Transactions per writer thread, at most: the trace's length sets what a state costs.
    public static let commitsPerWriter = 12
    /// States owed to a crash point just before a flush (dropped, kept, the first omission), and
    /// the least a point gets when the budget allows more.
    public static let variantsPerPoint = 3

    public init() {}

    public func run(_ stressCase: StressCase, budget: StressBudget, seed: UInt64, context: StressContext) throws -> [StressRoundResult] {
        var random = SplitMix64(seed: seed)
        var results: [StressRoundResult] = []
        for round in 1...max(1, budget.rounds) {
            if context.stop?.isRequested == true { break }
            let roundDirectory = (context.directory as NSString).appendingPathComponent("round-\(round)")
            let commits = budget.commits ?? max(1, min(budget.maxAcks, Self.commitsPerWriter))
            let run = try TracedWriterRun.run(stressCase, directory: roundDirectory, commits: commits,
                                              timeout: max(30, budget.duration * 6), context: context)
            let writerFailure: String? = run.exit == .exited(0) ? nil
                : "traced writer ended with \(run.exit): \(QuotedInput.clip(run.errorOutput))"
            let trace = try run.trace()
            let builder = CrashStateBuilder(trace: trace, fileSystem: context.fileSystem)
            let points = Self.crashPoints(builder, states: budget.states, random: &random)
            // A disk already checked is checked again only with more acks to hold: the same bytes
            // judged against a later crash point (the trace's end after the last flush) are a
            // stronger check, not a repeat.
            var seen: Set<[UInt64]> = []
            var checked = 0
            var pointsLeft = points.count
            var owedLeft = points.reduce(0) { $0 + Self.minimumStates(trace, at: $1) }
            let source = "trace of \(stressCase.label) round \(round)"
            let spread = { (k: Int) -> Int in
                let owed = Self.minimumStates(trace, at: k)
                defer { pointsLeft -= 1; owedLeft -= owed }
                return Self.statesAtPoint(owed: owed, remaining: budget.states - checked, owedLeft: owedLeft, pointsLeft: pointsLeft)
            }
            try builder.forEachState(at: points, budget: spread, seed: random.next()) { (state) throws(BenchError) in
                guard checked < budget.states, seen.insert([state.contentHash, UInt64(state.acknowledgements.count)]).inserted else { return }
                checked += 1
                let stateDirectory = (roundDirectory as NSString).appendingPathComponent("state-\(checked)")
                do {
                    results.append(try Self.check(state, stressCase: stressCase, round: round, index: checked, directory: stateDirectory,
                                                  trace: run.tracePath, source: source, writerFailure: writerFailure, context: context))
                } catch let error as BenchError {
                    throw error
                } catch {
                    throw BenchError(.io, "power-loss state \(state.id): \(error)")
                }
            }
            context.note("  round \(round): \(trace.records.count) trace records, \(points.count) crash points, \(checked) distinct states checked")
        }
        return results
    }

    /// Materialises `state` (kept as the snapshot), checks a copy of it, and pairs the checker's
    /// outcome with the acknowledgements before the crash point.
    static func check(_ state: CrashState, stressCase: StressCase, round: Int, index: Int, directory: String, trace: String,
                      source: String, writerFailure: String?, context: StressContext) throws -> StressRoundResult {
        let snapshot = (directory as NSString).appendingPathComponent("as-crashed")
        let store = (directory as NSString).appendingPathComponent("store")
        try StressFiles.makeDirectory(snapshot)
        try state.materialise(into: snapshot)
        try StressFiles.copyDirectory(snapshot, to: store)
        let log = try state.ackLog(source: "\(source) before \(state.id)")
        let outcome = try CheckerChild.check(stressCase, directory: store, scratch: directory, executable: context.executable,
                                             timeout: context.checkTimeout)
        try? FileManager.default.removeItem(atPath: store)
        return StressRoundResult(round: round, state: index, log: log, outcome: outcome, writerFailure: writerFailure,
                                 snapshot: snapshot, trace: trace, crashState: state.id)
    }

    /// The crash points of one round: the flush and acknowledgement points and the trace's end,
    /// plus random records in each gap between acknowledgements — as many per gap as `states`
    /// needs beyond the fixed points (at least one) — then a seeded subset of them whose owed
    /// states fit in `states`, flush points first.
    public static func crashPoints(_ builder: CrashStateBuilder, states: Int, random: inout SplitMix64) -> [Int] {
        let gaps = builder.trace.acknowledgementPoints.count + 1
        let extra = max(0, pointsWanted(states) - gaps - builder.trace.flushPoints.count)
        let perGap = max(1, (extra + gaps - 1) / gaps)
        let trace = builder.trace
        return choosePoints(builder.crashPoints(randomBetweenAcks: perGap, seed: random.next()),
                            preferred: Set(trace.flushPoints), states: states, random: &random,
                            owed: { minimumStates(trace, at: $0) })
    }

    /// Crash points enough for `states`: each yields up to `variantsPerPoint` states, often fewer
    /// once identical disks are merged, so two thirds of a point's budget is what one is worth.
    static func pointsWanted(_ states: Int) -> Int { max(1, (states * 2 + variantsPerPoint - 1) / variantsPerPoint) }

    /// The states a crash point is owed before any point gets more: just before a flush,
    /// all-dropped, all-kept and its first single omission (where a commit's meta without its
    /// growth shows); elsewhere one.
    static func minimumStates(_ trace: IOTrace, at k: Int) -> Int { trace.isFlushPoint(k) ? variantsPerPoint : 1 }

    /// A point's share of the round's remaining budget: what it is owed plus an even part of what
    /// is left once every point still to come has its due (`owedLeft` counts this point's too), so
    /// a point early in the trace never takes what a later flush is owed; the last point — the
    /// trace's end, where every ack was sent — gets all that remains. A point that yields fewer
    /// distinct states than its share leaves the rest to the points after it.
    static func statesAtPoint(owed: Int, remaining: Int, owedLeft: Int, pointsLeft: Int) -> Int {
        guard remaining > 0 else { return 0 }
        let left = max(1, pointsLeft)
        if left == 1 { return remaining }
        let surplus = max(0, remaining - owedLeft)
        return max(0, min(owed + surplus / left, remaining - (owedLeft - owed)))
    }

    /// A seeded subset of `points` whose owed states (`owed`) fit in `states`, always with the
    /// trace's end: the `preferred` points first, then the others, each in a seeded order, taken
    /// while what they are owed still fits; returned in order.
    static func choosePoints(_ points: [Int], preferred: Set<Int> = [], states: Int, random: inout SplitMix64,
                             owed: (Int) -> Int = { _ in 1 }) -> [Int] {
        guard let last = points.last else { return points }
        func shuffled(_ pool: [Int]) -> [Int] {
            var pool = pool
            for i in stride(from: pool.count - 1, to: 0, by: -1) { pool.swapAt(i, random.below(i + 1)) }
            return pool
        }
        let rest = points.dropLast()
        var left = states - owed(last)
        var chosen = [last]
        for k in shuffled(rest.filter { preferred.contains($0) }) + shuffled(rest.filter { !preferred.contains($0) }) {
            let cost = owed(k)
            if cost <= left {
                chosen.append(k)
                left -= cost
            }
        }
        return chosen.sorted()
    }
}
