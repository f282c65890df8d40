// What the add and link paths of a core remember between calls, so that adding or reading many
// objects of one class skips ClassInfo's locked cache, the table lookup and buffer allocations.
//
// Invariants:
// - `lastAddedClass` and `lastLinkTarget` bind a class to a table of the current snapshot: a
//   class's table changes only with a new snapshot, so `snapshotMoved()` forgets them and is
//   called by `RealmCore.snapshotMoved()` at every version move and write begin or end.
// - `recentClassInfos` depends on the class alone (a ClassInfo never changes) and survives moves.
// - The byte buffers are taken (swapped out) while in use and put back after, so a nested use
//   allocates its own buffer instead of overwriting one in use; they are kept for capacity only.
// - Frozen cores never use this cache: they are read from several threads at once.

/// A class resolved to its table in the current snapshot.
struct ClassTableBinding {
    let type: ObjectIdentifier
    let info: ClassInfo
    let table: Int
}

struct AddPathCache {
    /// The class infos of the two last `classInfo(_:)` lookups, most recent first.
    var recentClassInfos: (ClassInfo?, ClassInfo?) = (nil, nil)
    /// See `RealmCore.classAndTable(forAdding:viaLink:)`.
    var lastAddedClass: ClassTableBinding?
    /// See `RealmCore.linkTarget(_:key:)`.
    var lastLinkTarget: ClassTableBinding?
    /// The bytes of the last row built by `addObject`.
    var rowBytes: [UInt8] = []
    /// The bytes of the last collection element or index key encoded.
    var elementBytes: [UInt8] = []
    /// The objects `addObject` is storing, innermost last: each has its binding already and its
    /// row not yet, so a link back to one of them (a cycle) is to an object that will exist.
    var rowsBeingAdded: [(table: Int, key: UInt64)] = []

    /// Forgets the class-to-table bindings of the previous snapshot.
    mutating func snapshotMoved() {
        lastAddedClass = nil
        lastLinkTarget = nil
    }
}
