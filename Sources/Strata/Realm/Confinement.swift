// Thread and queue confinement of live realms, and the per-thread/queue instance cache.
//
// Invariants:
// - A thread's identity is a number taken from a process-wide counter the first time the thread
//   asks (kept in thread-local storage), so a new thread never inherits a dead thread's identity
//   the way a reused pthread_t would.
// - A queue's identity is a number tagged on the underlying queue with `setSpecific` (once), so
//   `DispatchQueue.getSpecific` tells whether the current code runs on it.
// - The instance cache holds realms weakly: when the last `Realm` value of a core goes away the
//   core deinitialises and its file handle closes (so `deleteFiles` and compaction can proceed).
import Dispatch
import Foundation
import Synchronization
internal import CStrataThreadLocal

enum ThreadIdentity {
    private static let counter = Atomic<Int>(0)

    /// A number unique to the calling thread for the life of the process (kept in a C
    /// thread-local word, CStrataThreadLocal).
    static var current: Int {
        let known = strata_tls_get_thread_identity()
        if known != 0 { return Int(known) }
        let id = counter.wrappingAdd(1, ordering: .relaxed).newValue
        strata_tls_set_thread_identity(Int64(id))
        return id
    }
}

/// The queue (by its tag number) whose block the calling thread is known to be running, inside
/// `Confinement.whileVerified`; 0 outside.
enum VerifiedQueue {
    static var current: Int {
        get { Int(strata_tls_get_verified_queue()) }
        set { strata_tls_set_verified_queue(Int64(newValue)) }
    }
}

/// Where a live realm may be used.
enum Confinement: Hashable {
    case thread(Int)
    /// A dispatch queue, by the number tagged on it (see `queueIdentity(_:)`).
    case queue(Int)
    /// An actor, by its executor (RealmScheduler.swift).
    case actor(ActorExecutor)
    /// Frozen realms: any thread.
    case anywhere

    static let queueKey = DispatchSpecificKey<QueueTag>()
    private static let tagging = Mutex<Int>(0)

    /// The number of `queue`, tagging the queue with a new one the first time. Swift may hand out
    /// different `DispatchQueue` objects for one queue (`DispatchQueue.main` does), so the tag on
    /// the underlying queue, not the object's identity, is what names it.
    static func queueIdentity(_ queue: DispatchQueue) -> Int {
        tagging.withLock { next in
            if let tag = queue.getSpecific(key: queueKey) { return tag.id }
            next += 1
            queue.setSpecific(key: queueKey, value: QueueTag(id: next))
            return next
        }
    }

    static func current(queue: DispatchQueue?) -> Confinement {
        if let q = queue { return .queue(queueIdentity(q)) }
        return .thread(ThreadIdentity.current)
    }

    static func current(scheduler: RealmScheduler?) -> Confinement {
        scheduler?.confinement ?? .thread(ThreadIdentity.current)
    }

    /// Whether the calling code may use something confined here.
    @inline(__always) var isCurrent: Bool {
        switch self {
        case .anywhere: return true
        case .thread(let t): return ThreadIdentity.current == t
        case .queue(let q):
            return VerifiedQueue.current == q || DispatchQueue.getSpecific(key: Confinement.queueKey)?.id == q
        case .actor(let executor): return executor.isCurrent
        }
    }

    /// Runs `body` with this confinement verified once for the calling thread: inside it, checks
    /// of a queue confinement read a thread-local number instead of asking libdispatch (which
    /// walks the queue's target hierarchy on every call: ~3.5% of a one-reading transaction on
    /// a queue, where a write checks confinement about ten times). Sound because `body` runs
    /// synchronously in the current block of that queue, on this thread: until it returns, code
    /// on this thread is inside the queue's block (a `sync` onto another queue from there blocks
    /// this one, so nothing else runs the realm meanwhile), and no other thread sees the mark.
    /// Nested uses restore the outer mark. Tests: VerifiedQueueTests.
    func whileVerified<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard case .queue(let q) = self, isCurrent else { return try body() }
        let outer = VerifiedQueue.current
        if outer == q { return try body() }
        VerifiedQueue.current = q
        defer { VerifiedQueue.current = outer }
        return try body()
    }

    var label: String {
        switch self {
        case .anywhere: "any thread (frozen)"
        case .thread(let t): "thread #\(t)"
        case .queue: "its dispatch queue"
        case .actor: "its actor"
        }
    }
}

/// The value tagged on queues that realms are confined to. A struct: `getSpecific`, called by
/// every confinement check of a queue-confined realm, then copies an Int instead of retaining
/// and releasing an object (measured: 1.3% of a one-reading transaction on a queue).
struct QueueTag: Sendable {
    let id: Int
}

/// Cache of live cores per (file, thread or queue), holding them without keeping them alive.
///
/// Why not `weak`: a weak reference gives its object a side table, and every retain/release of
/// that object then takes the runtime's slow path. Cores are retained and released on every
/// object and collection access (about 15% of the sensors and bulk benchmarks' time went to
/// those slow paths), so the cache holds unretained pointers instead:
/// - an entry exists only while its core's memory does: `RealmCore.deinit` removes it, under
///   this lock, before the memory can be freed;
/// - a lookup takes a strong reference with the runtime's `swift_tryRetain`, which fails
///   (atomically) once the core has started deinitialising, so a dying core is never revived.
final class InstanceCache: Sendable {
    static let shared = InstanceCache()

    private struct Key: Hashable {
        let identity: String
        let confinement: Confinement
    }

    /// An unretained core pointer; @unchecked: only used under `entries`' lock (see above).
    private struct Entry: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }

    private let entries = Mutex<[Key: Entry]>([:])

    private static func strong(_ e: Entry) -> RealmCore? {
        guard let retained = _strataTryRetain(e.pointer) else { return nil }
        return Unmanaged<RealmCore>.fromOpaque(retained).takeRetainedValue()
    }

    func lookup(identity: String, confinement: Confinement) -> RealmCore? {
        entries.withLock { e in e[Key(identity: identity, confinement: confinement)].flatMap(Self.strong) }
    }

    func store(_ core: RealmCore, identity: String, confinement: Confinement) {
        let pointer = Unmanaged.passUnretained(core).toOpaque()
        entries.withLock { $0[Key(identity: identity, confinement: confinement)] = Entry(pointer: pointer) }
    }

    /// Called by `RealmCore.deinit`: drops the entry naming this core, if any.
    func remove(_ core: RealmCore) {
        let pointer = Unmanaged.passUnretained(core).toOpaque()
        entries.withLock { e in
            if let k = e.first(where: { $0.value.pointer == pointer })?.key { e[k] = nil }
        }
    }

    /// Live cores of one file in this process (any thread).
    func liveCores(identity: String) -> [RealmCore] {
        entries.withLock { e in e.compactMap { $0.key.identity == identity ? Self.strong($0.value) : nil } }
    }
}

/// The Swift runtime's atomic "retain unless deinitialising" (`swift_tryRetain`, what weak loads
/// use), found with dlsym so that it is called with the C convention it has (declaring a reserved
/// runtime name in Swift draws a compiler warning). Returns the object retained, or nil when its
/// deinit has begun. Without the symbol (never on Linux's libswiftCore), lookups miss: each
/// `Realm(...)` then opens a new core, which is correct but uncached.
private func _strataTryRetain(_ object: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
    guard let f = tryRetainFunction else { return nil }
    return f(object)
}

private typealias TryRetain = @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?
// A global let: initialised once, thread-safely, on first use.
private let tryRetainFunction: TryRetain? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "swift_tryRetain") else { return nil }
    return unsafeBitCast(symbol, to: TryRetain.self)
}()
