// schemaVersionAtURL: the schema version a file records, read without opening it as a realm (no
// model classes, no migration, nothing written), as RealmSwift's free function of that name.
import Foundation

/// The schema version recorded in the realm file at `fileURL`, read without opening it as a
/// realm: no migration runs and nothing is written.
///
/// ```swift
/// let version = try schemaVersionAtURL(Realm.Configuration.defaultConfiguration.fileURL!)
/// ```
///
/// - Parameters:
///   - fileURL: a realm file on disk.
///   - encryptionKey: the 64-byte key of an encrypted file, `nil` for a plain one.
/// - Throws: `Realm.Error`: `.invalidDatabase` when no realm was ever created there (no file, an
///   empty file) or the file is not a realm; `.fileAccess` when the path is not a regular file;
///   `.wrongEncryptionKey`, `.corruptFile` and the other errors of opening a file read-only.
public func schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
    let path = fileURL.path
    let attributes: [FileAttributeKey: Any]
    do {
        attributes = try FileManager.default.attributesOfItem(atPath: path)
    } catch {
        throw Realm.Error(.invalidDatabase, "Realm at path '\(path)' has not been initialized", fileURL: fileURL)
    }
    guard attributes[.type] as? FileAttributeType == .typeRegular else {
        throw Realm.Error(.fileAccess, "'\(path)' is not a regular file", fileURL: fileURL)
    }
    return try StrataFile(path: path, encryptionKey: encryptionKey.map { [UInt8]($0) }).schemaVersion
}
