// Opening a realm off the caller's queue, with the result handed to a callback, as RealmSwift's
// `Realm.asyncOpen` does.
//
// The slow part of an open (creating or checking the file, running a migration) happens on a
// background queue; the realm the callback gets is then opened again on the callback queue,
// confined to it, while the background instance still holds the file, so an in-memory realm keeps
// its contents across the hand-over.
import Dispatch
import Foundation

extension Realm {
    /// A pending ``Realm/asyncOpen(configuration:callbackQueue:callback:)``, which can be cancelled.
    public struct AsyncOpenTask: Sendable {
        let cancellation: AsyncOpenCancellation

        /// Cancels the open: the callback is not called, unless it has already begun.
        public func cancel() { cancellation.cancel() }
    }

    /// Opens `configuration` on a background queue (running its migration there, if one is due)
    /// and calls `callback` on `callbackQueue` with a realm confined to that queue, as
    /// `Realm(configuration:queue:)` opens one, or with the error the open threw.
    ///
    /// ```swift
    /// Realm.asyncOpen(configuration: config, callbackQueue: queue) { result in
    ///     if case .success(let realm) = result {
    ///         print(realm.objects(Dog.self).count)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: the realm to open.
    ///   - callbackQueue: where `callback` runs (the main queue by default: it runs when the main
    ///     run loop or `dispatchMain()` services that queue).
    ///   - callback: gets the realm, or the ``Realm/Error`` that opening it threw.
    /// - Returns: a task whose `cancel()` stops the callback from being called.
    @discardableResult
    public static func asyncOpen(configuration: Configuration = .defaultConfiguration,
                                 callbackQueue: DispatchQueue = .main,
                                 callback: @escaping (Result<Realm, Swift.Error>) -> Void) -> AsyncOpenTask {
        let cancellation = AsyncOpenCancellation()
        let handoff = AsyncOpenHandoff(configuration: configuration, callback: callback)
        DispatchQueue.global(qos: .userInitiated).async {
            let background: AsyncOpenBackgroundRealm
            do {
                background = AsyncOpenBackgroundRealm(opened: .success(try Realm(configuration: handoff.configuration)))
            } catch {
                background = AsyncOpenBackgroundRealm(opened: .failure(error))
            }
            callbackQueue.async {
                // The background instance lives until this block ends (it is captured), so the
                // file, and an in-memory realm's contents, stay open while the queue's instance opens.
                withExtendedLifetime(background) {
                    guard !cancellation.isCancelled else { return }
                    switch background.opened {
                    case .failure(let error):
                        handoff.callback(.failure(error))
                    case .success:
                        handoff.callback(Result { try Realm(configuration: handoff.configuration, queue: callbackQueue) })
                    }
                }
            }
        }
        return AsyncOpenTask(cancellation: cancellation)
    }
}

/// Whether an async open was cancelled; set from any thread, read on the callback queue.
final class AsyncOpenCancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    var isCancelled: Bool { lock.withLock { cancelled } }

    func cancel() { lock.withLock { cancelled = true } }
}

/// The configuration and callback of an async open, carried to the background queue and then to
/// the callback queue; each is used on one queue at a time.
private struct AsyncOpenHandoff: @unchecked Sendable {
    let configuration: Realm.Configuration
    let callback: (Result<Realm, Swift.Error>) -> Void
}

/// What the background open gave: the instance, kept until the callback queue has its own (it is
/// only held, never used, after it leaves the background queue), or the error.
private struct AsyncOpenBackgroundRealm: @unchecked Sendable {
    let opened: Result<Realm, Swift.Error>
}
