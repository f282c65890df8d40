// Helpers the object-layer tests share (the internal suites and the public-API ones): boxes for
// values set on other threads, running a body on a new thread, a log of collection changes.
import Foundation
import Strata
import Synchronization

/// A tiny lock-protected box for values set inside @Sendable closures.
public final class LockedBox<T>: @unchecked Sendable {
    // @unchecked: every access takes `lock`.
    private var value: T
    private let lock = NSLock()
    public init(_ v: T) { value = v }
    public func set(_ v: T) { lock.lock(); value = v; lock.unlock() }
    public func get() -> T { lock.lock(); defer { lock.unlock() }; return value }
}

/// A failure message written by another thread (the first one is kept).
public final class FailureBox: Sendable {
    private let m = Mutex<String?>(nil)
    public init() {}
    public func set(_ s: String) { m.withLock { $0 = $0 ?? s } }
    public var value: String? { m.withLock { $0 } }
}

/// Runs `body` on a new thread and waits (up to 30 s) for it to finish.
public func runOnNewThread(_ body: @escaping @Sendable () -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let t = Thread {
        body()
        done.signal()
    }
    t.start()
    if done.wait(timeout: .now() + 30) == .timedOut { throw Realm.Error(.invalidState, "thread did not finish") }
}

/// Collects what an observer received.
public final class ChangeLog<C> {
    public var initials = 0
    public var updates: [(deletions: [Int], insertions: [Int], modifications: [Int])] = []
    public var errors: [Swift.Error] = []
    public init() {}
    public func record(_ change: RealmCollectionChange<C>) {
        switch change {
        case .initial: initials += 1
        case .update(_, let d, let i, let m): updates.append((d, i, m))
        case .error(let e): errors.append(e)
        }
    }
}

/// Adds one dog per name (id and name the name, age 1) in one write; returns them.
public func addDogs(_ realm: Realm, _ names: [String]) throws -> [Dog] {
    try realm.write {
        names.map { n in
            let d = Dog()
            d.id = n
            d.name = n
            d.age = 1
            realm.add(d)
            return d
        }
    }
}

extension Results {
    /// The first `n` objects as an array.
    public func filterFirst(_ n: Int) -> [Element] { Array(prefix(n)) }
}
