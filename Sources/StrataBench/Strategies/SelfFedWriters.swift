// `threads` in closed loop: each writer thread produces its own readings (round-robin over the
// sensors, thread t starting at sensor t % 3) and commits one per transaction through its own
// handle — as an app's worker threads would, with no hand-over between threads. Open loop
// (`--rate`) keeps the producer threads and the shared buffer (`WriterThreadStrategy`), since
// the schedule, not the writers, decides when a reading exists.
//
// Why not the shared buffer in closed loop too: on 2 cores the hand-over (a producer wakes a
// writer, the writer's commit wakes a producer) cost two context switches per reading, and the
// writers sat idle between them (`perf stat`: 0.64 CPUs used, 7.6 context switches per
// transaction), so the case measured the hand-over, not concurrent commits.
//
// Confinement: each handle is made, used and closed only by its own thread.

import Foundation
import Synchronization

enum SelfFedWriters {
    /// Runs `threads` writer threads until production stops; returns the handles made.
    static func run(context: CaseContext, threads: Int) -> Int {
        let group = DispatchGroup()
        let made = HandleCount()
        let sensors = SensorModel.symbols.count
        for index in 0..<max(1, threads) {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                guard let writer = context.makeWriter(.currentThread) else { return }
                made.increment()
                var sensor = index % sensors
                // A nil from `next` may only mean that sensor's quota is met (count-bound
                // cases): production is over for this thread once every sensor says so.
                var exhausted = 0
                while exhausted < sensors {
                    if let pending = context.control.next(sensor: sensor) {
                        exhausted = 0
                        context.write(writer, [pending])
                    } else {
                        exhausted += 1
                    }
                    sensor = (sensor + 1) % sensors
                }
                writer.close()
            }
            thread.name = "strata-bench.writer.\(index)"
            thread.stackSize = 4 << 20
            thread.start()
        }
        group.wait()
        return made.value
    }
}

/// Handles made by the writer threads (each thread closes its own).
final class HandleCount: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
