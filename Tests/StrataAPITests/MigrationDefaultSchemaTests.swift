// A migration of a configuration without `objectTypes` works on the program's model classes, as
// RealmSwift's default schema has them: `enumerateObjects` hands out each object's new view (it
// handed out nil, so a block that sets new values did nothing), `create` makes objects of a class
// that has no table yet, and the block's new schema lists every model class.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class DefaultSchemaCounter: Object {
    @Persisted var count = 0
    @Persisted var label = ""
    @Persisted var stamps: List<DefaultSchemaStamp>
}

final class DefaultSchemaStamp: Object {
    @Persisted var note = ""
}

@Suite("migrations without objectTypes")
struct MigrationDefaultSchemaTests {
    static func fileWithCounters(_ name: String) throws -> Realm.Configuration {
        let configuration = tempConfig(name)
        let realm = try Realm(configuration: configuration)
        try realm.write {
            realm.add(DefaultSchemaCounter(value: ["count": 1]))
            realm.add(DefaultSchemaCounter(value: ["count": 2]))
        }
        return configuration
    }

    @Test func enumerateObjectsHandsOutNewObjectsToChange() throws {
        var configuration = try Self.fileWithCounters("default-schema-enumerate")
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "DefaultSchemaCounter") { old, new in
                guard let old, let new else { return }
                new["label"] = "was \(old["count"] as? Int ?? -1)"
            }
        }
        let realm = try Realm(configuration: configuration)
        #expect(Set(realm.objects(DefaultSchemaCounter.self).map(\.label)) == ["was 1", "was 2"])
    }

    // A new object's collection of links holds dynamic objects, as RealmSwift gives it
    // (`List<DynamicObject>`); before, it came with the stored class's type and such a cast stopped.
    @Test func aNewObjectsListOfLinksHoldsDynamicObjects() throws {
        var configuration = try Self.fileWithCounters("default-schema-list-of-links")
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, _ in
            let stamp = migration.create("DefaultSchemaStamp", value: ["note": "linked"])
            migration.enumerateObjects(ofType: "DefaultSchemaCounter") { _, new in
                guard let stamps = new?["stamps"] as? List<DynamicObject> else { return }
                stamps.append(stamp)
                new?["label"] = "\(stamps.count) stamp"
            }
        }
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(DefaultSchemaCounter.self).map(\.label) == ["1 stamp", "1 stamp"])
        #expect(realm.objects(DefaultSchemaCounter.self).first?.stamps.first?.note == "linked")
    }

    // A list set to an array of new views holds their objects; before, the array did not fit the
    // list and the migration failed with `.invalidArgument`.
    @Test func aListSetToAnArrayOfNewViewsHoldsTheirObjects() throws {
        var configuration = try Self.fileWithCounters("default-schema-array-of-views")
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, _ in
            let stamp = migration.create("DefaultSchemaStamp", value: ["note": "set"])
            migration.enumerateObjects(ofType: "DefaultSchemaCounter") { _, new in
                new?["stamps"] = [stamp]
            }
        }
        let realm = try Realm(configuration: configuration)
        let counters = realm.objects(DefaultSchemaCounter.self)
        #expect(counters.map { $0.stamps.count } == [1, 1])
        #expect(counters.first?.stamps.first?.note == "set")
        #expect(realm.objects(DefaultSchemaStamp.self).count == 1, "one stamp, linked twice")
    }

    @Test func createMakesAnObjectOfAClassWithoutATable() throws {
        var configuration = try Self.fileWithCounters("default-schema-create")
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, _ in
            migration.create("DefaultSchemaStamp", value: ["note": "migrated"])
        }
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(DefaultSchemaStamp.self).map(\.note) == ["migrated"])
    }

    @Test func theNewSchemaListsClassesNotYetUsed() throws {
        var configuration = try Self.fileWithCounters("default-schema-list")
        configuration.schemaVersion = 1
        let names = LockedBox<Set<String>>([])
        configuration.migrationBlock = { migration, _ in
            names.set(Set(migration.newSchema.objectSchema.map(\.className)))
        }
        _ = try Realm(configuration: configuration)
        #expect(names.get().isSuperset(of: ["DefaultSchemaCounter", "DefaultSchemaStamp"]))
    }
}
