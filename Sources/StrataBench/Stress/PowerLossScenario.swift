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
// every state dearer to build in a debug build), crash points drawn (seeded) from the points just
// before each flush (taken first: the most is pending there, and a flush's ordering is what power
// loss tests), every acknowledgement point, and random records between each two — one per gap,
// more when `--states` asks for more states than that gives — and at each point the all-dropped,
// all-kept, (at a flush) single-omission and random states — three per point, or the round's
// remaining budget spread evenly over the points still to come when that is more (a large
// --states draws more omissions and random mixes at each), and always one kept for the trace's
// end, where every ack was sent —; states with the same content and the same acks as one already
// checked in the round are skipped; at most `budget.states` are checked per round.

import Foundation

public struct PowerLossScenario: StressScenarioDriver {
    public let scenario = StressScenario.powerLoss
    /// Transactions per writer thread, at most: the trace's length sets what a state costs.
    public static let commitsPerWriter = 12
    /// States built per crash point (dropped, kept, one random mix).
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
            let source = "trace of \(stressCase.label) round \(round)"
            let spread = { (_: Int) -> Int in
                defer { pointsLeft -= 1 }
                return Self.variantsAtPoint(remaining: budget.states - checked, pointsLeft: pointsLeft)
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
    /// needs beyond the fixed points (at least one) — then a seeded subset of them sized for
    /// `states`, flush points first.
    public static func crashPoints(_ builder: CrashStateBuilder, states: Int, random: inout SplitMix64) -> [Int] {
        let gaps = builder.trace.acknowledgementPoints.count + 1
        let extra = max(0, pointsWanted(states) - gaps - builder.trace.flushPoints.count)
        let perGap = max(1, (extra + gaps - 1) / gaps)
        return choosePoints(builder.crashPoints(randomBetweenAcks: perGap, seed: random.next()),
                            preferred: Set(builder.trace.flushPoints), states: states, random: &random)
    }

    /// Crash points enough for `states`: each yields up to `variantsPerPoint` states, often fewer
    /// once identical disks are merged, so two thirds of a point's budget is what one is worth.
    static func pointsWanted(_ states: Int) -> Int { max(1, (states * 2 + variantsPerPoint - 1) / variantsPerPoint) }

    /// A point's share of the round's remaining budget: an even split over the points left
    /// (rounded up), or `variantsPerPoint` when that is more and still leaves one state for the
    /// trace's end, the last point, where every ack was sent (it gets all that remains).
    static func variantsAtPoint(remaining: Int, pointsLeft: Int) -> Int {
        guard remaining > 0 else { return 0 }
        let left = max(1, pointsLeft)
        if left == 1 { return remaining }
        let share = (remaining + left - 1) / left
        return min(max(share, variantsPerPoint), remaining - 1)
    }

    /// A seeded subset of `points` small enough for `states` (each point yields up to
    /// `variantsPerPoint` states, often fewer once identical disks are merged), always with the
    /// trace's end, the `preferred` points before the others, in order.
    static func choosePoints(_ points: [Int], preferred: Set<Int> = [], states: Int, random: inout SplitMix64) -> [Int] {
        let wanted = pointsWanted(states)
        guard points.count > wanted, let last = points.last else { return points }
        func shuffled(_ pool: [Int]) -> [Int] {
            var pool = pool
            for i in stride(from: pool.count - 1, to: 0, by: -1) { pool.swapAt(i, random.below(i + 1)) }
            return pool
        }
        let rest = points.dropLast()
        let pool = shuffled(rest.filter { preferred.contains($0) }) + shuffled(rest.filter { !preferred.contains($0) })
        return (Array(pool.prefix(wanted - 1)) + [last]).sorted()
    }
}
