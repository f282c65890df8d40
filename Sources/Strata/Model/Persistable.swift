// The protocols that make a Swift type storable in a `@Persisted` property, and the scalar
// conformances (Bool, integers, Float, Double, String, Data, Date, UUID, ObjectId, Decimal128,
// optionals, `PersistableEnum`; `CustomPersistable` types map onto these in CustomPersistable.swift).
//
// Invariants:
// - Every conformance lives in this module: the requirements name public types whose members are
//   internal (`_RowView`, `_RowBuilder`, `_Column`), so other modules cannot add storage types
//   except through `PersistableEnum` (mapped onto its raw value here) and `CustomPersistable`
//   (mapped onto its persisted value).
// - Managed access is static dispatch on `Value` (a witness call), never an existential box: the
//   `@Persisted` subscript calls `Value._strataGet/_strataSet` with the object and the column.
// - A scalar's element encoding (lists, sets, map values, primary-key index) is its fixed slot
//   bytes, or the raw bytes for String/Data; an optional prefixes one tag byte (0 nil, 1 value).
import Foundation

/// The schema-relevant shape of a persisted Swift type.
public struct _PropertyShape: Sendable {
    var type: PropertyType
    var isOptional: Bool = false
    var collection: CollectionKind = .none
    /// The linked class, for links, collections of links and `LinkingObjects`.
    var objectType: Object.Type? = nil
}

/// A type a `@Persisted` property can hold. Conformances are provided by Strata; do not conform
/// your own types (use `PersistableEnum` for enums, `CustomPersistable` for other types).
public protocol _Persistable: _RealmSchemaDiscoverable, _HasPersistedType {
    static var _strataShape: _PropertyShape { get }
    /// The zero of the type: what a slot that holds nothing reads as, and what a dropped
    /// unmanaged value is replaced with.
    static func _strataDefault() -> Self
    /// The value of a fresh unmanaged property declared without an initial value (RealmSwift's:
    /// `_strataDefault()`, except a new ``ObjectId`` and a random `UUID`).
    static func _strataDeclarationDefault() -> Self
    /// Managed read of the property at `ordinal` of `obj` (whose realm is set).
    static func _strataGet(_ obj: Object, _ ordinal: Int) -> Self
    /// Managed write; traps with a message on misuse (outside a write, wrong thread), see `Object`.
    static func _strataSet(_ obj: Object, _ ordinal: Int, _ value: Self)
    /// Writes this value into a row being built or patched (collections: into their own tree).
    func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws
    /// This value as `Any?` for `value(forKey:)` (nil for a nil optional).
    var _strataAny: Any? { get }
    /// Converts a loosely typed value (from `init(value:)`, `create`, `setValue(_:forKey:)`);
    /// nil when it does not fit.
    static func _strataFromAny(_ any: Any?) -> Self?
    /// The element encoding of this value when it is a primary key (throws for other types).
    func _strataEncodeKey(_ out: inout _ElementBuffer) throws
    /// The managed value as stored, as `Any?` for queries (a custom mapping's persisted value,
    /// read without converting it; otherwise what `_strataAny` gives).
    static func _strataGetStored(_ obj: Object, _ ordinal: Int) -> Any?
    /// For a link: a probe object of the linked class, as the property's value, so that a key
    /// path read on a probe goes on through the link (KeyPathNames.swift); nil for other types.
    static func _strataProbeValue() -> Self?
    /// Whether a managed read keeps its accessor in the wrapper (collections:
    /// CollectionAccessorCache.swift).
    static var _strataCachesManagedAccessor: Bool { get }
    /// For a managed read of a type that keeps its accessor: nil while `kept` (the wrapper's) is
    /// still the property's accessor, otherwise a new one.
    static func _strataFreshAccessor(_ obj: Object, _ ordinal: Int, kept: Self) -> Self?
    /// Whether the type may have no declaration default (a ``FailableCustomPersistable`` type
    /// that cannot convert its persisted type's default): see MissingDefault.swift.
    static var _strataMayLackDefault: Bool { get }
    /// The declaration default, or nil when the type has none (see `_strataMayLackDefault`).
    static func _strataDeclarationDefaultIfAny() -> Self?
}

extension _Persistable {
    public static var _strataMayLackDefault: Bool { false }
    public static var _strataCachesManagedAccessor: Bool { false }
    public static func _strataFreshAccessor(_ obj: Object, _ ordinal: Int, kept: Self) -> Self? { _strataGet(obj, ordinal) }
    public static func _strataDeclarationDefaultIfAny() -> Self? { _strataDeclarationDefault() }
    public static func _strataDeclarationDefault() -> Self { _strataDefault() }
    public static func _strataProbeValue() -> Self? { nil }
    public static func _strataGetStored(_ obj: Object, _ ordinal: Int) -> Any? { _strataGet(obj, ordinal)._strataAny }
    public static func _strataFromAny(_ any: Any?) -> Self? { any as? Self }
    public func _strataEncodeKey(_ out: inout _ElementBuffer) throws {
        throw Realm.Error(.invalidSchema, "\(Self.self) cannot be a primary key")
    }
}

extension _StrataFixedScalar where Self: FixedWidthInteger {
    public static func _strataFromAny(_ any: Any?) -> Self? {
        switch any {
        case let v as Self: v
        case let v as Int: Self(exactly: v)
        case let v as Int64: Self(exactly: v)
        case let v as Int32: Self(exactly: v)
        case let v as Int16: Self(exactly: v)
        case let v as Int8: Self(exactly: v)
        default: nil
        }
    }
}

extension Double {
    public static func _strataFromAny(_ any: Any?) -> Double? {
        switch any {
        case let v as Double: v
        case let v as Float: Double(v)
        case let v as Int: Double(v)
        default: nil
        }
    }
}

extension Float {
    public static func _strataFromAny(_ any: Any?) -> Float? {
        switch any {
        case let v as Float: v
        case let v as Double: Float(v)
        case let v as Int: Float(v)
        default: nil
        }
    }
}

/// A type that can be a single row value, a collection element or a primary key.
public protocol _PersistableElement: _Persistable {
    /// nil when the slot is null.
    static func _strataRead(_ row: _RowView, _ column: _Column) -> Self?
    /// Clears the slot (nil optional). Links also drop their backlink.
    static func _strataStoreNull(_ row: inout _RowBuilder, _ column: _Column) throws
    static func _strataDecodeElement(_ element: _ElementView) -> Self
    func _strataEncodeElement(_ out: inout _ElementBuffer) throws
    /// Reads the slot as the wrapped value of an optional: nil when the slot is null or holds a
    /// value this type cannot represent (a failable custom mapping; others read as `_strataRead`).
    static func _strataReadInOptional(_ row: _RowView, _ column: _Column) -> Self?
    /// Decodes an element of an optional collection: nil when this type cannot represent it.
    static func _strataDecodeElementInOptional(_ element: _ElementView) -> Self?
    /// `_strataGetStored` of an optional property of this type.
    static func _strataGetStoredInOptional(_ obj: Object, _ ordinal: Int) -> Any?
}

/// The bytes of one collection element, valid only inside the tree callback.
public struct _ElementView {
    let bytes: UnsafeRawBufferPointer
    unowned(unsafe) let core: RealmCore
}

/// A collection element being encoded.
public struct _ElementBuffer {
    var bytes: [UInt8] = []
    unowned(unsafe) let core: RealmCore
    /// The owner of the collection (for backlinks of links), or table -1 for a key-only encoding.
    let ownerTable: Int
    let ownerKey: UInt64
    let ownerColumn: Int
}

extension _PersistableElement {
    public static func _strataGet(_ obj: Object, _ ordinal: Int) -> Self {
        guard let binding = obj._binding?.borrowed else { return _strataDefault() }
        let column = binding.column(forOrdinal: ordinal)
        return Unmanaged.passUnretained(binding.core)._withUnsafeGuaranteedRef { core in
            core.readColumn(binding, column) { row in Self._strataRead(row, column) }
        } ?? _strataDefault()
    }

    public static func _strataSet(_ obj: Object, _ ordinal: Int, _ value: Self) {
        guard let binding = obj._binding else { return }
        let column = binding.info.column(forOrdinal: ordinal)
        binding.core.updateColumn(binding, column) { row in try value._strataStore(&row, column) }
    }

    public static func _strataStoreNull(_ row: inout _RowBuilder, _ column: _Column) throws {
        row.setNull(column, true)
    }

    public var _strataAny: Any? { self }

    public func _strataEncodeKey(_ out: inout _ElementBuffer) throws { try _strataEncodeElement(&out) }

    public static func _strataReadInOptional(_ row: _RowView, _ column: _Column) -> Self? { _strataRead(row, column) }
    public static func _strataDecodeElementInOptional(_ element: _ElementView) -> Self? { _strataDecodeElement(element) }
    public static func _strataGetStoredInOptional(_ obj: Object, _ ordinal: Int) -> Any? {
        Optional<Self>._strataGet(obj, ordinal)._strataAny
    }
}

// MARK: - Optional

extension Optional: _Persistable where Wrapped: _PersistableElement {
    public static var _strataShape: _PropertyShape {
        var s = Wrapped._strataShape
        s.isOptional = true
        return s
    }
    public static func _strataDefault() -> Self { nil }
    public static func _strataGetStored(_ obj: Object, _ ordinal: Int) -> Any? {
        Wrapped._strataGetStoredInOptional(obj, ordinal)
    }
    public static func _strataProbeValue() -> Self? {
        guard let type = Wrapped.self as? Object.Type else { return nil }
        let probe = type.init()
        probe._isProbe = true
        guard let value = probe as? Wrapped else { return nil }
        return .some(.some(value))
    }
    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        switch self {
        case .none: try Wrapped._strataStoreNull(&row, column)
        case .some(let v): try v._strataStore(&row, column)
        }
    }
    public var _strataAny: Any? {
        switch self {
        case .none: nil
        case .some(let v): v._strataAny
        }
    }
    public static func _strataFromAny(_ any: Any?) -> Self? {
        // nil, NSNull, and a nil of any optional type boxed in `Any` (`Int?.none as Any`).
        if isNoValue(any) { return .some(nil) }
        guard let w = Wrapped._strataFromAny(any) else { return nil }
        return .some(w)
    }
}

extension Optional: _PersistableElement where Wrapped: _PersistableElement {
    public static func _strataRead(_ row: _RowView, _ column: _Column) -> Self? {
        if row.isNull(column) { return .some(nil) }
        return .some(Wrapped._strataReadInOptional(row, column))
    }
    public static func _strataDecodeElement(_ element: _ElementView) -> Self {
        guard let tag = element.bytes.first, tag == 1 else { return nil }
        return Wrapped._strataDecodeElementInOptional(_ElementView(bytes: UnsafeRawBufferPointer(rebasing: element.bytes.dropFirst()), core: element.core))
    }
    public func _strataEncodeElement(_ out: inout _ElementBuffer) throws {
        switch self {
        case .none: out.bytes.append(0)
        case .some(let v):
            out.bytes.append(1)
            try v._strataEncodeElement(&out)
        }
    }
}

// MARK: - Fixed-width scalars

/// Shared implementation for scalars stored as one little-endian integer slot.
public protocol _StrataFixedScalar: _PersistableElement {
    associatedtype _Bits: FixedWidthInteger
    static var _strataType: PropertyType { get }
    var _strataBits: _Bits { get }
    init(_strataBits: _Bits)
}

extension _StrataFixedScalar {
    public static var _strataShape: _PropertyShape { _PropertyShape(type: _strataType) }
    public static func _strataRead(_ row: _RowView, _ column: _Column) -> Self? {
        Self(_strataBits: _Bits(littleEndian: row.load(column, as: _Bits.self)))
    }
    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        row.store(_strataBits, column)
    }
    public static func _strataDecodeElement(_ element: _ElementView) -> Self {
        guard element.bytes.count >= MemoryLayout<_Bits>.size else { return Self(_strataBits: 0) }
        return Self(_strataBits: _Bits(littleEndian: element.bytes.loadUnaligned(as: _Bits.self)))
    }
    public func _strataEncodeElement(_ out: inout _ElementBuffer) throws {
        withUnsafeBytes(of: _strataBits.littleEndian) { out.bytes.append(contentsOf: $0) }
    }
}

extension Bool: _StrataFixedScalar {
    public static var _strataType: PropertyType { .bool }
    public static func _strataDefault() -> Bool { false }
    public var _strataBits: UInt8 { self ? 1 : 0 }
    public init(_strataBits: UInt8) { self = _strataBits != 0 }
}

extension Int: _StrataFixedScalar {
    public static var _strataType: PropertyType { .int }
    public static func _strataDefault() -> Int { 0 }
    public var _strataBits: Int64 { Int64(self) }
    public init(_strataBits: Int64) { self = Int(truncatingIfNeeded: _strataBits) }
}

extension Int8: _StrataFixedScalar {
    public static var _strataType: PropertyType { .int }
    public static func _strataDefault() -> Int8 { 0 }
    public var _strataBits: Int64 { Int64(self) }
    public init(_strataBits: Int64) { self = Int8(truncatingIfNeeded: _strataBits) }
}

extension Int16: _StrataFixedScalar {
    public static var _strataType: PropertyType { .int }
    public static func _strataDefault() -> Int16 { 0 }
    public var _strataBits: Int64 { Int64(self) }
    public init(_strataBits: Int64) { self = Int16(truncatingIfNeeded: _strataBits) }
}

extension Int32: _StrataFixedScalar {
    public static var _strataType: PropertyType { .int }
    public static func _strataDefault() -> Int32 { 0 }
    public var _strataBits: Int64 { Int64(self) }
    public init(_strataBits: Int64) { self = Int32(truncatingIfNeeded: _strataBits) }
}

extension Int64: _StrataFixedScalar {
    public static var _strataType: PropertyType { .int }
    public static func _strataDefault() -> Int64 { 0 }
    public var _strataBits: Int64 { self }
    public init(_strataBits: Int64) { self = _strataBits }
}

extension Float: _StrataFixedScalar {
    public static var _strataType: PropertyType { .float }
    public static func _strataDefault() -> Float { 0 }
    public var _strataBits: UInt32 { bitPattern }
    public init(_strataBits: UInt32) { self = Float(bitPattern: _strataBits) }
}

extension Double: _StrataFixedScalar {
    public static var _strataType: PropertyType { .double }
    public static func _strataDefault() -> Double { 0 }
    public var _strataBits: UInt64 { bitPattern }
    public init(_strataBits: UInt64) { self = Double(bitPattern: _strataBits) }
}

extension Date: _StrataFixedScalar {
    public static var _strataType: PropertyType { .date }
    public static func _strataDefault() -> Date { Date(timeIntervalSinceReferenceDate: 0) }
    public var _strataBits: UInt64 { timeIntervalSinceReferenceDate.bitPattern }
    public init(_strataBits: UInt64) { self = Date(timeIntervalSinceReferenceDate: Double(bitPattern: _strataBits)) }
}

// MARK: - Variable-size scalars

extension String: _PersistableElement {
    public static var _strataShape: _PropertyShape { _PropertyShape(type: .string) }
    public static func _strataDefault() -> String { "" }
    public static func _strataRead(_ row: _RowView, _ column: _Column) -> String? {
        String(decoding: row.variable(column), as: UTF8.self)
    }
    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        var s = self
        try s.withUTF8 { u in
            guard u.count <= SchemaLimits.maxValueBytes else {
                throw Realm.Error(.valueTooLarge, "a String of \(u.count) bytes exceeds the 16 MB limit")
            }
            row.storeVariable(UnsafeRawBufferPointer(u), column)
        }
    }
    public static func _strataDecodeElement(_ element: _ElementView) -> String {
        String(decoding: element.bytes, as: UTF8.self)
    }
    public func _strataEncodeElement(_ out: inout _ElementBuffer) throws {
        out.bytes.append(contentsOf: utf8)
    }
}

extension Data: _PersistableElement {
    public static var _strataShape: _PropertyShape { _PropertyShape(type: .data) }
    public static func _strataDefault() -> Data { Data() }
    public static func _strataRead(_ row: _RowView, _ column: _Column) -> Data? {
        Data(row.variable(column))
    }
    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        guard count <= SchemaLimits.maxValueBytes else {
            throw Realm.Error(.valueTooLarge, "a Data of \(count) bytes exceeds the 16 MB limit")
        }
        withUnsafeBytes { row.storeVariable($0, column) }
    }
    public static func _strataDecodeElement(_ element: _ElementView) -> Data { Data(element.bytes) }
    public func _strataEncodeElement(_ out: inout _ElementBuffer) throws { out.bytes.append(contentsOf: self) }
}

extension UUID: _PersistableElement {
    public static var _strataShape: _PropertyShape { _PropertyShape(type: .uuid) }
    public static func _strataDefault() -> UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    static func fromBytes(_ b: UnsafeRawBufferPointer) -> UUID {
        guard b.count >= 16 else { return _strataDefault() }
        var u = UUID().uuid
        withUnsafeMutableBytes(of: &u) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: b[b.startIndex..<(b.startIndex + 16)])) }
        return UUID(uuid: u)
    }
    public static func _strataRead(_ row: _RowView, _ column: _Column) -> UUID? {
        fromBytes(row.fixedBytes(column, count: 16))
    }
    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        withUnsafeBytes(of: uuid) { row.storeBytes($0, column) }
    }
    public static func _strataDecodeElement(_ element: _ElementView) -> UUID { fromBytes(element.bytes) }
    public func _strataEncodeElement(_ out: inout _ElementBuffer) throws {
        withUnsafeBytes(of: uuid) { out.bytes.append(contentsOf: $0) }
    }
}

// MARK: - Enums

/// An enum a `@Persisted` property can hold, stored by its raw value.
///
/// Any raw type a property can hold (`Int`, `String`, …) works. A stored raw value that matches
/// no case (for example one written by a later version of the app) reads as the first case.
///
/// ```swift
/// enum Size: String, PersistableEnum { case small, medium, large }
///
/// final class Shirt: Object {
///     @Persisted var size = Size.medium
/// }
/// let large = realm.objects(Shirt.self).where { $0.size == .large }
/// ```
public protocol PersistableEnum: RealmCollectionValue, RawRepresentable, CaseIterable
where RawValue: _PersistableElement, PersistedType == RawValue {}

extension PersistableEnum {
    public static var _strataShape: _PropertyShape { RawValue._strataShape }
    public static func _strataDefault() -> Self {
        allCases.first ?? Self(rawValue: RawValue._strataDefault())!
    }
    public static func _strataRead(_ row: _RowView, _ column: _Column) -> Self? {
        guard let raw = RawValue._strataRead(row, column) else { return nil }
        return Self(rawValue: raw) ?? _strataDefault()
    }
    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        try rawValue._strataStore(&row, column)
    }
    public static func _strataDecodeElement(_ element: _ElementView) -> Self {
        Self(rawValue: RawValue._strataDecodeElement(element)) ?? _strataDefault()
    }
    public func _strataEncodeElement(_ out: inout _ElementBuffer) throws {
        try rawValue._strataEncodeElement(&out)
    }
    public var _strataAny: Any? { rawValue }
    /// Accepts the enum or its raw value (as Realm's `init(value:)` does).
    public static func _strataFromAny(_ any: Any?) -> Self? {
        if let v = any as? Self { return v }
        return RawValue._strataFromAny(any).flatMap { Self(rawValue: $0) }
    }
}

/// Whether `any` is no value: nil, `NSNull`, or a nil of any optional type boxed in `Any` (an
/// element of `[Any?]` read back as `Any`).
func isNoValue(_ any: Any?) -> Bool {
    guard let any else { return true }
    return any is NSNull || (any as? _BoxedOptional)?._isNil == true
}

/// Recognises an optional boxed in `Any`, whatever its wrapped type.
protocol _BoxedOptional {
    var _isNil: Bool { get }
    /// The wrapped value, nil for none.
    var _unwrappedAny: Any? { get }
}

extension Optional: _BoxedOptional {
    var _isNil: Bool { self == nil }
    var _unwrappedAny: Any? {
        switch self {
        case .some(let wrapped): wrapped
        case .none: nil
        }
    }
}

// The declaration defaults RealmSwift gives these types: a property declared without an initial
// value starts as a new value for each object, not as the zero of the type; a `Date` starts at
// the time the object is made (a model's `var created: Date` is its creation time), read from the
// system's coarse clock: to within its tick (a few milliseconds), because `Date()` cost about 5%
// of a bulk insert of objects whose model sets the date at once (most do).
extension Date {
    public static func _strataDeclarationDefault() -> Date {
        // Never read for an object bound to a stored row (ManagedInstantiation.swift).
        if ManagedInstantiation.isActive { return Date(timeIntervalSinceReferenceDate: 0) }
        var now = timespec()
        guard clock_gettime(CLOCK_REALTIME_COARSE, &now) == 0 else { return Date() }
        return Date(timeIntervalSince1970: Double(now.tv_sec) + Double(now.tv_nsec) / 1_000_000_000)
    }
}
extension ObjectId {
    public static func _strataDeclarationDefault() -> ObjectId {
        ManagedInstantiation.isActive ? ObjectId._strataDefault() : .generate()
    }
}
extension UUID {
    public static func _strataDeclarationDefault() -> UUID {
        ManagedInstantiation.isActive ? UUID._strataDefault() : UUID()
    }
}
extension _CustomPersistable {
    public static func _strataDeclarationDefault() -> Self { converted(PersistedType._strataDeclarationDefault()) }
}
