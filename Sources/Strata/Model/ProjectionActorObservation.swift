// Observing a projection on an actor, as RealmSwift's `Projection.observe(keyPaths:on:_:)`: the
// root object is handed over to the actor and observed there through a projection of it.
import Foundation

extension ProjectionObservable where Self: SendableMetatype {
    /// Observes the projection on `actor`: the block runs isolated to the actor, with the
    /// projection as the actor's realm sees it, and receives the projected properties that read
    /// a changed root property.
    ///
    /// - Parameters:
    ///   - keyPaths: root property paths (`"address.city"`) to watch; `nil` watches every
    ///     property the projection reads.
    ///   - actor: the actor the block runs on.
    ///   - block: called with each change; observing an unmanaged or frozen projection stops with
    ///     a `Strata:` message.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        await ActorObservation.start(rootObject, on: actor, register: { actor, root in
            Self(projecting: root).observe(keyPaths: keyPaths, on: nil) { (change: ObjectChange<Self>) in
                let handoff = QueueHandoff(value: change)
                actor.assumeIsolated { block($0, handoff.value) }
            }
        }, unavailable: { actor, error in block(actor, .error(error)) })
    }

    /// Observes the projection on `actor`, watching the root properties the given projected
    /// properties read.
    ///
    /// - Parameters:
    ///   - keyPaths: properties of the projection (`[\PersonView.city]`).
    ///   - actor: the actor the block runs on.
    ///   - block: called with each change.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Self>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        let paths = keyPaths.isEmpty ? nil : Self.originPaths(of: keyPaths)
        return await observe(keyPaths: paths, on: actor, block)
    }
}
