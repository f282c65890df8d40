// A migration that removes a property holding embedded objects (a List of embedded objects, or a
// link to one): the embedded objects are deleted with the property, with what they hold in turn
// (their own collections and embedded objects), so that afterwards the embedded classes' tables
// hold no object without a parent, `verify()` balances, `writeCopy` and compaction on launch
// succeed, and everything else reads back unchanged. A property renamed by the block keeps them.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// An embedded object two levels down: held by a plant.
final class PlantLabelV1: EmbeddedObject {
    override class func className() -> String { "PlantLabel" }
    @Persisted var text = ""
}

/// An embedded object held by the gardens' list; it owns a list of strings and a label.
final class PlantV1: EmbeddedObject {
    override class func className() -> String { "Plant" }
    @Persisted var name = ""
    @Persisted var notes: List<String>
    @Persisted var label: PlantLabelV1?
}

/// An embedded object held by a garden's to-one link.
final class GardenSignV1: EmbeddedObject {
    override class func className() -> String { "GardenSign" }
    @Persisted var text = ""
}

/// Version 1 of "Garden": a list of embedded plants and an embedded sign.
final class GardenV1: Object {
    override class func className() -> String { "Garden" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var plants: List<PlantV1>
    @Persisted var sign: GardenSignV1?
    @Persisted var kept: List<Int>
}

/// Version 2 without `plants` (the list of embedded objects).
final class GardenWithoutPlants: Object {
    override class func className() -> String { "Garden" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var sign: GardenSignV1?
    @Persisted var kept: List<Int>
}

/// Version 2 without `sign` (the link to an embedded object).
final class GardenWithoutSign: Object {
    override class func className() -> String { "Garden" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var plants: List<PlantV1>
    @Persisted var kept: List<Int>
}

/// Version 2 with `plants` renamed to `beds` (the embedded objects must stay).
final class GardenRenamedPlants: Object {
    override class func className() -> String { "Garden" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var beds: List<PlantV1>
    @Persisted var sign: GardenSignV1?
    @Persisted var kept: List<Int>
}

@Suite(.serialized)
struct MigrationDropsEmbeddedTests {
    static let gardens = 60

    /// Garden `i`'s plants; garden 0's are enough to span many pages.
    static func plantCount(_ i: Int) -> Int { i == 0 ? 1500 : i % 6 }
    static func notes(_ i: Int, _ p: Int) -> [String] { (0..<(p % 4)).map { "note \($0) of plant \(p) in \(i)" } }
    static func kept(_ i: Int) -> [Int] { (0..<(i % 9)).map { $0 * i } }

    func fillVersionOne(_ base: Realm.Configuration) throws {
        var config = base
        config.schemaVersion = 1
        config.objectTypes = [GardenV1.self, PlantV1.self, PlantLabelV1.self, GardenSignV1.self]
        let realm = try Realm(configuration: config)
        try realm.write {
            for i in 0..<Self.gardens {
                let garden = GardenV1()
                garden.id = i
                garden.name = "garden \(i)"
                for p in 0..<Self.plantCount(i) {
                    let plant = PlantV1()
                    plant.name = "plant \(p) of \(i)"
                    plant.notes.append(objectsIn: Self.notes(i, p))
                    if p % 2 == 0 {
                        let label = PlantLabelV1()
                        label.text = "label \(p)"
                        plant.label = label
                    }
                    garden.plants.append(plant)
                }
                if i % 3 != 0 {
                    let sign = GardenSignV1()
                    sign.text = "sign of \(i)"
                    garden.sign = sign
                }
                garden.kept.append(objectsIn: Self.kept(i))
                realm.add(garden)
            }
        }
        #expect(try Self.objectCount(realm, "Plant") == (0..<Self.gardens).map(Self.plantCount).reduce(0, +))
    }

    /// The number of stored objects of class `name` (embedded classes cannot be queried).
    static func objectCount(_ realm: Realm, _ name: String) throws -> Int {
        let table = try #require(realm.core.snap.tableByName[name])
        var n = 0
        try realm.core.snap.metas[table].objects.forEach(from: 0, in: realm.core.pages()) { _, _ in n += 1; return true }
        return n
    }

    static func plantsHeld(_ i: Int) -> Int { plantCount(i) }
    static func labelsHeld(_ i: Int) -> Int { (plantCount(i) + 1) / 2 }
    static func hasSign(_ i: Int) -> Bool { i % 3 != 0 }

    /// The objects left in each embedded table and every remaining property of every garden.
    func expectEverythingRemaining<T: Object>(_ realm: Realm, _ type: T.Type, _ context: String) throws {
        let gardens = Array(realm.objects(type))
        #expect(gardens.count == Self.gardens, "\(context): gardens")
        let allPlants = (0..<Self.gardens).map(Self.plantsHeld).reduce(0, +)
        let allLabels = (0..<Self.gardens).map(Self.labelsHeld).reduce(0, +)
        let allSigns = (0..<Self.gardens).filter(Self.hasSign).count
        for garden in gardens {
            switch garden {
            case let g as GardenWithoutPlants:
                #expect(g.name == "garden \(g.id)" && Array(g.kept) == Self.kept(g.id), "\(context): garden \(g.id)")
                #expect(g.sign?.text == (Self.hasSign(g.id) ? "sign of \(g.id)" : nil), "\(context): sign of \(g.id)")
            case let g as GardenWithoutSign:
                #expect(g.name == "garden \(g.id)" && Array(g.kept) == Self.kept(g.id), "\(context): garden \(g.id)")
                expectPlants(Array(g.plants), of: g.id, context)
            case let g as GardenRenamedPlants:
                #expect(g.name == "garden \(g.id)" && Array(g.kept) == Self.kept(g.id), "\(context): garden \(g.id)")
                expectPlants(Array(g.beds), of: g.id, context)
                #expect(g.sign?.text == (Self.hasSign(g.id) ? "sign of \(g.id)" : nil), "\(context): sign of \(g.id)")
            default:
                Issue.record("\(context): a garden of type \(Swift.type(of: garden))")
            }
        }
        let keepsPlants = ObjectIdentifier(type) != ObjectIdentifier(GardenWithoutPlants.self)
        let keepsSigns = ObjectIdentifier(type) != ObjectIdentifier(GardenWithoutSign.self)
        #expect(try Self.objectCount(realm, "Plant") == (keepsPlants ? allPlants : 0), "\(context): plants stored")
        #expect(try Self.objectCount(realm, "PlantLabel") == (keepsPlants ? allLabels : 0), "\(context): labels stored")
        #expect(try Self.objectCount(realm, "GardenSign") == (keepsSigns ? allSigns : 0), "\(context): signs stored")
    }

    func expectPlants(_ plants: [PlantV1], of i: Int, _ context: String) {
        #expect(plants.map(\.name) == (0..<Self.plantCount(i)).map { "plant \($0) of \(i)" }, "\(context): plants of \(i)")
        for (p, plant) in plants.enumerated() {
            #expect(Array(plant.notes) == Self.notes(i, p), "\(context): notes of plant \(p) in \(i)")
            #expect(plant.label?.text == (p % 2 == 0 ? "label \(p)" : nil), "\(context): label of plant \(p) in \(i)")
        }
    }

    @Test func droppingAListOfEmbeddedObjectsDeletesThem() throws {
        try dropAndCheck(GardenWithoutPlants.self, embedded: [GardenSignV1.self])
    }

    @Test func droppingALinkToAnEmbeddedObjectDeletesIt() throws {
        try dropAndCheck(GardenWithoutSign.self, embedded: [PlantV1.self, PlantLabelV1.self])
    }

    func dropAndCheck<T: Object>(_ type: T.Type, embedded: [Object.Type]) throws {
        let base = tempConfig("gardens")
        try fillVersionOne(base)
        var config = base
        config.schemaVersion = 2
        config.objectTypes = [type] + embedded
        try expectMigratedFileConsistent(config) { realm, context in
            try expectEverythingRemaining(realm, type, context)
        }
    }

    @Test func aListOfEmbeddedObjectsRenamedByTheBlockKeepsThem() throws {
        let base = tempConfig("renamed")
        try fillVersionOne(base)
        var config = base
        config.schemaVersion = 2
        config.objectTypes = [GardenRenamedPlants.self, PlantV1.self, PlantLabelV1.self, GardenSignV1.self]
        config.migrationBlock = { migration, _ in
            migration.renameProperty(onType: "Garden", from: "plants", to: "beds")
        }
        let realm = try Realm(configuration: config)
        try expectEverythingRemaining(realm, GardenRenamedPlants.self, "after the rename")
        let accounting = try pageAccounting(of: realm)
        #expect(accounting.balances, "\(accounting)")
    }
}
