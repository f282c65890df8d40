// `create(_:value:)` reads its value as a value: an unmanaged object found in it (as a link, in
// a list, set or map, or in an `AnyRealmValue`) is copied into the realm and stays unmanaged, as
// in RealmSwift. `add` is what makes the caller's own instances managed.
//
// Invariants:
// - One copy per unmanaged instance within one `create`: an object reached twice, or through a
//   cycle, is one stored object, as it would be had the instance itself been added.
// - Only `create` sets the context (a task-local, since `_strataFromAny` is static and the object
//   being built has no realm yet); `init(value:)` of an unmanaged object keeps the instances it
//   is given, as RealmSwift's does.

/// The copies made so far by the `create` running on this task or thread.
final class UnmanagedValueCopies: @unchecked Sendable {
    // @unchecked: an instance lives only inside one synchronous `create` call, on one thread.
    @TaskLocal static var current: UnmanagedValueCopies?

    private var copies: [ObjectIdentifier: Object] = [:]

    /// Registers `copy` as the copy of `original` before its properties are read, so that a
    /// cycle back to `original` reaches `copy`.
    func record(_ copy: Object, of original: Object) {
        copies[ObjectIdentifier(original)] = copy
    }

    /// The copy of the unmanaged `original`, made once; nil when its values do not fit its class.
    func copy<T: Object>(of original: T) -> T? {
        if let made = copies[ObjectIdentifier(original)] { return made as? T }
        let made = type(of: original).init()
        record(made, of: original)
        do {
            try made._apply(value: original, ignoringUnknownKeys: false)
        } catch {
            copies[ObjectIdentifier(original)] = nil
            return nil
        }
        return made
    }
}
