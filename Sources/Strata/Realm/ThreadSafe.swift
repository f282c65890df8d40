// `@ThreadSafe`: a property that holds a managed object or collection for use on any thread, as
// RealmSwift's: reading it resolves a ThreadSafeReference in the calling thread's realm of the
// same configuration.
//
// Invariants:
// - The stored reference is replaced by a new one made from each resolved value, so the property
//   can be read any number of times, from any thread (a reference itself resolves once).
// - Reading never stops or throws: a realm that cannot be opened, a value deleted since, or no
//   value gives nil. All access to the stored state is under one lock.
import Foundation
import Synchronization

/// A property wrapper holding a managed object, list, set or map (or a realm) so that any thread
/// can read it; each read gives the value as the calling thread's realm sees it. Like a
/// ``ThreadSafeReference``, it keeps the version it last read readable until the next read or
/// assignment.
///
/// ```swift
/// final class Fetcher {
///     @ThreadSafe var dog: Dog?
/// }
/// fetcher.dog = dog                       // on the realm's thread
/// DispatchQueue.global().async {
///     print(fetcher.dog?.name ?? "gone")  // resolved on this thread
/// }
/// ```
@propertyWrapper
public final class ThreadSafe<T: ThreadConfined>: @unchecked Sendable {
    // @unchecked: `state` is a Mutex; the references it holds are Sendable.
    private struct State: @unchecked Sendable {
        // @unchecked: the configuration is only copied.
        var reference: ThreadSafeReference<T>?
        var configuration: Realm.Configuration?
    }
    private let state: Mutex<State>

    /// - Parameter wrappedValue: a managed value of a realm open on the calling thread, or nil; an
    ///   unmanaged or deleted value stops with a `Strata:` message, as Realm raises.
    public init(wrappedValue: T?) {
        state = Mutex(State())
        self.wrappedValue = wrappedValue
    }

    /// The value as the calling thread's realm sees it; nil when there is none, when it was deleted,
    /// or when that realm cannot be opened.
    public var wrappedValue: T? {
        get {
            state.withLock { s in
                guard let reference = s.reference, let configuration = s.configuration,
                      let realm = try? Realm(configuration: configuration) else { return nil }
                // The reference is spent either way: a value deleted since stays nil.
                let value = realm.resolve(reference)
                s.reference = value.map { ThreadSafeReference(to: $0) }
                return value
            }
        }
        set {
            let configuration = newValue?._strataHandover?.configuration
            let reference = newValue.map { ThreadSafeReference(to: $0) }
            state.withLock { s in
                s.reference = reference
                s.configuration = configuration
            }
        }
    }
}
