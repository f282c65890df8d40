// A request to end a run early (the CLI raises it on SIGINT/SIGTERM; the library never installs
// signal handlers).
//
// Invariants: once requested it stays requested; producers stop at their next reading, store
// workloads at their next transaction, and the runner starts no further case. The case running
// when it arrives is abandoned (its row would describe a shortened case), never reported as if
// it had finished.

import Synchronization

/// Thread-safe, set once, read from every producer and writer thread (once per reading: the
/// flag is an atomic load, the reason behind a lock).
public final class StopRequest: Sendable {
    private let requested = Atomic<Bool>(false)
    private let state = Mutex<String?>(nil)

    public init() {}

    /// Asks the run to stop; `reason` (e.g. "SIGINT") is kept from the first call only.
    public func request(_ reason: String) {
        state.withLock { current in
            if current == nil { current = reason }
        }
        requested.store(true, ordering: .releasing)
    }

    public var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// Why the run was asked to stop, nil while it was not.
    public var reason: String? { state.withLock { $0 } }

    /// Throws `BenchError(.interrupted)` once a stop was requested.
    public func check() throws {
        if let reason { throw BenchError(.interrupted, "stopped (\(reason))") }
    }
}
