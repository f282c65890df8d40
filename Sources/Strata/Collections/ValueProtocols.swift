// Realm's value protocols — `MinMaxType`, `AddableType`, `SortableType`,
// `_RealmCollectionValueInsideOptional` — and the aggregates of collections of values they
// enable: `min()`, `max()`, `sum()`, `average()` on lists, sets, maps and `AnyRealmCollection`s of
// numbers, dates, decimals and `AnyRealmValue`s, optional elements included.
//
// Invariants:
// - The conformances are RealmSwift's: MinMaxType for the integers, Float, Double, Date,
//   Decimal128 and AnyRealmValue; AddableType for the same minus Date; SortableType for those
//   plus String and Data; each for an Optional of a conforming type.
// - Aggregates skip nil elements (and `AnyRealmValue`s that are not numbers) as Realm's do: an
//   empty or all-nil collection has no min, max or average (nil) and sums to zero.
// - Integers sum exactly, in 128 bits (ExactSum.swift), Float and Double in Double, Decimal128
//   in Decimal; an AnyRealmValue sum is Decimal128 (Realm sums mixed values as decimals). An
//   average is the exact sum over the count, given as the requested AddableType. An integer sum
//   that does not fit the requested type stops with a "Strata: valueTooLarge" message (the
//   `checkedSum` forms throw it instead), never wraps or rounds.
import Foundation

/// A sum (or mean) on its way to the type the caller asked for. Public only so that the
/// protocols' requirements can name it.
public enum _StrataNumber: Sendable {
    /// An integer, or an exact sum of integers: 128 bits hold the sum of any number of 64-bit
    /// values a realm can store (it would take 2^64 of them to overflow).
    case int(Int128)
    case double(Double)
    case decimal(Decimal)

    static func + (a: _StrataNumber, b: _StrataNumber) -> _StrataNumber {
        switch (a, b) {
        case let (.int(x), .int(y)): return .int(x + y)
        case (.decimal, _), (_, .decimal): return .decimal(a.decimal + b.decimal)
        default: return .double(a.double + b.double)
        }
    }

    var double: Double {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .decimal(let d): return NSDecimalNumber(decimal: d).doubleValue
        }
    }

    var decimal: Decimal {
        switch self {
        case .int(let i): return ExactDecimal.decimal(i)
        case .double(let d): return BinaryDecimal.decimal(fromBinary: d)
        case .decimal(let d): return d
        }
    }

    /// The mean of `count` values whose sum this is: integers divide as doubles (the exact sum
    /// divided, so a mean of large values never overflows).
    func divided(by count: Int) -> _StrataNumber {
        switch self {
        case .int, .double: return .double(double / Double(count))
        case .decimal(let d): return .decimal(d / Decimal(count))
        }
    }

    /// The number as the integer type `I`: an integer exactly (nil when it does not fit), a mean
    /// truncated toward zero (clamped to `I`'s range), a decimal as Foundation converts it.
    func integer<I: FixedWidthInteger>(_: I.Type) -> I? {
        switch self {
        case .int(let i): return I(exactly: i)
        case .double(let d): return d.isFinite ? I(exactly: d.rounded(.towardZero)) ?? (d < 0 ? .min : .max) : 0
        case .decimal(let d): return I(clamping: NSDecimalNumber(decimal: d).int64Value)
        }
    }

    /// The number as the integer type `I`, stopping with a "Strata:" message when an integer sum
    /// does not fit (for the aggregates that cannot throw; `checkedSum` throws instead).
    func integerOrStop<I: FixedWidthInteger>(_ type: I.Type) -> I {
        guard let value = integer(type) else { Stop.now(ExactSum.overflow(self, as: type)) }
        return value
    }
}

extension _StrataNumber {
    /// The number as Foundation boxes it; an integer sum beyond 64 bits as the exact
    /// `NSDecimalNumber` (an integer NSNumber cannot hold it).
    var boxed: NSNumber {
        switch self {
        case .int(let i): Int64(exactly: i).map { NSNumber(value: $0) } ?? NSDecimalNumber(decimal: ExactDecimal.decimal(i))
        case .double(let d): NSNumber(value: d)
        case .decimal(let d): NSDecimalNumber(decimal: d)
        }
    }
}

/// Types whose collections have `min()` and `max()`.
public protocol MinMaxType {
    /// Nil for a value min and max skip (a nil optional, an AnyRealmValue that is not a number).
    var _strataOrdered: _StrataNumberOrDate? { get }
}

/// A value min and max compare: a number or a date.
public enum _StrataNumberOrDate: Sendable {
    case number(_StrataNumber)
    case date(Date)

    func precedes(_ other: _StrataNumberOrDate) -> Bool {
        switch (self, other) {
        case let (.date(a), .date(b)): return a < b
        case let (.number(.int(a)), .number(.int(b))): return a < b
        case let (.number(a), .number(b)):
            if case .decimal = a { return a.decimal < b.decimal }
            if case .decimal = b { return a.decimal < b.decimal }
            return a.double < b.double
        default: return false
        }
    }
}

/// Types whose collections have `sum()` and `average()`.
public protocol AddableType {
    /// Nil for a value sums skip (a nil optional, an AnyRealmValue that is not a number).
    var _strataAddend: _StrataNumber? { get }
    /// The requested type's form of a sum or mean (stopping when an integer sum does not fit).
    static func _strataFrom(_ number: _StrataNumber) -> Self
    /// The requested type's form of a sum or mean, or nil when an integer sum does not fit.
    static func _strataExactly(_ number: _StrataNumber) -> Self?
}

extension AddableType {
    /// Types that hold every sum (floating point, decimals) convert as `_strataFrom` does.
    public static func _strataExactly(_ number: _StrataNumber) -> Self? { _strataFrom(number) }
}

/// Types whose collections can be sorted and made distinct by value in RealmSwift
/// (`sorted(ascending:)`, `distinct()`).
public protocol SortableType {}

/// The types a Realm collection can hold inside an `Optional` (every value type but `Object`
/// subclasses, which a collection of links holds non-optional).
public protocol _RealmCollectionValueInsideOptional: RealmCollectionValue {}

// MARK: - Conformances

extension Int: MinMaxType, AddableType, SortableType, _RealmCollectionValueInsideOptional {
    public var _strataOrdered: _StrataNumberOrDate? { .number(.int(Int128(self))) }
    public var _strataAddend: _StrataNumber? { .int(Int128(self)) }
    public static func _strataFrom(_ n: _StrataNumber) -> Int { n.integerOrStop(Int.self) }
    public static func _strataExactly(_ n: _StrataNumber) -> Int? { n.integer(Int.self) }
}
extension Int8: MinMaxType, AddableType, SortableType, _RealmCollectionValueInsideOptional {
    public var _strataOrdered: _StrataNumberOrDate? { .number(.int(Int128(self))) }
    public var _strataAddend: _StrataNumber? { .int(Int128(self)) }
    public static func _strataFrom(_ n: _StrataNumber) -> Int8 { n.integerOrStop(Int8.self) }
    public static func _strataExactly(_ n: _StrataNumber) -> Int8? { n.integer(Int8.self) }
}
extension Int16: MinMaxType, AddableType, SortableType, _RealmCollectionValueInsideOptional {
    public var _strataOrdered: _StrataNumberOrDate? { .number(.int(Int128(self))) }
    public var _strataAddend: _StrataNumber? { .int(Int128(self)) }
    public static func _strataFrom(_ n: _StrataNumber) -> Int16 { n.integerOrStop(Int16.self) }
    public static func _strataExactly(_ n: _StrataNumber) -> Int16? { n.integer(Int16.self) }
}
extension Int32: MinMaxType, AddableType, SortableType, _RealmCollectionValueInsideOptional {
    public var _strataOrdered: _StrataNumberOrDate? { .number(.int(Int128(self))) }
    public var _strataAddend: _StrataNumber? { .int(Int128(self)) }
    public static func _strataFrom(_ n: _StrataNumber) -> Int32 { n.integerOrStop(Int32.self) }
    public static func _strataExactly(_ n: _StrataNumber) -> Int32? { n.integer(Int32.self) }
}
extension Int64: MinMaxType, AddableType, SortableType, _RealmCollectionValueInsideOptional {
    public var _strataOrdered: _StrataNumberOrDate? { .number(.int(Int128(self))) }
    public var _strataAddend: _StrataNumber? { .int(Int128(self)) }
    public static func _strataFrom(_ n: _StrataNumber) -> Int64 { n.integerOrStop(Int64.self) }
    public static func _strataExactly(_ n: _StrataNumber) -> Int64? { n.integer(Int64.self) }
}
extension Float: MinMaxType, AddableType, SortableType, _RealmCollectionValueInsideOptional {
    public var _strataOrdered: _StrataNumberOrDate? { isNaN ? nil : .number(.double(Double(self))) }
    public var _strataAddend: _StrataNumber? { .double(Double(self)) }
    public static func _strataFrom(_ n: _StrataNumber) -> Float { Float(n.double) }
}
extension Double: MinMaxType, AddableType, SortableType, _RealmCollectionValueInsideOptional {
    public var _strataOrdered: _StrataNumberOrDate? { isNaN ? nil : .number(.double(self)) }
    public var _strataAddend: _StrataNumber? { .double(self) }
    public static func _strataFrom(_ n: _StrataNumber) -> Double { n.double }
}
extension Decimal128: MinMaxType, AddableType, SortableType, _RealmCollectionValueInsideOptional {
    public var _strataOrdered: _StrataNumberOrDate? { value.isNaN ? nil : .number(.decimal(value)) }
    public var _strataAddend: _StrataNumber? { .decimal(value) }
    public static func _strataFrom(_ n: _StrataNumber) -> Decimal128 { Decimal128(n.decimal) }
}
extension Date: MinMaxType, SortableType, _RealmCollectionValueInsideOptional {
    public var _strataOrdered: _StrataNumberOrDate? { .date(self) }
}
extension AnyRealmValue: MinMaxType, AddableType, SortableType {
    public var _strataOrdered: _StrataNumberOrDate? {
        if case .date(let d) = self { return .date(d) }
        return _strataAddend.map { .number($0) }
    }
    public var _strataAddend: _StrataNumber? {
        switch self {
        case .int(let i): return .int(Int128(i))
        case .float(let f): return f.isNaN ? nil : .double(Double(f))
        case .double(let d): return d.isNaN ? nil : .double(d)
        case .decimal128(let d): return d.value.isNaN ? nil : .decimal(d.value)
        default: return nil
        }
    }
    public static func _strataFrom(_ n: _StrataNumber) -> AnyRealmValue { .decimal128(Decimal128(n.decimal)) }
}
extension String: SortableType, _RealmCollectionValueInsideOptional {}
extension Data: SortableType, _RealmCollectionValueInsideOptional {}
extension Bool: _RealmCollectionValueInsideOptional {}
extension UUID: _RealmCollectionValueInsideOptional {}
extension ObjectId: _RealmCollectionValueInsideOptional {}

extension Optional: MinMaxType where Wrapped: MinMaxType {
    public var _strataOrdered: _StrataNumberOrDate? { self?._strataOrdered }
}
extension Optional: AddableType where Wrapped: AddableType {
    public var _strataAddend: _StrataNumber? { self?._strataAddend }
    public static func _strataFrom(_ n: _StrataNumber) -> Wrapped? { Wrapped._strataFrom(n) }
    public static func _strataExactly(_ n: _StrataNumber) -> Wrapped?? { Wrapped._strataExactly(n).map { .some($0) } }
}
extension Optional: SortableType where Wrapped: SortableType {}

// MARK: - Aggregating a sequence of values

/// Aggregates over the stored forms of values (`PersistedType`), so that an enum aggregates its
/// raw values and a custom type its persisted ones, as the engine's queries do.
enum ValueAggregate {
    static func extreme<S: Sequence>(_ values: S, smallest: Bool) -> S.Element?
    where S.Element: _HasPersistedType, S.Element.PersistedType: MinMaxType {
        var best: (S.Element, _StrataNumberOrDate)? = nil
        for v in values {
            guard let key = v._strataPersistedValue._strataOrdered else { continue }
            if let (_, b) = best {
                if smallest ? key.precedes(b) : b.precedes(key) { best = (v, key) }
            } else {
                best = (v, key)
            }
        }
        return best?.0
    }

    static func sum<S: Sequence>(_ values: S) -> (total: _StrataNumber, count: Int)
    where S.Element: _HasPersistedType, S.Element.PersistedType: AddableType {
        var total: _StrataNumber? = nil, count = 0
        for v in values {
            guard let n = v._strataPersistedValue._strataAddend else { continue }
            total = total.map { $0 + n } ?? n
            count += 1
        }
        return (total ?? .int(0), count)
    }

    /// The sum of a collection of `AnyRealmValue`s without a number, where RealmSwift gives the
    /// integer 0: an unmanaged list or set (whose values it adds as Foundation numbers) and any
    /// map; a managed list or set sums in its engine, as a Decimal128. `nil` for any other type.
    static func mixedIntegerZeroSum<T>(as: T.Type) -> T? { AnyRealmValue.int(0) as? T }

    /// A sum or mean as `T`, through `T`'s stored form.
    static func value<T: _HasPersistedType>(_ number: _StrataNumber, as: T.Type) -> T where T.PersistedType: AddableType {
        T._strataConverted(T.PersistedType._strataFrom(number))
    }

    static func average<S: Sequence, T: _HasPersistedType>(_ values: S) -> T?
    where S.Element: _HasPersistedType, S.Element.PersistedType: AddableType, T.PersistedType: AddableType {
        let (total, count) = sum(values)
        return count == 0 ? nil : value(total.divided(by: count), as: T.self)
    }
}

/// Optionals, for the aggregates that return the wrapped type (`min()` of `[Int?]` is an `Int?`).
public protocol _StrataOptional {
    associatedtype Wrapped
    var _strataWrapped: Wrapped? { get }
}
extension Optional: _StrataOptional {
    public var _strataWrapped: Wrapped? { self }
}

extension _StrataOptional {
    /// The wrapped type, for code that has only the optional's metatype.
    static var _strataWrappedType: Any.Type { Wrapped.self }
}

// MARK: - The aggregates on collections

extension RealmCollection where Element.PersistedType: MinMaxType {
    /// The smallest value (nil elements skipped), or `nil` when there is none.
    public func min() -> Element? { ValueAggregate.extreme(self, smallest: true) }
    /// The largest value (nil elements skipped), or `nil` when there is none.
    public func max() -> Element? { ValueAggregate.extreme(self, smallest: false) }
}

extension RealmCollection where Element: _StrataOptional, Element.PersistedType: MinMaxType {
    /// The smallest non-nil value, or `nil` when there is none.
    public func min() -> Element.Wrapped? { ValueAggregate.extreme(self, smallest: true)?._strataWrapped }
    /// The largest non-nil value, or `nil` when there is none.
    public func max() -> Element.Wrapped? { ValueAggregate.extreme(self, smallest: false)?._strataWrapped }
}

extension RealmCollection where Element.PersistedType: AddableType {
    /// The sum of the values (nil elements skipped); zero when there is none.
    ///
    /// A sum of `AnyRealmValue`s is a `.decimal128`, but for an unmanaged collection with no
    /// number in it, which sums to `.int(0)`, as in RealmSwift.
    public func sum() -> Element {
        let (total, count) = ValueAggregate.sum(self)
        if count == 0, realm == nil, let zero = ValueAggregate.mixedIntegerZeroSum(as: Element.self) { return zero }
        return ValueAggregate.value(total, as: Element.self)
    }
    /// The mean of the values (nil elements skipped) as `T`, or `nil` when there is none.
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType { ValueAggregate.average(self) }
}

extension RealmCollection where Element: _StrataOptional, Element.PersistedType: AddableType, Element.Wrapped: _HasPersistedType, Element.Wrapped.PersistedType: AddableType {
    /// The sum of the non-nil values; zero when there is none.
    public func sum() -> Element.Wrapped { ValueAggregate.value(ValueAggregate.sum(self).total, as: Element.Wrapped.self) }
}

extension Map where Value: _HasPersistedType, Value.PersistedType: MinMaxType {
    /// The smallest value (nil values skipped), or `nil` when there is none.
    public func min() -> Value? { ValueAggregate.extreme(values, smallest: true) }
    /// The largest value (nil values skipped), or `nil` when there is none.
    public func max() -> Value? { ValueAggregate.extreme(values, smallest: false) }
}

extension Map where Value: _StrataOptional & _HasPersistedType, Value.PersistedType: MinMaxType {
    /// The smallest non-nil value, or `nil` when there is none.
    public func min() -> Value.Wrapped? { ValueAggregate.extreme(values, smallest: true)?._strataWrapped }
    /// The largest non-nil value, or `nil` when there is none.
    public func max() -> Value.Wrapped? { ValueAggregate.extreme(values, smallest: false)?._strataWrapped }
}

extension Map where Value: _HasPersistedType, Value.PersistedType: AddableType {
    /// The sum of the values (nil values skipped); zero when there is none.
    ///
    /// A sum of `AnyRealmValue`s is a `.decimal128`, but for a map with no number in it, managed
    /// or not, which sums to `.int(0)`, as in RealmSwift.
    public func sum() -> Value {
        let (total, count) = ValueAggregate.sum(values)
        if count == 0, let zero = ValueAggregate.mixedIntegerZeroSum(as: Value.self) { return zero }
        return ValueAggregate.value(total, as: Value.self)
    }
    /// The mean of the values (nil values skipped) as `T`, or `nil` when there is none.
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType { ValueAggregate.average(values) }
}

extension Map where Value: _StrataOptional & _HasPersistedType, Value.PersistedType: AddableType, Value.Wrapped: _HasPersistedType, Value.Wrapped.PersistedType: AddableType {
    /// The sum of the non-nil values; zero when there is none.
    public func sum() -> Value.Wrapped { ValueAggregate.value(ValueAggregate.sum(values).total, as: Value.Wrapped.self) }
}
