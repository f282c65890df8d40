// A property with no value: `@Persisted var v: T` where `T` is a `FailableCustomPersistable`
// that refuses its persisted type's default. RealmSwift lets such an object be made and raises
// when the property is read or the object is stored; Strata does the same, so that merely making
// the object (which schema discovery does for every model class of the program) never stops.
//
// How: the wrapper holds a placeholder of the type's size, all zero bits, and its `lacksDefault`
// flag is set. Invariants:
// - The placeholder is never read as a value: an unmanaged read stops (`stop`), storing the
//   object fails the write (`error`), and setting the property replaces it and clears the flag.
//   Only copying the wrapper's bits and destroying it touch it: zeroed references, strings,
//   arrays and dictionaries release nothing.
// - Only types whose `_strataMayLackDefault` is true pay for the check; for every other type the
//   condition is a constant the compiler folds away.

@usableFromInline
enum MissingDefault {
    /// A value of `T`'s size with every bit zero (see the invariants above).
    @usableFromInline
    static func placeholder<T>(_: T.Type) -> T {
        withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buffer in
            let start = buffer.baseAddress!
            UnsafeMutableRawPointer(start).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<T>.size)
            return start.move()
        }
    }

    static func message(_ type: Any.Type, property: String?) -> String {
        let what = property.map { "property '\($0)'" } ?? "the property"
        return "\(what) has no value: \(type) cannot be made from its persisted type's default, and it was declared without an initial value; give it one, make it optional, or set it before use"
    }

    @usableFromInline
    static func stop(_ type: Any.Type, property: String? = nil) -> Never {
        Stop.now(Realm.Error(.invalidArgument, message(type, property: property)))
    }

    static func error(_ type: Any.Type, property: String) -> Realm.Error {
        Realm.Error(.invalidArgument, message(type, property: property))
    }
}
