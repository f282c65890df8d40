// `async`: Swift concurrency. Producers are tasks that `await` an actor owning the handle; the
// actor writes through the engine's async path (Strata: `Realm.asyncWrite`, whose waiting commit
// lets the actor run other producers' writes, so their commits share flushes; SQLite: the same
// synchronous transaction as the other strategies).
//
// Confinement: the actor runs on a custom serial executor backed by one dispatch queue, so the
// handle is made and used only on that queue (`.queue(queue)`), exactly like a realm opened with
// `Realm(configuration:queue:)` — an actor on the default executor would hop between threads.
// Closed loop: each producer awaits its write before producing the next reading. Open loop: each
// reading is written by its own child task, so production never waits.

import Foundation

/// A serial executor that runs jobs on one dispatch queue.
final class DispatchQueueExecutor: SerialExecutor {
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// Owns the writer handle; every write is one actor call.
actor SensorWriterActor {
    private let executor: DispatchQueueExecutor
    private let context: CaseContext
    private var writer: (any SensorWriter)?

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(context: CaseContext) {
        self.context = context
        executor = DispatchQueueExecutor(label: "strata-bench.async-writer")
    }

    func write(_ pending: PendingReading) async {
        dispatchPrecondition(condition: .onQueue(executor.queue))
        if writer == nil {
            guard let made = context.makeWriter(.queue(executor.queue)) else { return }
            writer = made
        }
        // Realm's asyncWrite (Strata): while this commit's flush runs, the actor takes the other
        // producers' writes, and their commits share the next flush.
        if let writer { await context.writeAsync(writer, [pending]) }
    }

    func close() {
        writer?.close()
        writer = nil
    }
}

enum AsyncStrategy {
    /// Runs the producers as tasks until production ends and every write returned.
    static func run(context: CaseContext) async {
        let actor = SensorWriterActor(context: context)
        let openLoop = context.spec.rate != nil
        await withTaskGroup(of: Void.self) { producers in
            for sensor in SensorModel.symbols.indices {
                producers.addTask {
                    await withTaskGroup(of: Void.self) { writes in
                        var index: Int64 = 0
                        while true {
                            await context.control.waitForTurnAsync(index: index)
                            guard let pending = context.control.next(sensor: sensor) else { break }
                            index += 1
                            if openLoop {
                                writes.addTask { await actor.write(pending) }
                            } else {
                                await actor.write(pending)
                            }
                        }
                    }
                }
            }
        }
        await actor.close()
    }
}
