// Realm: the public handle of one realm file (or in-memory realm) on one thread or queue.
//
// Invariants:
// - `Realm` is a value wrapping a `RealmCore`; copies share the core. Cores are cached weakly
//   per (file, thread or queue), so `try Realm()` twice on a thread returns the same core and
//   the file closes when the last value goes away.
// - A live realm is confined to the thread (or dispatch queue, with `init(configuration:queue:)`)
//   that opened it; every method checks and throws `.wrongThread` (non-throwing accessors trap,
//   see Object.swift). Frozen realms may be used anywhere and never change.
// - Every method that throws throws a `Realm.Error` for every failure of Strata (storage failures
//   included: `RealmCore.surfacing`); only the caller's own errors thrown through a block pass
//   through as they are. Damage met by any call makes later writes and refreshes throw it
//   (RealmCore.swift's header).
import Dispatch
import Foundation
import StrataStorage

/// A realm: a transactional object store in one file, with RealmSwift's programming model.
public struct Realm {
    let core: RealmCore

    init(core: RealmCore) { self.core = core }

    /// What `add`/`create` do when an object with the same primary key exists.
    public enum UpdatePolicy: Int, Sendable {
        /// Throw `.duplicatePrimaryKey`.
        case error = 1
        /// Update the existing object's values; the embedded objects it has are updated in place
        /// (instances read before read the new values, and the objects given become them).
        case modified = 3
        /// Update the existing object's values; the embedded objects it has are replaced (the
        /// old ones are deleted).
        case all = 2
    }

    // MARK: - Opening

    /// Opens the default configuration (`Realm.Configuration.defaultConfiguration`).
    public init() throws { try self.init(configuration: .defaultConfiguration, queue: nil) }

    /// Opens the default configuration confined to `queue` (call it from that queue).
    public init(queue: DispatchQueue) throws { try self.init(configuration: .defaultConfiguration, queue: queue) }

    /// Opens `configuration` confined to the calling thread, or to `queue` (call it from that queue).
    /// Re-opening on the same thread/queue returns the cached instance while it is in use (held,
    /// or by an object or collection read from it), at the version it reads: as in RealmSwift,
    /// an instance moves to a newer version only by `refresh()`, a write, or autorefresh.
    public init(configuration: Configuration, queue: DispatchQueue? = nil) throws {
        try self.init(configuration: configuration, scheduler: queue.map { .queue($0) })
    }

    /// Opens `configuration` confined to the calling thread, or to a queue or an actor (the
    /// caller runs there); re-opening there returns the cached instance.
    init(configuration: Configuration, scheduler: RealmScheduler?) throws {
        let confinement = Confinement.current(scheduler: scheduler)
        let identity = configuration.identity
        if let cached = InstanceCache.shared.lookup(identity: identity, confinement: confinement) {
            if cached.configuration.encryptionKey != configuration.encryptionKey
                || cached.configuration.readOnly != configuration.readOnly
                || cached.configuration.schemaVersion != configuration.schemaVersion {
                throw Realm.Error(.invalidArgument, "'\(identity)' is already open on this thread with a different configuration (encryption key, readOnly or schemaVersion)")
            }
            self.core = cached
            return
        }
        try Self.copySeedFileIfNeeded(configuration)
        let core: RealmCore
        do {
            core = try RealmCore(configuration: configuration, scheduler: scheduler)
        } catch let e as Realm.Error where e.code == .schemaMismatch && configuration.deleteRealmIfMigrationNeeded {
            _ = try Realm.deleteFiles(for: configuration)
            do { core = try RealmCore(configuration: configuration, scheduler: scheduler) } catch {
                throw Realm.Error.surfacing(error)
            }
        } catch {
            throw Realm.Error.surfacing(error)
        }
        InstanceCache.shared.store(core, identity: identity, confinement: core.confinement)
        self.core = core
    }

    /// Opens the file at `fileURL` with otherwise default settings.
    public init(fileURL: URL) throws {
        var c = Configuration.defaultConfiguration
        c.fileURL = fileURL
        try self.init(configuration: c)
    }

    /// The configuration this realm was opened with.
    public var configuration: Configuration { core.configuration }

    /// The schema of the realm, as RealmSwift lists it: the configuration's `objectTypes` (with the
    /// classes they link to) or, without it, every class stored in the file and every model class
    /// the program declares, whether or not it was used yet.
    public var schema: Schema {
        do { _ = try core.pages() } catch { core.readFailed(error) }
        var schemas = core.snap.schemas.enumerated().map { table, stored in
            var schema = stored
            schema.boundClass = core.snap.infos[table]?.type
            return schema
        }
        if let types = configuration.objectTypes {
            // The configuration's classes (with those they link to), as in Realm: tables the file
            // holds for other classes are left out (their objects stay readable dynamically).
            if let configured = try? ClassInfo.closure(of: types) {
                let names = Set(configured.map(\.schema.className))
                schemas = schemas.filter { names.contains($0.className) }
            }
        } else {
            schemas = core.migrator.withDiscoveredClasses(schemas)
        }
        return Schema(objectSchema: schemas)
    }

    /// True when the realm holds no objects.
    public var isEmpty: Bool {
        core.checkThread()
        do {
            let p = try core.pages()
            for m in core.snap.metas where try m.objects.count(in: p) > 0 { return false }
            return true
        } catch {
            core.readFailed(error)
        }
    }

    // MARK: - Writing

    /// Runs `block` in a write transaction and commits it, returning the block's value.
    ///
    /// The calls that change the realm inside `block` (`add`, `create`, `delete`, setters, list
    /// edits…) do not throw, as in RealmSwift: the first failure among them marks the write
    /// failed, the calls after it change nothing, and `write` rolls everything back and throws
    /// that failure. Nothing of a failed write is ever committed.
    ///
    /// ```swift
    /// try realm.write {
    ///     realm.add(dog)
    ///     dog.age += 1
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - tokens: observers not told about this commit.
    ///   - block: the changes; an error it throws rolls the write back and is rethrown as is.
    /// - Throws: `Realm.Error`: the first failure of a call inside `block`, a failure to begin
    ///   or commit (`.alreadyInWriteTransaction` when nested, `.readOnly`, storage failures), or
    ///   the error `block` threw.
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken] = [], _ block: () throws -> Result) throws -> Result {
        try core.confinement.whileVerified {
            let value = try beginWriteAndRun(block)
            if isInWriteTransaction { try commitWrite(withoutNotifying: tokens) }
            return value
        }
    }

    /// Begins a write transaction and runs `block` in it, cancelling the transaction when
    /// `block` throws; leaves it open otherwise (unless `block` ended it). For `write`/`asyncWrite`.
    func beginWriteAndRun<Result>(_ block: () throws -> Result) throws -> Result {
        try beginWriteThrowing()
        do {
            return try block()
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
    }

    /// Begins a write transaction, waiting for other writers (threads or processes) to finish,
    /// and advances the realm to the newest version. End it with `commitWrite()` or
    /// `cancelWrite()`.
    ///
    /// Misuse stops the process with a `Strata:` message, as Realm's exception does: a write
    /// already open (`.alreadyInWriteTransaction`), a frozen or read-only realm, another thread.
    /// Any other failure to begin (storage, damage met earlier) is kept: the calls until the
    /// end of the write change nothing, and `commitWrite()` throws it. `beginWriteThrowing()`
    /// throws every failure at once instead.
    public func beginWrite() {
        do {
            try beginWriteThrowing()
        } catch {
            switch error.code {
            case .alreadyInWriteTransaction, .readOnly, .wrongThread: core.misuse(error.code, error.message)
            default: core.beginFailed(error)
            }
        }
    }

    /// Like `beginWrite()`, throwing every failure at once.
    ///
    /// - Throws: `Realm.Error`: `.alreadyInWriteTransaction` when a write is open, `.readOnly`
    ///   for a frozen or read-only realm, `.wrongThread`, a storage failure, or a failure kept
    ///   outside a write (while delivering notifications).
    public func beginWriteThrowing() throws(Realm.Error) {
        if core.notificationHub != nil && core.confinement.isCurrent { core.deliverBeforeWrite() }
        try core.beginWrite()
    }

    /// Commits the write transaction. On failure nothing of it is visible and the transaction
    /// is cancelled.
    ///
    /// - Parameter tokens: observers not told about this commit.
    /// - Throws: `Realm.Error`: the first failure of a call inside the write (see `write`),
    ///   `.notInWriteTransaction` without `beginWrite()`, or a storage failure.
    public func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws {
        try core.surfacing { try core.commitWrite() }
        core.notifyAfterCommit(skipping: tokens)
    }

    /// Discards the changes of the write transaction. Objects added in it become invalidated.
    /// Called without a write transaction open (or from another thread), stops with a `Strata:`
    /// message, as RealmSwift raises: a cancel that finds nothing to cancel means the caller's
    /// idea of the transaction is wrong, and its changes may already be committed.
    public func cancelWrite() {
        core.checkThread()
        guard isInWriteTransaction else {
            core.misuse(.notInWriteTransaction, "cancelWrite() needs an open write transaction; there is none")
        }
        core.cancelWrite()
    }

    /// Whether a write transaction is open (including one whose calls failed: it still has to
    /// be committed, which throws, or cancelled).
    public var isInWriteTransaction: Bool { core.isInWriteTransaction || core.write.beginFailure != nil }

    /// Adds an unmanaged object, and the unmanaged objects it links to, in the open write
    /// transaction. A managed object of this realm is left as is.
    ///
    /// Does not throw, as in RealmSwift: a failure (`.duplicatePrimaryKey`, `.wrongRealm` for an
    /// object of another realm, `.missingPrimaryKey` for an update without a primary key…)
    /// fails the write, which then throws it and rolls back (see `write`). Called outside a write
    /// transaction, stops with a `Strata:` message. `addThrowing` throws at once instead.
    ///
    /// ```swift
    /// try realm.write { realm.add(Dog(value: ["name": "Rex", "age": 3])) }
    /// ```
    ///
    /// - Parameters:
    ///   - object: the object to add.
    ///   - update: what to do when an object with the same primary key exists.
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        core.deferringFailure("add an object") { try addObject(object, update: update) }
    }

    /// Adds each object of `objects` (see `add(_:update:)`); after a failure, the rest are not added.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Element: Object {
        for object in objects { add(object, update: update) }
    }

    /// Like `add(_:update:)`, throwing its failure at once. The write is failed all the same
    /// (its commit throws the first failure), so catching the error cannot commit half a change.
    ///
    /// - Throws: `Realm.Error` (see `add(_:update:)`), `.notInWriteTransaction` outside a write.
    public func addThrowing(_ object: Object, update: UpdatePolicy = .error) throws {
        try core.failingWrite { try addObject(object, update: update) }
    }

    private func addObject(_ object: Object, update: UpdatePolicy) throws {
        if update != .error, (try ClassInfo.of(type(of: object))).primaryKeyColumn == nil {
            throw Realm.Error(.missingPrimaryKey, "add(update:) needs a primary key; '\(type(of: object).className())' has none")
        }
        try core.adding.addObject(object, update: update)
    }

    /// Creates (or, with `update`, updates) an object from a dictionary, array or object value
    /// in the open write transaction, and returns the managed object. Keys that name no property
    /// are ignored, as in RealmSwift. For updates, keys missing from a dictionary leave the stored
    /// values unchanged and nil/NSNull clears optionals.
    /// Objects in `value` that another realm instance manages are copied into this realm with
    /// the objects they link to, each once; a managed embedded object is copied too. Unmanaged
    /// objects in `value` (and `value` itself) are copied as well and stay unmanaged, each once,
    /// as in RealmSwift; `add` is what makes them managed.
    ///
    /// Does not throw, as in RealmSwift: a failure (a value of the wrong type,
    /// `.duplicatePrimaryKey`…) fails the write, which then throws it and rolls back; this call
    /// then returns an unmanaged object of `type` with its defaults. Called outside a write
    /// transaction, stops with a `Strata:` message. `createThrowing` throws at once instead.
    ///
    /// ```swift
    /// try realm.write { realm.create(Dog.self, value: ["name": "Rex", "age": 3]) }
    /// ```
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        var created: T?
        core.deferringFailure("create an object") { created = try createObject(type, value: value, update: update) }
        return created ?? T()
    }

    /// Like `create(_:value:update:)`, throwing its failure at once (the write is failed all
    /// the same, see `addThrowing`).
    ///
    /// - Throws: `Realm.Error` (see `create(_:value:update:)`), `.notInWriteTransaction` outside a write.
    @discardableResult
    public func createThrowing<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) throws -> T {
        try core.failingWrite { try createObject(type, value: value, update: update) }
    }

    /// Creates an object of `type`, the class the metatype names at run time (a dynamic
    /// `create` passes a class only known by name, typed as `Object`).
    func createObject<T: Object>(_ type: T.Type, value: Any, update: UpdatePolicy) throws -> T {
        // Objects of another realm reached from `value` are copied, not linked (see keyForLinking),
        // and so are unmanaged objects in it (UnmanagedValueCopies.swift).
        let outerCopies = core.write.foreignCopies
        core.write.foreignCopies = outerCopies ?? [:]
        defer { core.write.foreignCopies = outerCopies }
        let copies = UnmanagedValueCopies.current ?? UnmanagedValueCopies()
        return try UnmanagedValueCopies.$current.withValue(copies) {
            try createCopying(type, value: value, update: update, copies: copies)
        }
    }

    private func createCopying<T: Object>(_ type: T.Type, value: Any, update: UpdatePolicy,
                                          copies: UnmanagedValueCopies) throws -> T {
        let info = try ClassInfo.of(type)
        if update != .error, let primaryKeyColumn = info.primaryKeyColumn, let dictionary = value as? [String: Any] {
            let primaryKeyName = info.schema.allProperties[primaryKeyColumn].name
            if let primaryKeyValue = dictionary[primaryKeyName] {
                let probe = type.init()
                try info.fields[primaryKeyColumn].setAny(probe, primaryKeyValue)
                let indexKey = try info.fields[primaryKeyColumn].primaryKeyIndexKey(probe, core: core)
                if let existing = try existingObject(type, info: info, indexKey: indexKey) {
                    try updateExisting(existing, info: info, with: dictionary, skipping: primaryKeyName, policy: update)
                    return existing
                }
            }
        } else if update != .error, info.primaryKeyColumn == nil {
            throw Realm.Error(.missingPrimaryKey, "create(update:) needs a primary key; '\(info.schema.className)' has none")
        }
        let object = type.init()
        if let source = value as? Object, let binding = source._binding, binding.core !== core {
            // Links from the source's objects back to it reach this copy.
            core.write.foreignCopies?[ForeignObject(core: ObjectIdentifier(binding.core), table: binding.table, key: binding.key)] = object
        }
        // A cycle back to an unmanaged `value` itself reaches `object`.
        if let source = value as? Object, source._binding == nil { copies.record(object, of: source) }
        // Keys that name no property are ignored, as RealmSwift's create ignores them (one
        // dictionary may describe several classes).
        try object._apply(value: value, ignoringUnknownKeys: true)
        try core.adding.addObject(object, update: update)
        return object
    }

    /// Sets the properties `dictionary` names on the managed `object` (for `create` updating an
    /// existing object). Under `.modified`, an embedded object the object has is updated in place:
    /// by a dictionary, the properties it names (the others keep their values); by an object, all
    /// of them (EmbeddedInPlaceUpdate.swift); so are the elements of a list of embedded objects
    /// (CreateEmbeddedListInPlace.swift).
    private func updateExisting(_ object: Object, info: ClassInfo, with dictionary: [String: Any], skipping: String?,
                        policy: UpdatePolicy) throws {
        let outerPolicy = core.write.updatePolicy
        core.write.updatePolicy = policy
        defer { core.write.updatePolicy = outerPolicy }
        for (key, newValue) in dictionary where key != skipping {
            guard let field = info.field(named: key) else { continue }   // ignored, as by a new object
            if policy == .modified, let nested = newValue as? [String: Any],
               let embedded = field.getAny(object) as? Object, let binding = embedded._binding, binding.info.isEmbedded {
                try updateExisting(embedded, info: binding.info, with: nested, skipping: nil, policy: policy)
                continue
            }
            if policy == .modified, Self.holdsEmbedded(info, key), let values = newValue as? [Any],
               let list = field.getAny(object) as? _ObjectListInPlace {
                try updateEmbeddedList(list, to: values) { element, elementInfo, nested in
                    try updateExisting(element, info: elementInfo, with: nested, skipping: nil, policy: policy)
                }
                continue
            }
            try field.setAny(object, newValue is NSNull ? nil : newValue)
        }
    }

    /// Whether the property `name` of `info`'s class holds embedded objects.
    private static func holdsEmbedded(_ info: ClassInfo, _ name: String) -> Bool {
        guard let target = info.schema[name]?.objectClassName else { return false }
        return ClassInfo.registered(named: target)?.isEmbedded == true
    }

    private func existingObject<T: Object>(_ type: T.Type, info: ClassInfo, indexKey: [UInt8]) throws -> T? {
        guard let table = try core.tableIndex(for: info, create: false) else { return nil }
        let pages = try core.pages()
        guard let column = info.primaryKeyColumn.map({ info.layout.columns[$0] }) else { return nil }
        let key = try indexKey.withUnsafeBytes { try core.objectKey(primaryKey: $0, table: table, column: column, in: pages) }
        // `materializeAny` instantiates `info`'s class, which `type` names at run time.
        return key.map { unsafeDowncast(core.materializeAny(info: info, table: table, key: $0), to: T.self) }
    }

    /// Deletes a managed object in the open write transaction: links to it become nil, lists
    /// drop it, its embedded objects go too.
    ///
    /// Does not throw, as in RealmSwift: a failure (an object of another realm, `.wrongRealm`;
    /// one already deleted or unmanaged, `.objectInvalidated`) fails the write, which then
    /// throws it and rolls back. Called outside a write transaction, stops with a `Strata:`
    /// message. `deleteThrowing` throws at once instead.
    ///
    /// ```swift
    /// try realm.write { realm.delete(dog) }
    /// ```
    public func delete(_ object: Object) {
        core.deferringFailure("delete an object") { try core.deletion.deleteObject(object) }
    }

    /// Deletes every object of `objects` (collected first, so a live collection may be passed);
    /// see `delete(_:)` for failures.
    public func delete<S: Sequence>(_ objects: S) where S.Element: Object {
        let list = objects.map { $0 as Object }
        // As Realm, which checks per object: nothing to delete needs no write.
        if list.isEmpty { return }
        core.deferringFailure("delete objects") { try core.deletion.deleteObjects(list) }
    }

    /// Like `delete(_:)`, throwing its failure at once (the write is failed all the same, see
    /// `addThrowing`).
    ///
    /// - Throws: `Realm.Error` (see `delete(_:)`), `.notInWriteTransaction` outside a write.
    public func deleteThrowing(_ object: Object) throws {
        try core.failingWrite { try core.deletion.deleteObject(object) }
    }

    /// Like `delete(_:)` of a sequence, throwing its failure at once (see `deleteThrowing(_:)`).
    public func deleteThrowing<S: Sequence>(_ objects: S) throws where S.Element: Object {
        let list = objects.map { $0 as Object }
        if list.isEmpty { return }
        try core.failingWrite { try core.deletion.deleteObjects(list) }
    }

    /// Deletes every object in the realm, in the open write transaction (the file does not
    /// shrink). Failures are deferred as for `delete(_:)`.
    public func deleteAll() {
        core.deferringFailure("delete all objects") { try core.deletion.deleteAll() }
    }

    // MARK: - Reading

    /// Every object of `type`, lazily (`count` reads no object); for a projection class, a
    /// projection of every object of its root class.
    public func objects<T: RealmFetchable>(_ type: T.Type) -> Results<T> {
        core.checkThread()
        do {
            let info = try ClassInfo.of(T._strataFetchedClass)
            _ = try core.tableIndex(for: info, create: false)
            return Results(core: core, info: info)
        } catch {
            core.misuse(error.code, error.message)
        }
    }

    /// The object of `type` whose primary key equals `key`, nil when none. Traps (like Realm)
    /// when `type` has no primary key or `key` has the wrong type; `objectThrowing` throws instead.
    public func object<Element: Object, KeyType: _PersistableElement>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        do {
            return try core.objectForPrimaryKey(type, key)
        } catch {
            core.misuse(error.code, error.message)
        }
    }

    /// Like `object(ofType:forPrimaryKey:)`, reporting misuse and storage failures as `Realm.Error`.
    public func objectThrowing<Element: Object, KeyType: _PersistableElement>(ofType type: Element.Type, forPrimaryKey key: KeyType) throws -> Element? {
        try core.surfacing { try core.objectForPrimaryKey(type, key) }
    }

    // MARK: - Versions

    /// Whether the realm advances to the newest version when re-obtained with `Realm(...)` and
    /// after its own commits. Threads without a run loop call `refresh()`.
    public var autorefresh: Bool {
        get { core.autorefresh }
        nonmutating set { core.autorefresh = newValue }
    }

    /// Advances to the newest version. Returns whether anything changed. A failure (the newest
    /// version is damaged, the realm met damage before, too many versions are pinned) stops with
    /// a `Strata:` message, as a read that cannot throw does; `refreshThrowing()` throws instead.
    @discardableResult
    public func refresh() -> Bool {
        guard core.confinement.isCurrent else { return false }
        do {
            return try refreshThrowing()
        } catch {
            core.readFailed(error)
        }
    }

    /// Like `refresh()`, reporting failures as `Realm.Error`: `.corruptFile` when the newest
    /// version is damaged or the realm met damage before (it then stays at its version; reopen
    /// it once the file is repaired).
    @discardableResult
    public func refreshThrowing() throws -> Bool {
        try core.surfacing {
            try core.checkThreadThrowing()
            let moved = try core.refresh()
            core.deliverNotifications()
            return moved
        }
    }

    /// Releases the realm's snapshot, cancelling an open write, and invalidates every object and
    /// collection read from this realm before the call, as RealmSwift does: their `isInvalidated`
    /// is true, and reading or writing one stops with a `Strata:` message. The realm stays usable:
    /// what is read from it afterwards is read from a new snapshot. Frozen objects are not affected.
    public func invalidate() {
        guard core.confinement.isCurrent else { return }
        core.invalidate()
    }

    /// The version this realm reads.
    public var version: UInt64 {
        do { _ = try core.pages() } catch { core.readFailed(error) }
        return core.snap.version
    }

    // MARK: - Frozen

    /// An immutable snapshot of this realm at its current version, usable from any thread;
    /// inside a write transaction, at the version the write began from (its changes are not
    /// committed yet). A storage failure stops with a `Strata:` message, as a read that cannot
    /// throw does; `freezeThrowing()` throws instead.
    public func freeze() -> Realm {
        do { return try freezeThrowing() } catch { core.readFailed(error) }
    }

    /// Like `freeze()`, throwing its failures.
    ///
    /// - Throws: `Realm.Error`: `.wrongThread`, a storage failure (`.tooManyActiveVersions`…).
    public func freezeThrowing() throws -> Realm { Realm(core: try core.surfacing { try core.frozenCore() }) }

    /// A live realm of the same file on the calling thread. A failure to open it stops with a
    /// `Strata:` message (the file is open already, so only a storage failure can);
    /// `thawThrowing()` throws instead.
    public func thaw() -> Realm {
        do { return try thawThrowing() } catch { core.readFailed(error) }
    }

    /// Like `thaw()`, throwing its failures.
    ///
    /// - Throws: `Realm.Error`, as `Realm(configuration:)` does.
    public func thawThrowing() throws -> Realm { try Realm(configuration: configuration) }

    /// Whether this realm is a frozen snapshot (from `freeze()`): it never changes and may be read
    /// on any thread, and it cannot be written.
    public var isFrozen: Bool { core.isFrozen }

    // MARK: - Files

    /// Writes a compacted copy to the file of `configuration` (which must not exist), encrypted
    /// with its encryption key, as ``writeCopy(toFile:encryptionKey:)`` does.
    ///
    /// - Parameter configuration: names the destination file and its key; an in-memory
    ///   configuration is refused with `.invalidArgument`.
    public func writeCopy(configuration: Configuration) throws {
        guard !configuration.isInMemory, let fileURL = configuration.fileURL else {
            throw Realm.Error(.invalidArgument, "writeCopy needs a configuration with a file URL")
        }
        try writeCopy(toFile: fileURL, encryptionKey: configuration.encryptionKey)
    }

    /// Copies `configuration.seedFilePath` to its file URL when no file is there yet.
    ///
    /// The seed is opened first, read-only, with the configuration's key: a seed that is not a
    /// Strata file (or needs another key) is refused with that open's error and nothing is
    /// created at the file URL. A path that is not a regular file is refused before any open
    /// (a FIFO would block it).
    static func copySeedFileIfNeeded(_ configuration: Configuration) throws(Realm.Error) {
        guard let seed = configuration.seedFilePath, !configuration.isInMemory, let fileURL = configuration.fileURL,
              !FileManager.default.fileExists(atPath: fileURL.path) else { return }
        // A missing seed is the copy's failure (below).
        if let attributes = try? FileManager.default.attributesOfItem(atPath: seed.path) {
            try checkSeed(seed, attributes, configuration, fileURL)
        }
        do {
            try FileManager.default.copyItem(at: seed, to: fileURL)
        } catch {
            throw Realm.Error(.fileOperationFailed, "could not copy the seed file \(seed.path) to \(fileURL.path): \(error.localizedDescription)", fileURL: fileURL)
        }
    }

    /// Refuses a seed that is not a regular file, or does not open as a Strata file with the
    /// configuration's key.
    private static func checkSeed(_ seed: URL, _ attributes: [FileAttributeKey: Any], _ configuration: Configuration,
                                  _ fileURL: URL) throws(Realm.Error) {
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw Realm.Error(.fileAccess, "the seed file \(seed.path) is not a regular file", fileURL: fileURL)
        }
        do throws(Realm.Error) {
            let file = try StrataFile(path: seed.path, encryptionKey: configuration.encryptionKey.map { [UInt8]($0) })
            file.close()
        } catch {
            throw Realm.Error(error.code, "the seed file \(seed.path) cannot be used: \(error.message)", fileURL: fileURL)
        }
    }

    /// Writes a compacted copy to `fileURL` (which must not exist), encrypted with
    /// `encryptionKey` (nil: plain). Outside a write it copies the newest committed version of
    /// the file (newer than the version this realm reads if another thread or process committed
    /// since its last refresh); inside a write, the state the write sees, uncommitted changes
    /// included (as Realm).
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        try core.surfacing { try writeCopyOfSnapshot(toFile: fileURL, encryptionKey: encryptionKey) }
    }

    private func writeCopyOfSnapshot(toFile fileURL: URL, encryptionKey: Data?) throws {
        try core.checkThreadThrowing()
        if let k = encryptionKey, k.count != 64 {
            throw Realm.Error(.invalidEncryptionKey, "the encryption key is \(k.count) bytes; it must be 64")
        }
        if core.isInWriteTransaction {
            try core.uncommittedCopy.writeUncommittedCopy(toPath: fileURL.standardizedFileURL.path, encryptionKey: encryptionKey.map { [UInt8]($0) })
            return
        }
        try Realm.Error.wrap { try core.file.writeCopy(toPath: fileURL.standardizedFileURL.path, encryptionKey: encryptionKey.map { [UInt8]($0) }) }
    }

    /// Whether the file of `config` exists (in-memory realms: whether one is open in this process).
    public static func fileExists(for config: Configuration) -> Bool {
        if config.isInMemory { return !InstanceCache.shared.liveCores(identity: config.identity).isEmpty }
        return FileManager.default.fileExists(atPath: config.identity)
    }

    /// Deletes the file of `config` and its companion files. Returns whether a file existed.
    /// Throws `.alreadyOpen` while the realm is open anywhere (this or another process).
    @discardableResult
    public static func deleteFiles(for config: Configuration) throws -> Bool {
        if config.isInMemory { return false }
        let path = config.identity
        if !InstanceCache.shared.liveCores(identity: path).isEmpty || StorageFile.isOpenAnywhere(path: path) {
            throw Realm.Error(.alreadyOpen, "'\(path)' is open; close every Realm instance of it first", fileURL: URL(fileURLWithPath: path))
        }
        let existed = FileManager.default.fileExists(atPath: path)
        try Realm.Error.wrap { try StorageFile.deleteFiles(path: path) }
        StorageFile.removeStaleCopies(besideFileAt: path)
        return existed
    }
}


extension Realm: Equatable {
    /// Whether both are the same realm instance: `Realm()` twice on one thread gives equal
    /// realms (the thread's cached instance), other threads and frozen copies do not.
    public static func == (lhs: Realm, rhs: Realm) -> Bool { lhs.core === rhs.core }
}
