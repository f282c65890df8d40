// The collection trees a core has open in its current snapshot, keyed by owner and column.
//
// Invariants:
// - During a write, an entry holds the current root of its tree (`dirty` once changed); the
//   owner's row is rewritten once, at commit (`RealmCore.flushCollections`).
// - Entries are valid for one snapshot: `removeAll()` is called by `RealmCore.snapshotMoved()`
//   whenever the version moves or a write begins or ends, and by code that frees every tree.
// - `mostRecent` is always an entry of `states` or nil: every change of `states` goes through
//   this type and clears it. Frozen cores never cache (they are read from several threads).
import StrataStorage

/// The root of a list/set/map tree of one object, as open in the current snapshot.
final class CollectionState {
    /// Any change of the tree drops the read cursor (it may point at a page edited in place).
    var root: PageRef { didSet { cursor = nil } }
    var dirty = false { didSet { cursor = nil } }
    /// The list leaf of the last element read by index (`listGet`), valid while
    /// `cursorStamp` equals the core's `changeCounter` (no change since) and the root is the same.
    var cursor: PositionalCursor?
    var cursorStamp: UInt64 = 0
    let owner: UInt64
    let table: Int
    let column: Int
    init(root: PageRef, table: Int, column: Int, owner: UInt64) {
        self.root = root
        self.table = table
        self.column = column
        self.owner = owner
    }
}

/// Which collection: the owner's table, the collection's column and the owner's object key.
struct CollectionKey: Hashable {
    let table: Int32
    let column: Int32
    let owner: UInt64

    init(table: Int, column: Int, owner: UInt64) {
        self.table = Int32(truncatingIfNeeded: table)
        self.column = Int32(truncatingIfNeeded: column)
        self.owner = owner
    }
}

/// The open collection states of one core, with a one-entry cache in front of the dictionary
/// (the sensors pattern asks for the same list several times per transaction).
struct CollectionCache {
    private var states: [CollectionKey: CollectionState] = [:]
    private var mostRecent: (key: CollectionKey, state: CollectionState)?

    /// The open state of `key`, remembering it as the most recent one when `remember`.
    @inline(__always)
    mutating func state(for key: CollectionKey, remember: Bool) -> CollectionState? {
        if let recent = mostRecent, recent.key == key { return recent.state }
        guard let state = states[key] else { return nil }
        if remember { mostRecent = (key, state) }
        return state
    }

    /// The open state of `key`, without touching the one-entry cache (safe on frozen cores).
    subscript(key: CollectionKey) -> CollectionState? { states[key] }

    /// Opens `state` under `key`; it becomes the most recent one.
    mutating func insert(_ state: CollectionState, for key: CollectionKey) {
        states[key] = state
        mostRecent = (key, state)
    }

    /// Forgets the state of `key` (its tree was freed or replaced).
    mutating func remove(_ key: CollectionKey) {
        states[key] = nil
        mostRecent = nil
    }

    /// Forgets every state (the snapshot moved, or every tree was freed).
    mutating func removeAll() {
        states.removeAll(keepingCapacity: true)
        mostRecent = nil
    }

    /// The states changed in the current write, whose roots the commit writes into their rows.
    var dirtyStates: some Sequence<CollectionState> { states.values.lazy.filter(\.dirty) }
}
