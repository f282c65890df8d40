// Progress events of a run. The library never prints: the CLI turns these into stderr lines.

/// Something worth telling the person watching a run.
public enum ProgressEvent: Sendable {
    /// Case `index` (1-based) of `total` starts.
    case caseStarted(index: Int, total: Int, label: String)
    /// Once a second while a case runs: elapsed seconds, readings committed, current rate.
    case tick(label: String, elapsed: Double, committed: Int, readingsPerSecond: Double)
    /// A case ended with this row.
    case caseFinished(index: Int, total: Int, label: String, result: CaseResult)
    /// The run was asked to stop while case `index` ran: it was abandoned (no row) and its
    /// store removed.
    case abandoned(index: Int, total: Int, label: String)
    /// A case was not run, with the reason (e.g. SQLite has no encryption).
    case skipped(label: String, reason: String)
    /// Anything else the user should know.
    case note(String)
}

public typealias ProgressHandler = @Sendable (ProgressEvent) -> Void
