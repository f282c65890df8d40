// RealmCore: the engine behind a `Realm` value — one file handle, one snapshot (a read
// transaction, or the write transaction while one is open), and the parsed catalog of that
// snapshot. It composes parts, each in its own file:
// - the snapshot and catalog: `snap` (Snapshot.swift parses and writes the catalog), the read
//   transaction, and the caches valid for one snapshot (CollectionCache.swift, AddPathCache.swift);
//   reading, refreshing and pinning versions are here;
// - the write session: `write` (WriteSession.swift: begin, commit, cancel, failures in a write);
// - the class-to-table bindings (TableBinding.swift);
// - the observers: `notificationHub` (Notifications/ObserverHub.swift; when it delivers:
//   NotificationScheduling.swift);
// - the indexes: `indexing` and `indexes` (IndexMaintenance.swift, Query/QueryIndexPlan.swift);
// - the stores: objects (ObjectStore.swift; adding: `adding`, ObjectAdd.swift; deleting:
//   `deletion`, ObjectDelete.swift, BatchDelete.swift, BatchListUnlink.swift), collections
//   (CollectionStore.swift; lists and sets: `lists`, ListStore.swift; maps: `maps`,
//   Collections/Map.swift), backlinks (`backlinkStore`: Backlinks.swift, InlineBacklinks.swift,
//   BatchLinks.swift), embedded updates in place, column aggregates, row fingerprints, the
//   migration and the uncommitted copy.
// The parts without state of their own are views (`struct … { let core }`) made per call: in the
// same module they inline to the direct calls they replace, and their state stays the core's,
// confined with it.
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
//   memory; `commitWrite` writes them once (WriteSession.swift).
// - A failure inside a mutating accessor (a setter, `list.append`: they cannot throw) is kept in
//   the write state (WriteSession.swift); the next commit rolls back and throws it, so a
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
    @exclusivity(unchecked) var readTxn: ReadTransaction? {
        didSet { unretainedReadTxn = readTxn.map { Unmanaged.passUnretained($0) } }
    }
    /// `readTxn`, to be read without a reference count taken (a property read's hot path):
    /// valid while `readTxn` holds the same transaction.
    @exclusivity(unchecked) private(set) var unretainedReadTxn: Unmanaged<ReadTransaction>?
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
    /// Not tied to a snapshot: a guess is checked against the row it names (PrimaryKeyGuesses.swift).
    @exclusivity(unchecked) var primaryKeyGuesses = PrimaryKeyGuesses()

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
    /// Secondary-index bookkeeping of this core (Core/IndexMaintenance.swift).
    var indexing = IndexRuntime()
    /// Set while a migration runs: added links go into the backlink tree, never into row
    /// footers (InlineBacklinks.swift).
    var inlineBacklinksSuspended = false

    // MARK: Parts that are views of this core (their state is the core's; see each file)
    @inline(__always) var migrator: Migrator { Migrator(core: self) }
    @inline(__always) var fingerprints: RowFingerprints { RowFingerprints(core: self) }
    @inline(__always) var indexes: SecondaryIndexes { SecondaryIndexes(core: self) }
    @inline(__always) var backlinkStore: BacklinkStore { BacklinkStore(core: self) }
    @inline(__always) var aggregates: ColumnAggregates { ColumnAggregates(core: self) }
    @inline(__always) var maps: MapStore { MapStore(core: self) }
    @inline(__always) var deletion: ObjectDeletion { ObjectDeletion(core: self) }
    @inline(__always) var adding: ObjectAdding { ObjectAdding(core: self) }
    @inline(__always) var lists: ListStore { ListStore(core: self) }
    @inline(__always) var embeddedInPlace: EmbeddedInPlaceUpdate { EmbeddedInPlaceUpdate(core: self) }
    @inline(__always) var uncommittedCopy: UncommittedCopy { UncommittedCopy(core: self) }

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

    /// Reads version `version` (Snapshot.swift parses it), unless `snap` already describes it.
    func load(roots: UserRoots, version: UInt64, pages: some PageReading) throws(Realm.Error) {
        if snapValid && snap.version == version { return }
        snapshotMoved()
        if try snap.read(roots: roots, version: version, pages: pages, of: fileIdentity) { era &+= 1 }
        snapValid = true
    }

    /// Moves to the newest version (no-op inside a write). Returns whether the version changed.
    @discardableResult
    func refresh() throws(Realm.Error) -> Bool {
        guard !write.isOpen, !isFrozen else { return false }
        try refuseIfDamaged("refresh")
        // Nothing newer committed: keep reading the same version. Ending the read and beginning
        // another of the same version unpins and pins it again, published in the lock file
        // (half of a primary-key lookup's time when an application refreshes before each one).
        if let reading = readTxn, snapValid, !reading.isEnded, reading.version == snap.version,
           try Realm.Error.wrap({ try file.latestVersion() }) == reading.version {
            return false
        }
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
