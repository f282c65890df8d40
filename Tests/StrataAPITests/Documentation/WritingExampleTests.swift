// The examples of Strata.docc's "Writing" article, as it shows them, on the "Getting started"
// model (`Dog`: id, name, age).
import Foundation
import Strata
import Testing

extension ArticleExample {
    @Suite struct WritingExampleTests {
        @Test func aWriteInsertsChangesUpsertsAndDeletes() throws {
            let directory = try TemporaryDirectory()
            let realm = try Realm(configuration: Realm.Configuration(fileURL: directory.file("dogs.realm")))
            try realm.write { realm.add(Dog(value: ["id": 9, "name": "Old", "age": 12])) }

            try realm.write {
                let rex = Dog(value: ["id": 1, "name": "Rex"])
                realm.add(rex)                                   // insert
                rex.age += 1                                     // change a managed object
                realm.create(Dog.self, value: ["id": 1, "age": 5], update: .modified)  // upsert by key
                realm.delete(realm.objects(Dog.self).filter("age > 10"))
            }

            #expect(realm.objects(Dog.self).count == 1)
            let rex = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 1))
            #expect(rex.name == "Rex" && rex.age == 5)
        }

        @Test func aFailureInsideTheWriteRollsItBack() throws {
            let directory = try TemporaryDirectory()
            let realm = try Realm(configuration: Realm.Configuration(fileURL: directory.file("dogs.realm")))
            do {
                try realm.write {
                    realm.add(Dog(value: ["id": 1]))
                    realm.add(Dog(value: ["id": 1]))   // duplicate primary key: the transaction fails
                }
            } catch let error as Realm.Error where error.code == .duplicatePrimaryKey {
                // neither dog was added
            }

            // Had the write not thrown, a dog would be stored; had it thrown another error, the
            // test would have failed with it.
            #expect(realm.objects(Dog.self).isEmpty)
        }
    }
}
