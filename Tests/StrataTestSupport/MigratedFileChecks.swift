// The checks that a file a migration has just rewritten is consistent, shared by the suites that
// drop properties in a migration: the page accounting balances (`verify()`), a `writeCopy` copy
// opens and reads back the same, and compaction on launch is offered, succeeds and leaves no free
// page. What "reads back the same" means is the caller's: it is handed every Realm to check.
import Foundation
import Strata
import Testing

/// Opens `config` (which migrates the file), then its `writeCopy` copy, then the file again with
/// compaction on launch; hands each Realm to `expectContents` with what it is ("after the
/// migration", "the copy", "after compaction") and checks the file's accounting each time.
public func expectMigratedFileConsistent(
    _ config: Realm.Configuration,
    expectContents: (Realm, String) throws -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let fileURL = try #require(config.fileURL, "an on-disk Realm", sourceLocation: sourceLocation)
    let copyURL = fileURL.deletingLastPathComponent().appendingPathComponent("copy.realm")
    do {
        let realm = try Realm(configuration: config)
        try expectContents(realm, "after the migration")
        let accounting = try pageAccounting(of: realm)
        #expect(accounting.balances, "after the migration: \(accounting)", sourceLocation: sourceLocation)
        try realm.writeCopy(toFile: copyURL)
    }
    do {
        var copy = config
        copy.fileURL = copyURL
        let realm = try Realm(configuration: copy)
        try expectContents(realm, "the copy")
        let accounting = try pageAccounting(of: realm)
        #expect(accounting.balances, "the copy: \(accounting)", sourceLocation: sourceLocation)
    }
    do {
        var compacting = config
        let asked = LockedBox<Bool>(false)
        compacting.shouldCompactOnLaunch = { _, _ in asked.set(true); return true }
        let realm = try Realm(configuration: compacting)
        #expect(asked.get(), "compaction on launch was not offered", sourceLocation: sourceLocation)
        try expectContents(realm, "after compaction")
        let accounting = try pageAccounting(of: realm)
        #expect(accounting.balances && accounting.freePages == 0, "after compaction: \(accounting)",
                sourceLocation: sourceLocation)
    }
}
