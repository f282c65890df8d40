// Realm.Configuration: everything that decides which file a realm opens and how.
//
// Invariants:
// - Exactly one of `fileURL` / `inMemoryIdentifier` is set; setting one clears the other.
// - `defaultConfiguration` is process-wide and guarded by a lock; reading it returns a copy.
// - Validation (`validated()`) happens at open, so an invalid configuration is a typed error
//   from `Realm(configuration:)`, never a trap.
import Foundation
import StrataStorage
import Synchronization

/// How hard a commit tries to reach the disk (Strata's addition to Realm's configuration).
public typealias Durability = StrataStorage.Durability
/// Strata: how much of a file the first open in a process verifies (see `Realm.Configuration.openVerification`).
public typealias OpenVerification = StrataStorage.OpenVerification

/// A schema migration in progress: the block gets it with the old schema version when
/// `schemaVersion` rises (API in Migration/MigrationAPI.swift).
public final class Migration {
    /// The schema stored in the file before this migration.
    public let oldSchema: Schema
    /// The schema of the code.
    public let newSchema: Schema
    /// The running migration (set only while the block runs).
    var context: MigrationContext?
    init(oldSchema: Schema, newSchema: Schema) {
        self.oldSchema = oldSchema
        self.newSchema = newSchema
    }
}

extension Realm {
    /// Describes a realm file (or in-memory realm) and how to open it.
    public struct Configuration: Sendable {
        /// The block a migration runs: it receives the migration (to enumerate, create, delete and
        /// rename) and the schema version stored in the file before the migration.
        public typealias MigrationBlock = @Sendable (Migration, UInt64) -> Void

        private static let defaultStore = Mutex<Configuration>(Configuration())

        /// The configuration used by `Realm()`. Settable; defaults to `default.realm` in the
        /// current directory.
        public static var defaultConfiguration: Configuration {
            get { defaultStore.withLock { $0 } }
            set { defaultStore.withLock { $0 = newValue } }
        }

        /// The file. Setting it clears `inMemoryIdentifier`.
        public var fileURL: URL? {
            didSet { if fileURL != nil { _inMemoryIdentifier = nil } }
        }
        private var _inMemoryIdentifier: String?
        /// Names an in-memory realm (data lives while an instance is open). Setting it clears `fileURL`.
        public var inMemoryIdentifier: String? {
            get { _inMemoryIdentifier }
            set {
                _inMemoryIdentifier = newValue
                if newValue != nil { fileURL = nil }
            }
        }
        /// 64 bytes, or nil for a plain file.
        public var encryptionKey: Data?
        /// Opens the file for reading only: writes stop with a `Strata:` message, and the file
        /// must exist (`Realm.Error` code `.fileNotFound` otherwise).
        public var readOnly: Bool
        /// Starts at 0. A file with a higher stored version cannot be opened.
        public var schemaVersion: UInt64
        /// Runs when `schemaVersion` is higher than the file's, inside the write transaction that
        /// changes the schema; a block that throws leaves the file as it was.
        public var migrationBlock: MigrationBlock?
        /// Wipe the file instead of failing when the stored schema differs.
        public var deleteRealmIfMigrationNeeded: Bool
        /// Called at the first open in the process with (file bytes, used bytes); true compacts.
        public var shouldCompactOnLaunch: (@Sendable (Int, Int) -> Bool)?
        /// The classes of this realm (and those they link to). nil: classes register on first use.
        public var objectTypes: [Object.Type]? {
            get { _objectTypes?.types }
            set { _objectTypes = newValue.map { TypeList(types: $0) } }
        }
        private var _objectTypes: TypeList?
        /// Beyond this many pinned versions, opening a snapshot throws `.tooManyActiveVersions`.
        public var maximumNumberOfActiveVersions: UInt?
        /// Strata: how commits reach the disk (`.full` by default; `.unsafe` skips the flush).
        public var durability: Durability
        /// Strata: what the first open in a process verifies before the realm is used. By default
        /// every stored page of files up to 256 MiB (checksums or AES-GCM tags), so that damage
        /// already in the file fails `Realm(configuration:)` with `.corruptFile` instead of
        /// meeting a read later. Pages open does not verify are verified when first read.
        public var openVerification: OpenVerification = .default
        /// Strata: when the newest version the file made durable no longer verifies (the file was
        /// damaged after it was written), open the newest older version that does instead of
        /// failing with `.corruptFile`. The newer versions are given up: a recovery to ask for
        /// explicitly (e.g. after showing the error), never a default.
        public var recoversToLastIntactVersion = false
        /// A realm file copied to `fileURL` when the realm is opened and no file is there yet (a
        /// bundled starting data set). Ignored for in-memory realms and when the file exists.
        /// It must open as a Strata file with `encryptionKey`; otherwise the open fails with that
        /// error (`.invalidDatabase`, `.wrongEncryptionKey`, …) and nothing is created at `fileURL`.
        public var seedFilePath: URL?

        /// A configuration; every parameter has the default a new app wants (`default.realm` in the
        /// current directory, plain, read-write, schema version 0, `durability: .full`).
        ///
        /// ```swift
        /// let configuration = Realm.Configuration(
        ///     fileURL: URL(fileURLWithPath: "app.realm"),
        ///     schemaVersion: 2,
        ///     migrationBlock: { migration, oldVersion in
        ///         if oldVersion < 2 { migration.renameProperty(onType: "Dog", from: "years", to: "age") }
        ///     })
        /// let realm = try Realm(configuration: configuration)
        /// ```
        ///
        /// - Parameters:
        ///   - fileURL: the data file; nil when `inMemoryIdentifier` is given.
        ///   - inMemoryIdentifier: names a realm kept in memory while an instance of it is open.
        ///   - encryptionKey: 64 bytes to encrypt every page with, or nil for a plain file.
        ///   - readOnly: open for reading only.
        ///   - schemaVersion: the version of the models; raise it when they change.
        ///   - migrationBlock: moves data from an older schema version.
        ///   - deleteRealmIfMigrationNeeded: discard the file instead of failing on a schema change.
        ///   - shouldCompactOnLaunch: asked with the file's total and used bytes at the first open.
        ///   - objectTypes: the classes the realm holds, checked at open (nil: registered on use).
        ///   - maximumNumberOfActiveVersions: the most versions readers may pin at once.
        ///   - durability: what a commit waits for (`.full`: on disk; `.unsafe`: in the file).
        ///   - seedFilePath: a file copied to `fileURL` at the first open when none is there.
        public init(fileURL: URL? = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("default.realm"),
                    inMemoryIdentifier: String? = nil,
                    encryptionKey: Data? = nil,
                    readOnly: Bool = false,
                    schemaVersion: UInt64 = 0,
                    migrationBlock: MigrationBlock? = nil,
                    deleteRealmIfMigrationNeeded: Bool = false,
                    shouldCompactOnLaunch: (@Sendable (Int, Int) -> Bool)? = nil,
                    objectTypes: [Object.Type]? = nil,
                    maximumNumberOfActiveVersions: UInt? = nil,
                    durability: Durability = .full,
                    seedFilePath: URL? = nil) {
            self.fileURL = fileURL
            self.seedFilePath = seedFilePath
            self.encryptionKey = encryptionKey
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.shouldCompactOnLaunch = shouldCompactOnLaunch
            self._objectTypes = objectTypes.map { TypeList(types: $0) }
            self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
            self.durability = durability
            if let inMemoryIdentifier { self.inMemoryIdentifier = inMemoryIdentifier }
        }

        /// The identity of the file: its standardized path, or "memory:<identifier>".
        var identity: String {
            if let m = _inMemoryIdentifier { return "memory:" + m }
            return fileURL?.standardizedFileURL.path ?? ""
        }

        var isInMemory: Bool { _inMemoryIdentifier != nil }

        /// Strata: the durability the realm opens with: `.memOnly` for an in-memory realm
        /// (whatever `durability` says), `durability` otherwise.
        public var effectiveDurability: Durability { isInMemory ? .memOnly : durability }

        func storageOptions() throws(Realm.Error) -> StorageOptions {
            if let key = encryptionKey, key.count != 64 {
                throw Realm.Error(.invalidEncryptionKey, "the encryption key is \(key.count) bytes; it must be 64")
            }
            if !isInMemory {
                guard let url = fileURL, !url.path.isEmpty else {
                    throw Realm.Error(.invalidArgument, "the configuration has neither a fileURL nor an inMemoryIdentifier")
                }
                guard url.isFileURL else { throw Realm.Error(.invalidArgument, "fileURL \(url) is not a file URL") }
            } else if _inMemoryIdentifier?.isEmpty == true {
                throw Realm.Error(.invalidArgument, "inMemoryIdentifier is empty")
            }
            if isInMemory && readOnly {
                throw Realm.Error(.invalidArgument, "an in-memory realm cannot be read-only")
            }
            if let m = maximumNumberOfActiveVersions, m == 0 {
                throw Realm.Error(.invalidArgument, "maximumNumberOfActiveVersions must be at least 1")
            }
            return StorageOptions(path: identity,
                                  durability: effectiveDurability,
                                  encryptionKey: encryptionKey.map { [UInt8]($0) },
                                  readOnly: readOnly,
                                  mustExist: readOnly,
                                  maximumActiveVersions: maximumNumberOfActiveVersions.map { Int($0) },
                                  openVerification: openVerification,
                                  recoversToLastIntactVersion: recoversToLastIntactVersion)
        }
    }
}

/// Object metatypes are immutable values; this box only exists because `Object.Type` is not
/// declared Sendable (classes' metatypes carry no state).
struct TypeList: @unchecked Sendable {
    let types: [Object.Type]
}
