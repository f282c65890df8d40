// `DynamicObject`: an object read and written by property name through `AnyRealmValue.dynamicObject`,
// managed (through the realm, with the accessors' rules) or not (through the object itself).
import Foundation
import Strata
import StrataTestSupport
import Testing

final class Gadget: Object {
    @Persisted(primaryKey: true) var serial = ""
    @Persisted var weight = 0.0
    @Persisted var parts: List<String>
}

final class GadgetHolder: Object {
    @Persisted var item: AnyRealmValue
    @Persisted var shelf: List<Gadget>
    @Persisted var drawer: MutableSet<Gadget>
    @Persisted var byRoom: Map<String, Gadget?>
    @Persisted var labels: List<String>
    @Persisted var stickers: MutableSet<Int>
    @Persisted var favourite: Gadget?
}

@Suite("DynamicObject")
struct DynamicObjectTests {
    private func realm() throws -> Realm {
        var configuration = tempConfig("dynamic")
        configuration.objectTypes = [Gadget.self, GadgetHolder.self]
        return try Realm(configuration: configuration)
    }

    @Test func aManagedViewReadsAndWritesTheStoredObject() throws {
        let realm = try realm()
        let gadget = Gadget()
        gadget.serial = "g-1"
        gadget.weight = 1.5
        gadget.parts.append("cog")
        let holder = GadgetHolder()
        holder.item = .object(gadget)
        try realm.write { realm.add(holder) }

        let dynamic = try #require(holder.item.dynamicObject)
        #expect(dynamic.serial as? String == "g-1")
        #expect(dynamic["weight"] as? Double == 1.5)
        #expect((dynamic.parts as? List<String>).map(Array.init) == ["cog"])
        // A member the class lacks stops, as in RealmSwift (AccessorRulesTests).
        #expect(dynamic.objectSchema.className == "Gadget")
        #expect(dynamic.realm != nil && !dynamic.isInvalidated)
        #expect(dynamic.isSameObject(as: gadget))

        try realm.write { dynamic.weight = 2.5 }
        #expect(gadget.weight == 2.5)
    }

    @Test func aWrongWriteFailsTheTransaction() throws {
        let realm = try realm()
        let holder = GadgetHolder()
        holder.item = .object(Gadget())
        try realm.write { realm.add(holder) }
        let dynamic = try #require(holder.item.dynamicObject)
        for (key, value, code) in [("nothing", 1 as Any, Realm.Error.Code.invalidArgument),
                                   ("weight", "heavy" as Any, .invalidArgument),
                                   ("serial", "other" as Any, .primaryKeyChange)] {
            let error = try #require(throws: Realm.Error.self) {
                try realm.write { dynamic[key] = value }
            }
            #expect(error.code == code)
        }
        #expect(realm.objects(Gadget.self).first?.weight == 0)
    }

    @Test func anUnmanagedViewForwardsToItsObject() {
        let gadget = Gadget()
        let holder = GadgetHolder()
        holder.item = .object(gadget)
        let dynamic = holder.item.dynamicObject
        dynamic?.weight = 3.0
        #expect(gadget.weight == 3.0)
        #expect(dynamic?.serial as? String == "")
        #expect(AnyRealmValue.int(1).dynamicObject == nil)
    }

    @Test func dynamicObjectIsNotAModelClass() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "dynamic-schema-\(UUID())"))
        #expect(realm.schema["DynamicObject"] == nil)
        #expect(realm.schema["Gadget"] != nil)
    }

    @Test func objectsAreFoundAndCreatedByClassName() throws {
        let realm = try realm()
        let created = try realm.write { realm.dynamicCreate("Gadget", value: ["serial": "g-2", "weight": 4.0]) }
        #expect(created.objectSchema.className == "Gadget")
        #expect(realm.objects(Gadget.self).first?.weight == 4.0)
        let all = realm.dynamicObjects("Gadget")
        #expect(all.count == 1 && all.first?.serial as? String == "g-2")
        #expect(realm.dynamicObjects("Gadget").filter("weight > 3").count == 1)
        #expect(realm.dynamicObject(ofType: "Gadget", forPrimaryKey: "g-2")?.weight as? Double == 4.0)
        #expect(realm.dynamicObject(ofType: "Gadget", forPrimaryKey: "none") == nil)
        // update by primary key, as create(update:) does
        try realm.write { realm.dynamicCreate("Gadget", value: ["serial": "g-2", "weight": 5.0], update: .modified) }
        #expect(realm.objects(Gadget.self).count == 1 && realm.objects(Gadget.self).first?.weight == 5.0)
    }

    @Test func anUnknownClassNameStops() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "dynamic-unknown"))
            _ = realm.dynamicObjects("NoSuchClass")
        }
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "dynamic-object"))
            _ = realm.dynamicObjects("Object")
        }
    }

    @Test func aWrongDynamicCreateFailsTheWrite() throws {
        let realm = try realm()
        let error = try #require(throws: Realm.Error.self) {
            try realm.write { realm.dynamicCreate("Gadget", value: ["serial": "g-3", "weight": "heavy"]) }
        }
        #expect(error.code == .invalidArgument)
        #expect(realm.objects(Gadget.self).isEmpty)
    }

    @Test func collectionsOfObjectsAreReadAndChangedDynamically() throws {
        let realm = try realm()
        let holder = GadgetHolder()
        let first = Gadget(value: ["serial": "a", "weight": 1.0])
        holder.shelf.append(first)
        holder.drawer.insert(first)
        holder.byRoom["attic"] = first
        try realm.write { realm.add(holder) }

        let shelf = holder.dynamicList("shelf")
        #expect(shelf.count == 1 && shelf[0].serial as? String == "a" && shelf[0].isSameObject(as: first))
        #expect(holder.dynamicMutableSet("drawer").first?.weight as? Double == 1.0)
        let rooms: Map<String, DynamicObject?> = holder.dynamicMap("byRoom")
        #expect(rooms["attic"]??.serial as? String == "a")

        let second = realm.dynamicObjects("Gadget").first!
        try realm.write {
            shelf.append(second)
            holder.dynamicMutableSet("drawer").insert(realm.dynamicCreate("Gadget", value: ["serial": "b"]))
        }
        #expect(holder.shelf.count == 2 && holder.drawer.count == 2)
        #expect(holder.dynamicList("shelf").isFrozen == false)
        #expect(holder.freeze().dynamicList("shelf").isFrozen)
    }

    /// Read by name, a collection of links holds `DynamicObject`s, as in RealmSwift
    /// (`object["shelf"] as! List<DynamicObject>`); before, it came back with the stored class's
    /// type and such casts stopped the program. A single link keeps the linked class's type.
    @Test func linksReadByNameAreDynamicObjects() throws {
        let realm = try realm()
        let holder = GadgetHolder()
        let gadget = Gadget(value: ["serial": "a", "weight": 1.0])
        holder.item = .object(gadget)
        holder.shelf.append(gadget)
        holder.drawer.insert(gadget)
        holder.byRoom["attic"] = gadget
        holder.labels.append("fragile")
        holder.favourite = gadget
        try realm.write { realm.add(holder) }

        let dynamic = try #require(realm.dynamicObjects("GadgetHolder").first)
        let shelf = try #require(dynamic["shelf"] as? List<DynamicObject>)
        #expect(shelf.first?["serial"] as? String == "a")
        #expect((dynamic.drawer as? MutableSet<DynamicObject>)?.first?.weight as? Double == 1.0)
        let rooms = try #require(dynamic["byRoom"] as? Map<String, DynamicObject?>)
        #expect(rooms["attic"]??.serial as? String == "a")
        #expect((dynamic["labels"] as? List<String>).map(Array.init) == ["fragile"], "collections of values keep their type")
        #expect(try #require(shelf.first).isSameObject(as: gadget))
        // A single link reads as an object of the linked class, as RealmSwift's does.
        #expect((dynamic["favourite"] as? Gadget)?.serial == "a")
    }

    @Test func anObjectOfAnotherClassIsRefused() throws {
        let realm = try realm()
        let holder = GadgetHolder()
        let other = GadgetHolder()
        try realm.write { realm.add([holder, other]) }
        let error = try #require(throws: Realm.Error.self) {
            try realm.write { holder.dynamicList("shelf").append(DynamicObjectTestsSupport.dynamic(other)) }
        }
        #expect(error.code == .invalidArgument)
        #expect(holder.shelf.isEmpty)
    }

    @Test func aWrongCollectionNameStops() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "dynamic-list-name"))
            let holder = GadgetHolder()
            try realm.write { realm.add(holder) }
            _ = holder.dynamicList("byRoom")   // a map, not a list
        }
    }

    @Test func aListOfValuesIsCountedAndChangedButHasNoObjects() throws {
        let realm = try realm()
        let holder = GadgetHolder()
        holder.labels.append(objectsIn: ["fragile", "heavy", "spare"])
        try realm.write { realm.add(holder) }
        let labels = holder.dynamicList("labels")
        #expect(labels.count == 3)
        try realm.write { labels.move(from: 0, to: 2); labels.remove(at: 0) }
        #expect(Array(holder.labels) == ["spare", "fragile"])

        let gadget = try realm.write { realm.dynamicCreate("Gadget", value: ["serial": "c"]) }
        let error = try #require(throws: Realm.Error.self) {
            try realm.write { labels.append(gadget) }
        }
        #expect(error.code == .invalidArgument)
        #expect(Array(holder.labels) == ["spare", "fragile"])
        #expect(labels.index(of: gadget) == nil && !labels.contains(gadget))
        try realm.write { holder.stickers.insert(objectsIn: Array(0...64)) }
        let stickers = holder.dynamicMutableSet("stickers")
        #expect(stickers.count == 65 && !stickers.contains(gadget))
        try realm.write { labels.removeAll() }
        #expect(holder.labels.isEmpty)
    }

    @Test func readingAnElementOfAListOfValuesAsAnObjectStops() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "dynamic-list-values"))
            let holder = GadgetHolder()
            holder.labels.append("fragile")
            try realm.write { realm.add(holder) }
            _ = holder.dynamicList("labels")[0]
        }
    }
}

enum DynamicObjectTestsSupport {
    /// A dynamic view of a managed object, through a value that links to it.
    static func dynamic(_ object: Object) -> DynamicObject {
        AnyRealmValue.object(object).dynamicObject!
    }
}
