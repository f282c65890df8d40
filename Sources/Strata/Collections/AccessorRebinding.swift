// Iterating results hands out one accessor per object, and most loops let go of it before they
// ask for the next (`for sample in samples { total += sample.value }`). Making and freeing an
// object per row took about 40% of such a loop (a profile of strata-bench's `iterate-one`
// read at 1M objects), so the iterator moves the accessor it handed out last to the next row
// when nothing else can reach it. What could tell the difference, and is checked first:
// - another strong reference (the loop kept the object: `isKnownUniquelyReferenced`);
// - a weak or unowned reference, which would see the object turn into another row; the runtime
//   counts both, and each count starts at 1 for the object itself;
// - state kept in the accessor rather than the row: only classes whose every added stored
//   property is a `@Persisted` column, read from the row once managed, that keeps no collection
//   accessor and is not ignored (`WrapperLayout.holdsOnlyColumns`, `ClassInfo.rebindsAccessors`).
// What does change: the class's `init()` and `deinit` run once per accessor made, not once per
// row, as for any cached accessor.

enum AccessorRebinding {
    /// The accessor in `lent`, when nothing but `lent` can reach it.
    @inline(__always)
    static func unreachable(_ lent: inout Object?) -> Object? {
        guard isKnownUniquelyReferenced(&lent), let object = lent else { return nil }
        // Counted through a reference that takes no count of its own.
        let held = Unmanaged.passUnretained(object)._withUnsafeGuaranteedRef {
            _getWeakRetainCount($0) > 1 || _getUnownedRetainCount($0) > 1
        }
        return held ? nil : object
    }

    /// Makes `object` the accessor of `key` in `table`, as if it had just been made for it.
    @inline(__always)
    static func rebind(_ object: Object, core: RealmCore, info: ClassInfo, table: Int, key: UInt64) {
        // In place when it already reads this class of this realm, as it does for every step
        // after the first: a new binding would retain the core and class and release the old.
        if object.moveBinding(to: key, core: core, info: info, table: table) { return }
        object._binding = ObjectBinding(core: core, info: info, table: table, key: key)
    }
}

/// One loop's reuse of its accessor: the realm, class and table its objects live in, and the
/// accessor it handed out last. Results and lists of objects iterate through it. Its one entry
/// point is a plain function, so that a loop compiled in the caller's module for the caller's
/// class (the iterators' `next()` is inlinable) calls no generic code for its step: unspecialised,
/// the step's generic value handling was about a tenth of an iteration.
@usableFromInline
struct AccessorLoop {
    let core: RealmCore
    let info: ClassInfo
    let table: Int
    /// The accessor handed out last.
    private var lent: Object?

    /// A loop over objects of `element` (the collection's element type) of class `info`; nil when
    /// its accessors cannot be moved from row to row: values rather than objects, dynamic objects,
    /// or a class that keeps something per accessor.
    init?(element: Any.Type, core: RealmCore, info: ClassInfo, table: Int) {
        guard element is Object.Type, element != DynamicObject.self, info.rebindsAccessors else { return nil }
        self.core = core
        self.info = info
        self.table = table
    }

    /// The accessor of object `key`: the one handed out last, moved to `key`, when nothing else
    /// can reach it; otherwise a new one, kept for the next step.
    @usableFromInline
    mutating func accessor(for key: UInt64) -> Object {
        if let object = AccessorRebinding.unreachable(&lent) {
            AccessorRebinding.rebind(object, core: core, info: info, table: table, key: key)
            return object
        }
        let made = core.materializeAny(info: info, table: table, key: key)
        lent = made
        return made
    }
}

