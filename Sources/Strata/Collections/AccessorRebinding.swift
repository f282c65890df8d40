// Iterating results hands out one accessor per object, and most loops let go of it before they
// ask for the next (`for sample in samples { total += sample.value }`). Making and freeing an
// object per row took about a third of such a loop (a profile of strata-bench's `iterate-one`
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
        guard isKnownUniquelyReferenced(&lent), let object = lent,
              _getWeakRetainCount(object) <= 1, _getUnownedRetainCount(object) <= 1 else { return nil }
        return object
    }

    /// Makes `object` the accessor of `key` in `table`, as if it had just been made for it.
    @inline(__always)
    static func rebind(_ object: Object, core: RealmCore, info: ClassInfo, table: Int, key: UInt64) {
        object._binding = ObjectBinding(core: core, info: info, table: table, key: key)
    }
}
