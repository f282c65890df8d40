// Projections: a light view model over one object (`class PersonView: Projection<Person>` with
// `@Projected(\Person.name) var name`), as RealmSwift's `Projection` and `@Projected`.
//
// Invariants:
// - A projection holds nothing but its root object: every `@Projected` property reads (and, when
//   its key path is writable, writes) the root through its key path, so a projection is live,
//   frozen or invalidated exactly when its root is.
// - A projection class's schema — each `@Projected` property's label, key path and the root
//   property path it reads — is computed once per class, from the class's stored wrappers; a
//   projected key path that reads no persisted property stops with a `Strata:` message when the
//   first projection of the class is made, as Realm raises.
// - Observing a projection observes its root, limited to the root properties its projected key
//   paths read; each change of one of them is reported under the label of every projected
//   property that reads it.
import Foundation
import Synchronization

/// A type-erased ``Projected`` wrapper, for reading a projection class's schema.
protocol AnyProjected {
    var projectedKeyPath: AnyKeyPath { get }
}

/// Declares a property of a ``Projection`` that reads its root object through a key path:
/// `@Projected(\Person.firstName) var firstName`, `@Projected(\Person.address?.city) var city`,
/// `@Projected(\Person.friends.projectTo.firstName) var friendNames: ProjectedCollection<String>`.
@propertyWrapper
public struct Projected<T: Object, Value>: AnyProjected {
    let keyPath: KeyPath<T, Value>
    var projectedKeyPath: AnyKeyPath { keyPath }

    /// Not available: a projected property is read through its projection.
    @available(*, unavailable, message: "@Projected can only be used as a property of a Projection")
    public var wrappedValue: Value {
        get { Stop.now("Strata: @Projected read outside a Projection") }
        // swiftlint:disable:next unused_setter_value
        set { Stop.now("Strata: @Projected written outside a Projection") }
    }

    /// Reads and writes the root object of the enclosing projection through the key path.
    public static subscript<EnclosingSelf: Projection<T>>(
        _enclosingInstance observed: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        get { observed.rootObject[keyPath: observed[keyPath: storageKeyPath].keyPath] }
        set {
            let keyPath = observed[keyPath: storageKeyPath].keyPath
            guard let writable = keyPath as? ReferenceWritableKeyPath<T, Value> else {
                Stop.now("Strata: invalidArgument: the projected key path \(keyPath) is not writable")
            }
            observed.rootObject[keyPath: writable] = newValue
        }
    }

    /// Declares a property that reads `projectedKeyPath` on the projection's root object.
    ///
    /// - Parameter projectedKeyPath: a key path of the root class: a persisted property, a path
    ///   through links, a value computed from one (`\Person.lastName.localizedUppercase`), or a
    ///   collection projected with `projectTo`.
    public init(_ projectedKeyPath: KeyPath<T, Value>) {
        self.keyPath = projectedKeyPath
    }
}

/// What every ``Projection`` is: a view of one root object.
public protocol ProjectionObservable: AnyObject, ThreadConfined {
    /// The class of the object projected.
    associatedtype Root: Object
    /// The object projected.
    var rootObject: Root { get }
    /// A projection of `object`.
    init(projecting object: Root)
}

/// One `@Projected` property of a projection class.
struct ProjectionProperty: @unchecked Sendable {
    // @unchecked: key paths are immutable values.
    let label: String
    let keyPath: AnyKeyPath
    /// The root property path the key path reads (`"address.city"`).
    let originPath: String
}

/// The schemas of the projection classes used in this process.
private let projectionSchemas = Mutex<[ObjectIdentifier: [ProjectionProperty]]>([:])

/// A view model of one object of class `Root`: the `@Projected` properties declared by the
/// subclass read (and write) the root object through key paths, and only changes of what they
/// read are reported to its observers.
///
/// ```swift
/// final class PersonView: Projection<Person> {
///     @Projected(\Person.firstName) var firstName
///     @Projected(\Person.lastName.localizedUppercase) var shoutedLastName
///     @Projected(\Person.address?.city) var city
///     @Projected(\Person.friends.projectTo.firstName) var friendNames: ProjectedCollection<String>
/// }
/// let people = realm.objects(PersonView.self).filter("lastName == 'Snow'")
/// let view = PersonView(projecting: person)
/// ```
open class Projection<Root: Object>: ProjectionObservable, CustomStringConvertible {
    /// The object projected.
    public let rootObject: Root

    /// A projection of `object`. The first projection of a class checks the class's projected key
    /// paths: one that reads no persisted property of `Root` stops with a `Strata:` message.
    ///
    /// - Parameter object: the object to project, managed or not.
    public required init(projecting object: Root) {
        self.rootObject = object
        _ = schema
    }

    /// The class's `@Projected` properties.
    var schema: [ProjectionProperty] { projectionSchema(of: self) }

    open var description: String {
        let address = Unmanaged.passUnretained(rootObject).toOpaque()
        let lines = schema.map { p -> String in
            let value = rootObject[keyPath: p.keyPath].map { "\($0)" } ?? "nil"
            return "\t\(p.label)(\\.\(p.originPath)) = \(value);"
        }
        return "\(type(of: self))<\(Root.className())> <\(address)> {\n\t" + lines.joined(separator: "\n") + "\n}"
    }
}

extension Projection: Hashable {
    /// Projections are equal when they project the same object.
    public static func == (lhs: Projection, rhs: Projection) -> Bool { lhs.rootObject == rhs.rootObject }
    public func hash(into hasher: inout Hasher) { hasher.combine(rootObject) }
}

extension Projection: ThreadConfined {
    /// The realm of the root object; nil when it is unmanaged.
    public var realm: Realm? { rootObject.realm }
    /// Whether the root object was deleted, or its realm invalidated.
    public var isInvalidated: Bool { rootObject.isInvalidated }
    /// Whether the root object is frozen.
    public var isFrozen: Bool { rootObject.isFrozen }

    /// A projection of the frozen root object (see ``Object/freeze()``).
    public func freeze() -> Self { Self(projecting: rootObject.freeze()) }

    /// A projection of the live root object on the calling thread; nil when it was deleted.
    public func thaw() -> Self? { rootObject.thaw().map { Self(projecting: $0) } }

    public var _strataHandover: _Handover? {
        guard let inner = rootObject._strataHandover else { return nil }
        return _Handover(place: .wrapped(inner: inner, resolve: { inner, realm in
            Root._strataResolve(inner, in: realm).map { Self(projecting: $0) }
        }), identity: inner.identity, core: inner.core)
    }

    public static func _strataResolve(_ handover: _Handover, in realm: Realm) -> Self? {
        guard case .wrapped(let inner, let resolve) = handover.place else { return nil }
        return resolve(inner, realm) as? Self
    }
}

/// The `@Projected` properties of `projection`'s class, computed from its first projection.
func projectionSchema<P: ProjectionObservable>(of projection: P) -> [ProjectionProperty] {
    let id = ObjectIdentifier(type(of: projection))
    if let known = projectionSchemas.withLock({ $0[id] }) { return known }
    var properties: [ProjectionProperty] = []
    for child in Mirror(reflecting: projection).children {
        guard let label = child.label, label.hasPrefix("_"), let projected = child.value as? AnyProjected,
              let keyPath = projected.projectedKeyPath as? PartialKeyPath<P.Root> else { continue }
        guard let steps = persistedPath(of: keyPath, strict: false) else {
            Stop.now("Strata: invalidArgument: @Projected property '\(label.dropFirst())' of \(P.self) must read a persisted property of \(P.Root.className())")
        }
        properties.append(ProjectionProperty(label: String(label.dropFirst()), keyPath: keyPath,
                                             originPath: steps.map(\.name).joined(separator: ".")))
    }
    projectionSchemas.withLock { $0[id] = properties }
    return properties
}

extension ProjectionObservable {
    /// The root property paths that key paths of this projection class read
    /// (`[\PersonView.city]` → `["address.city"]`).
    static func originPaths(of keyPaths: [AnyKeyPath]) -> [String] {
        let probe = Root()
        probe._isProbe = true
        let projection = Self(projecting: probe)
        return keyPaths.map { keyPath in
            let result = projection[keyPath: keyPath] as Any
            return probedPath(root: probe, result: result, valueType: type(of: keyPath).valueType, strict: false)?
                .map(\.name).joined(separator: ".") ?? ""
        }
    }

    /// Observes the projection's root object: the handler receives `.change` with the projected
    /// properties that read a changed root property (under their labels), and `.deleted` when the
    /// root object is deleted.
    ///
    /// - Parameters:
    ///   - keyPaths: root property paths (as the projected key paths read them, `"address.city"`)
    ///     to watch; `nil` watches every property the projection reads.
    ///   - queue: the dispatch queue the handler runs on; `nil` runs it where the realm lives.
    ///   - block: called with each change.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        let schema = projectionSchema(of: self)
        var watched = schema.map(\.originPath)
        if let keyPaths, !keyPaths.isEmpty { watched = watched.filter { keyPaths.contains($0) } }
        let previous = ProjectedValues(schema.map { rootObject[keyPath: $0.keyPath] })
        return rootObject.observe(keyPaths: Array(Set(watched)).sorted(), on: queue) { (change: ObjectChange<Root>) in
            switch change {
            case .deleted: block(.deleted)
            case .error(let error): block(.error(error))
            case .change(let root, let properties):
                let current = schema.map { root[keyPath: $0.keyPath] }
                let old = previous.replace(with: current)
                var changes: [PropertyChange] = []
                for property in properties {
                    for (i, p) in schema.enumerated() where p.originPath.split(separator: ".").first.map(String.init) == property.name {
                        if let keyPaths, !keyPaths.isEmpty, !keyPaths.contains(p.originPath) { continue }
                        changes.append(PropertyChange(name: p.label, oldValue: old[i], newValue: current[i]))
                    }
                }
                if !changes.isEmpty { block(.change(Self(projecting: root), changes)) }
            }
        }
    }

    /// Observes the projection, watching the root properties the given projected properties read.
    ///
    /// - Parameters:
    ///   - keyPaths: properties of the projection (`[\PersonView.city]`).
    ///   - queue: the dispatch queue the handler runs on; `nil` runs it where the realm lives.
    ///   - block: called with each change.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    public func observe(keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.isEmpty ? nil : Self.originPaths(of: keyPaths), on: queue, block)
    }
}

/// The projected values an observation last delivered, so that a change can name each projected
/// property's value before it. Only plain values are kept: an object or a collection belongs to
/// the thread that read it and is live anyway (a thread-confined value), so its old value is `nil`.
final class ProjectedValues: @unchecked Sendable {
    // @unchecked: the values are plain (no objects, no collections) and guarded by the lock.
    private let lock = NSLock()
    private var values: [Any?]

    init(_ values: [Any?]) { self.values = values.map(Self.plain) }

    /// Keeps `current` as the last delivered values and returns the ones it replaces.
    func replace(with current: [Any?]) -> [Any?] {
        lock.withLock {
            defer { values = current.map(Self.plain) }
            return values
        }
    }

    private static func plain(_ value: Any?) -> Any? {
        guard let value, !isConfined(value) else { return nil }
        return value
    }

    private static func isConfined(_ value: Any) -> Bool {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional { return mirror.children.first.map { isConfined($0.value) } ?? false }
        return value is any ThreadConfined
    }
}
