// SIGINT and SIGTERM during `run`: the first asks the runner to stop (it abandons the current
// case, removes its store and returns the finished cases, which the run writes marked
// interrupted); a second one, for a case that does not come back, writes the finished cases and
// removes the stores from here, then exits at once. Exit status 128 + the signal (130, 143).
//
// Why dispatch sources: a C signal handler may only call async-signal-safe functions; the
// signals are ignored for the process (`SIG_IGN`) and delivered to a dispatch queue instead.

import Dispatch
import Foundation
import StrataBench
import Synchronization

/// `@unchecked Sendable`: `received`, `sources` and `onSecondSignal` are touched only under `lock`
/// (dispatch sources are not `Sendable`; they are only kept alive here, never shared for use).
final class SignalStop: @unchecked Sendable {
    let stop = StopRequest()
    private let queue = DispatchQueue(label: "strata-bench.signals")
    private let lock = NSLock()
    private var receivedSignal: Int32?
    private var sources: [DispatchSourceSignal] = []
    private var onSecondSignal: (@Sendable (Int32) -> Void)?

    /// The first signal received, nil while none was.
    var received: Int32? { lock.withLock { receivedSignal } }

    static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        default: return "signal \(signal)"
        }
    }

    /// Starts listening; `onSecondSignal` runs on a second signal (it should exit the process).
    func install(onSecondSignal: @escaping @Sendable (Int32) -> Void) {
        lock.withLock { self.onSecondSignal = onSecondSignal }
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in handle(number) }
            source.resume()
            lock.withLock { sources.append(source) }
        }
    }

    private func handle(_ number: Int32) {
        let second: (@Sendable (Int32) -> Void)? = lock.withLock {
            if receivedSignal == nil {
                receivedSignal = number
                return nil
            }
            return onSecondSignal
        }
        if let second {
            second(number)
        } else {
            stop.request(Self.name(number))
        }
    }
}

/// The rows of the cases finished so far, collected from progress events (for a forced exit).
final class FinishedCases: Sendable {
    private let results = Mutex<[CaseResult]>([])
    func add(_ result: CaseResult) { results.withLock { $0.append(result) } }
    var all: [CaseResult] { results.withLock { $0 } }
}
