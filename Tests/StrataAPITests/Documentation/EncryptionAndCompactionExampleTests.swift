// The examples of Strata.docc's "Encryption and compaction" article, as it shows them, one after
// the other as the article builds the configuration, on the "Getting started" model.
import Foundation
import Strata
import Testing

extension ArticleExample {
    @Suite struct EncryptionAndCompactionExampleTests {
        @Test func anEncryptedFileOpensWithItsKeyOnly() throws {
            let directory = try TemporaryDirectory()
            let url = directory.file("secret.realm")

            // Make the key once and keep it somewhere safe: without it the file cannot be read.
            var generator = SystemRandomNumberGenerator()
            let key = Data((0..<64).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            var configuration = Realm.Configuration(fileURL: url)
            configuration.encryptionKey = key

            configuration.shouldCompactOnLaunch = { totalBytes, usedBytes in
                totalBytes > 100 * 1024 * 1024 && Double(usedBytes) / Double(totalBytes) < 0.5
            }

            do {
                let realm = try Realm(configuration: configuration)
                try realm.write { realm.add(Dog(value: ["id": 1, "name": "Rex"])) }
            }
            let reopened = try Realm(configuration: configuration)
            #expect(reopened.object(ofType: Dog.self, forPrimaryKey: 1)?.name == "Rex")
            // The file holds no plain text of the object.
            let bytes = try Data(contentsOf: url)
            #expect(bytes.range(of: Data("Rex".utf8)) == nil)
        }
    }
}
