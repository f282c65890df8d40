// Models in RealmSwift's style before 10.10, ported by changing only `@objc dynamic` to
// `@Persisted`: their collections, boxed optionals and backlinks stay `let` properties without a
// wrapper. They are stored, read, queried and migrated as their `@Persisted` forms are.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class KennelDog: Object {
    @Persisted var name = ""
    @Persisted var breed = ""
    let owners = LinkingObjects(fromType: KennelOwner.self, property: "dogs")
}

final class KennelOwner: Object {
    @Persisted var id = 0
    @Persisted var name = ""
    let dogs = List<KennelDog>()
    let age = RealmOptional<Int>()
    let weight = RealmProperty<Double?>()
    let nicknames = MutableSet<String>()
    let visits = Map<String, Int>()
    override class func primaryKey() -> String? { "id" }
}

/// The same model declared the current way: the schema must be the same.
final class KennelOwnerToday: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var dogs: List<KennelDog>
    @Persisted var age: Int?
    @Persisted var weight: Double?
    @Persisted var nicknames: MutableSet<String>
    @Persisted var visits: Map<String, Int>
}

/// Both forms in one class, a superclass's legacy property included.
class KennelRecord: Object {
    let stamps = List<Date>()
}

final class KennelVisit: KennelRecord {
    @Persisted var note = ""
    let rating = RealmOptional<Int>()
    @Persisted var tags: List<String>
    let dogs = List<KennelDog>()
}

final class KennelScratchpad: Object {
    @Persisted var title = ""
    let recent = List<String>()  // in memory only, as the class says below
    var hits = 0  // plain Swift state: never stored
    override class func ignoredProperties() -> [String] { ["recent"] }
}

@Suite("Properties declared without @Persisted")
struct LegacyDeclarationTests {
    private func configuration(_ types: [Object.Type] = [KennelOwner.self, KennelDog.self]) -> Realm.Configuration {
        var configuration = tempConfig("kennel")
        configuration.objectTypes = types
        return configuration
    }

    private func describe(_ p: Property) -> String {
        "\(p.name) \(p.type) optional:\(p.isOptional) \(p.isArray ? "list" : p.isSet ? "set" : p.isMap ? "map" : "-") \(p.objectClassName ?? "") \(p.linkOriginPropertyName ?? "")"
    }

    @Test func theSchemaIsThatOfThePersistedForm() throws {
        let realm = try Realm(configuration: configuration([KennelOwner.self, KennelOwnerToday.self, KennelDog.self]))
        let legacy = try #require(realm.schema["KennelOwner"])
        let today = try #require(realm.schema["KennelOwnerToday"])
        #expect(legacy.properties.map(describe) == today.properties.map(describe))
        #expect(legacy.properties.map(\.name) == ["id", "name", "dogs", "age", "weight", "nicknames", "visits"])
        #expect(legacy.primaryKeyProperty?.name == "id")
        let owners = try #require(realm.schema["KennelDog"]?.computedProperties.first)
        #expect(owners.name == "owners" && owners.type == .linkingObjects)
        #expect(owners.objectClassName == "KennelOwner" && owners.linkOriginPropertyName == "dogs")
    }

    private func makeOwner() -> KennelOwner {
        let owner = KennelOwner()
        owner.id = 1
        owner.name = "Ann"
        owner.dogs.append(KennelDog(value: ["name": "Rex", "breed": "collie"]))
        owner.dogs.append(KennelDog(value: ["name": "Bo"]))
        owner.age.value = 34
        owner.weight.value = 61.5
        owner.nicknames.insert("Annie")
        owner.visits["vet"] = 2
        return owner
    }

    @Test func anUnmanagedObjectHoldsItsValuesAndAddStoresThem() throws {
        let configuration = configuration()
        let owner = makeOwner()
        #expect(owner.dogs.map(\.name) == ["Rex", "Bo"] && owner.age.value == 34 && owner.visits["vet"] == 2)
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(owner) }
            // The instances the object held are its managed properties now.
            #expect(owner.dogs.realm != nil && owner.dogs.map(\.name) == ["Rex", "Bo"])
            #expect(owner.age.value == 34 && owner.weight.value == 61.5)
        }
        let stored = try onAnotherThread { () -> [String] in
            let realm = try Realm(configuration: configuration)
            let read = try #require(realm.objects(KennelOwner.self).first)
            return [read.name, read.dogs.map(\.name).joined(separator: "+"), "\(read.age.value ?? -1)",
                    "\(read.weight.value ?? -1)", read.nicknames.sorted().joined(), "\(read.visits["vet"] ?? -1)"]
        }
        #expect(stored == ["Ann", "Rex+Bo", "34", "61.5", "Annie", "2"])
    }

    @Test func managedPropertiesReadAndWriteTheRealm() throws {
        let configuration = configuration()
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(makeOwner()) }
            let read = try #require(realm.object(ofType: KennelOwner.self, forPrimaryKey: 1))
            try realm.write {
                read.dogs.append(KennelDog(value: ["name": "Fido"]))
                read.age.value = 35
                read.weight.value = nil
                read.nicknames.insert("A")
                read.visits["groomer"] = 1
            }
            #expect(read.dogs.count == 3 && read.age.value == 35 && read.weight.value == nil)
            #expect(realm.objects(KennelDog.self).count == 3)
        }
        let realm = try Realm(configuration: configuration)
        let reopened = try #require(realm.objects(KennelOwner.self).first)
        #expect(reopened.dogs.map(\.name) == ["Rex", "Bo", "Fido"])
        #expect(reopened.age.value == 35 && reopened.weight.value == nil)
        #expect(reopened.nicknames.sorted() == ["A", "Annie"])
        #expect(reopened.visits["groomer"] == 1 && reopened.visits.count == 2)
    }

    @Test func linkingObjectsFollowTheLinks() throws {
        let realm = try Realm(configuration: configuration())
        try realm.write { realm.add(makeOwner()) }
        let rex = try #require(realm.objects(KennelDog.self).filter("name == 'Rex'").first)
        #expect(rex.owners.map(\.name) == ["Ann"])
        let other = KennelOwner(value: ["id": 2, "name": "Ben"])
        try realm.write {
            realm.add(other)
            other.dogs.append(rex)
        }
        #expect(rex.owners.map(\.name).sorted() == ["Ann", "Ben"])
        #expect(realm.objects(KennelDog.self).filter("owners.@count == 2").map(\.name) == ["Rex"])
    }

    @Test func queriesReachTheProperties() throws {
        let realm = try Realm(configuration: configuration())
        try realm.write {
            realm.add(makeOwner())
            realm.add(KennelOwner(value: ["id": 2, "name": "Ben", "age": 2, "dogs": [["name": "x"]]]))
            realm.add(KennelOwner(value: ["id": 3, "name": "Cy"]))
        }
        let owners = realm.objects(KennelOwner.self)
        #expect(owners.filter("age > 2").map(\.name) == ["Ann"])
        #expect(owners.filter("age == nil").map(\.name) == ["Cy"])
        #expect(owners.filter("ANY dogs.name == 'x'").map(\.name) == ["Ben"])
        #expect(owners.filter("'Annie' IN nicknames").map(\.name) == ["Ann"])
        #expect(owners.filter("visits['vet'] == 2").map(\.name) == ["Ann"])
        #expect(owners.sorted(byKeyPath: "age", ascending: false).map(\.name) == ["Ann", "Ben", "Cy"])
    }

    @Test func keyValueCodingSeesThem() throws {
        let realm = try Realm(configuration: configuration())
        let owner = KennelOwner(value: ["id": 5, "age": 7, "nicknames": ["Z"], "visits": ["a": 1]])
        #expect(owner.age.value == 7 && owner.nicknames.contains("Z") && owner.visits["a"] == 1)
        owner.setValue(8, forKey: "age")
        #expect(owner.age.value == 8)
        try realm.write { realm.add(owner) }
        #expect(owner.value(forKey: "age") as? Int == 8)
        try realm.write { owner["age"] = 9 }
        #expect(owner.age.value == 9)
        #expect(owner.description.contains("age = 9"))
    }

    @Test func keyPathsNameThem() throws {
        #expect(_name(for: \KennelOwner.dogs) == "dogs")
        #expect(_name(for: \KennelOwner.age) == "age")
        #expect(_name(for: \KennelDog.owners) == "owners")
        #expect(_name(for: \KennelVisit.stamps) == "stamps")
        let realm = try Realm(configuration: configuration())
        try realm.write { realm.add(makeOwner()) }
        let owner = try #require(realm.objects(KennelOwner.self).first)
        let changes = FailureBox()
        let token = owner.observe(keyPaths: [\KennelOwner.age]) { change in
            if case .change(_, let properties) = change { changes.set(properties.map(\.name).joined(separator: ",")) }
        }
        defer { token.invalidate() }
        try realm.write { owner.name = "Anna" }
        realm.refresh()
        try realm.write { owner.age.value = 50 }
        realm.refresh()
        #expect(changes.value == "age")
    }

    @Test func mixedModelsKeepBothForms() throws {
        let configuration = configuration([KennelVisit.self, KennelDog.self, KennelOwner.self])
        do {
            let realm = try Realm(configuration: configuration)
            let visit = KennelVisit()
            visit.note = "checkup"
            visit.rating.value = 4
            visit.tags.append("yearly")
            visit.stamps.append(Date(timeIntervalSince1970: 100))
            visit.dogs.append(KennelDog(value: ["name": "Rex"]))
            try realm.write { realm.add(visit) }
            try realm.write { visit.stamps.append(Date(timeIntervalSince1970: 200)) }
            #expect(realm.schema["KennelVisit"]?.properties.map(\.name) == ["stamps", "note", "rating", "tags", "dogs"])
        }
        let realm = try Realm(configuration: configuration)
        let visit = try #require(realm.objects(KennelVisit.self).first)
        #expect(visit.note == "checkup" && visit.rating.value == 4 && Array(visit.tags) == ["yearly"])
        #expect(visit.stamps.map(\.timeIntervalSince1970) == [100, 200])
        #expect(visit.dogs.first?.name == "Rex")
    }

    @Test func aMigrationSeesThem() throws {
        let base = configuration()
        do {
            let realm = try Realm(configuration: base)
            try realm.write { realm.add(makeOwner()) }
        }
        var configuration = base
        configuration.schemaVersion = 2
        let seen = FailureBox()
        configuration.migrationBlock = { migration, _ in
            var log: [String] = []
            migration.enumerateObjects(ofType: "KennelOwner") { old, new in
                let age = old?["age"] as? Int ?? -1
                log.append("age \(age), dogs \((old?["dogs"] as? List<MigrationObject>)?.count ?? -1)")
                new?["age"] = age + 1
            }
            seen.set(log.joined(separator: ";"))
        }
        let realm = try Realm(configuration: configuration)
        #expect(seen.value == "age 34, dogs 2")
        #expect(realm.objects(KennelOwner.self).first?.age.value == 35)
    }

    @Test func aPropertyReadFromATemporaryObjectReadsThatObject() throws {
        let configuration = configuration()
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(makeOwner()) }
        }
        let realm = try Realm(configuration: configuration)
        // Only the property is kept: the object it was read from is released at once.
        let age = try #require(realm.objects(KennelOwner.self).first).age
        let dogs = try #require(realm.objects(KennelOwner.self).first).dogs
        #expect(age.value == 34 && dogs.count == 2)
        try realm.write { age.value = 40 }
        #expect(realm.objects(KennelOwner.self).filter("age == 40").count == 1)
    }

    @Test func aManagedObjectIsNotKeptAliveByItsProperties() throws {
        let realm = try Realm(configuration: configuration())
        try realm.write { realm.add(makeOwner()) }
        weak var released: KennelOwner?
        do {
            let read = try #require(realm.objects(KennelOwner.self).first)
            #expect(read.age.value == 34 && read.dogs.count == 2 && read.dogs[0].owners.count == 1)
            released = read
        }
        #expect(released == nil)
    }

    @Test func anIgnoredListStaysInMemory() throws {
        let realm = try Realm(configuration: configuration([KennelScratchpad.self]))
        #expect(realm.schema["KennelScratchpad"]?.properties.map(\.name) == ["title"])
        let pad = KennelScratchpad()
        pad.recent.append("kept in memory")
        pad.hits = 3
        try realm.write { realm.add(pad) }
        #expect(pad.recent.count == 1 && pad.recent.realm == nil && pad.hits == 3)
    }
}
