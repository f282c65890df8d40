// Refuses a model that declares a collection or a boxed value without `@Persisted`
// (`let dogs = List<Dog>()`, `let age = RealmOptional<Int>()`), as RealmSwift's older models did.
// Strata stores only `@Persisted` properties, so such a property would look like part of the model
// while nothing written to it reached the file: after `add`, the list still holds its elements in
// memory, and they are gone when the object is read again. That is lost data without an error,
// so the class is refused when its schema is first needed.
//
// Invariants:
// - Only stored properties of the six types that RealmSwift's older models declared this way are
//   refused: `List`, `MutableSet`, `Map`, `RealmProperty`, `RealmOptional`, `LinkingObjects`.
//   Other properties without `@Persisted` are plain Swift state and stay unstored, as in Realm.
// - A property the class names in `ignoredProperties()` is left alone: the model says it is
//   meant to stay in memory.
import Foundation

/// The types an older RealmSwift model declared as stored properties without a wrapper.
protocol WrapperlessDeclarable {}

extension List: WrapperlessDeclarable {}
extension MutableSet: WrapperlessDeclarable {}
extension Map: WrapperlessDeclarable {}
extension RealmProperty: WrapperlessDeclarable {}
extension RealmOptional: WrapperlessDeclarable {}
extension LinkingObjects: WrapperlessDeclarable {}

enum WrapperlessPropertyCheck {
    /// Throws `.invalidSchema` naming the first such property of `probe` (an instance of the class
    /// being discovered) that its class does not ignore.
    static func check(_ probe: Object, className: String) throws(Realm.Error) {
        let ignored = Set(type(of: probe).ignoredProperties())
        var mirror: Mirror? = Mirror(reflecting: probe)
        while let current = mirror {
            for child in current.children {
                guard let name = child.label, child.value is any WrapperlessDeclarable, !ignored.contains(name) else { continue }
                let declared = String(describing: type(of: child.value))
                throw Realm.Error(.invalidSchema, "property '\(className).\(name)' is a \(declared) declared without @Persisted, so nothing written to it would be stored; declare it '@Persisted var \(name): \(declared)', or name it in ignoredProperties() to keep it in memory only")
            }
            mirror = current.superclassMirror
        }
    }
}
