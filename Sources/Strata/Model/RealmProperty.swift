// `RealmProperty` and `RealmOptional`: RealmSwift's boxes for a property whose value is an
// optional scalar or an `AnyRealmValue` (`@Persisted var age = RealmProperty<Int?>()`, read and
// written through `.value`), and `RealmEnum`, the older name for an enum stored by raw value.
//
// Invariants:
// - The property is stored exactly as the boxed type would be stored on its own (same column
//   shape), so a file, a query or the `strata` tool cannot tell the two apart.
// - A box read from a managed object is bound to that object and property: `.value` reads and
//   writes the object, with the accessors' rules (a write outside a write transaction traps with
//   a `Strata:` message). An unmanaged box holds its value until the object is added.
import Foundation

/// The types a ``RealmProperty`` can hold: optionals of the storable scalars and ``AnyRealmValue``.
public protocol RealmPropertyType: _PersistableElement {}

/// The types a ``RealmOptional`` can hold: the numeric scalars, `Bool` and ``RealmEnum``s.
public protocol RealmOptionalType: _PersistableElement {}

/// An enum stored by its raw value (RealmSwift's older name for ``PersistableEnum``).
public protocol RealmEnum: PersistableEnum, RealmOptionalType {}

extension Int: RealmOptionalType {}
extension Int8: RealmOptionalType {}
extension Int16: RealmOptionalType {}
extension Int32: RealmOptionalType {}
extension Int64: RealmOptionalType {}
extension Float: RealmOptionalType {}
extension Double: RealmOptionalType {}
extension Bool: RealmOptionalType {}
extension Optional: RealmPropertyType where Wrapped: _PersistableElement {}
extension AnyRealmValue: RealmPropertyType {}

/// A property holding a `Value` read and written through ``value``.
///
/// ```swift
/// final class Person: Object {
///     @Persisted var age = RealmProperty<Int?>()
/// }
/// person.age.value = 30
/// ```
public final class RealmProperty<Value: RealmPropertyType> {
    private var unmanaged: Value
    private let owner: Object?
    private var ordinal: Int
    /// The object holding this box as a property declared without `@Persisted`, once it is
    /// managed (LegacyDeclarations.swift). Weak: the object holds the box.
    private weak var holder: Object?
    /// Where that object lives, so that the box still reads it once the object itself is gone
    /// (`realm.objects(Person.self).first!.age.value` keeps only the box).
    private var holderBinding: ObjectBinding?
    /// An accessor of the same object made from `holderBinding` after the holder was released.
    /// It holds boxes of its own, never this one, so it makes no cycle.
    private var standIn: Object?

    /// An unmanaged property holding the type's default (nil for an optional).
    public init() {
        unmanaged = Value._strataDefault()
        owner = nil
        ordinal = -1
    }

    init(value: Value) {
        unmanaged = value
        owner = nil
        ordinal = -1
    }

    init(owner: Object, ordinal: Int) {
        unmanaged = Value._strataDefault()
        self.owner = owner
        self.ordinal = ordinal
    }

    /// Binds a box its object holds (`let age = RealmProperty<Int?>()`) to the object's stored
    /// property; its unmanaged value was stored, or was never the object's.
    func bind(to holder: Object, binding: ObjectBinding, ordinal: Int) {
        guard owner == nil, holderBinding == nil else { return }
        self.holder = holder
        holderBinding = binding
        self.ordinal = ordinal
        unmanaged = Value._strataDefault()
    }

    /// The managed object this box reads and writes; nil while unmanaged.
    private var managedOwner: Object? {
        if let owner { return owner }
        guard let binding = holderBinding else { return nil }
        if let holder { return holder }
        if let standIn { return standIn }
        let made = binding.info.type.init()
        made._binding = binding
        standIn = made
        return made
    }

    /// The property's value.
    public var value: Value {
        get {
            guard let owner = managedOwner else { return unmanaged }
            return Value._strataGet(owner, ordinal)
        }
        set {
            guard let owner = managedOwner else { unmanaged = newValue; return }
            Value._strataSet(owner, ordinal, newValue)
        }
    }
}

extension RealmProperty: _Persistable {
    public static var _strataShape: _PropertyShape { Value._strataShape }
    public static func _strataDefault() -> RealmProperty<Value> { RealmProperty() }
    public static func _strataGet(_ obj: Object, _ ordinal: Int) -> RealmProperty<Value> {
        obj._binding == nil ? RealmProperty() : RealmProperty(owner: obj, ordinal: ordinal)
    }
    public static func _strataSet(_ obj: Object, _ ordinal: Int, _ value: RealmProperty<Value>) {
        Value._strataSet(obj, ordinal, value.value)
    }
    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        try value._strataStore(&row, column)
    }
    public var _strataAny: Any? { value._strataAny }
    public static func _strataFromAny(_ any: Any?) -> RealmProperty<Value>? {
        if let box = any as? RealmProperty<Value> { return RealmProperty(value: box.value) }
        return Value._strataFromAnyOrStoredForm(any).map { RealmProperty(value: $0) }
    }
    public static func _strataGetStored(_ obj: Object, _ ordinal: Int) -> Any? { Value._strataGetStored(obj, ordinal) }
    /// A primary key held in a `RealmProperty<Int?>` (or of another key type) is its value's key.
    public func _strataEncodeKey(_ out: inout _ElementBuffer) throws { try value._strataEncodeKey(&out) }
}

extension RealmProperty: Equatable where Value: Equatable {
    /// Equal when their values are equal.
    public static func == (lhs: RealmProperty<Value>, rhs: RealmProperty<Value>) -> Bool { lhs.value == rhs.value }
}

extension RealmProperty: CustomStringConvertible {
    public var description: String { "RealmProperty<\(Value.self)>(\(String(describing: value)))" }
}

/// A property holding an optional `Wrapped`, read and written through ``value``
/// (RealmSwift's older form of `RealmProperty<Wrapped?>`).
public final class RealmOptional<Wrapped: RealmOptionalType> {
    let box: RealmProperty<Wrapped?>

    /// An unmanaged property holding nil.
    public init() { box = RealmProperty() }

    /// An unmanaged property holding `value`.
    ///
    /// - Parameter value: the initial value.
    public init(_ value: Wrapped?) { box = RealmProperty(value: value) }

    init(box: RealmProperty<Wrapped?>) { self.box = box }

    /// The property's value.
    public var value: Wrapped? {
        get { box.value }
        set { box.value = newValue }
    }
}

extension RealmOptional: _Persistable {
    public static var _strataShape: _PropertyShape { Wrapped?._strataShape }
    public static func _strataDefault() -> RealmOptional<Wrapped> { RealmOptional() }
    public static func _strataGet(_ obj: Object, _ ordinal: Int) -> RealmOptional<Wrapped> {
        RealmOptional(box: RealmProperty._strataGet(obj, ordinal))
    }
    public static func _strataSet(_ obj: Object, _ ordinal: Int, _ value: RealmOptional<Wrapped>) {
        Wrapped?._strataSet(obj, ordinal, value.value)
    }
    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        try value._strataStore(&row, column)
    }
    public var _strataAny: Any? { value._strataAny }
    public static func _strataFromAny(_ any: Any?) -> RealmOptional<Wrapped>? {
        if let box = any as? RealmOptional<Wrapped> { return RealmOptional(box.value) }
        return Wrapped?._strataFromAnyOrStoredForm(any).map { RealmOptional($0) }
    }
    public static func _strataGetStored(_ obj: Object, _ ordinal: Int) -> Any? { Wrapped?._strataGetStored(obj, ordinal) }
    /// A primary key held in a `RealmOptional<Int>` is its value's key.
    public func _strataEncodeKey(_ out: inout _ElementBuffer) throws { try value._strataEncodeKey(&out) }
}

extension RealmOptional: CustomStringConvertible {
    public var description: String { "RealmOptional<\(Wrapped.self)>(\(String(describing: value)))" }
}
