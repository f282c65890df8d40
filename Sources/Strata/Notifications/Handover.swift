// Observing with `on: queue` from a realm that is not confined to that queue: the observation is
// re-created on `queue`, against a realm opened there (`Realm(configuration:queue:)`), so the
// block gets collections and objects it may use on that queue.
//
// Invariants: the inner token is invalidated with the outer one; if the outer token is already
// invalidated when the queue gets to the registration, nothing is registered.
import Dispatch

enum Handover {
    static func observe<Payload>(configuration: Realm.Configuration, queue: DispatchQueue, token: NotificationToken,
                                 payload: QueueHandoff<Payload>,
                                 register: @escaping (Realm, QueueHandoff<Payload>) -> NotificationToken,
                                 onError: @escaping (QueueHandoff<Payload>, Swift.Error) -> Void) {
        let work = QueueHandoff(value: (register, onError))
        queue.async {
            guard !token.cancelled.isSet else { return }
            do {
                let realm = try Realm(configuration: configuration, queue: queue)
                let inner = work.value.0(realm, payload)
                token.whenInvalidated { inner.invalidate() }
            } catch {
                work.value.1(payload, error)
            }
        }
    }
}
