// `main-sync`: production and writing both happen on the main queue, one transaction per reading,
// as in the book's first experiment (a timer on the main thread writing synchronously).
//
// Confinement: the handle is made and used only inside main-queue blocks (`.queue(.main)`,
// checked with dispatchPrecondition). The driver re-enqueues itself after every round of three
// readings (one per sensor), so the main queue stays responsive to other blocks between rounds.
// The caller must not block the main queue: the CLI drains it (async main), and `run` waits on
// another thread.

import Foundation

final class MainSyncDriver: Sendable {
    private let context: CaseContext
    private let handle = Confined<any SensorWriter>()
    private let finished = DispatchSemaphore(value: 0)
    /// Open loop: readings written so far per sensor, for the schedule. Main queue only.
    private let written = Confined<[Int64]>(Array(repeating: 0, count: SensorModel.symbols.count))

    init(context: CaseContext) {
        self.context = context
    }

    /// Starts on the main queue and blocks the calling (non-main) thread until production ended
    /// and every reading was written. Fails if the main queue is not drained within `startTimeout`.
    func run(startTimeout: Double = 30) throws {
        let started = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { [self] in
            started.signal()
            step()
        }
        if started.wait(timeout: .now() + startTimeout) == .timedOut {
            context.control.stop()
            throw BenchError(.unsupported, "the main queue is not being drained (a main-queue strategy needs dispatchMain() or async main)")
        }
        finished.wait()
    }

    private func step() {
        dispatchPrecondition(condition: .onQueue(.main))
        let writer: any SensorWriter
        if let existing = handle.value {
            writer = existing
        } else {
            guard let made = context.makeWriter(.queue(.main)) else {
                finished.signal()
                return
            }
            writer = made
            handle.value = writer
        }
        var nextDue: UInt64?
        var producedAny = false
        for sensor in SensorModel.symbols.indices {
            let index = written.value?[sensor] ?? 0
            // Once production is over, `next` says so at once: no waiting for a due time.
            if let due = context.control.dueTime(index: index), due > monotonicNanos(), !context.control.isOver {
                nextDue = min(nextDue ?? due, due)
                continue
            }
            guard let pending = context.control.next(sensor: sensor) else { continue }
            producedAny = true
            written.value?[sensor] = index + 1
            context.write(writer, [pending])
        }
        if producedAny || nextDue != nil {
            if let nextDue, !producedAny {
                // In slices, so a deadline or a stop request is noticed within one slice.
                let delay = Double(min(nextDue - min(nextDue, monotonicNanos()), ProductionControl.waitSlice)) / 1e9
                DispatchQueue.main.asyncAfter(deadline: .now() + delay) { [self] in step() }
            } else {
                DispatchQueue.main.async { [self] in step() }
            }
            return
        }
        writer.close()
        handle.value = nil
        finished.signal()
    }
}
