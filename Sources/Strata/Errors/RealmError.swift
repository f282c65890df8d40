// Realm.Error: the one public error type of Strata.
//
// Invariants:
// - Every failure that user input, disk contents or misuse through a throwing API can cause is
//   reported as a `Realm.Error` whose `code` tells programs what happened and whose `message`
//   names the cause (the class, property, file or limit involved).
// - `StorageError`s from StrataStorage are mapped one-to-one onto codes here (`init(_:)`), so
//   callers never need to import StrataStorage to handle errors; the storage error itself stays
//   reachable as `storageError` (its code and message, e.g. `corruptPage` and the page number).
// - Every public throwing entry point of Strata passes what it throws through `surfacing(_:)`:
//   one `catch let e as Realm.Error` handles every failure of the library. Errors thrown by the
//   caller's own code (a `write` block, a migration block) pass through unchanged, as in Realm.
import Foundation
import StrataStorage

extension Realm {
    /// A failure reported by Strata. Compare `code`; show `message` to people.
    public struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// What went wrong. One case per cause in Realm's documented error list, plus the
        /// object-layer misuse cases.
        public enum Code: String, Sendable, Equatable, CaseIterable {
            /// A failure with no more specific code (RealmSwift's generic `fail`).
            case fail
            /// A read or write of the file failed.
            case fileAccess
            /// The file or its folder may not be opened or created by this process.
            case filePermissionDenied
            /// A file operation other than reading or writing pages failed (removing, renaming or
            /// copying a realm's files), or the path cannot name a file (a component of it is not
            /// a directory, it names a directory, it is too long).
            case fileOperationFailed
            /// The disk (or quota) is full.
            case diskFull
            /// The file does not exist and the configuration asked not to create it (read-only).
            case fileNotFound
            /// The destination of a copy already exists.
            case fileExists
            /// The file is not a Strata file.
            case invalidDatabase
            /// The file is a Strata file of another object format version (an earlier or a later
            /// one), named in the message. Strata reads one format and converts none: the file is
            /// refused and left unchanged.
            case unsupportedFileFormat
            /// A page or structure of the file is corrupted (checksum, truncation, inconsistency).
            case corruptFile
            /// The encryption key does not open the file (or a plain file was opened with a key,
            /// or an encrypted one without).
            case wrongEncryptionKey
            /// The encryption key is not 64 bytes.
            case invalidEncryptionKey
            /// The file is open elsewhere and the operation needs it closed (deleteFiles, compaction).
            case alreadyOpen
            /// The lock file is incompatible or could not be locked.
            case incompatibleLockFile
            /// The schema of the code differs from the one stored in the file (no migration ran).
            case schemaMismatch
            /// The configuration's schema version is lower than the file's.
            case invalidSchemaVersion
            /// A model class breaks a schema rule (name length, primary-key type, non-optional link…).
            case invalidSchema
            /// A live object, collection or realm was used from a thread or queue it is not confined to.
            case wrongThread
            /// A managed object was changed, or an object added/deleted, outside a write transaction.
            case notInWriteTransaction
            /// `beginWrite` inside a write transaction of the same realm.
            case alreadyInWriteTransaction
            /// An object with the same primary key already exists.
            case duplicatePrimaryKey
            /// An upsert or primary-key lookup on a class without a primary key, or a primary key
            /// value of the wrong type.
            case missingPrimaryKey
            /// The primary key of a managed object cannot change.
            case primaryKeyChange
            /// The object was deleted or its realm invalidated.
            case objectInvalidated
            /// The object belongs to another realm (or file).
            case wrongRealm
            /// A write to a read-only or frozen realm.
            case readOnly
            /// A value breaks a limit (String/Data over 16 MB, a key too large to index).
            case valueTooLarge
            /// An argument outside its domain: an index out of range, an unknown property,
            /// a value of the wrong type for a property.
            case invalidArgument
            /// Too many versions are pinned (`maximumNumberOfActiveVersions`).
            case tooManyActiveVersions
            /// The realm, transaction or reference was already closed/resolved.
            case closed
            /// The operation is not possible in this state.
            case invalidState
            /// A query's text, key path or arguments were rejected (malformed text, an unknown
            /// property, a type mismatch, a missing argument); `queryError` says which and where.
            case invalidQuery
            /// Never reported by Strata (it reads its earlier format 2 without an upgrade step);
            /// RealmSwift's code for a file that needs one, kept so that code handling it compiles.
            case fileFormatUpgradeRequired
            /// Never reported by Strata (it maps no file into memory); RealmSwift's code for
            /// running out of address space to map a file, kept so that code handling it compiles.
            case addressSpaceExhausted
            /// Never reported by Strata (it has no synchronized realms); RealmSwift's code for a
            /// local file opened as a synchronized one or the reverse.
            case incompatibleHistories
            /// Never reported by Strata (an in-memory realm has no backing file another process
            /// could open); RealmSwift's code for a file shared in incompatible ways.
            case incompatibleSession
        }

        /// What went wrong, for programs to switch on.
        public let code: Code
        /// A sentence naming the cause (the class, property, file, page or limit involved), for
        /// people.
        public let message: String
        /// The storage layer's report when the failure came from the file (full disk, a page
        /// that fails its checksum, …): its code is finer than `code` (`corruptPage` vs
        /// `corruptFile`, `truncatedFile`), its path names the file. Nil for object-layer errors.
        public let storageError: StorageError?
        /// The query engine's report when a query was rejected (`code == .invalidQuery`): its
        /// kind (syntax, unknown property, type mismatch, argument count, unsupported) and the
        /// offset of the offending token in the query text. Nil for every other error.
        public let queryError: QueryError?
        /// The file the error is about (the realm file, a copy's destination, a file being
        /// deleted); nil when it concerns no file or an in-memory realm.
        public let fileURL: URL?

        /// An error of `code` with `message`, for code that reports failures the way Strata does
        /// (a migration block, a wrapper around a realm).
        public init(_ code: Code, _ message: String) {
            self.init(code, message, fileURL: nil)
        }

        /// An error of `code` with no more to say than the code (RealmSwift's `Realm.Error(.fail)`).
        public init(_ code: Code) {
            self.init(code, code.rawValue, fileURL: nil)
        }

        init(_ code: Code, _ message: String, fileURL: URL?) {
            self.code = code
            self.message = message
            self.storageError = nil
            self.queryError = nil
            self.fileURL = fileURL
        }

        init(_ code: Code, _ message: String, storageError: StorageError?) {
            self.code = code
            self.message = message
            self.storageError = storageError
            self.queryError = nil
            self.fileURL = storageError?.path.map { URL(fileURLWithPath: $0) }
        }

        /// A rejected query, keeping the query engine's kind and offset.
        init(_ queryError: QueryError) {
            self.code = .invalidQuery
            self.message = queryError.description
            self.storageError = nil
            self.queryError = queryError
            self.fileURL = nil
        }

        /// Whether the error reports damage to the file's contents (a page failing its checksum
        /// or authentication tag, a truncated file, a structure that does not parse).
        public var isDamage: Bool { code == .corruptFile }

        public var description: String { "Realm.Error.\(code.rawValue): \(message)" }
    }
}

/// `error.localizedDescription` is the message, as RealmSwift's is, rather than Foundation's
/// generic "The operation could not be completed".
extension Realm.Error: LocalizedError {
    public var errorDescription: String? { message }
}

extension Realm.Error {
    /// Maps a storage failure onto the object layer's codes, keeping its message and path.
    init(_ e: StorageError) {
        let code: Code
        switch e.code {
        case .notAStrataFile: code = .invalidDatabase
        case .truncatedFile, .corruptFile, .corruptPage: code = .corruptFile
        case .wrongKey: code = .wrongEncryptionKey
        case .invalidKey: code = .invalidEncryptionKey
        case .io: code = .fileAccess
        case .permissionDenied: code = .filePermissionDenied
        case .badPath: code = .fileOperationFailed
        case .diskFull: code = .diskFull
        case .fileInUse: code = .alreadyOpen
        case .lockFailed: code = .incompatibleLockFile
        case .readOnly: code = .readOnly
        case .tooManyActiveVersions: code = .tooManyActiveVersions
        case .closed: code = .closed
        case .tooLarge: code = .valueTooLarge
        case .invalidArgument: code = .invalidArgument
        case .notFound: code = .fileNotFound
        case .alreadyExists: code = .fileExists
        case .invalidState: code = .invalidState
        }
        let where_ = e.path.map { " (\($0))" } ?? ""
        self.init(code, e.message + where_, storageError: e)
    }

    /// What a public entry point throws for `error`: a `Realm.Error` for every failure of the
    /// library (storage errors mapped by `init(_:)`), anything else — the caller's own errors
    /// thrown through a `write` or migration block — unchanged.
    static func surfacing(_ error: any Swift.Error) -> any Swift.Error {
        if let e = error as? StorageError { return Realm.Error(e) }
        if let e = error as? QueryError { return Realm.Error(e) }
        return error
    }

    /// Runs `body`, turning any `StorageError` into a `Realm.Error`.
    static func wrap<R>(_ body: () throws -> R) throws(Realm.Error) -> R {
        do { return try body() } catch let e as Realm.Error { throw e } catch let e as StorageError {
            throw Realm.Error(e)
        } catch let e as QueryError {
            throw Realm.Error(e)
        } catch {
            throw Realm.Error(.invalidState, "unexpected error: \(error)")
        }
    }
}

// RealmSwift names each code on `Realm.Error` itself and lets `catch` match a thrown error by
// code: `catch Realm.Error.fileNotFound { … }`.
extension Realm.Error {
    /// The ``Code/fail`` code, to match with `catch Realm.Error.fail`.
    public static var fail: Code { .fail }
    /// The ``Code/fileAccess`` code, to match with `catch Realm.Error.fileAccess`.
    public static var fileAccess: Code { .fileAccess }
    /// The ``Code/filePermissionDenied`` code, to match with `catch Realm.Error.filePermissionDenied`.
    public static var filePermissionDenied: Code { .filePermissionDenied }
    /// The ``Code/fileOperationFailed`` code, to match with `catch Realm.Error.fileOperationFailed`.
    public static var fileOperationFailed: Code { .fileOperationFailed }
    /// The ``Code/diskFull`` code, to match with `catch Realm.Error.diskFull`.
    public static var diskFull: Code { .diskFull }
    /// The ``Code/fileNotFound`` code, to match with `catch Realm.Error.fileNotFound`.
    public static var fileNotFound: Code { .fileNotFound }
    /// The ``Code/fileExists`` code, to match with `catch Realm.Error.fileExists`.
    public static var fileExists: Code { .fileExists }
    /// The ``Code/invalidDatabase`` code, to match with `catch Realm.Error.invalidDatabase`.
    public static var invalidDatabase: Code { .invalidDatabase }
    /// The ``Code/unsupportedFileFormat`` code, to match with `catch Realm.Error.unsupportedFileFormat`.
    public static var unsupportedFileFormat: Code { .unsupportedFileFormat }
    /// The ``Code/corruptFile`` code, to match with `catch Realm.Error.corruptFile`.
    public static var corruptFile: Code { .corruptFile }
    /// The ``Code/wrongEncryptionKey`` code, to match with `catch Realm.Error.wrongEncryptionKey`.
    public static var wrongEncryptionKey: Code { .wrongEncryptionKey }
    /// The ``Code/invalidEncryptionKey`` code, to match with `catch Realm.Error.invalidEncryptionKey`.
    public static var invalidEncryptionKey: Code { .invalidEncryptionKey }
    /// The ``Code/alreadyOpen`` code, to match with `catch Realm.Error.alreadyOpen`.
    public static var alreadyOpen: Code { .alreadyOpen }
    /// The ``Code/incompatibleLockFile`` code, to match with `catch Realm.Error.incompatibleLockFile`.
    public static var incompatibleLockFile: Code { .incompatibleLockFile }
    /// The ``Code/schemaMismatch`` code, to match with `catch Realm.Error.schemaMismatch`.
    public static var schemaMismatch: Code { .schemaMismatch }
    /// The ``Code/invalidSchemaVersion`` code, to match with `catch Realm.Error.invalidSchemaVersion`.
    public static var invalidSchemaVersion: Code { .invalidSchemaVersion }
    /// The ``Code/invalidSchema`` code, to match with `catch Realm.Error.invalidSchema`.
    public static var invalidSchema: Code { .invalidSchema }
    /// The ``Code/wrongThread`` code, to match with `catch Realm.Error.wrongThread`.
    public static var wrongThread: Code { .wrongThread }
    /// The ``Code/notInWriteTransaction`` code, to match with `catch Realm.Error.notInWriteTransaction`.
    public static var notInWriteTransaction: Code { .notInWriteTransaction }
    /// The ``Code/alreadyInWriteTransaction`` code, to match with `catch Realm.Error.alreadyInWriteTransaction`.
    public static var alreadyInWriteTransaction: Code { .alreadyInWriteTransaction }
    /// The ``Code/duplicatePrimaryKey`` code, to match with `catch Realm.Error.duplicatePrimaryKey`.
    public static var duplicatePrimaryKey: Code { .duplicatePrimaryKey }
    /// The ``Code/missingPrimaryKey`` code, to match with `catch Realm.Error.missingPrimaryKey`.
    public static var missingPrimaryKey: Code { .missingPrimaryKey }
    /// The ``Code/primaryKeyChange`` code, to match with `catch Realm.Error.primaryKeyChange`.
    public static var primaryKeyChange: Code { .primaryKeyChange }
    /// The ``Code/objectInvalidated`` code, to match with `catch Realm.Error.objectInvalidated`.
    public static var objectInvalidated: Code { .objectInvalidated }
    /// The ``Code/wrongRealm`` code, to match with `catch Realm.Error.wrongRealm`.
    public static var wrongRealm: Code { .wrongRealm }
    /// The ``Code/readOnly`` code, to match with `catch Realm.Error.readOnly`.
    public static var readOnly: Code { .readOnly }
    /// The ``Code/valueTooLarge`` code, to match with `catch Realm.Error.valueTooLarge`.
    public static var valueTooLarge: Code { .valueTooLarge }
    /// The ``Code/invalidArgument`` code, to match with `catch Realm.Error.invalidArgument`.
    public static var invalidArgument: Code { .invalidArgument }
    /// The ``Code/tooManyActiveVersions`` code, to match with `catch Realm.Error.tooManyActiveVersions`.
    public static var tooManyActiveVersions: Code { .tooManyActiveVersions }
    /// The ``Code/closed`` code, to match with `catch Realm.Error.closed`.
    public static var closed: Code { .closed }
    /// The ``Code/invalidState`` code, to match with `catch Realm.Error.invalidState`.
    public static var invalidState: Code { .invalidState }
    /// The ``Code/invalidQuery`` code, to match with `catch Realm.Error.invalidQuery`.
    public static var invalidQuery: Code { .invalidQuery }
}

extension Realm.Error.Code {
    /// Whether `error` is a `Realm.Error` with this code (what `catch Realm.Error.x` tests).
    public static func ~= (code: Realm.Error.Code, error: Swift.Error) -> Bool {
        (error as? Realm.Error)?.code == code
    }
}
