// `@Persisted`: the property wrapper that declares a stored property of an `Object` subclass.
//
// Invariants:
// - Each wrapper carries its ordinal, the index of its column in its class, stamped by
//   `Object.init` from the class's `WrapperLayout` (-1 until then). Any initial value is allowed,
//   one that creates other objects included (see WrapperLayout.swift).
// - An unmanaged object keeps its values in the wrappers; a managed object (`_binding != nil`)
//   reads and writes through its realm, and the wrapper's value is ignored. Once `add` made an
//   object managed, its wrappers that can hold objects (links, collections of links) are reset
//   to their defaults, so objects linked to each other while unmanaged form no retain cycle.
// - A wrapper of a property named in `ignoredProperties()` keeps ordinal -1 and its value in
//   the wrapper, managed or not: it is a plain stored property (WrapperLayout.swift).
import Foundation

/// Declares a persisted property of an `Object` subclass:
///
/// ```swift
/// final class Dog: Object {
///     @Persisted(primaryKey: true) var id: String
///     @Persisted(indexed: true) var name = ""
///     @Persisted var owner: Person?
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
/// }
/// ```
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    @usableFromInline var value: Value
    /// The column index, written by `Object.init` (`WrapperLayout.stamp`).
    @usableFromInline var ordinal: Int32
    @usableFromInline let isPrimaryKey: Bool
    @usableFromInline let isIndexed: Bool
    /// Set when the wrapper's object becomes managed (`WrapperLayout.mark`): its `value` is
    /// then no longer the property's value, so encoding it would be wrong (ModelCodable.swift).
    @usableFromInline var isBound: Bool
    /// The property has no value yet (MissingDefault.swift); `value` is a placeholder.
    @usableFromInline var lacksDefault: Bool
    @usableFromInline let originProperty: String?

    /// Only usable inside an `Object` subclass (access goes through the enclosing-instance subscript).
    @available(*, unavailable, message: "@Persisted can only be used as a property of an Object subclass")
    public var wrappedValue: Value {
        // Unreachable: the attribute above makes every direct use a compile error.
        get { fatalError("@Persisted used outside an Object subclass") }
        set { fatalError("@Persisted used outside an Object subclass") }
    }

    @inlinable
    init(value: Value, primaryKey: Bool = false, indexed: Bool = false, originProperty: String? = nil,
         lacksDefault: Bool = false) {
        self.value = value
        self.ordinal = -1
        self.isPrimaryKey = primaryKey
        self.isIndexed = indexed
        self.isBound = false
        self.lacksDefault = lacksDefault
        self.originProperty = originProperty
    }

    /// A wrapper holding the type's declaration default, or none (MissingDefault.swift).
    @inlinable
    init(declarationDefault primaryKey: Bool, indexed: Bool) {
        if Value._strataMayLackDefault {
            if let value = Value._strataDeclarationDefaultIfAny() {
                self.init(value: value, primaryKey: primaryKey, indexed: indexed)
            } else {
                self.init(value: MissingDefault.placeholder(Value.self), primaryKey: primaryKey, indexed: indexed,
                          lacksDefault: true)
            }
        } else {
            self.init(value: Value._strataDeclarationDefault(), primaryKey: primaryKey, indexed: indexed)
        }
    }

    /// A property whose initial value is the type's default, as in RealmSwift: `0`, `""`, `false`,
    /// `nil`, an empty collection, the first case of a ``PersistableEnum``; the current date, a
    /// new ``ObjectId`` and a random `UUID` each time an object is made.
    @inlinable public init() { self.init(declarationDefault: false, indexed: false) }
    /// A property with an initial value: `@Persisted var name = "Rex"`.
    ///
    /// - Parameter wrappedValue: the value a new unmanaged object starts with.
    @inlinable public init(wrappedValue: Value) { self.init(value: wrappedValue) }
    /// A primary key property with the type's default value: `@Persisted(primaryKey: true) var id: String`.
    ///
    /// A class has at most one primary key, of type `Int`, `String`, ``ObjectId`` or `UUID` (or their
    /// optionals); adding an object whose key is in use fails with `.duplicatePrimaryKey`.
    ///
    /// - Parameter primaryKey: whether the property is the class's primary key.
    @inlinable public init(primaryKey: Bool) { self.init(declarationDefault: primaryKey, indexed: false) }
    /// A primary key property with an initial value: `@Persisted(primaryKey: true) var id = UUID()`.
    ///
    /// - Parameters:
    ///   - wrappedValue: the value a new unmanaged object starts with.
    ///   - primaryKey: whether the property is the class's primary key.
    @inlinable public init(wrappedValue: Value, primaryKey: Bool) { self.init(value: wrappedValue, primaryKey: primaryKey) }
    /// An indexed property with the type's default value: `@Persisted(indexed: true) var name: String`.
    ///
    /// An index makes `==` and `IN` queries on the property look objects up instead of scanning the
    /// class; it is allowed on `Int`, `Bool`, `String`, `Date`, ``ObjectId`` and `UUID` properties.
    ///
    /// - Parameter indexed: whether the property has a search index.
    @inlinable public init(indexed: Bool) { self.init(declarationDefault: false, indexed: indexed) }
    /// An indexed property with an initial value: `@Persisted(indexed: true) var name = ""`.
    ///
    /// - Parameters:
    ///   - wrappedValue: the value a new unmanaged object starts with.
    ///   - indexed: whether the property has a search index.
    @inlinable public init(wrappedValue: Value, indexed: Bool) { self.init(value: wrappedValue, indexed: indexed) }

    /// Inlinable so that, specialised in the model's module, the storage key path folds into a
    /// direct field access (a generic key-path projection costs more than the whole unmanaged access).
    /// `@inline(__always)`: the fold needs the key-path literal, which only inlining into the
    /// model's property accessor exposes; a specialised but not inlined subscript kept calling
    /// `swift_modifyAtReferenceWritableKeyPath` (~200 ns per unmanaged property set).
    @inlinable
    public static subscript<E: Object>(
        _enclosingInstance obj: E,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<E, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<E, Persisted<Value>>
    ) -> Value {
        @inline(__always) get {
            // An ordinal below 0 on a managed object is a property the class names in
            // ignoredProperties() (WrapperLayout.swift): it has no column and reads as unmanaged.
            if obj._isManaged, case let ordinal = Int(obj[keyPath: storageKeyPath].ordinal), ordinal >= 0 {
                if Value._strataCachesManagedAccessor {
                    // CollectionAccessorCache.swift: the accessor handed out last, while it is current.
                    let kept = obj[keyPath: storageKeyPath].value
                    guard let fresh = Value._strataFreshAccessor(obj, ordinal, kept: kept) else { return kept }
                    if obj._keepsCollectionAccessors { obj[keyPath: storageKeyPath].value = fresh }
                    return fresh
                }
                return Value._strataGet(obj, ordinal)
            }
            if obj._isProbe {
                obj._probeOrdinal = obj[keyPath: storageKeyPath].ordinal
                if let target = Value._strataProbeValue(), let probe = KeyPathProbe.probe(in: target) {
                    KeyPathProbe.linked(from: obj, to: probe)
                    KeyPathProbe.returned(target, on: obj)
                    return target
                }
                KeyPathProbe.returned(obj[keyPath: storageKeyPath].value, on: obj)
                return obj[keyPath: storageKeyPath].value
            }
            if Value._strataMayLackDefault && obj[keyPath: storageKeyPath].lacksDefault { MissingDefault.stop(Value.self) }
            return obj[keyPath: storageKeyPath].value
        }
        @inline(__always) set {
            if obj._isManaged, case let ordinal = Int(obj[keyPath: storageKeyPath].ordinal), ordinal >= 0 {
                Value._strataSet(obj, ordinal, newValue)
            } else {
                obj[keyPath: storageKeyPath].value = newValue
                if Value._strataMayLackDefault { obj[keyPath: storageKeyPath].lacksDefault = false }
            }
        }
    }
}

extension Persisted where Value: _LinkingObjectsMarker {
    /// Declares the inverse of a link: `@Persisted(originProperty: "owner") var pets: LinkingObjects<Dog>`.
    ///
    /// - Parameter originProperty: the name of the link property, in the class of the elements, that
    ///   points to this object.
    public init(originProperty: String) { self.init(value: Value._strataDefault(), originProperty: originProperty) }
}

/// Lets schema discovery reach a wrapper whose value type it does not know statically.
protocol _PersistedField {
    static func makeFieldIO(name: String, offset: Int) -> AnyFieldIO
}

extension Persisted: _PersistedField {
    static func makeFieldIO(name: String, offset: Int) -> AnyFieldIO { FieldIO<Value>(name: name, offset: offset) }
}

/// The value a wrapper holds itself: the property's value for a wrapper no realm stores (an
/// ignored property, see `Object.ignoredProperties()`), read by key-value coding through `Mirror`.
protocol _WrapperHeldValue {
    var heldValue: Any? { get }
}

extension Persisted: _WrapperHeldValue {
    var heldValue: Any? { value._strataAny }
}

/// How a non-optional scalar wrapper value is copied into its row slot by raw memory access
/// (`_RowBuilder.storeRaw`), bypassing the generic `_strataStore` witness on the `add` path.
/// `.none`: the value goes through `storeUnmanaged` (strings, optionals, links, collections…).
enum RawScalarKind: UInt8, Sendable {
    case none
    /// 8 bytes as they are in memory: Int, Int64, Double, Date (checked: a single Double).
    case copy8
    /// Sign-extended into the 8-byte int slot.
    case int32, int16, int8
    /// 4 bytes as they are (Float).
    case copy4
    /// Bool's in-memory 0/1 as the 1-byte slot.
    case bool
}

extension RawScalarKind {
    /// Bytes written into the slot.
    var slotWidth: Int {
        switch self {
        case .copy8, .int32, .int16, .int8: 8
        case .copy4: 4
        case .bool: 1
        case .none: 0
        }
    }

    /// Copies the value at `src` (the wrapper's value in the object) into the slot at `dst`,
    /// in the slot's little-endian encoding (this path exists only on little-endian hosts).
    @inline(__always)
    func copy(from src: UnsafeRawPointer, to dst: UnsafeMutableRawPointer) {
        switch self {
        case .copy8: dst.storeBytes(of: src.loadUnaligned(as: UInt64.self), as: UInt64.self)
        case .int32: dst.storeBytes(of: Int64(src.loadUnaligned(as: Int32.self)), as: Int64.self)
        case .int16: dst.storeBytes(of: Int64(src.loadUnaligned(as: Int16.self)), as: Int64.self)
        case .int8: dst.storeBytes(of: Int64(src.loadUnaligned(as: Int8.self)), as: Int64.self)
        case .copy4: dst.storeBytes(of: src.loadUnaligned(as: UInt32.self), as: UInt32.self)
        case .bool: dst.storeBytes(of: src.load(as: Bool.self) ? 1 as UInt8 : 0, as: UInt8.self)
        case .none: break
        }
    }
}

/// One column of a plain row (see `ClassInfo.plainRow`): where the value is in the object and
/// where its slot is in the row.
struct PlainRowCopy: Sendable {
    let kind: RawScalarKind
    let valueOffset: Int
    let slotOffset: Int
}

/// Where and how `addObject` copies one property without generic code (see `RawScalarKind`).
struct RawFieldStore: Sendable {
    let kind: RawScalarKind
    /// Byte offset of the wrapper's value inside the object.
    let valueOffset: Int
}

/// Reads and writes one wrapper inside an object's memory (found by `_forEachField` offsets),
/// without `Mirror` and without boxing on the `add` path.
class AnyFieldIO {
    let name: String
    let offset: Int
    /// Whether the wrapper's value can hold other objects (a link or a collection of links).
    /// Once its object is managed such a value is never read again, and it must be dropped:
    /// objects linked both ways before `add` (`p.dogs.append(d); d.owner = p`) would otherwise
    /// keep each other, and through their bindings the realm core and its open file, alive.
    let holdsObjects: Bool
    init(name: String, offset: Int, holdsObjects: Bool = false) {
        self.name = name
        self.offset = offset
        self.holdsObjects = holdsObjects
    }
    var shape: _PropertyShape { _PropertyShape(type: .int) }
    /// Whether the property is declared without `@Persisted` (LegacyDeclarations.swift).
    var isLegacy: Bool { false }
    /// Whether a managed object's wrapper keeps the accessor it handed out last (a collection's,
    /// CollectionAccessorCache.swift): state of that one accessor, not of its row.
    var keepsManagedAccessor: Bool { false }
    /// For such a property, the instance `obj` holds in it (LegacyDeclarations.swift).
    func legacyIdentity(_ obj: Object) -> AnyObject? { nil }
    /// The Swift type of the property (what a key path to it reads).
    var valueType: Any.Type { Any.self }
    /// Where the ordinal word sits inside the wrapper.
    var ordinalOffsetInWrapper: Int { 0 }
    /// Where the `isBound` byte sits inside the wrapper.
    var boundOffsetInWrapper: Int { 0 }
    /// The raw copy of this field for `add`, or kind `.none`.
    var rawStore: RawFieldStore { RawFieldStore(kind: .none, valueOffset: 0) }
    func ordinal(_ obj: Object) -> Int32 { 0 }
    func flags(_ obj: Object) -> (primaryKey: Bool, indexed: Bool, origin: String?) { (false, false, nil) }
    func storeUnmanaged(_ obj: Object, _ row: inout _RowBuilder, _ column: _Column) throws {}
    func getAny(_ obj: Object) -> Any? { nil }
    /// The value as stored, for queries: a custom-mapped value is its persisted value even when
    /// its type cannot convert it.
    func storedAny(_ obj: Object) -> Any? { getAny(obj) }
    func setAny(_ obj: Object, _ value: Any?) throws {}
    /// The value of this property of `obj`, a managed object of any Swift class bound to this
    /// field's class (a `DynamicObject`): read through the binding, never the wrapper's memory.
    func getAny(bound obj: Object, ordinal: Int) -> Any? { nil }
    /// Sets this property of `obj` as `getAny(bound:ordinal:)` reads it (inside a write).
    func setAny(bound obj: Object, ordinal: Int, _ value: Any?) throws {}
    /// The unmanaged value when it is a linked object / collection of objects (for cascading adds).
    func unmanagedValue(_ obj: Object) -> Any? { nil }
    /// The primary-key index key of the unmanaged value (see ObjectStore.swift).
    func primaryKeyIndexKey(_ obj: Object, core: RealmCore) throws -> [UInt8] { [] }
    /// Resets the wrapper's unmanaged value to the type's default, releasing what it referenced
    /// (called on fields with `holdsObjects` once the object is managed; see ObjectStore.addObject).
    func dropUnmanagedValue(_ obj: Object) {}
    /// Makes the wrapper's unmanaged collection the accessor of the stored one (called on
    /// collection fields once the object is managed; see ObjectStore.addObject).
    func adoptUnmanagedCollection(_ obj: Object, _ binding: ObjectBinding) {}
}

final class FieldIO<Value: _Persistable>: AnyFieldIO {
    init(name: String, offset: Int) {
        super.init(name: name, offset: offset, holdsObjects: Value._strataShape.type == .object)
    }

    override var keepsManagedAccessor: Bool { Value._strataCachesManagedAccessor }

    @inline(__always) private func pointer(_ obj: Object) -> UnsafeMutablePointer<Persisted<Value>> {
        (Unmanaged.passUnretained(obj).toOpaque() + offset).assumingMemoryBound(to: Persisted<Value>.self)
    }

    /// The column's shape. A property of a custom type stored as an embedded object may be
    /// declared non-optional, as in RealmSwift: its link is stored as an optional one (a link to
    /// an embedded object always is), and a missing object reads as the value of a new one. Only
    /// the property is so marked: in a list or set the same type stays a non-optional element.
    override var shape: _PropertyShape {
        var shape = Value._strataShape
        if Value.self is any _CustomPersistable.Type, shape.type == .object, shape.collection == .none,
           shape.objectType is EmbeddedObject.Type {
            shape.isOptional = true
        }
        return shape
    }

    override var valueType: Any.Type { Value.self }

    override var ordinalOffsetInWrapper: Int {
        // A stored property of a struct always has an offset; 0 is unreachable.
        MemoryLayout<Persisted<Value>>.offset(of: \Persisted<Value>.ordinal) ?? 0
    }

    override var boundOffsetInWrapper: Int {
        MemoryLayout<Persisted<Value>>.offset(of: \Persisted<Value>.isBound) ?? 0
    }

    override var rawStore: RawFieldStore {
        let none = RawFieldStore(kind: .none, valueOffset: 0)
        #if _endian(little)
        guard let inner = MemoryLayout<Persisted<Value>>.offset(of: \Persisted<Value>.value) else { return none }
        let kind: RawScalarKind
        switch Value.self {
        case is Int.Type: kind = MemoryLayout<Int>.size == 8 ? .copy8 : .none
        case is Int64.Type, is Double.Type: kind = .copy8
        case is Int32.Type: kind = .int32
        case is Int16.Type: kind = .int16
        case is Int8.Type: kind = .int8
        case is Float.Type: kind = .copy4
        case is Bool.Type: kind = .bool
        case is Date.Type: kind = Self.dateIsOneDouble ? .copy8 : .none
        default: kind = .none
        }
        return RawFieldStore(kind: kind, valueOffset: offset + inner)
        #else
        return none
        #endif
    }

    /// Whether `Date`'s memory is exactly its `timeIntervalSinceReferenceDate` (the slot's bits),
    /// checked on a value rather than assumed from Foundation's source.
    private static var dateIsOneDouble: Bool {
        guard MemoryLayout<Date>.size == 8 else { return false }
        let d = Date(timeIntervalSinceReferenceDate: 123_456.789)
        return withUnsafeBytes(of: d) { $0.loadUnaligned(as: UInt64.self) } == d.timeIntervalSinceReferenceDate.bitPattern
    }

    override func ordinal(_ obj: Object) -> Int32 { withExtendedLifetime(obj) { pointer(obj).pointee.ordinal } }

    override func flags(_ obj: Object) -> (primaryKey: Bool, indexed: Bool, origin: String?) {
        withExtendedLifetime(obj) {
            let w = pointer(obj)
            return (w.pointee.isPrimaryKey, w.pointee.isIndexed, w.pointee.originProperty)
        }
    }

    /// Whether the unmanaged wrapper has no value (MissingDefault.swift).
    @inline(__always) private func lacksDefault(_ obj: Object) -> Bool {
        Value._strataMayLackDefault && withExtendedLifetime(obj) { pointer(obj).pointee.lacksDefault }
    }

    override func storeUnmanaged(_ obj: Object, _ row: inout _RowBuilder, _ column: _Column) throws {
        if lacksDefault(obj) { throw MissingDefault.error(Value.self, property: name) }
        let v = withExtendedLifetime(obj) { pointer(obj).pointee.value }
        try v._strataStore(&row, column)
    }

    override func getAny(_ obj: Object) -> Any? {
        if obj._binding != nil {
            let o = withExtendedLifetime(obj) { pointer(obj).pointee.ordinal }
            return Value._strataGet(obj, Int(o))._strataAny
        }
        if lacksDefault(obj) { MissingDefault.stop(Value.self, property: name) }
        return withExtendedLifetime(obj) { pointer(obj).pointee.value._strataAny }
    }

    override func getAny(bound obj: Object, ordinal: Int) -> Any? {
        // The dynamic API reads a custom type's persisted value, which it may store unconverted
        // (CustomPersistable.swift): what it reads is what it wrote.
        if Value.self is any _UnconvertedStorable.Type { return Value._strataGetStored(obj, ordinal) }
        return Value._strataGet(obj, ordinal)._strataAny
    }

    override func setAny(bound obj: Object, ordinal: Int, _ value: Any?) throws {
        guard let v = Value._strataFromAnyOrStoredForm(value) else {
            // A stored value a failable custom type does not convert (CustomPersistable.swift).
            if let unconverted = Value.self as? any _UnconvertedStorable.Type,
               unconverted.setUnconverted(obj, ordinal, value) { return }
            throw Realm.Error(.invalidArgument, "value \(String(describing: value)) is not a valid \(Value.self) for property '\(name)'")
        }
        Value._strataSet(obj, ordinal, v)
    }

    override func storedAny(_ obj: Object) -> Any? {
        guard obj._binding != nil else { return getAny(obj) }
        let o = withExtendedLifetime(obj) { pointer(obj).pointee.ordinal }
        return Value._strataGetStored(obj, Int(o))
    }

    override func primaryKeyIndexKey(_ obj: Object, core: RealmCore) throws -> [UInt8] {
        let v = withExtendedLifetime(obj) { pointer(obj).pointee.value }
        return try core.primaryKeyIndexKey(of: v)
    }

    override func dropUnmanagedValue(_ obj: Object) {
        // Swap first, release after, outside the raw pointer access: releasing the old value can
        // run deinits of other unmanaged objects (and so arbitrary code).
        let old = withExtendedLifetime(obj) { () -> Value in
            let p = pointer(obj)
            let v = p.pointee.value
            p.pointee.value = Value._strataDefault()
            return v
        }
        withExtendedLifetime(old) {}
    }

    override func adoptUnmanagedCollection(_ obj: Object, _ binding: ObjectBinding) {
        let (value, ordinal) = withExtendedLifetime(obj) { (pointer(obj).pointee.value, pointer(obj).pointee.ordinal) }
        // A collection that is already managed (assigned from another object) stays what it is;
        // the wrapper lets go of it, as of any other value it no longer reads.
        guard let collection = value as? _AdoptableCollection,
              collection._adopt(binding.collectionRef(ordinal: Int(ordinal))) else {
            dropUnmanagedValue(obj)
            return
        }
    }

    override func unmanagedValue(_ obj: Object) -> Any? {
        withExtendedLifetime(obj) { pointer(obj).pointee.value }
    }

    override func setAny(_ obj: Object, _ value: Any?) throws {
        guard let v = Value._strataFromAnyOrStoredForm(value) else {
            if let binding = obj._binding, let unconverted = Value.self as? any _UnconvertedStorable.Type {
                // A stored value a failable custom type does not convert (CustomPersistable.swift).
                try binding.core.checkWritable(name: name)
                let o = withExtendedLifetime(obj) { pointer(obj).pointee.ordinal }
                if unconverted.setUnconverted(obj, Int(o), value) { return }
            }
            throw Realm.Error(.invalidArgument, "value \(String(describing: value)) is not a valid \(Value.self) for property '\(name)'")
        }
        if let binding = obj._binding {
            let o = withExtendedLifetime(obj) { pointer(obj).pointee.ordinal }
            try binding.core.checkWritable(name: name)
            Value._strataSet(obj, Int(o), v)
        } else {
            withExtendedLifetime(obj) {
                pointer(obj).pointee.value = v
                pointer(obj).pointee.lacksDefault = false
            }
        }
    }
}
