// Judges one checked state: what the writer acknowledged (`AckLog`) against what the checker saw
// (`CheckOutcome`), under the engine's guarantee for the scenario's threat.
//
// A sensor's list after the commit of seq `hi` holds exactly max(1, hi − keep + 1)...hi
// (`addReadings` trims the oldest beyond `SensorModel.keep` in the same transaction). So:
// - a sensor whose list is not that one run of seqs has a gap (counted as half-applied);
// - a transaction's part on a sensor is applied when hi >= last, absent when hi < first, and
//   partial in between; a transaction with parts both applied and not (or a partial part) is
//   half-applied, whether it was acknowledged or not;
// - an acknowledged transaction that is absent is lost; an unacknowledged one may be either way.
// A store that refuses to open (typed error) after anything was acknowledged (the `ready` of its
// setup included) has lost everything acknowledged: counted as a typed error and as lost.

import Foundation

/// Counts of one state, or summed over a case's states.
public struct StressCounts: Sendable, Equatable {
    public var acknowledged = 0
    public var present = 0
    public var lost = 0
    public var halfApplied = 0
    public var corrupt = 0
    public var typedErrors = 0
    public var crashes = 0
    public var hangs = 0
    /// Writers that failed on their own (an engine error) before the scenario stopped them.
    public var writerFailures = 0
    /// Soak: series (memory, descriptors, …) that kept growing beyond their thresholds.
    public var trends = 0

    public init() {}

    public static func + (a: StressCounts, b: StressCounts) -> StressCounts {
        var sum = a
        sum.acknowledged += b.acknowledged
        sum.present += b.present
        sum.lost += b.lost
        sum.halfApplied += b.halfApplied
        sum.corrupt += b.corrupt
        sum.typedErrors += b.typedErrors
        sum.crashes += b.crashes
        sum.hangs += b.hangs
        sum.writerFailures += b.writerFailures
        sum.trends += b.trends
        return sum
    }
}

/// pass < documented-loss < fail.
public enum StressVerdict: String, Sendable, Comparable, CaseIterable {
    case pass
    case documentedLoss = "documented-loss"
    case fail

    private var rank: Int { self == .pass ? 0 : self == .documentedLoss ? 1 : 2 }
    public static func < (a: StressVerdict, b: StressVerdict) -> Bool { a.rank < b.rank }
}

/// The judgement of one state.
public struct StateJudgement: Sendable, Equatable {
    public var counts: StressCounts
    public var verdict: StressVerdict
    /// Why, one line per finding (empty on a clean pass).
    public var findings: [String]
    public var recoveryMs: Double?
}

public enum StressJudge {
    public static func judge(_ log: AckLog, _ outcome: CheckOutcome, guarantee: StressGuarantee,
                             writerFailure: String? = nil) -> StateJudgement {
        var counts = StressCounts()
        counts.acknowledged = log.acknowledgedCount
        var findings: [String] = []
        var verdict = StressVerdict.pass
        func flag(_ broken: Bool, allowed: Bool, _ finding: String) {
            guard broken else { return }
            findings.append(finding + (allowed ? " (documented)" : ""))
            verdict = max(verdict, allowed ? .documentedLoss : .fail)
        }
        if let writerFailure {
            counts.writerFailures = 1
            flag(true, allowed: false, "the writer failed before it was stopped: \(writerFailure)")
        }
        let report: CheckReport
        switch outcome {
        case .crashed(let signal):
            counts.crashes = 1
            // Where the engine documents that it may corrupt its store (LMDB with MDB_NOSYNC,
            // SQLite with synchronous=OFF), reading a corrupt store may kill the reader: LMDB maps
            // the file and trusts it, so a meta naming pages past the end is a SIGBUS. Counted,
            // and documented; where the engine promises an intact or atomic store, a failure.
            flag(true, allowed: !guarantee.staysIntact && !guarantee.atomic, "the checker died of signal \(signal)")
            return StateJudgement(counts: counts, verdict: verdict, findings: findings)
        case .hung(let seconds):
            counts.hangs = 1
            flag(true, allowed: false, "the checker did not finish in \(Int(seconds)) s")
            return StateJudgement(counts: counts, verdict: verdict, findings: findings)
        case .broken(let why):
            counts.crashes = 1
            flag(true, allowed: false, "the checker failed: \(why)")
            return StateJudgement(counts: counts, verdict: verdict, findings: findings)
        case .checked(let checked):
            report = checked
        }
        if let error = report.error {
            counts.typedErrors = 1
            let acknowledgedAnything = log.ready || counts.acknowledged > 0
            if acknowledgedAnything { counts.lost = counts.acknowledged }
            flag(acknowledgedAnything, allowed: !guarantee.staysIntact,
                 "the store refused to open or read after \(counts.acknowledged) acknowledged commits: \(error.code): \(error.message)")
            if !acknowledgedAnything { findings.append("refused to open, but nothing was acknowledged: \(error.code): \(error.message)") }
            return StateJudgement(counts: counts, verdict: verdict, findings: findings, recoveryMs: report.recoveryMs)
        }
        if !report.problems.isEmpty {
            counts.corrupt = 1
            flag(true, allowed: !guarantee.staysIntact,
                 "integrity check: \(report.problems.prefix(3).joined(separator: "; "))\(report.problems.count > 3 ? "; …" : "")")
        }
        // The newest seq of each sensor, and whether its list is the one run the model allows.
        var newest: [String: Int64] = [:]
        var begun: [String: Int64] = [:]
        for transaction in log.transactions {
            for part in transaction.parts { begun[part.sensor] = max(begun[part.sensor] ?? 0, part.last) }
        }
        for (sensor, ranges) in report.sensors.sorted(by: { $0.key < $1.key }) {
            guard let hi = ranges.last?[1] else { continue }
            newest[sensor] = hi
            let expected: [[Int64]] = [[max(1, hi - Int64(SensorModel.keep) + 1), hi]]
            if ranges != expected {
                counts.halfApplied += 1
                flag(true, allowed: !guarantee.atomic, "sensor \(sensor): seqs \(describe(ranges)), expected one run \(describe(expected))")
            }
            if hi > begun[sensor] ?? 0 {
                counts.halfApplied += 1
                flag(true, allowed: !guarantee.atomic, "sensor \(sensor): seq \(hi) present but only \(begun[sensor] ?? 0) were ever written")
            }
        }
        var lostIDs: [String] = []
        var halfIDs: [String] = []
        for transaction in log.transactions {
            var applied = 0
            var partial = false
            for part in transaction.parts {
                let hi = newest[part.sensor] ?? 0
                if hi >= part.last { applied += 1 } else if hi >= part.first { partial = true }
            }
            if partial || (applied > 0 && applied < transaction.parts.count) {
                counts.halfApplied += 1
                halfIDs.append(transaction.id)
            } else if applied == transaction.parts.count {
                counts.present += 1
            } else if transaction.acknowledged {
                counts.lost += 1
                lostIDs.append(transaction.id)
            }
        }
        flag(!halfIDs.isEmpty, allowed: !guarantee.atomic, "\(halfIDs.count) transaction(s) partly present: \(halfIDs.prefix(5).joined(separator: ", "))")
        flag(!lostIDs.isEmpty, allowed: !guarantee.keepsAcknowledged,
             "\(lostIDs.count) acknowledged transaction(s) absent: \(lostIDs.prefix(5).joined(separator: ", "))\(lostIDs.count > 5 ? ", …" : "")")
        return StateJudgement(counts: counts, verdict: verdict, findings: findings, recoveryMs: report.recoveryMs)
    }

    static func describe(_ ranges: [[Int64]]) -> String {
        ranges.isEmpty ? "none" : ranges.map { $0[0] == $0[1] ? "\($0[0])" : "\($0[0])...\($0[1])" }.joined(separator: ",")
    }
}
