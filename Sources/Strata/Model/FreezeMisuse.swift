// Freezing or thawing what no realm manages is misuse, as in RealmSwift, which raises: an
// unmanaged object or collection has no version to freeze and no live realm to thaw into, and
// handing it back unchanged would let a caller take an unfrozen value for a frozen one.

enum FreezeMisuse {
    /// The error for freezing or thawing (`operation`: "frozen", "thawed") an unmanaged `value`.
    static func unmanaged(_ value: Any, _ operation: String) -> Realm.Error {
        let name = (value as? Object).map { "'\(type(of: $0).className())' object" } ?? "\(type(of: value))"
        return Realm.Error(.invalidArgument, "an unmanaged \(name) cannot be \(operation); add it to a realm first")
    }
}
