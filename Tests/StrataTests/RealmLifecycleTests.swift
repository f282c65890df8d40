// Opening, the instance cache, in-memory and read-only realms, schema checks, files.
import Foundation
import Testing
import Strata
import StrataTestSupport
import StrataStorage

/// Same class name as TestModels' Dog, different properties: a schema change.
final class DogV2: Object {
    override class func className() -> String { "Dog" }
    @Persisted(primaryKey: true) var id: String
    @Persisted var name: String
    @Persisted var weight: Double
}

@Suite struct RealmLifecycleTests {
    @Test func instancesAreCachedPerThreadWithoutKeepingTheFileOpen() throws {
        let config = tempConfig()
        do {
            let a = try Realm(configuration: config)
            let b = try Realm(configuration: config)
            #expect(a == b)
            #expect(Realm.fileExists(for: config))
            #expect { try Realm.deleteFiles(for: config) } throws: { ($0 as? Realm.Error)?.code == .alreadyOpen }
        }
        #expect(try Realm.deleteFiles(for: config))
        #expect(!Realm.fileExists(for: config))
    }

    @Test func openingByFileURL() throws {
        let config = tempConfig()
        let url = try #require(config.fileURL)
        let realm = try Realm(fileURL: url)
        #expect(realm.configuration.fileURL == url)
    }

    @Test func inMemoryRealmsLiveWhileOpen() throws {
        let config = memoryConfig()
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(ToDoItem()) }
            let again = try Realm(configuration: config)
            #expect(again.objects(ToDoItem.self).count == 1)
            #expect(Realm.fileExists(for: config))
        }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(ToDoItem.self).count == 0)
    }

    @Test func readOnlyRealms() throws {
        var config = tempConfig()
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(ToDoItem(value: ["text": "kept"])) }
        }
        config.readOnly = true
        let ro = try Realm(configuration: config)
        #expect(ro.objects(ToDoItem.self).first?.text == "kept")
        #expect { try ro.beginWriteThrowing() } throws: { ($0 as? Realm.Error)?.code == .readOnly }
        var missing = tempConfig()
        missing.readOnly = true
        #expect { try Realm(configuration: missing) } throws: { ($0 as? Realm.Error)?.code == .fileNotFound }
    }

    @Test func schemaMismatchNamesTheDifference() throws {
        let config = tempConfig()
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(Dog(value: ["id": "1"])) }
        }
        var typed = config
        typed.objectTypes = [DogV2.self]
        do {
            _ = try Realm(configuration: typed)
            Issue.record("a changed schema must not open")
        } catch let e as Realm.Error {
            #expect(e.code == .schemaMismatch)
            #expect(e.message.contains("Dog.weight"))
        }
        // On first use, without objectTypes.
        let realm = try Realm(configuration: config)
        #expect { try realm.write { realm.add(DogV2()) } } throws: { ($0 as? Realm.Error)?.code == .schemaMismatch }
    }

    @Test func deleteRealmIfMigrationNeededStartsOver() throws {
        var config = tempConfig()
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(Dog(value: ["id": "1"])) }
        }
        config.objectTypes = [DogV2.self]
        config.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: config)
        #expect(realm.objects(DogV2.self).count == 0)
    }

    @Test func schemaVersions() throws {
        var config = tempConfig()
        config.schemaVersion = 2
        do { _ = try Realm(configuration: config) }
        config.schemaVersion = 1
        #expect { try Realm(configuration: config) } throws: { ($0 as? Realm.Error)?.code == .invalidSchemaVersion }
        config.schemaVersion = 3
        let seen = LockedBox<UInt64?>(nil)
        config.migrationBlock = { _, old in seen.set(old) }
        _ = try Realm(configuration: config)
        #expect(seen.get() == 2)
    }

    @Test func objectTypesRestrictTheRealm() throws {
        var config = tempConfig()
        config.objectTypes = [ToDoItem.self]
        let realm = try Realm(configuration: config)
        #expect(realm.schema.objectSchema.map(\.className) == ["ToDoItem"])
        #expect { try realm.write { realm.add(Reading()) } } throws: { ($0 as? Realm.Error)?.code == .invalidArgument }
    }

    @Test
    func writeCopyAndCompactOnLaunch() throws {
        let config = tempConfig()
        let copyURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent("copy.realm")
        do {
            let realm = try Realm(configuration: config)
            try realm.write { for i in 0..<100 { realm.add(Contact(value: ["id": i])) } }
            try realm.write { realm.delete(realm.objects(Contact.self).filterFirst(90)) }
            try realm.writeCopy(toFile: copyURL)
            #expect { try realm.writeCopy(toFile: copyURL) } throws: { ($0 as? Realm.Error)?.code == .fileExists }
        }
        var copy = config
        copy.fileURL = copyURL
        #expect(try Realm(configuration: copy).objects(Contact.self).count == 10)
        var compacting = config
        let asked = LockedBox<(Int, Int)?>(nil)
        compacting.shouldCompactOnLaunch = { total, used in asked.set((total, used)); return true }
        let realm = try Realm(configuration: compacting)
        let sizes = try #require(asked.get())
        #expect(sizes.0 >= sizes.1 && sizes.1 > 0)
        #expect(realm.objects(Contact.self).count == 10)
    }

    @Test func encryptionKeys() throws {
        var config = tempConfig()
        config.encryptionKey = Data((0..<64).map { UInt8($0) })
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(ToDoItem(value: ["text": "secret"])) }
        }
        #expect(try Realm(configuration: config).objects(ToDoItem.self).first?.text == "secret")
        var wrong = config
        wrong.encryptionKey = Data(repeating: 1, count: 64)
        #expect { try Realm(configuration: wrong) } throws: { ($0 as? Realm.Error)?.code == .wrongEncryptionKey }
    }
}

@Suite struct BadFileTests {
    @Test func aFileThatIsNotARealmIsATypedError() throws {
        let config = tempConfig()
        let url = try #require(config.fileURL)
        try Data(repeating: 0x41, count: 10_000).write(to: url)
        #expect { try Realm(configuration: config) } throws: {
            guard let e = $0 as? Realm.Error else { return false }
            return e.code == .invalidDatabase || e.code == .corruptFile
        }
    }

    @Test func aStorageFileWithoutTheObjectLayerIsInvalidDatabase() throws {
        let config = tempConfig()
        let path = try #require(config.fileURL).path
        do {
            let f = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
            let w = try f.beginWrite()
            w.roots[0] = 12345
            try w.commit()
            f.close()
        }
        #expect { try Realm(configuration: config) } throws: { ($0 as? Realm.Error)?.code == .invalidDatabase }
    }

    @Test func resolvingADeletedObjectGivesNil() throws {
        let config = tempConfig()
        let realm = try Realm(configuration: config)
        let item = ToDoItem()
        try realm.write { realm.add(item) }
        let ref = ThreadSafeReference(to: item)
        try realm.write { realm.delete(item) }
        #expect(realm.resolve(ref) == nil)
    }
}
