// A change to an object that an element of an observed collection links to is a modification of
// that element, as Realm reports it ("modify the age of a Dog belonging to that Person"): through
// to-one links, embedded objects, lists, sets and maps of objects, up to three links away (four
// levels counting the element, as deep as Realm looks). With
// key paths, only changes along them count. An object observer, as Realm's, reports a linked
// object's change only through a key path that goes there ("pet.age").
import Foundation
import Strata
import StrataTestSupport
import Testing

final class Keeper: Object {
    @Persisted var name = ""
    @Persisted var pet: Pet?
    @Persisted var pets: List<Pet>
    @Persisted var favourites: MutableSet<Pet>
    @Persisted var byNickname: Map<String, Pet?>
    @Persisted var home: KeeperHome?
}

final class KeeperHome: EmbeddedObject {
    @Persisted var city = ""
}

final class Pet: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var keeper: Keeper?
    @Persisted var toy: PetToy?
}

/// A chain of links: each link leads to the next one.
final class PetToy: Object {
    @Persisted var label = ""
    @Persisted var next: PetToy?
}

@Suite("Changes of linked objects")
struct LinkedObjectChangeTests {
    typealias Change = (deletions: [Int], insertions: [Int], modifications: [Int])

    private func realm() throws -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: "linked-\(UUID())")
        configuration.objectTypes = [Keeper.self, KeeperHome.self, Pet.self, PetToy.self]
        return try Realm(configuration: configuration)
    }

    /// Ann, Bob and Cy, each keeping one pet in every kind of property.
    private func stocked(_ realm: Realm) throws -> [Keeper] {
        var keepers: [Keeper] = []
        try realm.write {
            for name in ["Ann", "Bob", "Cy"] {
                let keeper = Keeper(value: ["name": name, "home": ["city": "Oslo"]])
                let pet = Pet(value: ["name": "\(name)'s pet"])
                realm.add(keeper)
                keeper.pet = pet
                keeper.pets.append(pet)
                keeper.favourites.insert(pet)
                keeper.byNickname["rex"] = pet
                pet.keeper = keeper
                keepers.append(keeper)
            }
        }
        return keepers
    }

    @Test func aChangedPetModifiesItsKeeper() throws {
        let realm = try realm()
        let keepers = try stocked(realm)
        var modified: [[Int]] = []
        let token = realm.objects(Keeper.self).sorted(byKeyPath: "name").observe { change in
            if case let .update(_, _, _, modifications) = change { modified.append(modifications) }
        }
        defer { token.invalidate() }
        // Each write changes a pet reached one way only.
        try realm.write { keepers[1].pet!.age = 4 }
        try realm.write {
            let pet = Pet(value: ["name": "spare"])
            keepers[2].pets.append(pet)
        }
        try realm.write { keepers[2].pets[1].age = 2 }
        try realm.write {
            let pet = Pet(value: ["name": "loner"])
            keepers[0].favourites.insert(pet)
            keepers[0].byNickname["solo"] = Pet(value: ["name": "solo"])
        }
        try realm.write { keepers[0].favourites.first(where: { $0.name == "loner" })!.age = 1 }
        try realm.write { keepers[0].byNickname["solo"]!!.age = 1 }
        try realm.write { keepers[1].home!.city = "Bergen" }
        #expect(modified == [[1], [2], [2], [0], [0], [0], [1]])
    }

    @Test func theKeeperIsReportedWhereItWasBeforeTheWrite() throws {
        let realm = try realm()
        let keepers = try stocked(realm)
        var log: [Change] = []
        let token = realm.objects(Keeper.self).sorted(byKeyPath: "name").observe { change in
            if case let .update(_, deletions, insertions, modifications) = change {
                log.append((deletions, insertions, modifications))
            }
        }
        defer { token.invalidate() }
        try realm.write {
            realm.delete(keepers[0])
            keepers[2].pets[0].age = 9
        }
        try #require(log.count == 1)
        #expect(log[0].deletions == [0] && log[0].insertions.isEmpty && log[0].modifications == [2])
    }

    @Test func linksAreFollowedUpToThreeLinksAway() throws {
        let realm = try realm()
        let keepers = try stocked(realm)
        // Ann → pet → toy 1 → toy 2 → toy 3: toy 2 is three links from Ann, toy 3 four.
        let toys = (1...3).map { PetToy(value: ["label": "toy \($0)"]) }
        try realm.write {
            keepers[0].pet!.toy = toys[0]
            for i in 0..<2 { toys[i].next = toys[i + 1] }
        }
        var modified: [[Int]] = []
        let token = realm.objects(Keeper.self).sorted(byKeyPath: "name").observe { change in
            if case let .update(_, _, _, modifications) = change { modified.append(modifications) }
        }
        defer { token.invalidate() }
        try realm.write { toys[0].label = "one" }
        try realm.write { toys[1].label = "two" }
        try realm.write { toys[2].label = "three" }   // too far: nothing
        #expect(modified == [[0], [0]])
    }

    @Test func keyPathsLimitWhatCounts() throws {
        let realm = try realm()
        let keepers = try stocked(realm)
        var modified: [[Int]] = []
        let token = realm.objects(Keeper.self).sorted(byKeyPath: "name").observe(keyPaths: ["pets.age"]) { change in
            if case let .update(_, _, _, modifications) = change { modified.append(modifications) }
        }
        defer { token.invalidate() }
        try realm.write { keepers[1].pets[0].name = "renamed" }   // not watched
        try realm.write { keepers[2].home!.city = "Bergen" }      // not watched
        try realm.write { keepers[1].pets[0].age = 3 }
        #expect(modified == [[1]])
    }

    @Test func aListReportsAnElementWhoseLinkedObjectsChanged() throws {
        let realm = try realm()
        let keepers = try stocked(realm)
        let ball = PetToy(value: ["label": "ball", "next": ["label": "bell"]])
        try realm.write { keepers[0].pets[0].toy = ball }
        var modified: [[Int]] = []
        let token = keepers[0].pets.observe { change in
            if case let .update(_, _, _, modifications) = change { modified.append(modifications) }
        }
        defer { token.invalidate() }
        // The list's pet → its toy → the toy's next one, two links from the element.
        try realm.write { ball.next!.label = "bells" }
        #expect(modified == [[0]])
    }

    @Test func anObjectObserverReportsALinkedChangeOnlyThroughAKeyPath() throws {
        let realm = try realm()
        let keepers = try stocked(realm)
        var everything: [[String]] = [], throughPet: [[String]] = []
        let a = keepers[0].observe { (change: ObjectChange<Keeper>) in
            if case let .change(_, properties) = change { everything.append(properties.map(\.name)) }
        }
        let b = keepers[0].observe(keyPaths: ["pet.age"]) { (change: ObjectChange<Keeper>) in
            if case let .change(_, properties) = change { throughPet.append(properties.map(\.name)) }
        }
        defer { a.invalidate(); b.invalidate() }
        try realm.write { keepers[0].pet!.age = 5 }
        try realm.write { keepers[0].name = "Anna" }
        #expect(everything == [["name"]])
        #expect(throughPet == [["pet"]])
    }
}
