// A managed object's `List`, `MutableSet` and `Map` property reads as one instance, as in
// RealmSwift: `dog.tags === dog.tags`, and the unmanaged collection an object had before `add`
// (which `add` binds to the stored one) is the instance the managed object gives afterwards.
//
// How: the property's wrapper keeps the accessor it last handed out; a read gives it back while
// it is the collection of this object, in this realm instance, from this binding's era, and
// makes (and keeps) a new one otherwise.
//
// Invariants:
// - Only live objects keep an accessor: a frozen object may be read from several threads at
//   once, and a read must not write its wrapper then; each read of a frozen object's collection
//   gives a new instance.
// - Only collection types pay for this (`_strataCachesManagedAccessor` is a constant the
//   compiler folds in each wrapper's accessor).

extension ObjectBinding {
    /// Whether `ref` is the collection at `ordinal` of this binding's object, handed out in
    /// this binding's era.
    func owns(_ ref: CollectionRef, ordinal: Int) -> Bool {
        ref.core === core && ref.owner == key && ref.table == table && ref.era == era
            && ref.column.index == info.column(forOrdinal: ordinal).index
    }
}

extension Object {
    /// Whether this object's wrappers keep the collection accessors they hand out: a live
    /// managed object (see the top).
    @usableFromInline
    var _keepsCollectionAccessors: Bool { _binding.map { !$0.core.isFrozen } ?? false }
}

/// nil while `kept` is the collection at `ordinal` of `obj` (see `ObjectBinding.owns`);
/// otherwise a new accessor from `fresh()`.
func freshCollectionAccessor<C>(_ obj: Object, _ ordinal: Int, kept: C, ref: (C) -> CollectionRef?, fresh: () -> C) -> C? {
    if let binding = obj._binding, let keptRef = ref(kept), binding.owns(keptRef, ordinal: ordinal) { return nil }
    return fresh()
}

extension List {
    public static var _strataCachesManagedAccessor: Bool { true }
    public static func _strataFreshAccessor(_ obj: Object, _ ordinal: Int, kept: List<Element>) -> List<Element>? {
        freshCollectionAccessor(obj, ordinal, kept: kept, ref: { $0.ref }, fresh: { _strataGet(obj, ordinal) })
    }
}

extension MutableSet {
    public static var _strataCachesManagedAccessor: Bool { true }
    public static func _strataFreshAccessor(_ obj: Object, _ ordinal: Int, kept: MutableSet<Element>) -> MutableSet<Element>? {
        freshCollectionAccessor(obj, ordinal, kept: kept, ref: { $0.ref }, fresh: { _strataGet(obj, ordinal) })
    }
}

extension Map {
    public static var _strataCachesManagedAccessor: Bool { true }
    public static func _strataFreshAccessor(_ obj: Object, _ ordinal: Int, kept: Map<Key, Value>) -> Map<Key, Value>? {
        freshCollectionAccessor(obj, ordinal, kept: kept, ref: { $0.ref }, fresh: { _strataGet(obj, ordinal) })
    }
}
