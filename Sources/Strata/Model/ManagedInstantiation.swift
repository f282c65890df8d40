// Instantiating an object that is about to be bound to a stored row (a managed object handed out
// by a query, a link, a list or a lookup).
//
// Swift runs the class's property initializers, so every `@Persisted` wrapper starts with its
// declaration default. For a managed object that value is never read: the binding is set before
// the object is handed out, and from then on every property is read from the row. The defaults
// that cost — the clock for a `Date`, random numbers for a `UUID` or an `ObjectId` — are
// therefore skipped while the mark is set: iterating objects with a `Date` declared without a
// value read the clock once per object (about 5% of the iteration).
//
// Invariants: the mark is per thread and set only for the duration of `make`'s body; it is
// restored to its previous value (an initializer may itself materialize objects). Objects made by
// applications (`T()`, `init(value:)`) never see it.
internal import CStrataThreadLocal

enum ManagedInstantiation {
    /// Runs `instantiate` with the mark set.
    @inline(__always)
    static func make<T: AnyObject>(_ instantiate: () -> T) -> T {
        let previous = strata_tls_get_materializing()
        strata_tls_set_materializing(1)
        defer { strata_tls_set_materializing(previous) }
        return instantiate()
    }

    /// Whether this thread is instantiating an object for a stored row now.
    @inline(__always)
    static var isActive: Bool { strata_tls_get_materializing() != 0 }
}
