// Properties declared without `@Persisted`, as every RealmSwift model before 10.10 declared its
// collections and boxed optionals:
//
//     final class Person: Object {
//         @Persisted var name = ""
//         let dogs = List<Dog>()
//         let age = RealmOptional<Int>()
//         let owners = LinkingObjects(fromType: Owner.self, property: "people")
//     }
//
// Such a property is a stored reference to a class instance (`LinkingObjects`, a struct, holds
// one), made by the object's `init` and never replaced: the instance itself becomes the managed
// accessor. `add` stores what it holds and then binds it to the stored property; an object read
// from a realm has its instances bound as it is handed out (`RealmCore.materialize`).
//
// Invariants:
// - Found by `WrapperLayout` in declaration order among the `@Persisted` wrappers; its column is
//   its index in the layout, fixed by the class, so nothing is stamped on the instance.
// - Stored exactly as the `@Persisted` form of the same type (same column shape): a file, a query,
//   a migration or the `strata` tool cannot tell the two apart.
// - Only the six types RealmSwift's older models declared this way are properties; any other
//   property without `@Persisted` stays plain Swift state. A name in `ignoredProperties()` stays
//   in memory only.
// - A bound instance never retains its object (collections keep the object's key, boxes a weak
//   reference and where the object lives), so a managed object and its properties form no cycle,
//   and a property read from a temporary object (`realm.objects(Person.self).first!.age`) still
//   reads that object.
import Foundation

/// A type an older RealmSwift model declares as a stored property without a wrapper.
protocol _LegacyDeclarable: _Persistable {
    /// Makes this instance, held by `owner` (managed by `binding`), read and write the stored
    /// property with `ordinal`. Its unmanaged contents were stored already, or are not the
    /// object's (an object read from a realm).
    func _legacyBind(to owner: Object, binding: ObjectBinding, ordinal: Int)
    /// Gives this unmanaged instance the contents of `value` (`init(value:)`, `setValue(_:forKey:)`
    /// of an unmanaged object): the instance stays the one the object holds.
    func _legacyAssign(_ value: Self)
    /// The property of the linking class, for `LinkingObjects(fromType:property:)`.
    var _legacyOriginProperty: String? { get }
    /// The instance that stays this property's for the object's life (what a key path to the
    /// property gives: KeyPathNames.swift).
    var _legacyIdentity: AnyObject? { get }
    /// The accessor of such a property, at `offset` in the object, stored in `column`.
    static func makeLegacyFieldIO(name: String, offset: Int, column: Int) -> AnyFieldIO
}

extension _LegacyDeclarable {
    var _legacyOriginProperty: String? { nil }
    var _legacyIdentity: AnyObject? { self as AnyObject }
    static func makeLegacyFieldIO(name: String, offset: Int, column: Int) -> AnyFieldIO {
        LegacyFieldIO<Self>(name: name, offset: offset, column: column)
    }
}

extension List: _LegacyDeclarable {
    func _legacyBind(to owner: Object, binding: ObjectBinding, ordinal: Int) {
        _ = _adopt(binding.collectionRef(ordinal: ordinal))
    }
    func _legacyAssign(_ value: List<Element>) {
        let items = value.elements
        storage = items
    }
}

extension MutableSet: _LegacyDeclarable {
    func _legacyBind(to owner: Object, binding: ObjectBinding, ordinal: Int) {
        _ = _adopt(binding.collectionRef(ordinal: ordinal))
    }
    func _legacyAssign(_ value: MutableSet<Element>) {
        storage = []
        insert(objectsIn: Array(value))
    }
}

extension Map: _LegacyDeclarable {
    func _legacyBind(to owner: Object, binding: ObjectBinding, ordinal: Int) {
        _ = _adopt(binding.collectionRef(ordinal: ordinal))
    }
    func _legacyAssign(_ value: Map<Key, Value>) {
        let entries = value.storage
        storage = entries
    }
}

extension RealmProperty: _LegacyDeclarable {
    func _legacyBind(to owner: Object, binding: ObjectBinding, ordinal: Int) {
        bind(to: owner, binding: binding, ordinal: ordinal)
    }
    func _legacyAssign(_ value: RealmProperty<Value>) { self.value = value.value }
}

extension RealmOptional: _LegacyDeclarable {
    func _legacyBind(to owner: Object, binding: ObjectBinding, ordinal: Int) {
        box.bind(to: owner, binding: binding, ordinal: ordinal)
    }
    func _legacyAssign(_ value: RealmOptional<Wrapped>) { self.value = value.value }
}

extension LinkingObjects: _LegacyDeclarable {
    func _legacyBind(to owner: Object, binding: ObjectBinding, ordinal: Int) {
        guard let legacy else { return }
        legacy.bound = Source(core: binding.core, table: binding.table, key: binding.key,
                              originProperty: legacy.property, era: binding.era)
    }
    func _legacyAssign(_ value: LinkingObjects<Element>) {}
    var _legacyOriginProperty: String? { legacy?.property }
    var _legacyIdentity: AnyObject? { legacy }
}

/// Reads and writes a property declared without `@Persisted` inside an object's memory (the
/// reference at `offset`), as `FieldIO` does a wrapper.
final class LegacyFieldIO<Value: _LegacyDeclarable>: AnyFieldIO {
    /// The property's column (and ordinal) in its class.
    private let column: Int

    init(name: String, offset: Int, column: Int) {
        self.column = column
        // Not `holdsObjects`: the instance cannot be reset (it is the property), and binding it
        // drops the objects it held (`_adopt`).
        super.init(name: name, offset: offset)
    }

    @inline(__always) private func held(_ obj: Object) -> Value {
        withExtendedLifetime(obj) {
            (Unmanaged.passUnretained(obj).toOpaque() + offset).assumingMemoryBound(to: Value.self).pointee
        }
    }

    override var isLegacy: Bool { true }
    override func legacyIdentity(_ obj: Object) -> AnyObject? { held(obj)._legacyIdentity }
    override var shape: _PropertyShape { Value._strataShape }
    override var valueType: Any.Type { Value.self }
    override func ordinal(_ obj: Object) -> Int32 { Int32(column) }

    override func flags(_ obj: Object) -> (primaryKey: Bool, indexed: Bool, origin: String?) {
        (false, false, held(obj)._legacyOriginProperty)
    }

    override func storeUnmanaged(_ obj: Object, _ row: inout _RowBuilder, _ column: _Column) throws {
        try held(obj)._strataStore(&row, column)
    }

    override func getAny(_ obj: Object) -> Any? {
        obj._binding != nil ? Value._strataGet(obj, column)._strataAny : held(obj)._strataAny
    }

    override func getAny(bound obj: Object, ordinal: Int) -> Any? { Value._strataGet(obj, ordinal)._strataAny }

    override func setAny(bound obj: Object, ordinal: Int, _ value: Any?) throws {
        Value._strataSet(obj, ordinal, try converted(value))
    }

    override func storedAny(_ obj: Object) -> Any? {
        obj._binding != nil ? Value._strataGetStored(obj, column) : getAny(obj)
    }

    override func setAny(_ obj: Object, _ value: Any?) throws {
        let v = try converted(value)
        if let binding = obj._binding {
            try binding.core.checkWritable(name: name)
            Value._strataSet(obj, column, v)
        } else {
            held(obj)._legacyAssign(v)
        }
    }

    override func primaryKeyIndexKey(_ obj: Object, core: RealmCore) throws -> [UInt8] {
        try core.primaryKeyIndexKey(of: held(obj))
    }

    override func unmanagedValue(_ obj: Object) -> Any? { held(obj) }

    override func adoptUnmanagedCollection(_ obj: Object, _ binding: ObjectBinding) {
        held(obj)._legacyBind(to: obj, binding: binding, ordinal: column)
    }

    private func converted(_ value: Any?) throws -> Value {
        guard let v = Value._strataFromAnyOrStoredForm(value) else {
            throw Realm.Error(.invalidArgument, "value \(String(describing: value)) is not a valid \(Value.self) for property '\(name)'")
        }
        return v
    }
}
