// LinkingObjects: the inverse of a link property, computed from backlinks
// (`@Persisted(originProperty: "owner") var pets: LinkingObjects<Dog>`).
//
// Invariants:
// - Nothing is stored for it in the row; its content is the set of objects of the origin class
//   whose origin property links here, read from the backlink tree. As in Realm (one backlink per
//   link), an object appears once per link: a list holding this object twice lists its owner twice.
// - Unmanaged objects have empty linking objects.
import Foundation

/// Marks `LinkingObjects` for `@Persisted(originProperty:)`.
public protocol _LinkingObjectsMarker {}

/// The objects that link to an object through one property: the inverse of a link property
/// (to-one, or a collection of links), computed from the realm's backlinks and never stored.
///
/// Declare it with the name of the origin class's link property. An object appears once per link,
/// so an owner whose list holds this object twice appears twice. An unmanaged object's linking
/// objects are always empty.
///
/// ```swift
/// final class Dog: Object {
///     @Persisted var name = ""
///     @Persisted var owner: Person?
/// }
/// final class Person: Object {
///     @Persisted var name = ""
///     @Persisted(originProperty: "owner") var dogs: LinkingObjects<Dog>
/// }
///
/// let count = person.dogs.count            // dogs whose `owner` is `person`
/// let total: Int = person.dogs.sum(ofProperty: "age")
/// ```
public struct LinkingObjects<Element: Object>: RandomAccessCollection, CustomStringConvertible, _LinkingObjectsMarker {
    /// A class, so that equality can be that of one reading of the links and its copies, as in
    /// Realm (`==`, RealmCollection.swift).
    final class Source {
        let core: RealmCore
        let table: Int
        let key: UInt64
        let originProperty: String
        /// The era of the object these links point to (see `ObjectBinding.era`).
        let era: UInt32

        init(core: RealmCore, table: Int, key: UInt64, originProperty: String, era: UInt32? = nil) {
            self.core = core
            self.table = table
            self.key = key
            self.originProperty = originProperty
            self.era = era ?? core.era
        }
    }
    /// The property a model declared as `let owners = LinkingObjects(fromType:property:)` names,
    /// and, once its object is managed, where the links point (LegacyDeclarations.swift). A class:
    /// the object keeps this value, and copies of it see the binding.
    final class Legacy {
        let property: String
        var bound: Source?
        init(property: String) { self.property = property }
    }
    private let fixedSource: Source?
    let legacy: Legacy?
    var source: Source? { fixedSource ?? legacy?.bound }
    /// Only on a key-path probe's value (`_strataProbeValue()`): the probe of the linking class
    /// that every position gives, so that `\.owners[0].name` names the property it reaches.
    let probeElement: Element?

    /// An unmanaged value, always empty: the declaration of RealmSwift's older models,
    /// `let owners = LinkingObjects(fromType: Person.self, property: "dogs")` (the same property as
    /// `@Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>`).
    ///
    /// - Parameters:
    ///   - fromType: the class whose property links here.
    ///   - property: the name of that link property.
    public init(fromType: Element.Type, property: String) {
        fixedSource = nil
        legacy = Legacy(property: property)
        probeElement = nil
    }
    init(source: Source?) { fixedSource = source; legacy = nil; probeElement = nil }
    private init(probe: Element) { fixedSource = nil; legacy = nil; probeElement = probe }

    private func origin() -> (table: Int, column: Int, info: ClassInfo)? {
        guard let s = source, let info = try? ClassInfo.of(Element.self) else { return nil }
        if s.era != s.core.era {
            s.core.misuse(.objectInvalidated, "these linking objects were invalidated with their realm")
        }
        let table: Int?
        do { table = try s.core.tableIndex(for: info, create: false) } catch { s.core.readFailed(error) }
        guard let t = table, let c = info.columnIndex(named: s.originProperty) else { return nil }
        return (t, c, info)
    }

    /// The keys of the linking objects (one per link), in backlink order.
    var keys: [UInt64] {
        guard let s = source, let o = origin() else { return [] }
        s.core.checkThread()
        do {
            var out: [UInt64] = []
            for bl in try s.core.backlinkStore.backlinks(target: s.table, targetKey: s.key, source: o.table, column: o.column) {
                // The count comes from disk: a damaged count must not make a huge array.
                guard bl.count >= 1, bl.count <= 1 << 24 else {
                    throw Realm.Error(.corruptFile, "a backlink count of \(bl.count) is out of range")
                }
                for _ in 0..<bl.count { out.append(bl.key) }
            }
            return out
        } catch {
            s.core.readFailed(error)
        }
    }

    /// The number of links to the object (an object linking twice counts twice).
    public var count: Int { keys.count }
    /// Whether no object links here.
    public var isEmpty: Bool { keys.isEmpty }
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    public subscript(position: Int) -> Element {
        let k = keys
        guard let s = source, let o = origin(), position >= 0, position < k.count else {
            if let probeElement { return probeElement }
            preconditionFailure("Strata: invalidArgument: index \(position) is out of range 0..<\(k.count)")
        }
        return s.core.materialize(Element.self, info: o.info, table: o.table, key: k[position])
    }

    /// The first linking object in backlink order, or `nil` when none links here.
    public var first: Element? { isEmpty ? nil : self[0] }
    /// The last linking object in backlink order, or `nil` when none links here.
    public var last: Element? { isEmpty ? nil : self[count - 1] }

    public func makeIterator() -> IndexingIterator<[Element]> {
        guard let s = source, let o = origin() else { return [Element]().makeIterator() }
        return keys.map { s.core.materialize(Element.self, info: o.info, table: o.table, key: $0) }.makeIterator()
    }

    /// The objects in RealmSwift's format (`LinkingObjects<Person> <0x…> (\n\t[0] Person {…}\n)`).
    public var description: String { description(depth: RealmDescription.maxDepth) }

    /// The sum of a property over the linking objects; zero when none links here.
    ///
    /// Null values are skipped. The type must be the property's stored type: an unknown property or
    /// another type stops the program with a `Strata:` message. Integers are added exactly; a sum
    /// that does not fit in `T` stops with a `Strata: valueTooLarge` message
    /// (``RealmCollection/checkedSum(ofProperty:)`` throws it instead).
    ///
    /// - Parameter property: the name of a numeric persisted property of the linking class.
    public func sum<T: _PersistableElement & AdditiveArithmetic>(ofProperty property: String) -> T {
        guard let s = source, let o = origin() else { return .zero }
        return ExactSum.totalOrStop(T.self, of: "the sum of '\(o.info.schema.className).\(property)'") { body in
            s.core.aggregates.forEachValue(T.self, info: o.info, property: property, source: .keys(o.table, keys), body)
        }
    }

    /// The mean of a numeric property over the linking objects, or `nil` when none has a value.
    ///
    /// - Parameter property: the name of a numeric persisted property of the linking class.
    public func average<T: AddableType>(ofProperty property: String) -> T? {
        guard let s = source, let o = origin() else { return nil }
        return s.core.aggregates.average(info: o.info, property: property, source: .keys(o.table, keys))
    }
}

extension LinkingObjects: _Persistable {
    public static var _strataShape: _PropertyShape { _PropertyShape(type: .linkingObjects, objectType: Element.self) }
    public static func _strataDefault() -> LinkingObjects<Element> { LinkingObjects(source: nil) }
    /// Linking objects whose every position is a probe of the linking class (KeyPathNames.swift).
    public static func _strataProbeValue() -> LinkingObjects<Element>? {
        let probe = Element()
        probe._isProbe = true
        return LinkingObjects(probe: probe)
    }
    public static func _strataGet(_ obj: Object, _ ordinal: Int) -> LinkingObjects<Element> {
        guard let b = obj._binding else { return LinkingObjects(source: nil) }
        let c = b.info.column(forOrdinal: ordinal)
        let origin = b.info.schema.allProperties[c.index].linkOriginPropertyName ?? ""
        return LinkingObjects(source: Source(core: b.core, table: b.table, key: b.key, originProperty: origin, era: b.era))
    }
    public static func _strataSet(_ obj: Object, _ ordinal: Int, _ value: LinkingObjects<Element>) {}
    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {}
    public var _strataAny: Any? { self }
}
