// Equality and description of a `Realm.Configuration`, as RealmSwift defines them.
//
// Invariants:
// - Two configurations are equal when they name the same file or in-memory identifier with the
//   same encryption key, read-only flag and schema version: the settings that decide which data
//   a realm opens and how. Blocks (migration, compaction) cannot be compared and are not, and
//   neither are the class list or Strata's own open settings, as in RealmSwift.
// - The description never shows the encryption key, only whether there is one.
import Foundation

extension Realm.Configuration: Equatable {
    public static func == (lhs: Realm.Configuration, rhs: Realm.Configuration) -> Bool {
        lhs.encryptionKey == rhs.encryptionKey && lhs.fileURL == rhs.fileURL
            && lhs.inMemoryIdentifier == rhs.inMemoryIdentifier && lhs.readOnly == rhs.readOnly
            && lhs.schemaVersion == rhs.schemaVersion
    }
}

extension Realm.Configuration: CustomStringConvertible {
    /// The settings, one per line (`fileURL = …;`); the encryption key as `(set)` or `(none)`.
    public var description: String {
        let classes = objectTypes.map { "[" + $0.map { $0.className() }.joined(separator: ", ") + "]" } ?? "(every model class)"
        let fields: [(String, String)] = [
            ("fileURL", fileURL?.path ?? "(none)"),
            ("inMemoryIdentifier", inMemoryIdentifier ?? "(none)"),
            ("encryptionKey", encryptionKey == nil ? "(none)" : "(set)"),
            ("readOnly", "\(readOnly)"),
            ("schemaVersion", "\(schemaVersion)"),
            ("migrationBlock", migrationBlock == nil ? "(none)" : "(set)"),
            ("deleteRealmIfMigrationNeeded", "\(deleteRealmIfMigrationNeeded)"),
            ("shouldCompactOnLaunch", shouldCompactOnLaunch == nil ? "(none)" : "(set)"),
            ("objectTypes", classes),
            ("maximumNumberOfActiveVersions", maximumNumberOfActiveVersions.map { "\($0)" } ?? "(none)"),
            ("seedFilePath", seedFilePath?.path ?? "(none)"),
            ("durability", "\(durability)"),
        ]
        return "Realm.Configuration {\n" + fields.map { "\t\($0.0) = \($0.1);\n" }.joined() + "}"
    }
}
