// The example of Strata.docc's "Migrations" article, as it shows it: a file written with the
// version-0 `Person` (yearsSinceBirth, firstName, lastName) opened with the version-2 one (age,
// fullName), the block renaming one property and filling the other.
import Foundation
import Strata
import Testing

enum MigrationsExample {
    /// The model as version 0 of the app declared it.
    final class PersonV0: Object {
        override class func className() -> String { "Person" }
        @Persisted var yearsSinceBirth = 0
        @Persisted var firstName = ""
        @Persisted var lastName = ""
    }

    /// The model of version 2.
    final class Person: Object {
        @Persisted var age = 0
        @Persisted var fullName = ""
    }
}

extension MigrationsExample {
    @Suite struct ExampleTests {
        @Test func theBlockRenamesAndFillsProperties() throws {
            let directory = try TemporaryDirectory()
            let url = directory.file("people.realm")
            do {
                let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [PersonV0.self]))
                try realm.write {
                    realm.add(PersonV0(value: ["yearsSinceBirth": 36, "firstName": "Ada", "lastName": "Lovelace"]))
                }
            }

            var configuration = Realm.Configuration(fileURL: url, schemaVersion: 2, objectTypes: [Person.self])
            configuration.migrationBlock = { migration, oldSchemaVersion in
                if oldSchemaVersion < 1 {
                    migration.renameProperty(onType: "Person", from: "yearsSinceBirth", to: "age")
                }
                if oldSchemaVersion < 2 {
                    migration.enumerateObjects(ofType: "Person") { old, new in
                        let first = old?["firstName"] as? String ?? ""
                        let last = old?["lastName"] as? String ?? ""
                        new?["fullName"] = "\(first) \(last)"
                    }
                }
            }
            let realm = try Realm(configuration: configuration)

            let people = realm.objects(Person.self)
            #expect(people.count == 1)
            #expect(people.first?.age == 36 && people.first?.fullName == "Ada Lovelace")
        }
    }
}
