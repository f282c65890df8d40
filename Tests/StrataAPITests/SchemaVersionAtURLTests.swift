// schemaVersionAtURL: reads the version a file records without opening it as a realm, and each
// kind of path that holds no realm is a typed error.
import Foundation
import Testing
import Strata
import StrataTestSupport

@Suite struct SchemaVersionAtURLTests {
    @Test func theRecordedVersionIsReadWhileTheRealmIsOpen() throws {
        var configuration = tempConfig("versioned")
        configuration.objectTypes = [Room.self]
        configuration.schemaVersion = 7
        let fileURL = try #require(configuration.fileURL)
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.create(Room.self, value: ["label": "A"]) }
        #expect(try schemaVersionAtURL(fileURL) == 7)
        // Reading it wrote nothing: the realm goes on at the same version.
        try realm.write { realm.create(Room.self, value: ["label": "B"]) }
        #expect(realm.objects(Room.self).count == 2)
    }

    @Test func anEncryptedFileNeedsItsKey() throws {
        var configuration = tempConfig("sealed")
        configuration.objectTypes = [Room.self]
        configuration.schemaVersion = 3
        let key = Data((0..<64).map { UInt8($0) })
        configuration.encryptionKey = key
        let fileURL = try #require(configuration.fileURL)
        _ = try Realm(configuration: configuration)
        #expect(try schemaVersionAtURL(fileURL, encryptionKey: key) == 3)
        #expect { try schemaVersionAtURL(fileURL, encryptionKey: Data(repeating: 9, count: 64)) } throws: {
            ($0 as? Realm.Error)?.code == .wrongEncryptionKey
        }
    }

    @Test func aPathWithoutARealmIsATypedError() throws {
        let missing = try #require(tempConfig("never-opened").fileURL)
        #expect { try schemaVersionAtURL(missing) } throws: { ($0 as? Realm.Error)?.code == .invalidDatabase }
        #expect(!FileManager.default.fileExists(atPath: missing.path))

        let text = missing.deletingLastPathComponent().appendingPathComponent("notes.txt")
        try Data("not a realm".utf8).write(to: text)
        #expect { try schemaVersionAtURL(text) } throws: { ($0 as? Realm.Error)?.code == .invalidDatabase }
        #expect(try Data(contentsOf: text) == Data("not a realm".utf8))

        #expect { try schemaVersionAtURL(URL(fileURLWithPath: "/dev/null")) } throws: {
            ($0 as? Realm.Error)?.code == .fileAccess
        }
        #expect { try schemaVersionAtURL(missing.deletingLastPathComponent()) } throws: {
            ($0 as? Realm.Error)?.code == .fileAccess
        }
    }
}
