// Realms confined to an actor, and observation delivered on an actor, as RealmSwift has them.
//
// An actor-confined realm is used only from its actor (checked on every access, RealmScheduler.swift);
// its observers are called on the actor, and asynchronous writes complete there. Observing "on" an
// actor from elsewhere hands the value over with a ThreadSafeReference, opens the actor's realm of the
// same configuration on the actor, and observes there: the block gets values it may use on the actor.
//
// The main actor is an actor like any other here: Swift may run its jobs off the main thread (it
// does under swift-testing on Linux), so a realm opened for it is confined to it, not to a thread.
import Dispatch
import Foundation

extension Realm {
    /// How `Realm.open` treats a synchronized realm's server copy; Strata has no server, so every
    /// behaviour opens the local file.
    public enum OpenBehavior: Sendable {
        /// Open the local file at once.
        case never
        /// Download first, every time (no server: as ``never``).
        case always
        /// Download first the first time (no server: as ``never``).
        case once
    }

    /// Opens `configuration` confined to `actor`: the realm may be used on that actor only, and its
    /// observers run there. Re-opening on the same actor returns the cached instance.
    ///
    /// ```swift
    /// actor Importer {
    ///     func run() async throws {
    ///         let realm = try await Realm(configuration: config, actor: self)
    ///         try realm.write { realm.add(Dog()) }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: the realm to open.
    ///   - actor: the actor the realm is confined to.
    ///   - downloadBeforeOpen: ignored (no synchronization), as RealmSwift ignores it for a local realm.
    /// - Throws: `Realm.Error`, as `Realm(configuration:)` does; `.invalidState` when the Swift
    ///   runtime cannot tell which actor runs (then no actor-confined realm can be opened).
    public init<A: Actor>(configuration: Configuration = .defaultConfiguration, actor: isolated A,
                          downloadBeforeOpen: OpenBehavior = .never) async throws {
        try self.init(configuration: configuration, scheduler: try RealmScheduler.of(actor))
    }

    /// Opens `configuration` confined to the calling actor, as ``init(configuration:actor:)``.
    ///
    /// - Parameters:
    ///   - configuration: the realm to open.
    ///   - downloadBeforeOpen: ignored (no synchronization).
    /// - Throws: `Realm.Error`, as ``init(configuration:actor:)``; `.invalidState` when called from
    ///   code that runs on no actor.
    public static func open(configuration: Configuration = .defaultConfiguration, downloadBeforeOpen: OpenBehavior = .never,
                            _isolation actor: isolated (any Actor)? = #isolation) async throws -> Realm {
        guard let actor else {
            throw Realm.Error(.invalidState, "Realm.open confines the realm to the calling actor; call it from an actor (the main actor included)")
        }
        return try Realm(configuration: configuration, scheduler: try RealmScheduler.of(actor))
    }

    /// Opens `configuration` from asynchronous code, confined to the calling actor when there is
    /// one (see ``open(configuration:downloadBeforeOpen:_isolation:)``), else to the calling thread.
    ///
    /// - Parameters:
    ///   - configuration: the realm to open.
    ///   - downloadBeforeOpen: ignored (no synchronization).
    public init(configuration: Configuration = .defaultConfiguration, downloadBeforeOpen: OpenBehavior,
                _isolation actor: isolated (any Actor)? = #isolation) async throws {
        try self.init(configuration: configuration, scheduler: try actor.map { try RealmScheduler.of($0) })
    }

    /// Moves this realm to the newest version, as ``refresh()``, from asynchronous code on the
    /// realm's actor or thread.
    ///
    /// - Returns: whether the realm moved to a newer version.
    @discardableResult
    public func asyncRefresh(_isolation actor: isolated (any Actor)? = #isolation) async -> Bool {
        refresh()
    }
}

extension RealmScheduler {
    /// The confinement for `actor` (the main actor included: its jobs need not run on the main
    /// thread, so it is confined to as an actor, not as a thread).
    static func of(_ actor: any Actor) throws(Realm.Error) -> RealmScheduler {
        guard ActorExecutor.isSupported else {
            throw Realm.Error(.invalidState, "this Swift runtime cannot tell which actor runs, so a realm cannot be confined to an actor")
        }
        return .actor(actor)
    }
}

/// Observation of a thread-confined value on an actor.
enum ActorObservation {
    /// Hands `value` over to `actor`, opens the actor's realm there and calls `register` with the
    /// value as that realm sees it. An unmanaged or frozen value, or one deleted meanwhile, registers
    /// nothing: `unavailable` then reports why, on the actor.
    static func start<Value: ThreadConfined, A: Actor>(
        _ value: Value, on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        register: @escaping @Sendable (isolated A, Value) -> NotificationToken,
        unavailable: @escaping @Sendable (isolated A, Realm.Error) -> Void
    ) async -> NotificationToken {
        // A task cancelled before observation began registers nothing (its token is spent).
        if Task.isCancelled { return NotificationToken(flag: ObserverFlag.set()) }
        guard let handover = value._strataHandover, let configuration = handover.configuration else {
            ObservationMisuse.stop(.invalidArgument, "only managed values can be observed; add the object to a realm first")
        }
        if handover.core?.isFrozen == true {
            ObservationMisuse.stop(.invalidState, "a frozen value cannot be observed: it never changes; thaw it first")
        }
        let reference = ThreadSafeReference(to: value)
        let sendableConfiguration = ConfigurationHandoff(value: configuration)
        return await run(on: actor) { isolatedActor -> NotificationToken in
            do {
                let realm = try Realm(configuration: sendableConfiguration.value, scheduler: try RealmScheduler.of(isolatedActor))
                guard let resolved = realm.resolve(reference) else {
                    unavailable(isolatedActor, Realm.Error(.objectInvalidated, "the observed value was deleted before observation began"))
                    return NotificationToken(flag: ObserverFlag.set())
                }
                return register(isolatedActor, resolved)
            } catch {
                unavailable(isolatedActor, Realm.Error.surfacing(error) as? Realm.Error ?? Realm.Error(.invalidState, "\(error)"))
                return NotificationToken(flag: ObserverFlag.set())
            }
        }
    }

    private static func run<A: Actor, R: Sendable>(on actor: isolated A, _ body: @Sendable (isolated A) -> R) -> R {
        body(actor)
    }
}

/// A configuration carried to an actor (it is only copied and read).
struct ConfigurationHandoff: @unchecked Sendable {
    let value: Realm.Configuration
}

extension RealmCollection {
    /// Observes this collection on `actor`: the block runs isolated to the actor, with the
    /// collection as the actor's realm sees it.
    ///
    /// ```swift
    /// let token = await dogs.observe(on: tracker) { tracker, change in tracker.record(change) }
    /// ```
    ///
    /// - Parameters:
    ///   - keyPaths: the element properties whose changes count as modifications; `nil` watches all.
    ///   - actor: the actor the block runs on.
    ///   - block: called with each change; observing an unmanaged or frozen collection stops with a
    ///     `Strata:` message.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Self>) -> Void) async -> NotificationToken {
        await ActorObservation.start(self, on: actor, register: { actor, collection in
            collection.observe(keyPaths: keyPaths, on: nil) { change in
                // Delivered by the actor-confined realm, so on the actor (checked by assumeIsolated).
                let handoff = QueueHandoff(value: change)
                actor.assumeIsolated { block($0, handoff.value) }
            }
        }, unavailable: { actor, error in block(actor, .error(error)) })
    }
}

extension RealmCollection where Element: Object {
    /// Observes this collection on `actor`, watching the given properties of its objects (see
    /// ``RealmCollection/observe(keyPaths:on:_isolation:_:)``).
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Self>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { persistedPropertyName($0, throughLinks: true) }, on: actor, block)
    }
}

extension Object {
    /// Observes this object on `actor`: the block runs isolated to the actor, with the object as
    /// the actor's realm sees it.
    ///
    /// - Parameters:
    ///   - keyPaths: the property names to watch; `nil` watches all of them.
    ///   - actor: the actor the block runs on.
    ///   - block: called with each change; observing an unmanaged or frozen object stops with a
    ///     `Strata:` message.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe<A: Actor, T: Object>(keyPaths: [String]? = nil, on actor: A,
                                             _isolation: isolated (any Actor)? = #isolation,
                                             _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void) async -> NotificationToken {
        guard let object = self as? T else {
            let error = Realm.Error(.invalidArgument, "the object is a \(type(of: self)), not a \(T.self)")
            await ActorObservation.report(on: actor) { block($0, .error(error)) }
            return NotificationToken(flag: ObserverFlag.set())
        }
        return await ActorObservation.start(object, on: actor, register: { actor, resolved in
            resolved.observe(keyPaths: keyPaths, on: nil) { (change: ObjectChange<T>) in
                let handoff = QueueHandoff(value: change)
                actor.assumeIsolated { block($0, handoff.value) }
            }
        }, unavailable: { actor, error in block(actor, .error(error)) })
    }

    /// Observes this object on `actor`, watching the given properties.
    public func observe<A: Actor, T: Object>(keyPaths: [PartialKeyPath<T>], on actor: A,
                                             _isolation: isolated (any Actor)? = #isolation,
                                             _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { persistedPropertyName($0, throughLinks: true) }, on: actor, block)
    }
}

extension ActorObservation {
    static func report<A: Actor>(on actor: isolated A, _ body: @Sendable (isolated A) -> Void) { body(actor) }
}

extension Map where Value: RealmCollectionValue {
    /// Observes this map on `actor`: the block runs isolated to the actor, with the map as the
    /// actor's realm sees it (see ``RealmCollection/observe(keyPaths:on:_isolation:_:)``).
    ///
    /// - Parameters:
    ///   - keyPaths: for a map of objects, the properties whose changes count as modifications.
    ///   - actor: the actor the block runs on.
    ///   - block: called with each change; observing an unmanaged or frozen map stops with a
    ///     `Strata:` message.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmMapChange<Map<Key, Value>>) -> Void) async -> NotificationToken
    where Key: SendableMetatype, Value: SendableMetatype {
        await ActorObservation.start(self, on: actor, register: { actor, map in
            map.observe(keyPaths: keyPaths, on: nil) { change in
                let handoff = QueueHandoff(value: change)
                actor.assumeIsolated { block($0, handoff.value) }
            }
        }, unavailable: { actor, error in block(actor, .error(error)) })
    }
}

extension Map where Value: _StrataOptional & RealmCollectionValue, Value.Wrapped: Object {
    /// Observes this map of objects, counting as modifications only changes of the given
    /// properties of its objects.
    ///
    /// - Parameters:
    ///   - keyPaths: persisted properties of the objects' class.
    ///   - queue: the dispatch queue the handler runs on; `nil` runs it where the realm lives.
    ///   - block: called with each change.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe(keyPaths: [PartialKeyPath<Value.Wrapped>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { persistedPropertyName($0, throughLinks: true) }, on: queue, block)
    }

    /// Observes this map of objects on `actor`, counting as modifications only changes of the
    /// given properties of its objects.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Value.Wrapped>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmMapChange<Map<Key, Value>>) -> Void) async -> NotificationToken
    where Key: SendableMetatype, Value: SendableMetatype {
        await observe(keyPaths: keyPaths.map { persistedPropertyName($0, throughLinks: true) }, on: actor, block)
    }
}
