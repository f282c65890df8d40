// RealmSwift's other names for what Strata has, so that Realm code naming them compiles: error
// codes Strata spells differently, block types, and the realm-level freeze and thaw.
import Foundation

extension Realm.Error.Code {
    /// RealmSwift's name for ``diskFull``.
    public static var outOfDiskSpace: Self { .diskFull }
    /// RealmSwift's name for ``unsupportedFileFormat``.
    public static var unsupportedFileFormatVersion: Self { .unsupportedFileFormat }
    /// RealmSwift's name for ``invalidArgument``: an input value was invalid.
    public static var invalidInput: Self { .invalidArgument }
}

// `catch Realm.Error.outOfDiskSpace { … }`, as for the codes of RealmError.swift.
extension Realm.Error {
    /// The ``Code/diskFull`` code under RealmSwift's name.
    public static var outOfDiskSpace: Code { .diskFull }
    /// The ``Code/unsupportedFileFormat`` code under RealmSwift's name.
    public static var unsupportedFileFormatVersion: Code { .unsupportedFileFormat }
    /// The ``Code/invalidArgument`` code under RealmSwift's name.
    public static var invalidInput: Code { .invalidArgument }
    /// The ``Code/fileFormatUpgradeRequired`` code (never reported by Strata).
    public static var fileFormatUpgradeRequired: Code { .fileFormatUpgradeRequired }
    /// The ``Code/addressSpaceExhausted`` code (never reported by Strata).
    public static var addressSpaceExhausted: Code { .addressSpaceExhausted }
    /// The ``Code/incompatibleHistories`` code (never reported by Strata).
    public static var incompatibleHistories: Code { .incompatibleHistories }
    /// The ``Code/incompatibleSession`` code (never reported by Strata).
    public static var incompatibleSession: Code { .incompatibleSession }
}

/// The type of a block `Realm.observe(_:)` runs when the realm changes.
public typealias NotificationBlock = (_ notification: Realm.Notification, _ realm: Realm) -> Void

/// The type of the block `Migration.enumerateObjects(ofType:_:)` runs for each object: the object
/// as it was, and as it is in the new schema (nil when the class no longer exists, or was deleted).
public typealias MigrationObjectEnumerateBlock = (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void

/// The earlier name of ``SectionedResultsChange``.
@available(*, deprecated, renamed: "SectionedResultsChange")
public typealias RealmSectionedResultsChange = SectionedResultsChange

extension Realm {
    /// A frozen copy of `object`, as `object.freeze()` makes it.
    ///
    /// - Parameter object: a managed object of this realm's file.
    /// - Returns: the frozen object.
    public func freeze<T: Object>(_ object: T) -> T { object.freeze() }

    /// The live version of `object` in this thread's realm, as `object.thaw()` finds it; nil when
    /// it was deleted. A live object is returned as it is.
    ///
    /// - Parameter object: a frozen or live managed object.
    /// - Returns: the live object, or nil.
    public func thaw<T: Object>(_ object: T) -> T? { object.thaw() }

    /// A frozen copy of `collection`, as `collection.freeze()` makes it.
    ///
    /// - Parameter collection: a managed collection of this realm's file.
    /// - Returns: the frozen collection.
    public func freeze<C: RealmCollection>(_ collection: C) -> C { collection.freeze() }
}
