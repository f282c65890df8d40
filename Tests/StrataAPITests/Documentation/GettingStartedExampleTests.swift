// The example of Strata.docc's "Getting started", as the article shows it: the imports, the
// model (in a namespace, beside the other examples' models; the other articles' examples use it
// too), the statements in a test (their relative path resolves in a temporary directory).
import Foundation
import Strata
import Testing

enum ArticleExample {
    final class Dog: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = 0
    }
}

extension ArticleExample {
    @Suite struct GettingStartedExampleTests {
        @Test func theExampleRunsAsDocumented() throws {
            let directory = try TemporaryDirectory()
            func URL(fileURLWithPath path: String) -> Foundation.URL { directory.file(path) }

            // A file in the current directory, flushed to disk at every commit.
            let realm = try Realm(configuration: Realm.Configuration(
                fileURL: URL(fileURLWithPath: "dogs.realm")))

            try realm.write {
                realm.add(Dog(value: ["id": 1, "name": "Rex", "age": 3]))
            }

            let puppies = realm.objects(Dog.self).filter("age < %@", 2)
            print(realm.objects(Dog.self).count, puppies.count)

            #expect(realm.objects(Dog.self).count == 1 && puppies.isEmpty)
            #expect(realm.object(ofType: Dog.self, forPrimaryKey: 1)?.name == "Rex")
            #expect(FileManager.default.fileExists(atPath: directory.file("dogs.realm").path))
        }
    }
}
