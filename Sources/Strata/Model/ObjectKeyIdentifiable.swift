// `ObjectKeyIdentifiable`: `Identifiable` for model classes and projections, as RealmSwift
// declares it (outside Combine, so model code that adopts it compiles on Linux unchanged).
//
// Invariants:
// - A managed object's `id` is its key in its class's table: the same for every instance of one
//   stored object (`isSameObject(as:)`), and it does not change when the object is modified. An
//   unmanaged object's `id` is its address, so two unmanaged instances never share one.
// - A projection's `id` is its root object's.

/// Gives a model class or a projection `Identifiable`'s `id`, stable across the instances of one
/// managed object, as in RealmSwift.
///
/// ```swift
/// final class TodoItem: Object, ObjectKeyIdentifiable {
///     @Persisted var title: String
/// }
/// ```
public protocol ObjectKeyIdentifiable: Identifiable {
    /// The identity of the object: its key when managed, its address when not.
    var id: UInt64 { get }
}

/// The earlier, misspelled name of ``ObjectKeyIdentifiable``.
@available(*, deprecated, renamed: "ObjectKeyIdentifiable")
public typealias ObjectKeyIdentifable = ObjectKeyIdentifiable

extension ObjectKeyIdentifiable where Self: Object {
    /// The object's key when managed, its address when not.
    public var id: UInt64 { objectKeyIdentity }
}

extension ObjectKeyIdentifiable where Self: ProjectionObservable {
    /// The root object's identity.
    public var id: UInt64 { rootObject.objectKeyIdentity }
}

extension Object {
    /// The stored object's key, or the instance's address when unmanaged.
    var objectKeyIdentity: UInt64 {
        if let binding = _binding { return binding.key }
        return UInt64(UInt(bitPattern: ObjectIdentifier(self)))
    }
}
