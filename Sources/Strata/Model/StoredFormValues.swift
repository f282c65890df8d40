// A value given for a property in the stored form of another type: a `PersistableEnum` case or a
// `CustomPersistable` value where the property is declared as its raw or persisted type
// (`create(Shirt.self, value: ["sizeText": Size.large])` for `@Persisted var sizeText: String`).
// RealmSwift bridges such a value to its stored form before checking it against the property
// (`_rlmObjcValue`), so `init(value:)`, `create(_:value:)` and `setValue(_:forKey:)` take it;
// here a value that does not fit the property as it is given is tried again in its stored form.
//
// Invariant: only the two mappings above are unwrapped, one level at a time (an enum whose raw
// value is a custom type is unwrapped twice), so a value that fits neither as given nor as stored
// is still refused with `.invalidArgument` by the caller.
extension _Persistable {
    /// `_strataFromAny(any)`, or, when `any` does not fit as given and is a case of a
    /// `PersistableEnum` or a `CustomPersistable` value, its stored form converted.
    static func _strataFromAnyOrStoredForm(_ any: Any?) -> Self? {
        if let value = _strataFromAny(any) { return value }
        var stored = any
        // Bounded: each step unwraps one mapping (a custom type persisted as an enum, …).
        for _ in 0..<4 {
            guard let next = storedForm(of: stored) else { return nil }
            if let value = _strataFromAny(next) { return value }
            stored = next
        }
        return nil
    }
}

/// The stored form of a `PersistableEnum` case (its raw value) or a `CustomPersistable` value
/// (its persisted value); nil for any other value.
func storedForm(of any: Any?) -> Any? {
    switch any {
    case let value as any PersistableEnum: value.rawValue
    case let value as any _CustomPersistable: value.persistableValue
    default: nil
    }
}
