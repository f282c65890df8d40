// Freezing or thawing what no realm manages is misuse, as in RealmSwift, which raises: an
// unmanaged object or collection has no version to freeze and no live realm to thaw into, and
// handing it back unchanged would let a caller take an unfrozen value for a frozen one.

enum FreezeMisuse {
    /// The error for freezing or thawing (`operation`: "frozen", "thawed") an unmanaged `value`.
    static func unmanaged(_ value: Any, _ operation: String) -> Realm.Error {
        // Realm's sentence ("Unmanaged objects cannot be frozen."), then what to do about it.
        if let object = value as? Object {
            return Realm.Error(.invalidArgument, "Unmanaged objects cannot be \(operation). Add this '\(type(of: object).className())' to a realm first")
        }
        return Realm.Error(.invalidArgument, "Unmanaged collections cannot be \(operation). This \(type(of: value)) is unmanaged: add the object owning it to a realm first")
    }
}
