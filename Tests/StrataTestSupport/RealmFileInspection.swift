// What a test reads about the file a Realm has open, through StrataStorage's public handle:
// handles to one path in one process share its state (writer lock, versions, counters), so a
// second handle sees exactly what the Realm's own does, without reaching into Strata.
import Foundation
import Strata
import StrataStorage
import Testing

/// Runs `body` with a second handle to the on-disk file `realm` has open.
func withStorageFile<R>(of realm: Realm, _ body: (StorageFile) throws -> R) throws -> R {
    let config = realm.configuration
    let url = try #require(config.fileURL, "an on-disk Realm")
    let file = try StorageFile.open(StorageOptions(
        path: url.path, durability: config.durability,
        encryptionKey: config.encryptionKey.map { Array($0) }, mustExist: true))
    defer { file.close() }
    return try body(file)
}

/// The page accounting of the file `realm` has open (`StorageFile.verify()`).
public func pageAccounting(of realm: Realm) throws -> PageAccounting {
    try withStorageFile(of: realm) { try $0.verify() }
}

/// How many times the file `realm` has open has been flushed to disk since this process opened it.
public func flushCount(of realm: Realm) throws -> Int {
    try withStorageFile(of: realm) { $0.flushCount }
}
