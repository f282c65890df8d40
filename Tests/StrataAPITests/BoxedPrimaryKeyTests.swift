// A primary key declared as `RealmOptional<Int>` or `RealmProperty<String?>` (RealmSwift's older
// optional forms) behaves as an `Int?` / `String?` key: lookups, uniqueness, one nil key.
import Foundation
import Testing
import Strata
import StrataTestSupport

final class BoxedIntKeyed: Object {
    @Persisted var id = RealmOptional<Int>()
    @Persisted var note = ""
    override class func primaryKey() -> String? { "id" }
}

final class BoxedStringKeyed: Object {
    @Persisted var code = RealmProperty<String?>()
    override class func primaryKey() -> String? { "code" }
}

@Suite struct BoxedPrimaryKeyTests {
    private func realm() throws -> Realm {
        var configuration = tempConfig("boxed")
        configuration.objectTypes = [BoxedIntKeyed.self, BoxedStringKeyed.self]
        return try Realm(configuration: configuration)
    }

    @Test func aRealmOptionalKeyIsAnOptionalIntKey() throws {
        let realm = try realm()
        #expect(realm.schema["BoxedIntKeyed"]?.primaryKeyProperty?.name == "id")
        try realm.write {
            realm.create(BoxedIntKeyed.self, value: ["id": 1, "note": "one"])
            realm.create(BoxedIntKeyed.self, value: ["id": NSNull(), "note": "none"])
        }
        #expect(realm.object(ofType: BoxedIntKeyed.self, forPrimaryKey: 1)?.note == "one")
        #expect(realm.object(ofType: BoxedIntKeyed.self, forPrimaryKey: Int?.none)?.note == "none")
        #expect(realm.object(ofType: BoxedIntKeyed.self, forPrimaryKey: 2) == nil)
        #expect { try realm.write { realm.create(BoxedIntKeyed.self, value: ["id": 1]) } } throws: {
            ($0 as? Realm.Error)?.code == .duplicatePrimaryKey
        }
        try realm.write { realm.create(BoxedIntKeyed.self, value: ["id": 1, "note": "updated"], update: .modified) }
        #expect(realm.objects(BoxedIntKeyed.self).count == 2)
        #expect(realm.object(ofType: BoxedIntKeyed.self, forPrimaryKey: 1)?.note == "updated")
    }

    @Test func aRealmPropertyKeyIsAnOptionalStringKey() throws {
        let realm = try realm()
        let first = BoxedStringKeyed()
        first.code.value = "A"
        try realm.write { realm.add(first) }
        #expect(realm.object(ofType: BoxedStringKeyed.self, forPrimaryKey: "A") == first)
        let twin = BoxedStringKeyed()
        twin.code.value = "A"
        #expect { try realm.write { realm.add(twin) } } throws: { ($0 as? Realm.Error)?.code == .duplicatePrimaryKey }
        #expect(realm.objects(BoxedStringKeyed.self).count == 1)
    }
}
