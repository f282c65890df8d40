// `Results.observe`: collection observers computing change sets by diffing key snapshots.
//
// Invariants: the observer keeps the keys and fingerprints of the version it last reported
// (parallel arrays); it rebuilds the results on the core it is advanced with (no core reference
// is kept, see ObserverHub.swift).
import Dispatch
import StrataStorage

final class ResultsObserver<Element: RealmCollectionValue>: ChangeObserver {
    let flag: ObserverFlag
    let info: ClassInfo
    let query: Results<Element>.QueryParts
    let watched: WatchedPaths
    /// The observed results' key cache: the results delivered share it, so they are `==` to the
    /// observed ones, as in RealmSwift (it holds keys only, no core).
    let cache: Results<Element>.KeyCache
    let block: (RealmCollectionChange<Results<Element>>) -> Void
    var keys: [UInt64] = []
    var prints: [[UInt8]] = []
    var version: UInt64 = .max

    init(flag: ObserverFlag, info: ClassInfo, query: Results<Element>.QueryParts, watched: WatchedPaths,
         cache: Results<Element>.KeyCache, block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) {
        self.flag = flag
        self.info = info
        self.query = query
        self.watched = watched
        self.cache = cache
        self.block = block
    }

    func results(on core: RealmCore) -> Results<Element> {
        var r = Results<Element>(core: core, info: info, cache: cache)
        r.query = query
        return r
    }

    /// The keys and fingerprints of the current snapshot.
    func read(core: RealmCore) throws -> ([UInt64], [[UInt8]]) {
        let r = results(on: core)
        let keys = r.keys
        if let e = core.pendingError, core.writeTxn == nil { throw e }
        guard !keys.isEmpty, let t = try core.tableIndex(for: info, create: false) else { return ([], []) }
        let p = try core.pages()
        var prints: [[UInt8]] = []
        prints.reserveCapacity(keys.count)
        for k in keys { prints.append(try core.fingerprints.fingerprint(table: t, key: k, watching: watched, pages: p) ?? []) }
        return (keys, prints)
    }

    func start(core: RealmCore) {
        do {
            (keys, prints) = try read(core: core)
            version = core.snap.version
            block(.initial(results(on: core)))
        } catch {
            fail(error)
        }
    }

    func advance(core: RealmCore, silently: Bool) {
        // .max: `.initial` is still queued; it will read the then-current state itself.
        guard version != .max, version != core.snap.version else { return }
        do {
            let (newKeys, newPrints) = try read(core: core)
            let change = CollectionDiff.diff(old: keys, oldPrints: prints, new: newKeys, newPrints: newPrints)
            keys = newKeys
            prints = newPrints
            version = core.snap.version
            if !silently && !change.isEmpty {
                block(.update(results(on: core), deletions: change.deletions, insertions: change.insertions,
                              modifications: change.modifications))
            }
        } catch {
            fail(error)
        }
    }

    private func fail(_ error: Swift.Error) {
        flag.set()
        block(.error(error))
    }
}

extension Results {
    /// Observes these results: the handler receives `.initial(results)`, then
    /// `.update(results, deletions:insertions:modifications:)` after commits that changed them.
    ///
    /// Several commits may come as one update. Deletions and modifications are indices in the old
    /// results, insertions indices in the new ones. Without a queue, handlers run on the realm's own
    /// thread or queue: on a thread-confined realm synchronously at the end of a write, in `refresh()`
    /// and when a write begins; on a queue-confined realm asynchronously on its queue. Nothing is
    /// delivered inside a write.
    ///
    /// ```swift
    /// let token = realm.objects(Dog.self).where { $0.age < 2 }.observe { change in
    ///     switch change {
    ///     case .initial(let puppies): print("\(puppies.count) puppies")
    ///     case .update(_, let deletions, let insertions, let modifications):
    ///         print("removed \(deletions), added \(insertions), changed \(modifications)")
    ///     case .error(let error): print(error)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - keyPaths: the properties (`"name"`, `"owner.name"`) whose changes count as modifications;
    ///     `nil` watches all of them and the objects they link to, up to three links away. An
    ///     unknown key path stops with a `Strata:` message, as Realm raises.
    ///   - queue: a dispatch queue to run the handler on, with results confined to that queue.
    ///   - block: called with each change. Observing frozen results stops with a `Strata:` message
    ///     (they never change), as Realm raises.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> NotificationToken {
        if let valueSource { return observeValues(valueSource, on: queue, block) }
        let flag = ObserverFlag()
        let token = core.isFrozen ? NotificationToken(flag: flag) : NotificationToken(flag: flag, retaining: core)
        if let queue, core.confinement != .queue(Confinement.queueIdentity(queue)) {
            Handover.observe(configuration: core.configuration, queue: queue, token: token,
                             payload: QueueHandoff(value: (info, query, keyPaths, block))) { realm, payload in
                var r = Results<Element>(core: realm.core, info: payload.value.0)
                r.query = payload.value.1
                return r.observe(keyPaths: payload.value.2, payload.value.3)
            } onError: { payload, error in payload.value.3(.error(error)) }
            return token
        }
        core.checkThread()
        if core.isFrozen {
            ObservationMisuse.stop(.invalidState, "frozen results cannot be observed: they never change; thaw them first")
        }
        let watched = WatchedPaths(keyPaths)
        do {
            _ = try core.pages()
            if let t = try core.tableIndex(for: info, create: false) { try watched.validate(table: t, core: core) }
        } catch {
            ObservationMisuse.stopIfMisuse(error)
            flag.set()
            block(.error(error))
            return token
        }
        let observer = ResultsObserver<Element>(flag: flag, info: info, query: query, watched: watched, cache: cache, block: block)
        let hub = core.observerHub()
        hub.add(observer, token: token)
        core.startWatchingIfQueueConfined(hub)
        core.deliverInitial(flag: flag) { observer.start(core: $0) }
        return token
    }
}
