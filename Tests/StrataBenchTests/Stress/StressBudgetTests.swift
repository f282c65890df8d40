import Foundation
import Testing
@testable import StrataBench

/// The budgets of `strata-bench stress`: each flag sets its own scenario's budget, and a bad value
/// is a usage error naming the flag.
@Suite("stress budgets")
struct StressBudgetTests {
    @Test func eachBudgetFlagSetsItsOwnBudget() throws {
        var options = StressOptions()
        options.states = 2_000
        options.injections = 7
        options.commits = 300
        let plan = try StressPlan.make(options)
        #expect(plan.budget.states == 2_000)
        #expect(plan.budget.injections == 7)
        #expect(plan.budget.commits == 300)
        let defaults = try StressPlan.make(StressOptions())
        #expect(defaults.budget.states == StressOptions.defaultStates)
        #expect(defaults.budget.injections == StressOptions.defaultInjections)
        #expect(defaults.budget.commits == nil, "each scenario keeps its own commit count unless --commits says")
    }

    @Test(arguments: [
        (["--states", "0"], "--states 0: must be 1 to 100,000"),
        (["--states", "100001"], "--states 100,001: must be 1 to 100,000"),
        (["--injections", "0"], "--injections 0: must be 1 to 100,000"),
        (["--injections", "-3"], "--injections -3"),
        (["--injections", "many"], "--injections"),
        (["--commits", "0"], "--commits 0: must be 1 to 100,000"),
        (["--commits", "100001"], "--commits 100,001: must be 1 to 100,000"),
        (["--commits", "2.5"], "--commits"),
    ])
    func badBudgetsAreUsageErrorsNamingTheFlag(arguments: [String], message: String) throws {
        let outcome = try CLI.run(["stress", "--scenario", "power-loss", "--engine", "strata"] + arguments)
        #expect(outcome.status == 64, "\(outcome.stderr)")
        #expect(outcome.stderr.contains(message), "\(outcome.stderr)")
    }

    @Test func badBudgetsAreTypedErrors() {
        for (options, flag) in [({ var o = StressOptions(); o.injections = 0; return o }(), "--injections"),
                                ({ var o = StressOptions(); o.commits = 0; return o }(), "--commits")] {
            do {
                _ = try StressPlan.make(options)
                Issue.record("\(flag) 0 was accepted")
            } catch let error as BenchError {
                #expect(error.code == .invalidOption && error.message.hasPrefix("\(flag) 0"), "\(error)")
            } catch {
                Issue.record("untyped \(error)")
            }
        }
    }

    /// A large `--states` draws more crash points from one trace than one per gap between its
    /// acknowledgements: a round can check as many states as its trace has records to cut at.
    @Test func aLargeStateBudgetDrawsCrashPointsBetweenAcknowledgements() throws {
        var script = ["opendir:.", "create:f"]
        for i in 0..<60 { script.append("pwrite:f:\(i * 512):512:\(i % 250 + 1)") }
        script += ["fdatasync:f", "fsync:.", "ack:one"]
        for i in 0..<60 { script.append("pwrite:f:\(i * 512):512:\(i % 250 + 2)") }
        script += ["fdatasync:f", "ack:two"]
        let run = try TracedRun.run(script)
        defer { run.remove() }
        let builder = CrashStateBuilder(trace: try run.trace())
        var random = SplitMix64(seed: 11)
        let points = PowerLossScenario.crashPoints(builder, states: 120, random: &random)
        // 3 fixed points (2 acks, the end) and 26 random records in each gap: one per gap would
        // give at most 6.
        #expect(points.count >= 50, "\(points.count) crash points for 120 states")
        #expect(points == points.sorted() && Set(points).count == points.count)
        #expect(points.last == builder.trace.records.count, "the trace's end is always a crash point")
        // A small budget still takes a small subset: the end and, with no room for a flush's
        // three, two other points.
        var again = SplitMix64(seed: 11)
        let few = PowerLossScenario.crashPoints(builder, states: 3, random: &again)
        #expect(few.count == 3 && few.last == builder.trace.records.count && few.allSatisfy { !builder.trace.isFlushPoint($0) })
    }

    /// When the budget cannot cover every crash point, the points just before a flush are taken
    /// first: that is where a commit's writes are all pending and their order is tested.
    @Test func aSmallStateBudgetTakesTheFlushPointsFirst() throws {
        var script = ["opendir:.", "create:f"]
        for commit in 1...8 {
            for i in 0..<6 { script.append("pwrite:f:\(i * 512):512:\(commit)") }
            script += ["fdatasync:f", "ack:c\(commit)"]
        }
        let run = try TracedRun.run(script)
        defer { run.remove() }
        let builder = CrashStateBuilder(trace: try run.trace())
        let flushes = Set(builder.trace.flushPoints)
        #expect(flushes.count == 8)
        var random = SplitMix64(seed: 5)
        // 10 states: the trace's end (owed one) and three flushes (owed three each: all dropped,
        // all kept, the first omission).
        let points = PowerLossScenario.crashPoints(builder, states: 10, random: &random)
        #expect(points.count == 4 && points.last == builder.trace.records.count)
        #expect(points.dropLast().allSatisfy { flushes.contains($0) }, "\(points) against flushes \(flushes.sorted())")
    }

    /// Each point gets what it is owed before any point gets more, whatever its place in the
    /// trace: a flush late in the trace still gets its three states when the budget is tight.
    @Test func anEarlyPointNeverTakesWhatALaterFlushIsOwed() {
        // Three points: a flush (owed 3), a flush (owed 3), the end (owed 1); 7 states in all.
        var remaining = 7, owedLeft = 7
        var given: [Int] = []
        for (owed, pointsLeft) in [(3, 3), (3, 2), (1, 1)] {
            let share = PowerLossScenario.statesAtPoint(owed: owed, remaining: remaining, owedLeft: owedLeft, pointsLeft: pointsLeft)
            given.append(share)
            remaining -= share
            owedLeft -= owed
        }
        #expect(given == [3, 3, 1])
        // A larger budget adds an even part to each; a point that used less leaves it to the end.
        #expect(PowerLossScenario.statesAtPoint(owed: 3, remaining: 31, owedLeft: 7, pointsLeft: 3) == 11)
        #expect(PowerLossScenario.statesAtPoint(owed: 1, remaining: 9, owedLeft: 1, pointsLeft: 1) == 9)
        #expect(PowerLossScenario.statesAtPoint(owed: 3, remaining: 0, owedLeft: 7, pointsLeft: 3) == 0)
    }
}
