// `writeCopy(toFile:)` inside a write transaction copies the secondary-index trees with the rest:
// the copy lists exactly the schema's indexes, each one matching its rows, right after opening
// (before any write could rebuild them), and its queries use them.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport

@Suite struct CopyIndexTests {
    /// Committed dogs and people, then uncommitted inserts, updates of indexed values and
    /// deletes, so the copy's indexes must reflect the write's state, not the committed one.
    private func fillAndCopy(_ realm: Realm, to copyURL: URL) throws {
        try realm.write {
            for i in 0..<40 {
                realm.add(Dog(value: ["id": "d\(i)", "name": "name\(i % 7)", "age": i]))
                let p = NewsPerson()
                p.firstName = "first\(i % 5)"
                p.lastName = i.isMultiple(of: 3) ? nil : "last\(i % 4)"
                p.id = i
                realm.add(p)
            }
        }
        try realm.write {
            for i in 40..<60 { realm.add(Dog(value: ["id": "d\(i)", "name": "fresh\(i % 3)", "age": i])) }
            for d in realm.objects(Dog.self).filter("age < 10") { d.name = "renamed" }
            realm.delete(realm.objects(Dog.self).filter("age >= 30 AND age < 35"))
            for p in realm.objects(NewsPerson.self).filter("id < 8") { p.lastName = "changed" }
            try realm.writeCopy(toFile: copyURL)
        }
    }

    @Test func copyMadeInsideAWriteHasVerifiedIndexes() throws {
        let config = tempConfig()
        let copyURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent("copy.realm")
        let realm = try Realm(configuration: config)
        try fillAndCopy(realm, to: copyURL)
        #expect(realm.indexProblems().isEmpty)

        var copyConfig = config
        copyConfig.fileURL = copyURL
        let copy = try Realm(configuration: copyConfig)
        // Not vacuous: both tables list their indexes in the copy as soon as it is open.
        for type in [Dog.self as Object.Type, NewsPerson.self] {
            let info = try ClassInfo.of(type)
            let t = try #require(try copy.core.tableIndex(for: info, create: false))
            let listed = copy.core.snap.metas[t].indexes.map(\.column)
            #expect(!listed.isEmpty && listed == copy.core.indexes.requiredIndexColumns(table: t), "\(type) lists indexes on \(listed)")
        }
        #expect(copy.indexProblems(requireAll: true) == [])

        // The copy holds the write's state and answers indexed queries from its indexes.
        #expect(copy.objects(Dog.self).count == 55)
        let renamed = copy.keysBothWays { copy.objects(Dog.self).filter("name == %@", "renamed") }
        #expect(renamed.plan == .index(property: "name", values: 1))
        #expect(renamed.index.count == 10 && renamed.index == renamed.scan)
        let fresh = copy.keysBothWays { copy.objects(Dog.self).filter("name IN {'fresh0', 'fresh2'}") }
        #expect(fresh.plan == .index(property: "name", values: 2))
        #expect(fresh.index.count == 13 && fresh.index == fresh.scan)
        let changed = copy.keysBothWays { copy.objects(NewsPerson.self).filter("lastName == %@", "changed") }
        #expect(changed.plan == .index(property: "lastName", values: 1))
        #expect(changed.index.count == 8 && changed.index == changed.scan)
        let noLast = copy.keysBothWays { copy.objects(NewsPerson.self).filter("lastName == nil") }
        #expect(noLast.index == noLast.scan && noLast.index.count == 11)
    }

    @Test func encryptedCopyInsideAWriteHasVerifiedIndexes() throws {
        let config = tempConfig()
        let copyURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent("secret.realm")
        let key = Data((0..<64).map { UInt8(($0 * 11) & 0xFF) })
        let realm = try Realm(configuration: config)
        try realm.write {
            for i in 0..<30 { realm.add(Dog(value: ["id": "d\(i)", "name": "n\(i % 4)", "age": i])) }
            try realm.writeCopy(toFile: copyURL, encryptionKey: key)
        }
        var copyConfig = config
        copyConfig.fileURL = copyURL
        copyConfig.encryptionKey = key
        let copy = try Realm(configuration: copyConfig)
        #expect(copy.indexProblems(requireAll: true) == [])
        let r = copy.keysBothWays { copy.objects(Dog.self).filter("name == %@", "n1") }
        #expect(r.plan == .index(property: "name", values: 1))
        #expect(r.index.count == 8 && r.index == r.scan)
    }

    /// Bad input: copying inside a write onto an existing file is `.fileExists`; the file is
    /// left alone and the write goes on (and a later copy to a new file has its indexes).
    @Test func copyInsideAWriteOntoAnExistingFileIsATypedError() throws {
        let config = tempConfig()
        let dir = config.fileURL!.deletingLastPathComponent()
        let existing = dir.appendingPathComponent("existing.realm")
        try Data("not a realm".utf8).write(to: existing)
        let fresh = dir.appendingPathComponent("fresh.realm")
        let realm = try Realm(configuration: config)
        try realm.write {
            realm.add(Dog(value: ["id": "a", "name": "x"]))
            #expect { try realm.writeCopy(toFile: existing) } throws: { ($0 as? Realm.Error)?.code == .fileExists }
            realm.add(Dog(value: ["id": "b", "name": "x"]))
            try realm.writeCopy(toFile: fresh)
        }
        #expect(try Data(contentsOf: existing) == Data("not a realm".utf8))
        var copyConfig = config
        copyConfig.fileURL = fresh
        let copy = try Realm(configuration: copyConfig)
        #expect(copy.indexProblems(requireAll: true) == [])
        #expect(copy.objects(Dog.self).filter("name == 'x'").count == 2)
    }
}
