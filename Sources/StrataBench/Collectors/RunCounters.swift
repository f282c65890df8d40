// The counters of one case, shared by producers, writers, the stats reader and the sampler.
//
// Invariants: produced ≥ acknowledged at every instant; backlog = produced − acknowledged;
// `deleted` counts readings the engine reported deleting when it trimmed a list. At the end of a
// case, lost = produced − (readings in the store + deleted) must be 0.

import Foundation

/// `@unchecked Sendable`: every field is read and written under `lock`.
public final class RunCounters: @unchecked Sendable {
    private let lock = NSLock()
    private var _produced = 0
    private var _acknowledged = 0
    private var _deleted = 0
    private var _transactions = 0
    private var _backlogMax = 0
    private var _failure: BenchError?

    public init() {}

    /// A producer made a reading (call before handing it over).
    public func produced(_ count: Int = 1) {
        lock.lock()
        _produced += count
        _backlogMax = max(_backlogMax, _produced - _acknowledged)
        lock.unlock()
    }

    /// A transaction holding `readings` readings committed and deleted `deleted` old ones.
    public func committed(readings: Int, deleted: Int) {
        lock.lock()
        _acknowledged += readings
        _deleted += deleted
        _transactions += 1
        lock.unlock()
    }

    /// Records the first failure of a writer; later ones are dropped (the first is the cause).
    public func fail(_ error: Error) {
        lock.lock()
        if _failure == nil {
            _failure = error as? BenchError ?? BenchError(.engine, "\(error)")
        }
        lock.unlock()
    }

    public struct Snapshot: Sendable {
        public var produced: Int
        public var acknowledged: Int
        public var deleted: Int
        public var transactions: Int
        public var backlogMax: Int
        public var failure: BenchError?
    }

    public func snapshot() -> Snapshot {
        lock.lock()
        defer { lock.unlock() }
        return Snapshot(produced: _produced, acknowledged: _acknowledged, deleted: _deleted,
                        transactions: _transactions, backlogMax: _backlogMax, failure: _failure)
    }
}
