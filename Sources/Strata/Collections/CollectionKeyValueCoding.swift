// Key-value coding on collections, as RealmSwift has it: `value(forKey:)` and
// `value(forKeyPath:)` give each element's value as one array (a set for a `MutableSet`),
// `setValue(_:forKey:)` sets a property on every object, and `isEqual(_:)` is the collections' `==`.
//
// Invariants:
// - The array (`[Any?]`) has one entry per element, in the collection's order; a nil value (or an
//   unknown key, as `Object.value(forKey:)` reads it) is nil, so positions never shift and
//   `as? [String?]` reads it as RealmSwift's array does on Apple platforms, where Foundation
//   turns its `NSNull`s into nils (Linux's cannot). Numbers and booleans are `NSNumber`s, as
//   for one object (KeyValueCodingNumbers.swift). A collection of values has only `self`: any
//   other key stops with a `Strata:` message, as RealmSwift raises.
// - A `MutableSet` (or an `AnyRealmCollection` of one) gives its values as a `Set<AnyHashable>`
//   from the `Any?` forms and as an array of its distinct values from `value(forKey:) ->
//   [AnyObject]`, as RealmSwift's gives an `NSSet` and that set's objects; nil is `NSNull`
//   there, as in every `[AnyObject]` form.
// - `setValue(_:forKey:)` is each object's own `setValue(_:forKey:)`: inside a write a failure
//   fails the write (nothing half set is committed), outside one it stops with a `Strata:`
//   message, as for one object.
import Foundation

extension RealmCollection {
    /// The value of `key` on each element, as an array (`[Any?]`, nil for nil); `"self"` gives
    /// the elements themselves.
    ///
    /// ```swift
    /// let names = person.dogs.value(forKey: "name") as? [String]
    /// ```
    ///
    /// - Parameter key: a persisted property of the elements, or `"self"`.
    public func value(forKey key: String) -> Any? {
        let values = map { (element: Element) -> Any? in KeyValueCodingNumbers.bridged(Self.value(of: element, forKey: key)) }
        return givesSets ? distinctSet(values) : values
    }

    /// Whether key-value coding gives sets (a `MutableSet`, directly or wrapped).
    private var givesSets: Bool { (self as? KeyValueCodingShape)?.keyValueCodingGivesSets == true }

    /// The value at a dotted path (`"owner.name"`) from each element, as an array (`[Any?]`, nil
    /// where a link on the way, or the value, is nil); or, with a leading collection operator as
    /// Foundation's key-value coding has them, one value: `"@count"`, `"@min.age"`, `"@max.age"`,
    /// `"@sum.age"`, `"@avg.age"` (an `NSNumber`, nil when no element has a value for min, max and
    /// avg), `"@unionOfObjects.name"` and `"@distinctUnionOfObjects.name"` (arrays).
    ///
    /// - Parameter keyPath: persisted properties separated by dots, or `"self"`, optionally after
    ///   a collection operator.
    public func value(forKeyPath keyPath: String) -> Any? {
        if keyPath.hasPrefix("@") { return collectionOperator(keyPath) }
        let values = values(atKeyPath: keyPath).map(KeyValueCodingNumbers.bridged)
        return givesSets ? distinctSet(values) : values
    }

    /// Each element's value at the dotted `keyPath`, in order (nil for nil).
    private func values(atKeyPath keyPath: String) -> [Any?] {
        let keys = keyPath.split(separator: ".").map(String.init)
        return map { (element: Element) -> Any? in
            var current: Any? = element
            for key in keys {
                guard let here = current else { break }
                current = Self.value(of: here, forKey: key)
            }
            return current
        }
    }

    private func collectionOperator(_ keyPath: String) -> Any? {
        let parts = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
        let name = parts[0]
        if name == "@count" { return NSNumber(value: count) }
        guard parts.count == 2 else {
            Stop.now("Strata: invalidArgument: the collection operator \(name) needs a key path after it")
        }
        let values = values(atKeyPath: parts[1]).compactMap { $0 }.filter { !($0 is NSNull) }
        switch name {
        case "@unionOfObjects": return values.map(KeyValueCodingNumbers.bridged)
        case "@distinctUnionOfObjects":
            var seen: [AnyHashable] = []
            for v in values { if let h = v as? AnyHashable, !seen.contains(h) { seen.append(h) } }
            return seen.map { KeyValueCodingNumbers.bridged($0.base) }
        case "@min", "@max":
            let ordered = values.compactMap { ($0 as? any MinMaxType)?._strataOrdered }
            guard var best = ordered.first else { return nil }
            for v in ordered.dropFirst() where name == "@min" ? v.precedes(best) : best.precedes(v) { best = v }
            switch best {
            case .date(let d): return NSDate(timeIntervalSinceReferenceDate: d.timeIntervalSinceReferenceDate)
            case .number(let n): return n.boxed
            }
        case "@sum", "@avg":
            let addends = values.compactMap { ($0 as? any AddableType)?._strataAddend }
            guard let first = addends.first else { return name == "@sum" ? NSNumber(value: 0) : nil }
            let total = addends.dropFirst().reduce(first, +)
            return (name == "@sum" ? total : total.divided(by: addends.count)).boxed
        default:
            Stop.now("Strata: invalidArgument: \(name) is not a collection operator (@count, @min, @max, @sum, @avg, @unionOfObjects, @distinctUnionOfObjects)")
        }
    }

    /// Whether `object` is this same collection (see `==`).
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Self else { return false }
        return other == self
    }

    private static func value(of element: Any, forKey key: String) -> Any? {
        if key == "self" { return element }
        guard let object = element as? Object else {
            if isNoValue(element) { return nil }
            Stop.now("Strata: invalidArgument: a \(type(of: element)) has no property '\(key)'; a collection of values has only 'self'")
        }
        return object.typedValue(forKey: key)
    }
}

extension RealmCollection where Element: Object {
    /// Sets the persisted property `key` of every object (inside a write for managed objects).
    ///
    /// - Parameters:
    ///   - value: the new value.
    ///   - key: a persisted property of the elements.
    public func setValue(_ value: Any?, forKey key: String) {
        for object in Array(self) { object.setValue(value, forKey: key) }
    }
}

// List and MutableSet give the values as `[AnyObject]`, as RealmSwift's do (the other collections
// give `Any?`, the protocol's form).
extension List {
    /// The value of `key` on each element, as an array (`NSNull` for nil); `"self"` gives the
    /// elements themselves.
    ///
    /// - Parameter key: a persisted property of the elements, or `"self"`.
    public func value(forKey key: String) -> [AnyObject] { boxedValues(Array(self), keyPath: key) }

    /// The value at a dotted path from each element, as an array (`NSNull` where a link on the
    /// way, or the value, is nil).
    ///
    /// - Parameter keyPath: persisted properties separated by dots, or `"self"`.
    public func value(forKeyPath keyPath: String) -> [AnyObject] { boxedValues(Array(self), keyPath: keyPath) }
}

extension MutableSet {
    /// The distinct values of `key` on the elements, as an array (`NSNull` for nil); `"self"`
    /// gives the elements themselves. (`value(forKeyPath:)` and the `Any?` form give a set.)
    ///
    /// - Parameter key: a persisted property of the elements, or `"self"`.
    public func value(forKey key: String) -> [AnyObject] {
        var seen = Set<AnyHashable>()
        return boxedValues(Array(self), keyPath: key).filter { value in
            guard let hashable = value as? AnyHashable else { return true }
            return seen.insert(hashable).inserted
        }
    }
}

/// What shape a collection's key-value coding gives its values in.
protocol KeyValueCodingShape {
    var keyValueCodingGivesSets: Bool { get }
}

extension MutableSet: KeyValueCodingShape {
    var keyValueCodingGivesSets: Bool { true }
}

extension AnyRealmCollection: KeyValueCodingShape {
    var keyValueCodingGivesSets: Bool { (base as? KeyValueCodingShape)?.keyValueCodingGivesSets == true }
}

/// The values as a set (`NSNull` for nil); an array when one of them cannot be hashed (a
/// collection value).
private func distinctSet(_ values: [Any?]) -> Any {
    var set = Set<AnyHashable>()
    for value in values {
        guard let hashable = (value ?? NSNull()) as? AnyHashable else { return values }
        set.insert(hashable)
    }
    return set
}

/// Each element's value at `keyPath`, boxed (`NSNull` for nil).
private func boxedValues<E>(_ elements: [E], keyPath: String) -> [AnyObject] {
    let keys = keyPath.split(separator: ".").map(String.init)
    return elements.map { element -> AnyObject in
        var current: Any? = element
        for key in keys where key != "self" {
            guard let object = current as? Object else {
                if current == nil || current is NSNull { break }
                // A value has no properties: RealmSwift raises here, so does Strata.
                Stop.now("Strata: invalidArgument: a \(type(of: current!)) has no property '\(key)'; a collection of values has only 'self'")
            }
            current = object.typedValue(forKey: key)
        }
        if let storable = current as? any _Persistable { current = storable._strataAny }
        return (current ?? NSNull()) as AnyObject
    }
}
