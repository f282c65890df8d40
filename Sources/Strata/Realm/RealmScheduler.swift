// Where a realm confined to a dispatch queue or to an actor runs the work it defers: notification
// deliveries, asynchronous writes and their completions, the last release of its core.
//
// Invariants:
// - Work for a queue-confined realm is `async` on its queue; work for an actor-confined realm runs
//   isolated to its actor, entered from a new task. Either way it runs where the realm may be
//   used, never concurrently with other uses of it. Work for a realm of a thread that runs its run
//   loop (ThreadRunLoop.swift) runs on that thread at the loop's next turn.
// - An actor-confined realm is checked on every access, as a thread- or queue-confined one is: the
//   Swift concurrency runtime tells whether the calling code runs on the actor's executor
//   (`swift_task_isCurrentExecutorWithFlags`, looked up at run time as `swift_tryRetain` is in
//   Confinement.swift, with no flag so that a mismatch answers false rather than stopping).
import Dispatch
import Foundation

/// The queue or actor a realm is confined to, or the run loop that serves a thread's realm.
enum RealmScheduler: @unchecked Sendable {
    // @unchecked: a DispatchQueue and an actor reference are both safe to share.
    case queue(DispatchQueue)
    case actor(any Actor)
    /// The run loop of the thread a thread-confined realm lives on (ThreadRunLoop.swift): only
    /// ever a core's `autorefreshScheduler`, never the `scheduler` it is confined by.
    case runLoop(ThreadRunLoop)

    /// Runs `body` where the realm lives, later.
    func async(_ body: @escaping @Sendable () -> Void) {
        switch self {
        case .queue(let queue): queue.async(execute: body)
        case .actor(let actor): Task { await RealmScheduler.run(on: actor, body) }
        case .runLoop(let loop): loop.perform(body)
        }
    }

    private static func run(on actor: isolated any Actor, _ body: @Sendable () -> Void) { body() }

    /// The dispatch queue, for a queue-confined realm.
    var queue: DispatchQueue? {
        if case .queue(let queue) = self { queue } else { nil }
    }

    var confinement: Confinement {
        switch self {
        case .queue(let queue): .queue(Confinement.queueIdentity(queue))
        case .actor(let actor): .actor(ActorExecutor(actor))
        case .runLoop(let loop): .thread(loop.thread)
        }
    }
}

/// An actor's executor, by the two words of its `UnownedSerialExecutor`.
struct ActorExecutor: Hashable, Sendable {
    let identity: UInt
    let implementation: UInt

    init(_ actor: any Actor) {
        let executor = actor.unownedExecutor
        if MemoryLayout<UnownedSerialExecutor>.size == 2 * MemoryLayout<UInt>.size {
            (identity, implementation) = unsafeBitCast(executor, to: (UInt, UInt).self)
        } else {
            (identity, implementation) = (0, 0)
        }
    }

    /// Whether the runtime can tell if code runs on an actor (else actor-confined realms are refused).
    static var isSupported: Bool {
        isCurrentExecutor != nil && MemoryLayout<UnownedSerialExecutor>.size == 2 * MemoryLayout<UInt>.size
    }

    /// Whether the calling code runs on this executor.
    var isCurrent: Bool {
        guard let check = Self.isCurrentExecutor else { return false }
        return check(identity, implementation, 0)
    }

    private typealias IsCurrentExecutor = @convention(c) (UInt, UInt, UInt64) -> Bool
    // A static let: looked up once, thread-safely, on first use.
    private static let isCurrentExecutor: IsCurrentExecutor? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "swift_task_isCurrentExecutorWithFlags") else { return nil }
        return unsafeBitCast(symbol, to: IsCurrentExecutor.self)
    }()
}
