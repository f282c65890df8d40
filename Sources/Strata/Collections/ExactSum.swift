// Exact integer sums, for every sum and mean of integers: a property of objects (Results, List,
// MutableSet, Map, LinkingObjects, by name or key path), a collection of values, `@sum`/`@avg`
// in KVC and in queries.
//
// Invariants:
// - Integers add in 128 bits. A realm holds 64-bit integers, and 2^64 of them would be needed to
//   overflow 128 bits, so the total is the exact sum whatever the order of the values (a running
//   64-bit total would overflow on [Int.max, 1, Int.min] although the sum, 1, fits).
// - A total that does not fit the type asked for is `Realm.Error(.valueTooLarge)` naming the sum
//   and the type: thrown by `checkedSum`, a "Strata:" stop from the sums that cannot throw
//   (RealmSwift's signatures do not throw), never a wrapped or rounded number.
// - A mean divides the exact sum, so it never overflows.
import Foundation

enum ExactSum {
    /// The sum of the values `forEach` hands to its body, as `T`: integers added in 128 bits,
    /// other types with their own `+`.
    /// - Throws: `.valueTooLarge` when an integer sum does not fit in `T`; `what` names the sum.
    static func total<T: AdditiveArithmetic>(
        _ type: T.Type, of what: @autoclosure () -> String, _ forEach: ((T) -> Void) -> Void
    ) throws(Realm.Error) -> T {
        guard let integerType = T.self as? any FixedWidthInteger.Type else {
            var total = T.zero
            forEach { total += $0 }
            return total
        }
        var total: Int128 = 0
        forEach { value in
            if let integer = value as? any BinaryInteger { total += Int128(integer) }
        }
        guard let fitted = fit(total, integerType) as? T else {
            throw overflowError(of: what(), total: total, as: T.self)
        }
        return fitted
    }

    /// `total(_:of:_:)` for the aggregates that cannot throw: an overflow stops with its message.
    static func totalOrStop<T: AdditiveArithmetic>(
        _ type: T.Type, of what: @autoclosure () -> String, _ forEach: ((T) -> Void) -> Void
    ) -> T {
        do { return try total(type, of: what(), forEach) } catch { Stop.now(error) }
    }

    private static func fit<I: FixedWidthInteger>(_ total: Int128, _: I.Type) -> I? { I(exactly: total) }

    static func overflowError(of what: String, total: Int128, as type: Any.Type) -> Realm.Error {
        Realm.Error(.valueTooLarge, "\(what) is \(total), which overflows \(type) (use a wider type, or Double)")
    }

    /// The stop message of a sum (a `_StrataNumber`) that does not fit the integer type `type`.
    static func overflow(_ number: _StrataNumber, as type: Any.Type) -> String {
        "Strata: valueTooLarge: the sum is \(number.description), which overflows \(type) (use a wider type, or Double)"
    }
}

extension _StrataNumber: CustomStringConvertible {
    public var description: String {
        switch self {
        case .int(let i): "\(i)"
        case .double(let d): "\(d)"
        case .decimal(let d): "\(d)"
        }
    }
}

extension ValueAggregate {
    /// A sum as `T`, through `T`'s stored form.
    /// - Throws: `.valueTooLarge` when an integer sum does not fit in `T`.
    static func checkedValue<T: _HasPersistedType>(_ number: _StrataNumber, as: T.Type) throws(Realm.Error) -> T
    where T.PersistedType: AddableType {
        guard let stored = T.PersistedType._strataExactly(number) else {
            throw Realm.Error(.valueTooLarge, "the sum is \(number), which overflows \(T.self) (use a wider type, or Double)")
        }
        return T._strataConverted(stored)
    }
}

// MARK: - Sums that throw instead of stopping

extension RealmCollection where Element: Object {
    /// The sum of a numeric property, throwing when it does not fit in `T`; zero when there is
    /// no object.
    ///
    /// `sum(ofProperty:)` cannot throw (its signature is RealmSwift's): a sum of integers that
    /// does not fit the type asked for stops the program with a `Strata: valueTooLarge` message.
    /// Use this form where such totals are possible, or ask for a `Double`. Integers are added
    /// exactly, whatever their order: `[Int.max, 1, Int.min]` sums to 1.
    ///
    /// ```swift
    /// do {
    ///     let total: Int = try accounts.checkedSum(ofProperty: "balance")
    /// } catch let error as Realm.Error where error.code == .valueTooLarge {
    ///     print(error.message)
    /// }
    /// ```
    ///
    /// - Parameter property: the name of a numeric persisted property.
    /// - Throws: `Realm.Error(.valueTooLarge)` when the sum does not fit in `T`.
    public func checkedSum<T: _PersistableElement & AdditiveArithmetic>(ofProperty property: String) throws(Realm.Error) -> T {
        if let unmanaged = unmanagedObjects { return try unmanaged.checkedSum(property) }
        return try queryableResults.checkedSum(ofProperty: property)
    }

    /// ``checkedSum(ofProperty:)`` for the property `keyPath` names.
    ///
    /// - Parameter keyPath: a persisted numeric property of the element class.
    /// - Throws: `Realm.Error(.valueTooLarge)` when the sum does not fit in `T`.
    public func checkedSum<T: _PersistableElement & AdditiveArithmetic>(of keyPath: KeyPath<Element, T>) throws(Realm.Error) -> T {
        try checkedSum(ofProperty: persistedPropertyName(keyPath))
    }
}

extension RealmCollection where Element.PersistedType: AddableType {
    /// The sum of the values (nil elements skipped), throwing when it does not fit in the
    /// element type; zero when there is none.
    ///
    /// `sum()` cannot throw (its signature is RealmSwift's): an integer sum that does not fit
    /// stops the program with a `Strata: valueTooLarge` message.
    ///
    /// - Throws: `Realm.Error(.valueTooLarge)` when the sum does not fit.
    public func checkedSum() throws(Realm.Error) -> Element {
        let (total, count) = ValueAggregate.sum(self)
        if count == 0, realm == nil, let zero = ValueAggregate.mixedIntegerZeroSum(as: Element.self) { return zero }
        return try ValueAggregate.checkedValue(total, as: Element.self)
    }
}

extension Map where Value: _HasPersistedType, Value.PersistedType: AddableType {
    /// The sum of the values (nil values skipped), throwing when it does not fit in the value
    /// type; zero when there is none (see ``RealmCollection/checkedSum()``).
    ///
    /// - Throws: `Realm.Error(.valueTooLarge)` when the sum does not fit.
    public func checkedSum() throws(Realm.Error) -> Value {
        let (total, count) = ValueAggregate.sum(values)
        if count == 0, let zero = ValueAggregate.mixedIntegerZeroSum(as: Value.self) { return zero }
        return try ValueAggregate.checkedValue(total, as: Value.self)
    }
}
