// `Object.observe` and `Realm.observe`.
//
// Invariants: an object observer keeps the column bytes and values of the version it last
// reported; a property counts as changed when its column bytes differ (so a value set to the same
// value is not reported), or, for key paths through a link ("owner.name", "dogs.name"), when
// the watched properties of the linked objects differ (RowFingerprint.swift). Without key paths
// only the object's own columns count: a linked object's change is not the object's, as for
// Realm's object notifications (collection observers do follow links). After `.deleted` the
// observer stops.
import Dispatch
import StrataStorage

final class ObjectObserver<T: Object>: ChangeObserver {
    let flag: ObserverFlag
    let info: ClassInfo
    let table: Int
    let key: UInt64
    let watched: WatchedPaths
    let block: (ObjectChange<T>) -> Void
    var columns: [[UInt8]] = []
    var values: [Any?] = []
    var version: UInt64 = .max

    init(flag: ObserverFlag, binding: ObjectBinding, watched: WatchedPaths, block: @escaping (ObjectChange<T>) -> Void) {
        self.flag = flag
        self.info = binding.info
        self.table = binding.table
        self.key = binding.key
        self.watched = watched
        self.block = block
    }

    private func readValues(_ object: T) -> [Any?] {
        info.schema.allProperties.map { p in
            p.collection == .none && p.type != .linkingObjects && watched.watches(p.name) ? object.value(forKey: p.name) : nil
        }
    }

    func start(core: RealmCore) {
        do {
            guard let c = try core.fingerprints.propertyPrints(table: table, key: key, watching: watched, pages: core.pages()) else {
                flag.set()
                block(.deleted)
                return
            }
            columns = c
            values = readValues(materializeObserved(T.self, in: core, info: info, table: table, key: key))
            version = core.snap.version
        } catch {
            flag.set()
            block(.error(error))
        }
    }

    func advance(core: RealmCore, silently: Bool) {
        guard version != .max, version != core.snap.version else { return }
        do {
            guard let c = try core.fingerprints.propertyPrints(table: table, key: key, watching: watched, pages: core.pages()) else {
                flag.set()
                if !silently { block(.deleted) }
                return
            }
            version = core.snap.version
            let object = materializeObserved(T.self, in: core, info: info, table: table, key: key)
            let newValues = readValues(object)
            var changes: [PropertyChange] = []
            let oldValuesReported = core.notificationHub?.deliveringLocalCommit != true
            for (i, p) in info.schema.allProperties.enumerated() where i < c.count && i < columns.count {
                guard c[i] != columns[i], watched.watches(p.name) else { continue }
                changes.append(PropertyChange(name: p.name, oldValue: oldValuesReported ? values[i] : nil, newValue: newValues[i]))
            }
            columns = c
            values = newValues
            if !silently && !changes.isEmpty { block(.change(object, changes)) }
        } catch {
            flag.set()
            block(.error(error))
        }
    }
}

extension Object {
    /// Observes this managed object: the handler receives `.change(object, properties)` after commits
    /// that changed a watched property, and `.deleted` once when the object is deleted, after which
    /// delivery stops.
    ///
    /// Handlers run where the realm lives, as for ``Results/observe(keyPaths:on:_:)``.
    ///
    /// ```swift
    /// let token = dog.observe(keyPaths: ["name", "age"]) { (change: ObjectChange<Dog>) in
    ///     if case .change(let dog, let properties) = change {
    ///         print(dog.name, properties.map(\.name))
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - keyPaths: the property names to watch; `nil` watches all of them.
    ///   - queue: a dispatch queue to run the handler on, with the object fetched again there.
    ///   - block: called with each change. Observing an unmanaged or frozen object, or an unknown
    ///     key path, stops with a `Strata:` message, as Realm raises.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe<T: Object>(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                                   _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        let flag = ObserverFlag()
        let token = _binding.map { $0.core.isFrozen ? NotificationToken(flag: flag) : NotificationToken(flag: flag, retaining: $0.core) }
            ?? NotificationToken(flag: flag)
        guard let b = _binding else {
            ObservationMisuse.stop(.invalidArgument, "only managed objects can be observed; add the '\(type(of: self).className())' to a realm first")
        }
        guard self is T else {
            ObservationMisuse.stop(.invalidArgument, "a '\(type(of: self).className())' observed as a \(T.self)")
        }
        if b.core.isFrozen {
            ObservationMisuse.stop(.invalidState, "a frozen object cannot be observed: it never changes; thaw it first")
        }
        if let queue, b.core.confinement != .queue(Confinement.queueIdentity(queue)) {
            // A named request instead of a destructured tuple: the tuple form crashes the Swift
            // 6.3.1 optimizer (SIL ownership verifier) in release builds.
            let request = ObjectObservationRequest<T>(info: b.info, table: b.table, key: b.key,
                                                      keyPaths: keyPaths, block: block)
            Handover.observe(configuration: b.core.configuration, queue: queue, token: token,
                             payload: QueueHandoff(value: request)) { realm, payload in
                payload.value.register(in: realm)
            } onError: { payload, error in payload.value.block(.error(error)) }
            return token
        }
        let core = b.core
        core.checkThread()
        let watched = WatchedPaths(keyPaths)
        do {
            _ = try core.pages()
            try watched.validate(table: b.table, core: core)
        } catch {
            ObservationMisuse.stopIfMisuse(error)
            flag.set()
            block(.error(error))
            return token
        }
        let observer = ObjectObserver<T>(flag: flag, binding: b, watched: watched, block: block)
        let hub = core.observerHub()
        hub.add(observer, token: token)
        core.startWatchingIfQueueConfined(hub)
        core.deliverInitial(flag: flag) { observer.start(core: $0) }
        return token
    }
}

extension Realm {
    /// Calls a block each time this realm moves to a newer version.
    ///
    /// The block receives `.didChange` after this realm's own commits, and after commits of other
    /// threads or processes once the realm advances to them; on a queue-confined realm with
    /// `autorefresh` off it receives `.refreshRequired` instead, and `refresh()` is yours to call. A
    /// frozen realm never changes and reports nothing.
    ///
    /// ```swift
    /// let token = realm.observe { notification, realm in
    ///     if notification == .didChange { print(realm.objects(Dog.self).count) }
    /// }
    /// ```
    ///
    /// - Parameter block: called with the notification and this realm.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe(_ block: @escaping (Realm.Notification, Realm) -> Void) -> NotificationToken {
        core.checkThread()
        let flag = ObserverFlag()
        guard !core.isFrozen else { return NotificationToken(flag: flag) }
        let token = NotificationToken(flag: flag, retaining: core)
        guard !core.isFrozen else { return token }
        let hub = core.observerHub()
        hub.add(RealmObserver(flag: flag, block: block), token: token)
        core.startWatchingIfQueueConfined(hub)
        return token
    }
}

/// What `Object.observe(keyPaths:on:_:)` hands to the observing queue: enough to re-fetch the
/// object in a realm opened there and observe it.
private struct ObjectObservationRequest<T: Object> {
    let info: ClassInfo
    let table: Int
    let key: UInt64
    let keyPaths: [String]?
    let block: (ObjectChange<T>) -> Void

    func register(in realm: Realm) -> NotificationToken {
        let object = materializeObserved(T.self, in: realm.core, info: info, table: table, key: key)
        return object.observe(keyPaths: keyPaths, block)
    }
}

/// The observed object, of its own class: an observer's `T` may be a base class of it
/// (`ObjectChange<Object>`), and an instance of the base class would read no property.
private func materializeObserved<T: Object>(_ type: T.Type, in core: RealmCore, info: ClassInfo, table: Int, key: UInt64) -> T {
    core.materializeAny(info: info, table: table, key: key) as? T ?? core.materialize(T.self, info: info, table: table, key: key)
}
