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

enum ThreadIdentity {
    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()
    private static let counter = Atomic<Int>(0)

    /// A number unique to the calling thread for the life of the process.
    static var current: Int {
        if let p = pthread_getspecific(key) { return Int(bitPattern: p) }
        let id = counter.wrappingAdd(1, ordering: .relaxed).newValue
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: id))
        return id
    }
}

/// Where a live realm may be used.
enum Confinement: Hashable {
    case thread(Int)
    /// A dispatch queue, by the number tagged on it (see `queueIdentity(_:)`).
    case queue(Int)
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

    /// Whether the calling code may use something confined here.
    @inline(__always) var isCurrent: Bool {
        switch self {
        case .anywhere: return true
        case .thread(let t): return ThreadIdentity.current == t
        case .queue(let q): return DispatchQueue.getSpecific(key: Confinement.queueKey)?.id == q
        }
    }

    var label: String {
        switch self {
        case .anywhere: "any thread (frozen)"
        case .thread(let t): "thread #\(t)"
        case .queue: "its dispatch queue"
        }
    }
}

/// The value tagged on queues that realms are confined to.
final class QueueTag: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

/// Weak cache of live cores per (file, thread or queue).
final class InstanceCache: Sendable {
    static let shared = InstanceCache()

    private struct Key: Hashable {
        let identity: String
        let confinement: Confinement
    }

    private final class Weak: @unchecked Sendable {
        // @unchecked: only read and written under `InstanceCache.entries`' lock.
        weak var core: RealmCore?
        init(_ c: RealmCore) { core = c }
    }

    private let entries = Mutex<[Key: Weak]>([:])

    func lookup(identity: String, confinement: Confinement) -> RealmCore? {
        entries.withLock { $0[Key(identity: identity, confinement: confinement)]?.core }
    }

    func store(_ core: RealmCore, identity: String, confinement: Confinement) {
        entries.withLock { e in
            if e.count > 64 { e = e.filter { $0.value.core != nil } }
            e[Key(identity: identity, confinement: confinement)] = Weak(core)
        }
    }

    /// Live cores of one file in this process (any thread).
    func liveCores(identity: String) -> [RealmCore] {
        entries.withLock { e in e.compactMap { $0.key.identity == identity ? $0.value.core : nil } }
    }
}
