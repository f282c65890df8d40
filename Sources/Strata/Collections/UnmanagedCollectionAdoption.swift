// Adoption: `add` turns an object's unmanaged List, MutableSet and Map into accessors of the
// collections it stored, as Realm does, so a reference taken before `add` keeps working:
//
//     let tags = person.tags          // unmanaged
//     try realm.write { realm.add(person) }
//     try realm.write { tags.append("new") }   // stored in the realm
//
// Invariant: an instance is adopted at most once, and only while unmanaged (`ref == nil`); its
// unmanaged elements were stored by `add` before, so dropping them loses nothing.

protocol _AdoptableCollection: AnyObject {
    /// Binds an unmanaged collection to `ref`; false (and no change) when it is managed already.
    func _adopt(_ ref: CollectionRef) -> Bool
}

extension List: _AdoptableCollection {
    func _adopt(_ ref: CollectionRef) -> Bool {
        guard self.ref == nil, nested == nil else { return false }
        self.ref = ref
        unmanagedElements = []
        return true
    }
}

extension MutableSet: _AdoptableCollection {
    func _adopt(_ ref: CollectionRef) -> Bool {
        guard self.ref == nil else { return false }
        self.ref = ref
        storage = []
        return true
    }
}

extension Map: _AdoptableCollection {
    func _adopt(_ ref: CollectionRef) -> Bool {
        guard self.ref == nil, nested == nil else { return false }
        self.ref = ref
        unmanagedEntries = [:]
        return true
    }
}
