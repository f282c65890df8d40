// RealmSwift's top-level names for running a migration: the `MigrationBlock` type and
// `Realm.performMigration(for:)`.

/// A migration block: it gets the migration and the schema version the file had.
/// (The same type as ``Realm/Configuration/MigrationBlock``.)
public typealias MigrationBlock = Realm.Configuration.MigrationBlock

extension Realm {
    /// Brings the file of `configuration` to its schema version now, running its migration
    /// block as opening a realm would, and keeps no realm open afterwards. Opening a realm does
    /// this too, so calling it is never needed; it lets an app migrate at a moment of its choice.
    ///
    /// ```swift
    /// try Realm.performMigration(for: configuration)
    /// ```
    ///
    /// - Parameter configuration: the realm's configuration, with its schema version and block.
    /// - Throws: what `Realm(configuration:)` throws for it: a file of a newer schema version, a
    ///   schema the block leaves inconsistent, a damaged file.
    public static func performMigration(for configuration: Configuration = .defaultConfiguration) throws {
        _ = try Realm(configuration: configuration)
    }
}
