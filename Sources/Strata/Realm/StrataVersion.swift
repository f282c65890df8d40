// Strata's release and the formats it writes, for a program that wants to show them or check them
// (CHANGELOG.md lists which releases changed a format, and what an older build does with a newer
// file: it refuses to open it with a typed error, never reads it wrong).

import StrataStorage

/// This build of Strata.
public enum StrataVersion {
    /// The release, in semantic-versioning form; what a `Package.swift` depends on `from:`.
    public static let release = "0.1.0"
    /// The storage format it writes (pages, trees, meta slots).
    public static let storageFormat = StorageFormat.version
    /// The object format it writes (the catalog: classes, tables, schema).
    public static let objectFormat = Catalog.formatVersion
    /// Earlier object formats it reads as they are.
    public static let readableObjectFormats: [Int] = Catalog.readableEarlierVersions.sorted() + [Catalog.formatVersion]
}
