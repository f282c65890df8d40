// StrataFile: a Strata file opened without the app's model classes, read by the schema it stores.
// What the `strata` tool (and a failing benchmark's report) uses to look inside a file.
//
// Invariants:
// - The file is opened read-only (O_RDONLY): nothing here can write to it. The directory is left
//   as it is too (a failed compaction's leftover copy is not removed, as a writable open would).
// - Every failure is a typed `Realm.Error`; damage is `.corruptFile` naming what was found. No
//   path stops the process: values are decoded by `StoredValueDecoder`, which throws.
// - One snapshot: everything read comes from the version pinned at open.
import Foundation
import StrataStorage

/// A Strata file opened read-only by the schema it stores, for inspection and export.
///
/// ```swift
/// let file = try StrataFile(path: "sensors.realm")
/// for schema in file.schema { print(schema.className, try file.objectCount(of: schema.className)) }
/// ```
public final class StrataFile {
    /// The file's path.
    public let path: String
    let core: RealmCore

    /// Opens `path` read-only.
    ///
    /// - Parameters:
    ///   - path: the file; it must exist.
    ///   - encryptionKey: the 64-byte key of an encrypted file, nil for a plain one.
    ///   - verifyingAllPages: check the checksum (or authentication tag) of every page of the
    ///     newest version before anything is read, whatever the file's size.
    /// - Throws: `Realm.Error`: `.fileNotFound`, `.invalidDatabase` (not a Strata file, or empty),
    ///   `.unsupportedFileFormat`, `.corruptFile`, `.wrongEncryptionKey`, `.invalidEncryptionKey`,
    ///   `.incompatibleLockFile`, `.fileAccess`.
    public init(path: String, encryptionKey: [UInt8]? = nil, verifyingAllPages: Bool = false) throws(Realm.Error) {
        self.path = path
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
        configuration.readOnly = true
        configuration.encryptionKey = encryptionKey.map { Data($0) }
        configuration.objectTypes = nil
        // Any schema version the file records is readable here: the open's "file newer than the
        // code" check is for apps, and a read-only open never migrates.
        configuration.schemaVersion = .max
        if verifyingAllPages { configuration.openVerification = .allPages }
        do {
            core = try RealmCore(configuration: configuration, scheduler: nil, inspecting: true)
        } catch let error as Realm.Error {
            throw error
        } catch {
            throw RealmCore.realmError(error)
        }
    }

    /// The classes stored in the file, in table order (embedded classes included).
    public var schema: [ObjectSchema] { core.snap.schemas }

    /// The schema version the file records.
    public var schemaVersion: UInt64 { core.snap.schemaVersion }

    /// The version read (the newest committed when the file was opened).
    public var version: UInt64 { core.snap.version }

    /// The object-layer format version of the file: this version's, or an earlier one it reads
    /// (which the file keeps until something writes to it).
    public var objectFormatVersion: Int { core.snap.objectFormat }

    /// The schema of `className`; `.invalidArgument` naming the classes when there is none.
    public func objectSchema(_ className: String) throws(Realm.Error) -> ObjectSchema {
        schema[try table(className)]
    }

    func table(_ className: String) throws(Realm.Error) -> Int {
        guard let t = core.snap.tableByName[className] else {
            let names = schema.map(\.className).joined(separator: ", ")
            throw Realm.Error(.invalidArgument, "the file has no class '\(className)' (its classes: \(names.isEmpty ? "none" : names))")
        }
        return t
    }

    /// The number of objects of `className`.
    public func objectCount(of className: String) throws(Realm.Error) -> Int {
        let t = try table(className)
        return try Realm.Error.wrap { try core.snap.metas[t].objects.count(in: try core.pages()) }
    }

    /// Every object of `className`, in object-key order.
    public func objects(of className: String) throws(Realm.Error) -> [StoredObject] {
        let t = try table(className)
        var out: [StoredObject] = []
        try forEachObject(table: t) { out.append($0) }
        return out
    }

    /// Calls `body` with each object of `className` in object-key order, one at a time (for
    /// files too large to hold as an array); `body` returns false to stop.
    public func forEachObject(of className: String, _ body: (StoredObject) -> Bool) throws(Realm.Error) {
        try forEachObjectWhile(table: try table(className), body)
    }

    /// The object with key `key` of `className`, nil when there is none.
    public func object(of className: String, key: UInt64) throws(Realm.Error) -> StoredObject? {
        let t = try table(className)
        let decoder = StoredValueDecoder(core: core, pages: try core.pages())
        return try Realm.Error.wrap {
            try core.snap.metas[t].objects.withValue(forKey: key, in: decoder.pages) { row in
                try decoder.object(table: t, key: key, row: row)
            }
        }
    }

    func forEachObject(table t: Int, _ body: (StoredObject) throws(Realm.Error) -> Void) throws(Realm.Error) {
        try forEachObjectWhile(table: t, { (object) throws(Realm.Error) -> Bool in
            try body(object)
            return true
        })
    }

    /// Each object of table `t` in key order, until `body` returns false.
    func forEachObjectWhile(table t: Int, _ body: (StoredObject) throws(Realm.Error) -> Bool) throws(Realm.Error) {
        let decoder = StoredValueDecoder(core: core, pages: try core.pages())
        var failure: Realm.Error? = nil
        try Realm.Error.wrap {
            try core.snap.metas[t].objects.forEach(from: 0, in: decoder.pages) { key, row in
                do throws(Realm.Error) {
                    return try body(try decoder.object(table: t, key: key, row: row))
                } catch {
                    failure = error
                    return false
                }
            }
        }
        if let failure { throw failure }
    }

    /// Pages, free space, held pages and the processes that have the file open (walks every
    /// page of the newest version; `.corruptFile` when its accounting fails).
    ///
    /// - Parameter patience: how long to wait, in seconds, for a write transaction open
    ///   elsewhere to end; past it, `.alreadyOpen` naming the cause (never a hang).
    public func storage(patience: Double = 5) throws(Realm.Error) -> Storage {
        Storage(try Realm.Error.wrap { try core.file.inspect(patience: patience) })
    }

    /// Releases the file. Also done when the value goes away.
    public func close() {
        core.readTxn?.end()
        core.readTxn = nil
        core.file.close()
    }
}
