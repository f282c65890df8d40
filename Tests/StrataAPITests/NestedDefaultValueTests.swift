// Models whose property initial values create other objects, as Realm's own test models do
// (`@Persisted var objectCol: BoolObject? = BoolObject()`). Every shape must store and read back
// exactly the values given, through the public API only.
import Foundation
import Strata
import Testing

final class Collar: Object {
    @Persisted var size = 3
    @Persisted var colour = "red"
}

final class Pup: Object {
    @Persisted var name = "pup"
    @Persisted var collar: Collar? = Collar()
    @Persisted var weight = 4.5
}

final class PostalAddress: EmbeddedObject {
    @Persisted var street = "Main St"
    @Persisted var number = 1
}

/// A link default in the middle of the properties, one level deep.
final class Owner: Object {
    @Persisted var name = "Tim"
    @Persisted var intCol = 123
    @Persisted var pup: Pup? = Pup()
    @Persisted var age = 40
    @Persisted var nickname: String? = "T"
}

/// An embedded object as the default, first among the properties.
final class Resident: Object {
    @Persisted var address: PostalAddress? = PostalAddress()
    @Persisted var name = "Ann"
    @Persisted var floor = 7
}

/// A helper that creates several objects, and a non-persisted property that creates one.
final class Kennel: Object {
    @Persisted var label = "north"
    var scratch = Pup()
    @Persisted var pups = Kennel.threePups()
    @Persisted var capacity = 12
    @Persisted var tags = List<String>()

    static func threePups() -> List<Pup> {
        let list = List<Pup>()
        for i in 0..<3 {
            let p = Pup()
            p.name = "pup\(i)"
            list.append(p)
        }
        return list
    }
}

/// A persisted string whose initial value is computed by creating (and dropping) objects.
final class Labelled: Object {
    @Persisted var first = 1
    @Persisted var label = Labelled.describe(Owner())
    @Persisted var last = 2

    static func describe(_ owner: Owner) -> String { "\(owner.name)-\(owner.intCol)" }
}

/// Inheritance: the superclass's wrappers come first, both levels have object defaults.
class BaseRecord: Object {
    @Persisted var baseName = "base"
    @Persisted var baseCollar: Collar? = Collar()
}

final class DerivedRecord: BaseRecord {
    @Persisted var derivedValue = 99
    @Persisted var derivedPup: Pup? = Pup()
    @Persisted var derivedFlag = true
}

@Suite("Property initial values that create objects")
struct NestedDefaultValueTests {
    private func inMemoryRealm(_ name: String = UUID().uuidString) throws -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: name)
        configuration.objectTypes = [Collar.self, Pup.self, PostalAddress.self, Owner.self, Resident.self,
                                     Kennel.self, Labelled.self, BaseRecord.self, DerivedRecord.self]
        return try Realm(configuration: configuration)
    }

    @Test func unmanagedObjectsHoldTheirDefaults() {
        let owner = Owner()
        #expect(owner.name == "Tim")
        #expect(owner.intCol == 123)
        #expect(owner.age == 40)
        #expect(owner.nickname == "T")
        #expect(owner.pup?.name == "pup")
        #expect(owner.pup?.collar?.size == 3)
    }

    @Test func aLinkDefaultInTheMiddleStoresEveryColumn() throws {
        let realm = try inMemoryRealm()
        let owner = Owner()
        owner.intCol = 7
        owner.pup?.weight = 9.25
        try realm.write { realm.add(owner) }
        #expect(owner.realm != nil)
        #expect(owner.name == "Tim")
        #expect(owner.intCol == 7)
        #expect(owner.age == 40)
        #expect(owner.nickname == "T")
        let pup = try #require(owner.pup)
        #expect(pup.name == "pup")
        #expect(pup.weight == 9.25)
        #expect(pup.collar?.size == 3)
        #expect(pup.collar?.colour == "red")
        #expect(realm.objects(Pup.self).count == 1)
        #expect(realm.objects(Collar.self).count == 1)
    }

    @Test func managedWritesLandInTheirOwnColumns() throws {
        let realm = try inMemoryRealm()
        let owner = Owner()
        try realm.write { realm.add(owner) }
        try realm.write {
            owner.name = "Sue"
            owner.age = 41
            owner.intCol = -5
            owner.nickname = nil
            owner.pup?.collar?.colour = "blue"
        }
        let read = try #require(realm.objects(Owner.self).first)
        #expect(read.name == "Sue")
        #expect(read.age == 41)
        #expect(read.intCol == -5)
        #expect(read.nickname == nil)
        #expect(read.pup?.name == "pup")
        #expect(read.pup?.collar?.colour == "blue")
        #expect(read.pup?.collar?.size == 3)
    }

    @Test func anEmbeddedDefaultFirstAmongTheProperties() throws {
        let realm = try inMemoryRealm()
        let resident = Resident()
        resident.address?.number = 22
        try realm.write { realm.add(resident) }
        let read = try #require(realm.objects(Resident.self).first)
        #expect(read.name == "Ann")
        #expect(read.floor == 7)
        #expect(read.address?.street == "Main St")
        #expect(read.address?.number == 22)
    }

    @Test func aListBuiltByAHelperAndANonPersistedObject() throws {
        let realm = try inMemoryRealm()
        let kennel = Kennel()
        kennel.tags.append("a")
        try realm.write { realm.add(kennel) }
        let read = try #require(realm.objects(Kennel.self).first)
        #expect(read.label == "north")
        #expect(read.capacity == 12)
        #expect(Array(read.tags) == ["a"])
        #expect(read.pups.map(\.name) == ["pup0", "pup1", "pup2"])
        #expect(read.pups.allSatisfy { $0.collar?.size == 3 })
        #expect(realm.objects(Pup.self).count == 3)  // the non-persisted `scratch` is not added
    }

    @Test func objectsCreatedAndDroppedInAnInitialValue() throws {
        let realm = try inMemoryRealm()
        let labelled = Labelled()
        try realm.write { realm.add(labelled) }
        let read = try #require(realm.objects(Labelled.self).first)
        #expect(read.first == 1)
        #expect(read.label == "Tim-123")
        #expect(read.last == 2)
        #expect(realm.objects(Owner.self).isEmpty)
    }

    @Test func inheritedPropertiesWithDefaultsAtBothLevels() throws {
        let realm = try inMemoryRealm()
        let record = DerivedRecord()
        record.baseName = "b"
        record.derivedValue = 5
        try realm.write { realm.add(record) }
        let read = try #require(realm.objects(DerivedRecord.self).first)
        #expect(read.baseName == "b")
        #expect(read.baseCollar?.size == 3)
        #expect(read.derivedValue == 5)
        #expect(read.derivedPup?.name == "pup")
        #expect(read.derivedFlag == true)
    }

    @Test func createFromADictionaryKeepsNestedDefaults() throws {
        let realm = try inMemoryRealm()
        let owner = try realm.write {
            realm.create(Owner.self, value: ["name": "Kim", "age": 30])
        }
        #expect(owner.name == "Kim")
        #expect(owner.age == 30)
        #expect(owner.intCol == 123)
        #expect(owner.pup?.collar?.colour == "red")
    }

    @Test func nestedDefaultsSurviveReopeningAFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nested-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var configuration = Realm.Configuration(fileURL: dir.appendingPathComponent("n.realm"))
        configuration.objectTypes = [Collar.self, Pup.self, Owner.self]
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { for _ in 0..<50 { realm.add(Owner()) } }
        }
        let realm = try Realm(configuration: configuration)
        let owners = realm.objects(Owner.self)
        #expect(owners.count == 50)
        for owner in owners {
            #expect(owner.name == "Tim" && owner.intCol == 123 && owner.age == 40 && owner.nickname == "T")
            #expect(owner.pup?.collar?.size == 3)
        }
    }
}
