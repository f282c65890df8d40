// RealmCore: the engine behind a `Realm` value — one file handle, one snapshot (a read
// transaction, or the write transaction while one is open), and the parsed catalog of that
// snapshot.
//
// Invariants:
// - `snap` always describes the version the core reads: the write transaction's when a write is
//   open, otherwise `readTxn`'s (which is begun lazily and ended by refresh/invalidate/beginWrite,
//   and at the end of opening; a ThreadSafeReference resolved while none is open supplies it).
// - Whatever is valid for one snapshot only is forgotten in one place, `snapshotMoved()`, called
//   wherever the version moves or a write begins or ends: the open collections
//   (CollectionCache.swift), the class-to-table bindings (AddPathCache.swift), the row fingers
//   (RowFingers.swift), and, through
//   `generation` and `changeCounter`, the caches of `Results` and list cursors.
// - During a write, table roots, the backlink root and open collection roots change only in
//   memory (`snap`, `openCollections`); `commitWrite` writes them once: dirty collection roots
//   into their rows, the table metas (and schema, when tables were added) into the catalog, and
//   the catalog/backlink roots into the UserRoots. `cancelWrite` restores the copy taken at begin.
// - A failure inside a mutating accessor (a setter, `list.append`: they cannot throw) is kept in
//   the write state (WriteState.swift); the next commit rolls back and throws it, so a
//   half-applied change is never committed. An error recorded outside a write is thrown by the
//   next `beginWrite`, never dropped.
// - A failure met by a read that cannot throw (a property getter, `count`, iteration, a list or
//   map element, `object(ofType:forPrimaryKey:)`) stops the process with a `Strata:` message
//   naming the cause — for damage, the page and the file (`readFailed`), as Realm's exception
//   does. The alternative, a default value or a shorter result, would read back different data
//   without an error; the non-throwing signatures are RealmSwift's and stay. Throwing calls
//   (`objectThrowing`, `write`, `refreshThrowing`, …) throw instead.
// - Damage (a `.corruptFile` error: a page failing its checksum or tag, a structure that does not
//   parse) met by any path is kept in `damage` and never cleared: the core refuses every later
//   write and refresh with it (typed) until the realm is reopened, so nothing is written on top
//   of a file known to be damaged.
// - All members are confined to `confinement` (checked by the public entry points), except for
//   frozen cores, whose snapshot never changes and which only read.
import Foundation
import StrataStorage

/// The parsed catalog of one version.
struct Snapshot {
    var version: UInt64 = 0
    var schemaVersion: UInt64 = 0
    /// The object format the file's marker names (an earlier readable one until the next commit).
    var objectFormat = Catalog.formatVersion
    var isFresh = true
    var schemas: [ObjectSchema] = []
    var metas: [TableMeta] = []
    var infos: [ClassInfo?] = []
    var tableByClass: [ObjectIdentifier: Int] = [:]
    var tableByName: [String: Int] = [:]
    var catalog = BytesTree()
    var backlinks = BytesTree()
    var metasDirty = false
    var schemaDirty = false
}

/// The storage file shared by a realm and its frozen copies; closed when the last core (live or
/// frozen) using it goes away.
final class SharedStorageFile {
    let file: StorageFile
    init(_ file: StorageFile) { self.file = file }
    deinit { file.close() }
}

final class RealmCore {
    let configuration: Realm.Configuration
    let confinement: Confinement
    /// The queue or actor of a queue- or actor-confined core; nil for a thread-confined or frozen one.
    let scheduler: RealmScheduler?
    /// Where commits of other threads and processes are delivered to this core's observers
    /// without a `refresh()` call: its queue or actor, or, for a core confined to the main
    /// thread, the main queue, which the main thread's run loop drains (Realm's autorefresh on
    /// the main run loop). For a core of another thread, that thread's run loop once the core, an
    /// observer of it or an async write is made from inside the loop (`adoptRunningRunLoop()`);
    /// nil until then, and the core advances at `refresh()`.
    var autorefreshScheduler: RealmScheduler?
    var queue: DispatchQueue? { scheduler?.queue }
    let handle: SharedStorageFile
    var file: StorageFile { handle.file }
    let isFrozen: Bool
    let fileIdentity: String

    // The fields touched by every accessor and tree edit are `@exclusivity(unchecked)`: dynamic
    // exclusivity checks on them were a measurable share of a small write. Safe because a live
    // core is confined to one thread (checked by the entry points), frozen cores only read, and
    // no access to them is held across a call that reaches them again (the debug test suite ran
    // with the checks on and never tripped).
    // MARK: Read snapshot
    @exclusivity(unchecked) var readTxn: ReadTransaction?
    @exclusivity(unchecked) var snap = Snapshot()
    /// Whether `snap` was parsed from the version `pages()` reads; false until the first read.
    @exclusivity(unchecked) var snapValid = false
    /// Bumped whenever what the core sees may have changed (snapshot moved, any mutation).
    @exclusivity(unchecked) var changeCounter: UInt64 = 0
    /// Bumped on every begin/end of a write and every snapshot move (`snapshotMoved()`):
    /// caches that outlive a call (`Results`) are valid only within one generation.
    @exclusivity(unchecked) var generation: UInt64 = 0
    /// Bumped by `invalidate()`: objects and collections handed out before it carry the old
    /// value (`ObjectBinding.era`, `CollectionRef.era`) and are invalidated, as in RealmSwift.
    @exclusivity(unchecked) private(set) var era: UInt32 = 0

    // MARK: Parts valid for one snapshot (forgotten by `snapshotMoved()`)
    @exclusivity(unchecked) var openCollections = CollectionCache()
    @exclusivity(unchecked) var addPath = AddPathCache()
    @exclusivity(unchecked) var rowFingers = RowFingers()

    // MARK: Write transaction
    let write = WriteState()
    /// The open write transaction (see `write`).
    var writeTxn: WriteTransaction? { write.transaction }

    /// The first damage this core met (see the file header); never cleared.
    @exclusivity(unchecked) private(set) var damage: Realm.Error?
    var autorefresh = true
    /// The last frozen core, reused while at the same version. Weak: a frozen realm nobody holds
    /// must release its version (the harness pins and unpins this way).
    private weak var frozen: RealmCore?
    var asyncWrites = AsyncWriteQueue()
    /// Observers of this core (Notifications/ObserverHub.swift); nil until something observes.
    var notificationHub: ObserverHub?
    /// Secondary-index bookkeeping of this core (Engine/IndexMaintenance.swift).
    var indexing = IndexRuntime()
    /// Set while a migration runs: added links go into the backlink tree, never into row
    /// footers (InlineBacklinks.swift).
    var inlineBacklinksSuspended = false

    /// Opens the file of `configuration` (compacting first when asked), checks the schema.
    /// `inspecting`: leave the directory as it is (no removal of a failed compaction's copy), for
    /// tools that look at a file without changing anything (StrataFile.swift).
    init(configuration: Realm.Configuration, scheduler: RealmScheduler?, inspecting: Bool = false) throws {
        let options = try configuration.storageOptions()
        self.configuration = configuration
        self.scheduler = scheduler
        self.confinement = Confinement.current(scheduler: scheduler)
        self.autorefreshScheduler = inspecting ? scheduler
            : scheduler ?? (Thread.isMainThread ? .queue(.main) : ThreadRunLoop.runningOnCurrentThread().map { .runLoop($0) })
        self.isFrozen = false
        self.fileIdentity = configuration.identity
        if !configuration.isInMemory, let should = configuration.shouldCompactOnLaunch {
            try Self.compactIfAsked(options: options, should)
        }
        if !configuration.isInMemory && !inspecting { StorageFile.removeStaleCopies(besideFileAt: options.path) }
        self.handle = SharedStorageFile(try Realm.Error.wrap { try StorageFile.open(options) })
        // Dense `writeCopy` and `verify()` find the trees through the object layer's relocation.
        handle.file.setRelocator(ObjectRelocation())
        try openSchema()
        // Reading begins at the first use, as in RealmSwift for a file open elsewhere: a
        // ThreadSafeReference resolved first sets the version this realm reads (`adoptRead`).
        readTxn?.end()
        readTxn = nil
        Logger.log(.detail, "DB: opened \(fileIdentity) (schema version \(snap.schemaVersion), \(snap.schemas.count) classes)")
        Logger.log(.trace, "DB: \(fileIdentity) reads version \(snap.version)")
    }

    /// A frozen core pinned at `read`'s version.
    private init(frozenFrom live: RealmCore, read: ReadTransaction) {
        configuration = live.configuration
        scheduler = nil
        autorefreshScheduler = nil
        confinement = .anywhere
        isFrozen = true
        fileIdentity = live.fileIdentity
        handle = live.handle
        readTxn = read
        snap = live.snap
        snap.metasDirty = false
        snap.schemaDirty = false
        snapValid = read.version == live.snap.version
    }

    deinit {
        if !isFrozen {
            InstanceCache.shared.remove(self)
            Logger.log(.detail, "DB: closed \(fileIdentity)")
        }
        writeTxn?.rollback()
        readTxn?.end()
    }

    /// Compaction on launch, when `should` asks for it. A compaction that cannot run — another
    /// process has the file open, the disk cannot hold the copy, the copy fails to write — is
    /// skipped and the realm opens uncompacted, as Realm does: compaction only saves space, and
    /// a failed one leaves the file as it was (the copy is written beside it and renamed over it
    /// only once complete). Damage found while copying is not skipped: the copy walks the newest
    /// version's trees, and a tree that does not verify is the file's problem, not the copy's.
    private static func compactIfAsked(options: StorageOptions, _ should: @Sendable (Int, Int) -> Bool) throws {
        guard FileManager.default.fileExists(atPath: options.path),
              InstanceCache.shared.liveCores(identity: options.path).isEmpty,
              !StorageFile.isOpenAnywhere(path: options.path) else { return }
        let file = try Realm.Error.wrap { try StorageFile.open(options) }
        defer { file.close() }
        // A file of another object format is refused here as open refuses it, with its own error
        // and before anything is written (the relocation would otherwise report it as damage).
        let reading = try Realm.Error.wrap { try file.beginRead() }
        let marker = reading.roots[0]
        reading.end()
        if marker != 0 { try Catalog.checkFormat(marker: marker, of: "'\(options.path)'") }
        let sizes = try Realm.Error.wrap { try file.sizes() }
        guard should(sizes.totalBytes, sizes.usedBytes) else { return }
        file.setRelocator(ObjectRelocation())  // dense: pages renumbered through the object layer's trees
        do { try file.compact() } catch let error as StorageError where Self.skipsCompaction(error) {
            return
        } catch let error as StorageError { throw Realm.Error(error) }
    }

    /// The failures of a compaction on launch that leave the file intact and usable.
    static func skipsCompaction(_ error: StorageError) -> Bool {
        switch error.code {
        case .fileInUse, .diskFull, .io: return true
        default: return false
        }
    }

    // MARK: - Snapshot

    /// The pages of the current snapshot, beginning a read transaction when none is open.
    @inline(__always) func pages() throws(Realm.Error) -> any PageReading {
        if let writing = write.transaction { return writing }
        if let reading = readTxn, snapValid, reading.version == snap.version { return reading }
        return try beginSnapshot()
    }

    private func beginSnapshot() throws(Realm.Error) -> ReadTransaction {
        if let reading = readTxn {
            try load(roots: reading.roots, version: reading.version, pages: reading)
            return reading
        }
        let reading = try Realm.Error.wrap { try file.beginRead() }
        readTxn = reading
        try load(roots: reading.roots, version: reading.version, pages: reading)
        return reading
    }

    /// Forgets everything valid for the previous snapshot only. Called wherever the version the
    /// core reads moves, or a write begins or ends — the one place such caches are invalidated.
    func snapshotMoved() {
        generation &+= 1
        changeCounter &+= 1
        openCollections.removeAll()
        addPath.snapshotMoved()
        rowFingers.removeAll()
    }

    func load(roots: UserRoots, version: UInt64, pages: some PageReading) throws(Realm.Error) {
        if snapValid && snap.version == version { return }
        snapshotMoved()
        snap.version = version
        snap.metasDirty = false
        snap.schemaDirty = false
        if roots[0] == 0 {
            snap = Snapshot()
            snap.version = version
            snapValid = true
            return
        }
        try Catalog.checkFormat(marker: roots[0], of: "'\(fileIdentity)'")
        snap.objectFormat = Catalog.version(ofMarker: roots[0]) ?? Catalog.formatVersion
        snap.isFresh = false
        // A migration (another core or process) rewrites table schemas in place and raises the
        // schema version: decode the schema again and drop the bindings then.
        let migrated = snap.schemaVersion != roots[1] && !snap.schemas.isEmpty
        snap.schemaVersion = roots[1]
        snap.catalog = BytesTree(root: PageRef(UInt32(truncatingIfNeeded: roots[2])))
        snap.backlinks = BytesTree(root: PageRef(UInt32(truncatingIfNeeded: roots[3])))
        let catalog = snap.catalog
        let metaBytes: [UInt8]
        if roots.data.first == Catalog.rootDataTag {
            metaBytes = Array(roots.data.dropFirst())
        } else {
            metaBytes = try Realm.Error.wrap {
                try Catalog.tablesKey.withUnsafeBytes { key in try catalog.withValue(forKey: key, in: pages) { Array($0) } }
            } ?? []
        }
        let count = Catalog.tableCount(metaBytes)
        let previousClasses = snap.schemas.map(\.className)
        if migrated {
            snap.schemas = []
            snap.infos = []
            snap.tableByClass = [:]
        }
        if migrated || count != snap.schemas.count {
            let schemaBytes = try Realm.Error.wrap {
                try Catalog.schemaKey.withUnsafeBytes { key in try catalog.withValue(forKey: key, in: pages) { Array($0) } }
            } ?? []
            let schemas = try Catalog.decodeSchemas(schemaBytes)
            guard schemas.count == count else {
                throw CatalogReader.corrupt("\(schemas.count) classes in the schema but \(count) table roots")
            }
            snap.schemas = schemas
            snap.tableByName = [:]
            for (table, schema) in schemas.enumerated() { snap.tableByName[schema.className] = table }
            // Bindings of already-checked classes stay valid: a table's schema never changes.
            // Tables past `count` were added after this version (a realm that adopted an older
            // reference's version): their bindings go.
            if count < snap.infos.count {
                snap.infos.removeLast(snap.infos.count - count)
                snap.tableByClass = snap.tableByClass.filter { $0.value < count }
            }
            snap.infos += [ClassInfo?](repeating: nil, count: max(0, count - snap.infos.count))
            // A bound class names its properties, whatever names the file stores them under.
            for (table, info) in snap.infos.enumerated() where table < count {
                if let info { snap.schemas[table] = info.schema }
            }
        }
        snap.metas = try Catalog.decodeMetas(metaBytes, count: count)
        snapValid = true
        // A migration that removed a class renumbers the tables after it: the objects and
        // collections handed out name tables by number, so they are invalidated, as Realm
        // invalidates the accessors of a removed table, rather than read another class's rows.
        if migrated && !snap.schemas.map(\.className).starts(with: previousClasses) { era &+= 1 }
    }

    /// Moves to the newest version (no-op inside a write). Returns whether the version changed.
    @discardableResult
    func refresh() throws(Realm.Error) -> Bool {
        guard !write.isOpen, !isFrozen else { return false }
        try refuseIfDamaged("refresh")
        let oldVersion = snap.version
        readTxn?.end()
        readTxn = nil
        _ = try beginSnapshot()
        return snap.version != oldVersion
    }

    /// Begins reading `reading`'s version, which may be older than the newest: for a core that is
    /// not reading (`readTxn` nil, no write open), resolving a ThreadSafeReference. Takes over
    /// `reading`; the core reads its version until `refresh()`, a write, or autorefresh.
    func adoptRead(_ reading: ReadTransaction) throws(Realm.Error) {
        guard readTxn == nil, !write.isOpen, !isFrozen else {
            reading.end()
            return
        }
        readTxn = reading
        do {
            try load(roots: reading.roots, version: reading.version, pages: reading)
        } catch {
            readTxn = nil
            reading.end()
            snapValid = false
            throw error
        }
    }

    /// A second pin of the version this core reads, for a ThreadSafeReference made outside a
    /// write (it begins reading when it did not yet); nil inside a write, whose version is not
    /// committed yet.
    func pinForHandover() throws(Realm.Error) -> ReadTransaction? {
        guard !write.isOpen else { return nil }
        _ = try pages()
        guard let readTxn else { return nil }
        return try Realm.Error.wrap { try readTxn.duplicate() }
    }

    /// Whether the core reads a version now (a read or a write is open): false from opening, or
    /// from `invalidate()`, until the first use.
    var isReading: Bool { write.isOpen || readTxn != nil }

    /// Releases the snapshot and invalidates every object and collection read so far; the next
    /// access begins a new snapshot.
    func invalidate() {
        guard !isFrozen else { return }
        era &+= 1
        if write.isOpen { cancelWrite() }
        readTxn?.end()
        readTxn = nil
        snapshotMoved()
    }

    // MARK: - Checks

    @inline(__always) func checkThread() {
        if !confinement.isCurrent {
            misuse(.wrongThread, "a live realm, object or collection of '\(fileIdentity)' was used from a thread or queue other than \(confinement.label); freeze it or pass a ThreadSafeReference")
        }
    }

    func checkThreadThrowing() throws(Realm.Error) {
        if !confinement.isCurrent {
            throw Realm.Error(.wrongThread, "the realm '\(fileIdentity)' is confined to \(confinement.label) and was used elsewhere")
        }
    }

    /// Misuse reported by an accessor that cannot throw (see Object.swift): stops with a message.
    func misuse(_ code: Realm.Error.Code, _ message: String) -> Never {
        Stop.now(Realm.Error(code, message))
    }

    /// A failure met by a read that cannot throw: stops with the error's message (see the file
    /// header for why a default value or a shorter result is never returned instead).
    func readFailed(_ error: Swift.Error) -> Never {
        let surfaced = Realm.Error.surfacing(error)
        if let realmError = surfaced as? Realm.Error {
            noteDamage(realmError)
            misuse(realmError.code, realmError.message)
        }
        misuse(.invalidState, "\(surfaced)")
    }

    /// Keeps the first damage met (see `damage`). Frozen cores, read from several threads, keep
    /// nothing: their snapshot never changes and every read of the damaged page fails again.
    func noteDamage(_ error: Realm.Error) {
        if error.isDamage, damage == nil, !isFrozen { damage = error }
    }

    /// The error a public throwing entry point throws for `error` (see `Realm.Error.surfacing`),
    /// noting damage on the way.
    func surfacing(_ error: any Swift.Error) -> any Swift.Error {
        let surfaced = Realm.Error.surfacing(error)
        if let realmError = surfaced as? Realm.Error { noteDamage(realmError) }
        return surfaced
    }

    /// Runs a public throwing entry point's `body`, its failures surfaced (`surfacing(_:)`).
    @inline(__always) @discardableResult
    func surfacing<R>(_ body: () throws -> R) throws -> R {
        do { return try body() } catch { throw surfacing(error) }
    }

    /// Throws the damage this core met, if any: writes and refreshes refuse to go on.
    func refuseIfDamaged(_ what: String) throws(Realm.Error) {
        if let damage {
            throw Realm.Error(damage.code, "cannot \(what): the realm met damage and must be reopened: \(damage.message)", storageError: damage.storageError)
        }
    }

    /// For accessors: a write must be open on the calling thread. Nil once the write has
    /// failed (WriteState.swift): the accessor then changes nothing.
    @inline(__always) func requireWrite(_ what: @autoclosure () -> String) -> WriteTransaction? {
        checkThread()
        guard let writing = write.transaction, write.firstError == nil else {
            if write.hasFailed { return nil }
            if isFrozen { misuse(.readOnly, RealmSwiftMessages.modifyingFrozen(what())) }
            misuse(.notInWriteTransaction, "\(what()) outside a write transaction; use realm.write { }")
        }
        return writing
    }

    /// Runs a write call that cannot throw (`add`, `create`, `delete`, `setValue`…): misuse
    /// Realm reports with an exception (another thread, no write open, a frozen realm) stops
    /// with a `Strata:` message; once the write has failed, `body` does not run; a failure of
    /// `body` fails the write (`record(_:)`), whose commit throws it.
    func deferringFailure(_ what: @autoclosure () -> String, _ body: () throws -> Void) {
        checkThread()
        if write.hasFailed { return }
        guard write.isOpen else {
            if isFrozen { misuse(.readOnly, "cannot \(what()) in a frozen realm") }
            misuse(.notInWriteTransaction, "cannot \(what()) outside a write transaction; use realm.write { }")
        }
        do { try body() } catch { record(surfacing(error)) }
    }

    /// Runs the throwing counterpart of a write call: throws its failure at once and, inside a
    /// write, fails the write as well, so that catching the error cannot commit half a change.
    /// Once the write has failed, throws that first failure without running `body`.
    func failingWrite<Result>(_ body: () throws -> Result) throws -> Result {
        if write.hasFailed, let first = write.firstError ?? write.beginFailure { throw first }
        do {
            return try body()
        } catch {
            let surfaced = surfacing(error)
            if write.isOpen { record(surfaced) }
            throw surfaced
        }
    }

    /// Keeps the failure of a `beginWrite()` that cannot throw (WriteState.swift).
    func beginFailed(_ error: Realm.Error) {
        noteDamage(error)
        write.failedToBegin(error)
        write.keptAlive = self
    }

    /// For throwing APIs.
    func requireWriteThrowing(_ what: String) throws(Realm.Error) -> WriteTransaction {
        try checkThreadThrowing()
        guard let writing = write.transaction else {
            if isFrozen { throw Realm.Error(.readOnly, "cannot \(what) in a frozen realm") }
            throw Realm.Error(.notInWriteTransaction, "cannot \(what) outside a write transaction")
        }
        return writing
    }

    func checkWritable(name: String) throws(Realm.Error) {
        _ = try requireWriteThrowing("set '\(name)'")
    }

    /// A failure of a mutating accessor (or of a background step such as notification delivery):
    /// kept for the next commit, or for the next `beginWrite` outside a write.
    func record(_ error: Swift.Error) {
        let realmError = Self.realmError(error)
        noteDamage(realmError)
        write.record(realmError)
    }

    /// The first failure kept by `record(_:)` and not yet thrown.
    var pendingError: Realm.Error? { write.firstError }

    /// `error` as the `Realm.Error` a public call throws.
    static func realmError(_ error: Swift.Error) -> Realm.Error {
        if let realmError = error as? Realm.Error { return realmError }
        if let storageError = error as? StorageError { return Realm.Error(storageError) }
        return Realm.Error(.invalidState, "\(error)")
    }

    // MARK: - Write transactions

    func beginWrite() throws(Realm.Error) {
        _ = try beginWrite(waiting: true)
    }

    /// `beginWrite()`; with `waiting: false`, returns false at once, changing nothing, while
    /// another writer holds the file. The snapshot being read stays pinned until the writer lock
    /// is taken (ending it first would let that writer reuse its pages), so pages only it held
    /// are reused from the next commit on.
    func beginWrite(waiting: Bool) throws(Realm.Error) -> Bool {
        try checkThreadThrowing()
        if isFrozen { throw Realm.Error(.readOnly, RealmSwiftMessages.frozenTransaction) }
        if configuration.readOnly { throw Realm.Error(.readOnly, "the realm '\(fileIdentity)' was opened read-only") }
        guard !write.isOpen else {
            throw Realm.Error(.alreadyInWriteTransaction, "the realm '\(fileIdentity)' is already in a write transaction")
        }
        try refuseIfDamaged("begin a write")
        // Recorded outside a write (e.g. while delivering notifications): reported here once.
        if let recorded = write.takeError() { throw recorded }
        let writing: WriteTransaction
        if waiting {
            readTxn?.end()
            readTxn = nil
            writing = try Realm.Error.wrap { try file.beginWrite() }
        } else {
            guard let free = try Realm.Error.wrap({ try file.beginWriteIfFree() }) else { return false }
            writing = free
            readTxn?.end()
            readTxn = nil
        }
        do {
            try load(roots: writing.roots, version: writing.baseVersion, pages: writing)
        } catch {
            writing.rollback()
            noteDamage(error)
            throw error
        }
        write.began(writing, restoring: snap)
        write.keptAlive = self
        snapshotMoved()
        return true
    }

    /// Commits the write transaction. With `deferringFlush` the new version is published at once
    /// and its flush is left to a later `file.waitUntilDurable(_:)` (grouped async commits).
    @discardableResult
    func commitWrite(deferringFlush: Bool = false) throws(Realm.Error) -> UInt64 {
        try checkThreadThrowing()
        guard let writing = write.transaction else {
            if let beginFailure = write.beginFailure {
                write.ended()
                throw beginFailure
            }
            throw Realm.Error(.notInWriteTransaction, "commitWrite without beginWrite on '\(fileIdentity)'")
        }
        if let recorded = write.firstError {
            cancelWrite()
            throw recorded
        }
        if let damage {
            // Met by a read inside this write: nothing of it may be committed.
            cancelWrite()
            throw damage
        }
        do {
            try flushCollections(writing)
            var roots = writing.roots
            if snap.metasDirty || snap.schemaDirty || snap.isFresh {
                // The metas go into the meta page's root data when they fit (no catalog page to
                // rewrite); see Catalog.swift.
                let metas = Catalog.encode(metas: snap.metas)
                if metas.count < UserRoots.maxDataSize {
                    var data = [UInt8]()
                    data.reserveCapacity(metas.count + 1)
                    data.append(Catalog.rootDataTag)
                    data.append(contentsOf: metas)
                    roots.data = data
                } else {
                    roots.data = []
                    try Catalog.tablesKey.withUnsafeBytes { key in
                        try metas.withUnsafeBytes { value in _ = try snap.catalog.put(key, value, in: writing) }
                    }
                }
                if snap.schemaDirty || snap.isFresh {
                    let schemas = Catalog.encode(schemas: snap.schemas)
                    try Catalog.schemaKey.withUnsafeBytes { key in
                        try schemas.withUnsafeBytes { value in _ = try snap.catalog.put(key, value, in: writing) }
                    }
                }
            }
            roots[0] = Catalog.formatMarker
            roots[1] = snap.schemaVersion
            roots[2] = UInt64(snap.catalog.root.raw)
            roots[3] = UInt64(snap.backlinks.root.raw)
            writing.roots = roots
            if deferringFlush { writing.durability = .unsafe }
            let committed = try writing.commit()
            write.ended()
            snap.version = committed
            snap.objectFormat = Catalog.formatVersion
            snap.isFresh = false
            snap.metasDirty = false
            snap.schemaDirty = false
            snapValid = true
            snapshotMoved()
            // Realm semantics: after a commit the realm reads its own version until refreshed.
            // Pinning now costs one registry update; a newer version (another writer slipped in)
            // is simply parsed on the next read.
            if let reading = try? file.beginRead() {
                readTxn = reading
                if reading.version != committed { snapValid = false }
            }
            Logger.log(.debug, "DB: \(fileIdentity) committed version \(committed)")
            return committed
        } catch {
            cancelWrite()
            let realmError = Self.realmError(error)
            noteDamage(realmError)
            throw realmError
        }
    }

    func cancelWrite() {
        guard let writing = write.transaction else {
            if write.beginFailure != nil { write.ended() }
            return
        }
        writing.rollback()
        if let snapshotAtBegin = write.snapshotAtBegin { snap = snapshotAtBegin } else { snapValid = false }
        write.ended()
        snapshotMoved()
    }

    var isInWriteTransaction: Bool { write.isOpen }

    /// The class info and table of an object about to be added (creating the table if needed),
    /// refusing embedded objects added on their own. Remembers the last class for the current
    /// snapshot (AddPathCache.swift): adding many objects of one class then skips ClassInfo's
    /// locked cache and the table lookup.
    @inline(__always)
    func classAndTable(forAdding type: Object.Type, viaLink: Bool) throws -> (ClassInfo, Int) {
        let id = ObjectIdentifier(type)
        if let last = addPath.lastAddedClass, last.type == id {
            if last.info.isEmbedded && !viaLink { try refuseEmbedded(last.info) }
            return (last.info, last.table)
        }
        let info = try ClassInfo.of(type)
        if info.isEmbedded && !viaLink { try refuseEmbedded(info) }
        guard let table = try tableIndex(for: info, create: true) else {
            throw Realm.Error(.invalidState, "no table for '\(info.schema.className)'")
        }
        addPath.lastAddedClass = ClassTableBinding(type: id, info: info, table: table)
        return (info, table)
    }

    private func refuseEmbedded(_ info: ClassInfo) throws {
        throw Realm.Error(.invalidArgument, "embedded '\(info.schema.className)' objects can only be added through their parent's link")
    }

    // MARK: - Frozen

    /// `frozenCore()` for the freeze calls that cannot throw (RealmSwift's signatures): storage
    /// failures stop with a `Strata:` message, as reads do.
    func frozenCoreOrStop() -> RealmCore {
        do { return try frozenCore() } catch { readFailed(error) }
    }

    /// A frozen core at the current version (cached per version). Inside a write transaction,
    /// at the version the write began from, as in Realm: what the write changed is not yet
    /// committed, so a frozen copy cannot hold it.
    func frozenCore() throws(Realm.Error) -> RealmCore {
        if isFrozen { return self }
        try checkThreadThrowing()
        if !write.isOpen {
            _ = try pages()
            if let frozen, frozen.snap.version == snap.version { return frozen }
        }
        // The writer holds the file's write lock, so the newest committed version is the one its
        // write began from.
        let reading = try Realm.Error.wrap { try file.beginRead() }
        if write.isOpen, let frozen, frozen.snap.version == reading.version {
            reading.end()
            return frozen
        }
        let frozenCore = RealmCore(frozenFrom: self, read: reading)
        // The live snapshot holds the write's uncommitted tables: parse the committed version.
        if write.isOpen { frozenCore.snapValid = false }
        if !frozenCore.snapValid { try frozenCore.load(roots: reading.roots, version: reading.version, pages: reading) }
        frozen = frozenCore
        return frozenCore
    }

    /// `frozenCore(holding:key:)` for the freeze calls that cannot throw: an object the write
    /// created stops with a `Strata:` message, as Realm's freeze raises.
    func frozenCoreOrStop(holding table: Int, key: UInt64) -> RealmCore {
        do { return try frozenCore(holding: table, key: key) } catch { readFailed(error) }
    }

    /// A frozen core holding the object `key` of `table` (or a collection it owns). Inside a write,
    /// an object the write created has nothing to freeze: `.invalidState`.
    func frozenCore(holding table: Int, key: UInt64) throws(Realm.Error) -> RealmCore {
        let frozen = try frozenCore()
        guard write.isOpen else { return frozen }
        let committed = try Realm.Error.wrap {
            table < frozen.snap.metas.count ? try frozen.snap.metas[table].objects.contains(key, in: try frozen.pages()) : false
        }
        if !committed {
            throw Realm.Error(.invalidState, "cannot freeze an object in the same write transaction as it was created in; commit first")
        }
        return frozen
    }
}
