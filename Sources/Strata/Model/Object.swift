// `Object` and `EmbeddedObject`: the base classes of models.
//
// Invariants:
// - An object is unmanaged (`_binding == nil`: values live in its `@Persisted` wrappers, it may
//   move between threads freely) or managed (`_binding` names its realm core, class, table and
//   object key; every property access goes through that realm's current snapshot).
// - Adding an object resets its link and link-collection wrappers to their defaults (see
//   Persisted.swift): a managed object keeps no strong reference to other objects, so objects
//   linked to each other (or to themselves) while unmanaged do not keep their realm open.
// - A managed object is confined to its realm's thread or queue unless frozen. Property getters
//   and setters cannot throw (they are Swift properties), so misuse that Realm reports with an
//   exception — reading on the wrong thread, writing outside a write transaction, writing to a
//   frozen object — stops the program with a message starting "Strata:" naming the cause.
//   The throwing APIs (`Realm` methods, `setValue(_:forKey:)`, `Object.setValue`) report the
//   same misuse as `Realm.Error` instead. Storage failures inside accessors never trap: reads
//   return the property's default and the failure is rethrown by the next `commitWrite`/`write`.
// - A property's initial value may create other objects (`@Persisted var dog: Dog? = Dog()`):
//   each object stamps its own wrappers' column indices in `init` (WrapperLayout.swift).
@_spi(Reflection) import Swift
import Foundation

/// Where a managed object lives.
struct ObjectBinding {
    let core: RealmCore
    let info: ClassInfo
    /// The table as 32 bits, so that with `era` the binding keeps the size of four words: every
    /// managed object carries one (a table index never comes near 2^31: tables are classes).
    private let table32: Int32
    /// The realm's `era` when the object was handed out: a later `invalidate()` invalidates it.
    private(set) var era: UInt32
    private(set) var key: UInt64

    var table: Int { Int(table32) }

    init(core: RealmCore, info: ClassInfo, table: Int, key: UInt64) {
        self.core = core
        self.info = info
        self.table32 = Int32(truncatingIfNeeded: table)
        self.key = key
        era = core.era
    }

    /// Whether the realm was invalidated since this object was handed out.
    @inline(__always) var isStale: Bool { era != core.era }

    /// This binding, stale for good: the accessor that `Realm.delete` was given stays invalidated
    /// even when a cancelled write brings its object back, as in RealmSwift (re-reading the object
    /// gives a valid accessor). An era the realm has already left never comes back.
    func detached() -> ObjectBinding {
        var copy = self
        copy.era = (core.era &- 1) | Self.deletedEraBit
        return copy
    }

    /// Marks the era of a detached binding (`detached()`), so that messages can say "deleted"
    /// rather than "invalidated with its realm" (an era reaches 2^31 only after as many
    /// `invalidate()` calls).
    private static let deletedEraBit: UInt32 = 0x8000_0000

    /// Whether `Realm.delete` was given this accessor (see `detached()`).
    var wasDeleted: Bool { era & Self.deletedEraBit != 0 && isStale }

    /// This binding moved to object `key` of the same table, as if made for it just now; false
    /// (nothing changed) unless `core`, `info` and `table` are this binding's.
    @inline(__always)
    mutating func move(to key: UInt64, core: RealmCore, info: ClassInfo, table: Int) -> Bool {
        guard self.core === core, self.info === info, table32 == Int32(truncatingIfNeeded: table) else { return false }
        self.key = key
        era = core.era
        return true
    }

    /// The binding's parts without a reference count taken on its core and class.
    @inline(__always) var borrowed: BorrowedBinding {
        BorrowedBinding(core: core, info: info, table: table, key: key, isStale: isStale)
    }
}

/// An `ObjectBinding` read for the span of one property read, holding its core and class
/// without retaining them: a read is most of an iteration step, and the two retains and
/// releases of copying the binding cost about as much as the row lookup. Valid only while the
/// object it came from keeps that binding, which nothing a property read calls changes (only
/// `Realm.delete`, `add` and an iterator's rebinding assign `_binding`, none of them reachable
/// from inside a read).
struct BorrowedBinding {
    unowned(unsafe) let core: RealmCore
    unowned(unsafe) let info: ClassInfo
    let table: Int
    let key: UInt64
    let isStale: Bool

    /// The column of the property at `ordinal` (a call on `info` itself would retain it).
    @inline(__always) func column(forOrdinal ordinal: Int) -> _Column {
        Unmanaged.passUnretained(info)._withUnsafeGuaranteedRef { $0.column(forOrdinal: ordinal) }
    }
}

/// The stored object an accessor reads, within one realm: what "the same object" means whatever
/// `==` says for the class.
struct StoredRow: Hashable {
    let table: Int
    let key: UInt64
}

/// The base class of stored models. Subclass it and declare properties with `@Persisted`.
///
/// Managed objects are confined to the thread or queue of their realm (checked at run time on
/// every property access; see the file header for how misuse is reported). Unmanaged and frozen
/// objects can be used from any thread.
open class Object: CustomStringConvertible {
    // These fields are read on every property access (`@Persisted`'s subscript, `_strataGet`):
    // `@exclusivity(unchecked)` drops the dynamic exclusivity check of each read, which cost
    // more than the read. Safe because no access to them is ever held open across a call that
    // could reach them again (they are only loaded and stored whole), and a managed object is
    // confined to its realm's thread (checked by every accessor) while an unmanaged one is, like
    // any Swift class instance, the caller's to synchronise.
    @inline(__always) final var _binding: ObjectBinding? {
        get { _storedBinding }
        set {
            let managed = newValue != nil
            let marks = managed != _isManaged && (newValue ?? _storedBinding)?.info.marksBoundWrappers == true
            _storedBinding = newValue
            if marks { WrapperLayout.mark(self, bound: managed) }
            _isManaged = managed
        }
    }
    /// What `_binding` reads and writes; changed directly only where the object stays managed
    /// by the same realm and class (`moveBinding(to:core:info:table:)`).
    @exclusivity(unchecked) private final var _storedBinding: ObjectBinding?

    /// Moves this managed object to object `key` of the same realm, class and table, changing
    /// its binding in place; false (nothing changed) when it is not bound to those.
    @inline(__always)
    final func moveBinding(to key: UInt64, core: RealmCore, info: ClassInfo, table: Int) -> Bool {
        _storedBinding?.move(to: key, core: core, info: info, table: table) ?? false
    }
    /// `_binding != nil`, readable from inlined `@Persisted` accessors.
    @exclusivity(unchecked) @usableFromInline final var _isManaged = false
    @exclusivity(unchecked) @usableFromInline final var _isProbe = false
    @exclusivity(unchecked) @usableFromInline final var _probeOrdinal: Int32 = -1

    /// Creates an unmanaged object with every property at its declared initial value. Add it to
    /// a realm with `Realm.add(_:update:)` inside a write transaction to store it.
    ///
    /// ```swift
    /// let dog = Dog()
    /// dog.name = "Rex"
    /// try realm.write { realm.add(dog) }
    /// ```
    public required init() {
        // Every stored property of the whole hierarchy is initialised by now (Swift's two-phase
        // initialisation), nested objects created by initial values included.
        WrapperLayout.stamp(self)
    }

    /// Creates an unmanaged object from a dictionary (`["name": "Rex", "age": 3]`), an array of
    /// property values in declaration order, or another object. Nested dictionaries and arrays
    /// create linked objects; keys that name no property are ignored, as in RealmSwift. A value
    /// that does not fit its property stops with a `Strata:` message, as RealmSwift's raises (it
    /// is never dropped); use `Object.make(value:)` to get a `Realm.Error` instead.
    public required convenience init(value: Any) {
        self.init()
        do { try _apply(value: value, ignoringUnknownKeys: true) } catch let error as Realm.Error {
            Stop.now(error)
        } catch {
            Stop.now("Strata: invalidArgument: \(error)")
        }
    }

    /// Like `init(value:)`, but throws `.invalidArgument` for an unknown property or a value of
    /// the wrong type.
    public static func make(value: Any) throws -> Self {
        let o = Self()
        try o._apply(value: value, ignoringUnknownKeys: false)
        return o
    }

    /// Sets the properties from `value` (see `init(value:)`); `ignoringUnknownKeys` skips the keys
    /// of a dictionary that name no property, and nothing else.
    final func _apply(value: Any, ignoringUnknownKeys: Bool) throws {
        let info = try ClassInfo.of(type(of: self))
        if let dict = value as? [String: Any] {
            for (k, v) in dict {
                guard let f = info.field(named: k) else {
                    if ignoringUnknownKeys { continue }
                    throw Realm.Error(.invalidArgument, "'\(info.schema.className)' has no property '\(k)'")
                }
                try f.setAny(self, v)
            }
        } else if let array = value as? [Any] {
            let fields = info.fields.enumerated().filter { info.schema.allProperties[$0.offset].type != .linkingObjects }
            guard array.count <= fields.count else {
                throw Realm.Error(.invalidArgument, "\(array.count) values for the \(fields.count) properties of '\(info.schema.className)'")
            }
            for (i, v) in array.enumerated() {
                try fields[i].element.setAny(self, v)
            }
        } else if let other = value as? Object {
            let otherInfo = try ClassInfo.of(type(of: other))
            for f in info.fields {
                guard let g = otherInfo.field(named: f.name) else { continue }
                if info.schema[f.name]?.type == .linkingObjects { continue }
                try f.setAny(self, g.getAny(other))
            }
        } else {
            throw Realm.Error(.invalidArgument, "cannot create '\(info.schema.className)' from a \(type(of: value))")
        }
    }

    /// The class name used in the schema: the one `_realmObjectName()` gives, or else the Swift
    /// type name without module.
    open class func className() -> String { _realmObjectName() ?? String(describing: self) }

    /// The name the realm stores the class under instead of its Swift name, as RealmSwift's
    /// `_realmObjectName()`; `nil` (the default) keeps the Swift name. Classes that give the same
    /// name and are stored the same way are views of one class of the file.
    open class func _realmObjectName() -> String? { nil }

    /// Whether the default schema leaves this class out, as RealmSwift's `_realmIgnoreClass()`:
    /// `true` keeps a model class out of realms opened without `objectTypes` (naming it in
    /// `objectTypes` still uses it).
    open class func _realmIgnoreClass() -> Bool { false }

    /// The names the file stores properties under instead of their own (`["name": "full_name"]`),
    /// as RealmSwift's `propertiesMapping()`. Queries, key-value coding and key paths keep using
    /// the property names; ``Property/columnName`` tells the stored one. A key that names no
    /// persisted property makes the class's schema invalid.
    open class func propertiesMapping() -> [String: String] { [:] }

    /// The name of the class's primary key property, or `nil` when it has none or breaks a schema
    /// rule: the property declared with `@Persisted(primaryKey: true)`, or the one an override of
    /// this method names (RealmSwift's older way to declare it), which the schema then uses.
    open class func primaryKey() -> String? {
        if SchemaOverrides.isAsking { return nil }
        return (try? ClassInfo.of(self))?.schema.allProperties.first { $0.isPrimary }?.name
    }

    /// The names of the class's indexed properties: those declared with
    /// `@Persisted(indexed: true)` or named by an override of this method, and the primary key,
    /// which is always indexed.
    open class func indexedProperties() -> [String] {
        if SchemaOverrides.isAsking { return [] }
        return ((try? ClassInfo.of(self))?.schema.allProperties ?? []).filter(\.isIndexed).map(\.name)
    }

    /// The names of properties the realm does not store, as RealmSwift's `ignoredProperties()`.
    /// Empty by default. A `@Persisted` property an override names is not persisted: it is left
    /// out of the schema, the
    /// description, `init(value:)`, notifications and migrations, and stays a plain stored
    /// property of the instance, keeping what is written to it, managed or not; so does a `List`,
    /// `MutableSet`, `Map`, `RealmProperty`, `RealmOptional` or `LinkingObjects` declared without
    /// `@Persisted` (which is stored when not named here).
    open class func ignoredProperties() -> [String] { [] }

    /// The schema of the class as declared, or `nil` when the declaration breaks a schema rule
    /// (`objectSchema` of an unmanaged object of the class).
    public class func sharedSchema() -> ObjectSchema? { (try? ClassInfo.of(self))?.schema }

    /// The realm managing this object, nil when unmanaged.
    public var realm: Realm? { _binding.map { Realm(core: $0.core) } }

    /// True when the object was deleted, or its realm invalidated or closed.
    public var isInvalidated: Bool {
        guard let b = _binding else { return false }
        return !b.core.objectExists(b)
    }

    /// True for objects of a frozen realm (immutable, usable from any thread).
    public var isFrozen: Bool { _binding?.core.isFrozen ?? false }

    /// The schema of this object's class.
    public var objectSchema: ObjectSchema {
        (try? ClassInfo.of(type(of: self)).schema) ?? ObjectSchema(className: Self.className(), properties: [], isEmbedded: false)
    }

    /// The value of the persisted property `key` (links as objects, collections as collections);
    /// nil for an unknown key or a nil value. Numbers and booleans are `NSNumber`s, as in
    /// RealmSwift, so an `Int8` property reads both `as! Int8` and `as! Int`; an enum reads as its
    /// raw value, a mixed value as the value it holds. A ``DynamicObject`` reads a link as an object
    /// of the linked class, and a collection of links as a `List`, `MutableSet` or `Map` of
    /// ``DynamicObject``s, as RealmSwift's dynamic objects give them.
    ///
    /// A key that names no property stops with a `Strata:` message, as RealmSwift's key-value
    /// coding raises: a misspelt key never reads as "no value". A stored Swift property that is not
    /// persisted (an ignored property) reads as itself, as key-value coding reads it in RealmSwift.
    public func value(forKey key: String) -> Any? {
        if stopsOnUnknownKeys, objectSchema[key] == nil {
            guard let unpersisted = unpersistedValue(forKey: key) else {
                Stop.now(Realm.Error(.invalidArgument, "'\(objectSchema.className)' has no property '\(key)'"))
            }
            return KeyValueCodingNumbers.bridged(unpersisted.value)
        }
        return KeyValueCodingNumbers.bridged(typedValue(forKey: key))
    }

    /// The value of the stored Swift property `key` that no realm persists (a plain `var`, or a
    /// wrapper named in `ignoredProperties()`), found through `Mirror`; nil when there is none.
    private func unpersistedValue(forKey key: String) -> UnpersistedValue? {
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            for child in current.children where child.label == key || child.label == "_" + key {
                if let wrapper = child.value as? any _WrapperHeldValue { return UnpersistedValue(value: wrapper.heldValue) }
                return UnpersistedValue(value: Self.unwrapOptional(child.value))
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// Whether `value(forKey:)` stops for a key that names no property (see there).
    var stopsOnUnknownKeys: Bool { true }

    /// The stored object this managed accessor reads, nil for an unmanaged object.
    var storedRow: StoredRow? { _binding.map { StoredRow(table: $0.table, key: $0.key) } }

    /// A property found by `unpersistedValue(forKey:)`, whose value may be nil.
    private struct UnpersistedValue {
        let value: Any?
    }

    /// `Optional.none` inside an `Any` as nil, anything else as itself.
    private static func unwrapOptional(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first?.value
    }

    /// The value of the persisted property `key` with its Swift type (an `Int8` as an `Int8`), for
    /// Strata's own reads; nil for an unknown key or a nil value.
    func typedValue(forKey key: String) -> Any? {
        guard let info = try? ClassInfo.of(type(of: self)), let f = info.field(named: key) else { return nil }
        return f.getAny(self)
    }

    /// The value at a dotted path through links (`"owner.name"`), as key-value coding gives it:
    /// nil when a link on the way is nil. A step through something other than an object stops
    /// with a `Strata:` message, as Realm raises.
    ///
    /// - Parameter keyPath: persisted properties separated by dots.
    public func value(forKeyPath keyPath: String) -> Any? {
        guard let dot = keyPath.firstIndex(of: ".") else { return value(forKey: keyPath) }
        let head = String(keyPath[..<dot]), rest = String(keyPath[keyPath.index(after: dot)...])
        return linkedObject(head, on: keyPath)?.value(forKeyPath: rest)
    }

    /// Sets the persisted property at a dotted path through links (`"owner.name"`), with the
    /// rules of `setValue(_:forKey:)` on the object the path reaches; nothing happens when a link
    /// on the way is nil, as in key-value coding.
    ///
    /// - Parameters:
    ///   - value: the new value.
    ///   - keyPath: persisted properties separated by dots.
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        guard let dot = keyPath.firstIndex(of: ".") else { return setValue(value, forKey: keyPath) }
        let head = String(keyPath[..<dot]), rest = String(keyPath[keyPath.index(after: dot)...])
        linkedObject(head, on: keyPath)?.setValue(value, forKeyPath: rest)
    }

    /// The object the link `key` holds (nil when it holds none); any other value stops.
    private func linkedObject(_ key: String, on keyPath: String) -> Object? {
        let step = value(forKey: key)
        if step == nil { return nil }
        guard let object = step as? Object else {
            Stop.now("Strata: invalidArgument: '\(key)' in key path '\(keyPath)' of '\(Self.className())' is not a link to an object")
        }
        return object
    }

    /// Sets the persisted property `key`.
    ///
    /// Does not throw, as in RealmSwift. On a managed object, a failure (an unknown key, a
    /// value of the wrong type, a primary key change) fails the open write, which then throws
    /// it and rolls back (see `Realm.write`); outside a write transaction or on another thread
    /// it stops with a `Strata:` message. On an unmanaged object a failure stops likewise, as
    /// Realm's exception does. `setValueThrowing(_:forKey:)` throws instead.
    ///
    /// ```swift
    /// try realm.write { dog.setValue(4, forKey: "age") }
    /// ```
    public func setValue(_ value: Any?, forKey key: String) {
        if let binding = _binding {
            binding.core.deferringFailure("set '\(key)'") { try assignValue(value, forKey: key) }
            return
        }
        do {
            try assignValue(value, forKey: key)
        } catch {
            Stop.now(error)
        }
    }

    /// Like `setValue(_:forKey:)`, throwing its failure at once. On a managed object the
    /// write is failed all the same (see `Realm.addThrowing`).
    ///
    /// - Throws: `Realm.Error`: `.invalidArgument` for an unknown key or a value of the wrong
    ///   type, `.primaryKeyChange`, `.notInWriteTransaction` / `.wrongThread` for a managed
    ///   object used outside a write or from another thread.
    public func setValueThrowing(_ value: Any?, forKey key: String) throws {
        guard let binding = _binding else { return try assignValue(value, forKey: key) }
        try binding.core.failingWrite { try assignValue(value, forKey: key) }
    }

    private func assignValue(_ value: Any?, forKey key: String) throws(Realm.Error) {
        let info = try ClassInfo.of(type(of: self))
        guard let field = info.field(named: key) else {
            throw Realm.Error(.invalidArgument, "'\(info.schema.className)' has no property '\(key)'")
        }
        if info.schema[key]?.isPrimary == true, _binding != nil {
            throw Realm.Error(.primaryKeyChange, RealmSwiftMessages.primaryKeyChange(className: info.schema.className, property: key))
        }
        do { try field.setAny(self, value) } catch { throw RealmCore.realmError(Realm.Error.surfacing(error)) }
    }

    /// Dictionary-style access to persisted properties (`dog["name"]`); setting behaves as
    /// `setValue(_:forKey:)`.
    public subscript(key: String) -> Any? {
        get { value(forKey: key) }
        set { setValue(newValue, forKey: key) }
    }

    /// Whether both are the same stored object (same realm file, class and key), or the same instance.
    public func isSameObject(as other: Object?) -> Bool {
        guard let other else { return false }
        if self === other { return true }
        guard let a = _binding, let b = other._binding else { return false }
        // The stored class, not the Swift class: a ``DynamicObject`` and every Swift class stored
        // under one class name (`_realmObjectName()`) read the same objects.
        return a.key == b.key && a.table == b.table && a.core.fileIdentity == b.core.fileIdentity
    }

    /// A frozen (immutable, thread-safe) copy of this managed object at its realm's current
    /// version. Inside a write transaction, the copy holds the object as the write found it. An
    /// unmanaged, deleted or invalidated object, one the write created, or a storage failure
    /// stops with a `Strata:` message, as RealmSwift raises; `freezeThrowing()` throws instead.
    public func freeze() -> Self {
        guard let binding = _binding else { Stop.now(FreezeMisuse.unmanaged(self, "frozen")) }
        do { return try freezeThrowing() } catch { binding.core.readFailed(error) }
    }

    /// Like `freeze()`, throwing its failures.
    ///
    /// - Throws: `Realm.Error`: `.invalidState` for an object created in the current write
    ///   transaction, `.wrongThread`, a storage failure.
    public func freezeThrowing() throws -> Self {
        guard let binding = _binding else { throw FreezeMisuse.unmanaged(self, "frozen") }
        guard !binding.isStale else {
            let why = binding.wasDeleted ? "was deleted" : "was invalidated with its realm"
            throw Realm.Error(.objectInvalidated, "this '\(binding.info.schema.className)' object \(why) and cannot be frozen")
        }
        let frozen = try binding.core.frozenCore(holding: binding.table, key: binding.key)
        let exists = try Realm.Error.wrap {
            binding.table < frozen.snap.metas.count ? try frozen.snap.metas[binding.table].objects.contains(binding.key, in: try frozen.pages()) : false
        }
        guard exists else {
            throw Realm.Error(.objectInvalidated, "this '\(binding.info.schema.className)' object was deleted and cannot be frozen")
        }
        return frozen.materialize(Self.self, info: binding.info, table: binding.table, key: binding.key)
    }

    /// The live version of a frozen object in a realm on the calling thread; nil if it was
    /// deleted. An unmanaged object, or a failure to open that realm, stops with a `Strata:`
    /// message, as RealmSwift raises; `thawThrowing()` throws instead.
    public func thaw() -> Self? {
        guard let binding = _binding else { Stop.now(FreezeMisuse.unmanaged(self, "thawed")) }
        do { return try thawThrowing() } catch { binding.core.readFailed(error) }
    }

    /// Like `thaw()`, throwing its failures.
    ///
    /// - Throws: `Realm.Error`, as `Realm(configuration:)` does, or a storage failure.
    public func thawThrowing() throws -> Self? {
        guard let binding = _binding else { throw FreezeMisuse.unmanaged(self, "thawed") }
        guard binding.core.isFrozen else { return self }
        let live = try Realm(configuration: binding.core.configuration)
        return try live.core.surfacing { try live.core.objectIfExists(Self.self, info: binding.info, key: binding.key) }
    }

    /// The object's class and stored properties, in RealmSwift's format (`Dog {\n\tname = Rex;\n}`),
    /// linked objects and collections nested to a depth of 5 (Model/RealmDescription.swift).
    open var description: String { description(depth: RealmDescription.maxDepth) }

    /// The description with nesting limited to `depth` levels.
    func description(depth: Int) -> String {
        if _binding != nil, isInvalidated { return "[invalid object]" }
        guard (try? ClassInfo.of(type(of: self))) != nil || _binding != nil else { return "\(type(of: self))" }
        return RealmDescription.object(objectSchema, named: RealmDescription.swiftName(of: type(of: self)), depth: depth) { value(forKey: $0) }
    }
}

/// The common base of ``Object`` and ``EmbeddedObject`` as RealmSwift names it (there, the
/// Objective-C base class both derive from; here, ``Object`` itself).
public typealias ObjectBase = Object

/// An object owned by exactly one parent object: it has no primary key, cannot be added on its
/// own, and is deleted with its parent (or when the parent's link to it is replaced).
open class EmbeddedObject: Object {}

extension Object: _PersistableElement {
    public static var _strataShape: _PropertyShape {
        _PropertyShape(type: .object, objectType: self)
    }
    public static func _strataDefault() -> Self { Self() }

    public static func _strataRead(_ row: _RowView, _ column: _Column) -> Self? {
        if row.isNull(column) { return nil }
        let key = UInt64(littleEndian: row.load(column, as: UInt64.self))
        return row.core.linkTarget(Self.self, key: key)
    }

    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        // An embedded object set again on the property that owns it stays as it is (as in
        // RealmSwift); any other link to a managed embedded object is refused by keyForLinking.
        if let binding = _binding, binding.info.isEmbedded, binding.core === row.core, !row.isNew, !row.isNull(column),
           UInt64(littleEndian: row.currentLoad(column, as: UInt64.self)) == binding.key {
            return
        }
        if try row.core.embeddedInPlace.updatedEmbeddedInPlace(self, row, column) { return }
        let key = try row.core.adding.keyForLinking(self, from: row.table)
        try row.core.adding.replaceLink(&row, column, newKey: key, targetType: type(of: self))
    }

    public static func _strataStoreNull(_ row: inout _RowBuilder, _ column: _Column) throws {
        try row.core.adding.replaceLink(&row, column, newKey: nil, targetType: self)
    }

    public static func _strataDecodeElement(_ element: _ElementView) -> Self {
        let key = element.bytes.count >= 8 ? UInt64(littleEndian: element.bytes.loadUnaligned(as: UInt64.self)) : 0
        return element.core.linkTarget(Self.self, key: key) ?? Self()
    }

    public func _strataEncodeElement(_ out: inout _ElementBuffer) throws {
        let key = try out.core.adding.keyForLinking(self, from: out.ownerTable)
        withUnsafeBytes(of: key.littleEndian) { out.bytes.append(contentsOf: $0) }
    }

    public static func _strataFromAny(_ any: Any?) -> Self? {
        switch any {
        // A managed embedded object given as a value (create(_:value:), init(value:)) is copied:
        // it already has its owner, and the new object gets its own, as in RealmSwift.
        case let o as Self where o._binding != nil && o is EmbeddedObject: try? Self.make(value: o)
        // In `create(_:value:)` an unmanaged object is a value too: it is copied (UnmanagedValueCopies.swift).
        case let o as Self where o._binding == nil && UnmanagedValueCopies.current != nil: UnmanagedValueCopies.current?.copy(of: o)
        case let o as Self: o
        case let d as [String: Any]: Self(value: d)
        case let a as [Any]: Self(value: a)
        default: nil
        }
    }
}
