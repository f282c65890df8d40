// The names a Swift key path reads on a model class: `\Dog.name` is "name", and through links and
// embedded objects `\Dog.owner?.name` is "owner.name" (Realm's `_name(for:)`), so key paths can
// stand wherever a property path string can.
//
// How: the key path is read on a probe instance, whose `@Persisted` getters record their ordinal
// instead of doing anything else; a link getter answers with a probe of the linked class, recorded
// here as the next step, so the rest of the key path is read on it. A list of objects answers with
// a list holding one such probe, so `\Shelf.books[0].title` names "books.title", as in Realm.
//
// Invariants:
// - Only probes (objects created here, never managed) record anything; the links between them live
//   in `KeyPathProbe` only while one key path is read, and are removed before the names are given.
// - A key path that reads anything other than persisted properties — a computed property, a
//   method, a collection's member — gives no name (nil / ""): a one-step key path must be the
//   property's own (compared with the key path its getter was read through), and the value type
//   of a longer one must be its last property's. (A computed property read after a link or a list
//   element, of the same type as the property its getter reads, is the one shape not told apart
//   from the path it reads.)
import Foundation

/// The probe objects a key path went through, each to the probe its link getter answered with.
@usableFromInline
final class KeyPathProbe: @unchecked Sendable {
    // @unchecked: `next` is only touched under `lock`.
    private static let shared = KeyPathProbe()
    private let lock = NSLock()
    private var next: [ObjectIdentifier: Object] = [:]
    private var lastReturned: [ObjectIdentifier: Any] = [:]

    /// Records the value a probe's persisted getter returned. (The getter cannot record its key
    /// path: naming the key path there makes every getter call build it.)
    @usableFromInline
    static func returned(_ value: Any, on probe: Object) {
        shared.lock.withLock { shared.lastReturned[ObjectIdentifier(probe)] = value }
    }

    /// Removes and returns the value the last persisted getter read on `probe` returned.
    static func takeReturned(on probe: Object) -> Any? {
        shared.lock.withLock { shared.lastReturned.removeValue(forKey: ObjectIdentifier(probe)) }
    }

    /// The probe a probe value leads to: the linked object's, or the one element of a probe list.
    @usableFromInline
    static func probe(in value: Any) -> Object? {
        if let object = value as? Object { return object }
        return (value as? any ProbeElementCarrier)?.carriedProbe
    }

    /// Records that reading a link of `parent` (a probe) went on to `child`.
    @usableFromInline
    static func linked(from parent: Object, to child: Object) {
        shared.lock.withLock { shared.next[ObjectIdentifier(parent)] = child }
    }

    /// Removes and returns the probe reached through `parent`'s link, if any.
    static func take(after parent: Object) -> Object? {
        shared.lock.withLock { shared.next.removeValue(forKey: ObjectIdentifier(parent)) }
    }
}

/// A probe value holding the probe of its element class (a list's `_strataProbeValue()`).
protocol ProbeElementCarrier {
    var carriedProbe: Object? { get }
}

extension KeyPathProbe {
    /// A probe of `V`'s class when `V` is an object class or an optional of one (the element or
    /// value of a collection a key path goes through); nil for other types.
    static func probeValue<V: _Persistable>(_ type: V.Type) -> V? {
        if let objectType = V.self as? Object.Type {
            let probe = objectType.init()
            probe._isProbe = true
            return probe as? V
        }
        return V._strataProbeValue()
    }
}

extension List: ProbeElementCarrier {
    var carriedProbe: Object? { storage.first as? Object }
}

extension MutableSet: ProbeElementCarrier {
    var carriedProbe: Object? { storage.first as? Object }
}

extension Map: ProbeElementCarrier {
    var carriedProbe: Object? { probeValue.flatMap { $0 as? Object } }
}

extension LinkingObjects: ProbeElementCarrier {
    var carriedProbe: Object? { probeElement }
}

/// One step of a key path: the class and the persisted property read on it.
struct KeyPathStep {
    let info: ClassInfo
    let name: String
}

/// The persisted properties `keyPath` reads on `T`, in order; nil when it reads anything else.
///
/// With `strict` false, a key path through a computed property gives the persisted properties its
/// getter read (`\.firstLetter` reading `name` gives "name"): what a sort or observation must follow
/// for a value computed from them, never a name to store or assign through.
func persistedPath<T: Object>(of keyPath: PartialKeyPath<T>, strict: Bool = true) -> [KeyPathStep]? {
    let root = T()
    root._isProbe = true
    let result = root[keyPath: keyPath]
    if let steps = probedPath(root: root, result: result, valueType: type(of: keyPath).valueType, strict: strict) {
        return steps
    }
    // A property declared without `@Persisted` (`let dogs = List<Dog>()`) is read with no
    // accessor to report it; the instance it gives is the probe's own, and names it.
    guard let held = (result as? any _LegacyDeclarable)?._legacyIdentity,
          let info = try? ClassInfo.of(T.self),
          let field = info.legacyFields.lazy.map({ info.fields[$0] }).first(where: { $0.legacyIdentity(root) === held })
    else { return nil }
    return [KeyPathStep(info: info, name: field.name)]
}

/// The persisted properties read on `root` (a probe) by a read that gave `result` (see
/// `persistedPath(of:strict:)`); `valueType` is what the key path claims to give.
func probedPath(root: Object, result: Any, valueType: Any.Type, strict: Bool) -> [KeyPathStep]? {
    var steps: [KeyPathStep] = []
    var current: Object? = root
    var valid = true
    var rootReturned: Any? = nil
    while let probe = current {
        let next = KeyPathProbe.take(after: probe)
        let returned = KeyPathProbe.takeReturned(on: probe)
        if probe === root { rootReturned = returned }
        let ordinal = Int(probe._probeOrdinal)
        if ordinal >= 0, let info = try? ClassInfo.of(type(of: probe)), ordinal < info.schema.allProperties.count {
            steps.append(KeyPathStep(info: info, name: info.schema.allProperties[ordinal].name))
        } else if next != nil || steps.isEmpty {
            valid = false  // a link was read on a probe whose property could not be named
        }
        current = next
    }
    if !strict { return valid && !steps.isEmpty ? steps : nil }
    guard valid, let last = steps.last, let field = last.info.field(named: last.name),
          readsValue(of: field.valueType, as: valueType) else { return nil }
    // One step: the key path must give what the property's getter gave, not something computed
    // from it (`var nickname: String { "the " + name }`).
    if steps.count == 1, let returned = rootReturned, !isSameValue(result, returned) { return nil }
    return steps
}

/// Whether two values read on a probe are the same: the same instance for classes, equal for
/// hashable values; values that are neither are taken as the same.
private func isSameValue(_ a: Any, _ b: Any) -> Bool {
    if type(of: a) is AnyClass, type(of: b) is AnyClass {
        return ObjectIdentifier(a as AnyObject) == ObjectIdentifier(b as AnyObject)
    }
    if let x = a as? AnyHashable, let y = b as? AnyHashable { return x == y }
    return true
}

/// Whether a key path whose value is `pathValue` ends by reading a property of type `property`:
/// the same type, or its optional (a path through an optional link makes the value optional).
private func readsValue(of property: Any.Type, as pathValue: Any.Type) -> Bool {
    if ObjectIdentifier(property) == ObjectIdentifier(pathValue) { return true }
    guard let optional = pathValue as? any _StrataOptional.Type else { return false }
    return ObjectIdentifier(optional._strataWrappedType) == ObjectIdentifier(property)
}

/// The persisted property name `keyPath` reads on `T` (its first component), nil when it reads no
/// persisted property. Used by the type-safe `where {}` builder.
public func _strataPropertyName<T: Object>(for keyPath: PartialKeyPath<T>) -> String? {
    persistedPath(of: keyPath)?.first?.name
}

/// The property path a key path reads, dotted through links and embedded objects, as RealmSwift's
/// `_name(for:)` gives it: `_name(for: \Dog.owner?.name)` is `"owner.name"`; an empty string when
/// the key path reads something other than persisted properties.
public func _name<T: Object>(for keyPath: PartialKeyPath<T>) -> String {
    persistedPath(of: keyPath)?.map(\.name).joined(separator: ".") ?? ""
}
