// Configuration fields, error mapping, catalog encoding, row layout — no storage needed.
import Foundation
import Testing
import StrataStorage
@testable import Strata
import StrataTestSupport

@Suite struct ConfigurationTests {
    @Test func inMemoryIdentifierAndFileURLClearEachOther() {
        var c = Realm.Configuration(fileURL: URL(fileURLWithPath: "/tmp/a.realm"))
        c.inMemoryIdentifier = "x"
        #expect(c.fileURL == nil)
        #expect(c.identity == "memory:x")
        c.fileURL = URL(fileURLWithPath: "/tmp/b.realm")
        #expect(c.inMemoryIdentifier == nil)
        #expect(c.identity == "/tmp/b.realm")
    }

    @Test func defaultsMatchRealm() {
        let c = Realm.Configuration()
        #expect(c.schemaVersion == 0)
        #expect(c.readOnly == false)
        #expect(c.encryptionKey == nil)
        #expect(c.deleteRealmIfMigrationNeeded == false)
        #expect(c.objectTypes == nil)
        #expect(c.maximumNumberOfActiveVersions == nil)
        #expect(c.durability == .full)
        #expect(c.fileURL?.lastPathComponent == "default.realm")
    }

    @Test func everyFieldIsCarriedToStorage() throws {
        let key = Data(repeating: 7, count: 64)
        var c = Realm.Configuration(fileURL: URL(fileURLWithPath: "/tmp/x.realm"), encryptionKey: key, readOnly: true,
                                    schemaVersion: 3, maximumNumberOfActiveVersions: 5, durability: .unsafe)
        c.objectTypes = [Dog.self, Person.self]
        c.shouldCompactOnLaunch = { total, used in total > 10 && used < total }
        c.migrationBlock = { _, _ in }
        let o = try c.storageOptions()
        #expect(o.path == "/tmp/x.realm")
        #expect(o.encryptionKey == [UInt8](key))
        #expect(o.readOnly)
        #expect(o.mustExist)
        #expect(o.maximumActiveVersions == 5)
        #expect(o.durability == .unsafe)
        #expect(c.objectTypes?.count == 2)
        #expect(c.shouldCompactOnLaunch?(100, 1) == true)
        var m = Realm.Configuration(inMemoryIdentifier: "m")
        m.durability = .full
        #expect(try m.storageOptions().durability == .memOnly)
    }

    @Test func badConfigurationsAreTypedErrors() {
        var c = Realm.Configuration(fileURL: URL(fileURLWithPath: "/tmp/x.realm"))
        c.encryptionKey = Data(count: 10)
        #expect(throws: Realm.Error(.invalidEncryptionKey, "the encryption key is 10 bytes; it must be 64")) { try c.storageOptions() }
        var m = Realm.Configuration(inMemoryIdentifier: "m")
        m.readOnly = true
        #expect { try m.storageOptions() } throws: { ($0 as? Realm.Error)?.code == .invalidArgument }
        var z = Realm.Configuration(fileURL: URL(fileURLWithPath: "/tmp/x.realm"))
        z.maximumNumberOfActiveVersions = 0
        #expect { try z.storageOptions() } throws: { ($0 as? Realm.Error)?.code == .invalidArgument }
        let web = Realm.Configuration(fileURL: URL(string: "https://example.invalid/x.realm"))
        #expect { try web.storageOptions() } throws: { ($0 as? Realm.Error)?.code == .invalidArgument }
    }

    @Test func defaultConfigurationIsSettable() {
        let old = Realm.Configuration.defaultConfiguration
        defer { Realm.Configuration.defaultConfiguration = old }
        var c = old
        c.schemaVersion = 9
        Realm.Configuration.defaultConfiguration = c
        #expect(Realm.Configuration.defaultConfiguration.schemaVersion == 9)
    }
}

@Suite struct ErrorMappingTests {
    @Test func everyStorageCodeMaps() {
        let expected: [(StorageError.Code, Realm.Error.Code)] = [
            (.notAStrataFile, .invalidDatabase), (.truncatedFile, .corruptFile), (.corruptFile, .corruptFile),
            (.corruptPage, .corruptFile), (.wrongKey, .wrongEncryptionKey), (.invalidKey, .invalidEncryptionKey),
            (.io, .fileAccess), (.permissionDenied, .filePermissionDenied), (.diskFull, .diskFull),
            (.badPath, .fileOperationFailed),
            (.fileInUse, .alreadyOpen), (.lockFailed, .incompatibleLockFile),
            (.readOnly, .readOnly), (.tooManyActiveVersions, .tooManyActiveVersions), (.closed, .closed),
            (.tooLarge, .valueTooLarge), (.invalidArgument, .invalidArgument), (.notFound, .fileNotFound),
            (.alreadyExists, .fileExists), (.invalidState, .invalidState),
        ]
        for (s, r) in expected {
            let e = Realm.Error(StorageError(s, "cause", path: "/p"))
            #expect(e.code == r, "\(s)")
            #expect(e.message.contains("cause") && e.message.contains("/p"))
        }
    }

    @Test func wrapConvertsStorageErrors() {
        do {
            try Realm.Error.wrap { throw StorageError(.diskFull, "no space") }
            Issue.record("must throw")
        } catch {
            #expect(error.code == .diskFull)
        }
    }
}

@Suite struct CatalogEncodingTests {
    @Test func schemasRoundTrip() throws {
        let schemas = [Dog().objectSchema, Person().objectSchema, AllTypes().objectSchema, Address().objectSchema]
        let back = try Catalog.decodeSchemas(Catalog.encode(schemas: schemas))
        #expect(back == schemas)
    }

    @Test func truncatedSchemaIsCorruptFile() {
        let bytes = Catalog.encode(schemas: [Dog().objectSchema])
        for cut in [1, 5, bytes.count / 2, bytes.count - 1] {
            #expect { try Catalog.decodeSchemas(Array(bytes.prefix(cut))) } throws: { ($0 as? Realm.Error)?.code == .corruptFile }
        }
        var bad = bytes
        bad[2 + 2 + 3 + 1 + 2 + 2 + 2] = 200  // the first property's type byte
        #expect { try Catalog.decodeSchemas(bad) } throws: { ($0 as? Realm.Error)?.code == .corruptFile }
    }

    @Test func metasRoundTripAndCheckLength() throws {
        let m = [TableMeta(objects: KeyedTree(root: PageRef(7)), primaryKeys: BytesTree(root: PageRef(9)), nextKey: 42)]
        #expect(try Catalog.decodeMetas(Catalog.encode(metas: m), count: 1) == m)
        #expect { try Catalog.decodeMetas([1, 2, 3], count: 1) } throws: { ($0 as? Realm.Error)?.code == .corruptFile }
    }
}

@Suite struct RowLayoutTests {
    @Test func offsetsFollowDeclarationOrder() {
        let l = RowLayout(properties: Dog().objectSchema.properties)
        #expect(l.bitmapBytes == 1)
        #expect(l.columns.map(\.offset) == [1, 9, 17, 25])
        #expect(l.fixedSize == 33)
        #expect(l.varColumns == [0, 1])
    }
}
