// Projections: @Projected properties read and write the root object through key paths, results of
// a projection class are its root class's objects, and observers see the projected properties.
import Foundation
import Testing
import Strata
import StrataTestSupport

final class ViewedAddress: EmbeddedObject {
    @Persisted var city = ""
}

final class ViewedPerson: Object {
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var age = 0
    @Persisted var address: ViewedAddress?
    @Persisted var friends: List<ViewedPerson>
    @Persisted var nickname = ""
    var scratch = ""  // not persisted
}

final class PersonCard: Projection<ViewedPerson> {
    @Projected(\ViewedPerson.firstName) var firstName
    @Projected(\ViewedPerson.lastName.localizedUppercase) var shoutedLastName
    @Projected(\ViewedPerson.address?.city) var city
    @Projected(\ViewedPerson.friends.projectTo.firstName) var friendNames: ProjectedCollection<String>

    var initial: String { String(firstName.prefix(1)) }
}

final class BrokenCard: Projection<ViewedPerson> {
    @Projected(\ViewedPerson.lastName.count.description) var unstored
    @Projected(\ViewedPerson.firstName.isEmpty) var emptyName
    @Projected(\ViewedPerson.friends.count) var friendCount
}

final class UnstoredCard: Projection<ViewedPerson> {
    @Projected(\ViewedPerson.scratch) var text
}

@Suite struct ProjectionTests {
    private func people() throws -> Realm {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            let jon = realm.create(ViewedPerson.self, value: ["firstName": "Jon", "lastName": "Snow", "age": 20,
                                                               "address": ["city": "Winterfell"]])
            let dany = realm.create(ViewedPerson.self, value: ["firstName": "Daenerys", "lastName": "Targaryen",
                                                                "age": 18, "address": ["city": "Meereen"]])
            let arya = realm.create(ViewedPerson.self, value: ["firstName": "Arya", "lastName": "Stark", "age": 11])
            jon.friends.append(objectsIn: [dany, arya])
            dany.friends.append(jon)
        }
        return realm
    }

    @Test func projectedPropertiesReadAndWriteTheRoot() throws {
        let realm = try people()
        let jon = try #require(realm.objects(ViewedPerson.self).filter("firstName == 'Jon'").first)
        let card = PersonCard(projecting: jon)
        #expect(card.firstName == "Jon" && card.shoutedLastName == "SNOW" && card.city == "Winterfell")
        #expect(Array(card.friendNames) == ["Daenerys", "Arya"])
        try realm.write {
            card.firstName = "Aegon"
            card.friendNames[1] = "Arry"
        }
        #expect(jon.firstName == "Aegon" && jon.friends[1].firstName == "Arry")
        #expect(card.rootObject === jon && card.realm != nil && !card.isFrozen)
        #expect(card.description.contains("friendNames(\\.friends) = ProjectedCollection<String> {\n\t[0] Daenerys\n\t[1] Arry\n}"))
        #expect(card.description.hasPrefix("PersonCard<ViewedPerson> <0x"))
    }

    @Test func resultsOfAProjectionAreItsRootsObjects() throws {
        let realm = try people()
        let cards = realm.objects(PersonCard.self)
        #expect(cards.count == 3)
        #expect(cards.filter("age < %@", 19).map(\.firstName).sorted() == ["Arya", "Daenerys"])
        #expect(cards.sorted(byKeyPath: "age").map(\.firstName) == ["Arya", "Daenerys", "Jon"])
        #expect(cards.sorted(by: [SortDescriptor(keyPath: "lastName", ascending: false)]).first?.firstName == "Daenerys")
        let jon = try #require(realm.objects(ViewedPerson.self).filter("firstName == 'Jon'").first)
        // Projections compare their roots with `==`: ViewedPerson has no primary key, so only the
        // same accessor is equal (RealmSwift's rule); the stored object is the same.
        #expect(cards.filter("firstName == 'Jon'").first?.rootObject.isSameObject(as: jon) == true)
        #expect(PersonCard(projecting: jon) == PersonCard(projecting: jon))
        #expect(cards.filter("firstName == 'Jon'").first != cards.filter("firstName == 'Arya'").first)
        let sections = cards.sectioned(by: \.initial, ascending: true)
        #expect(sections.allKeys == ["A", "D", "J"])
        let frozen = cards.freeze()
        try realm.write { realm.create(ViewedPerson.self, value: ["firstName": "Bran"]) }
        #expect(frozen.count == 3 && cards.count == 4 && frozen.first?.isFrozen == true)
    }

    @Test func keyPathsThatReadNoStoredPropertyStop() async {
        await #expect(processExitsWith: .failure) {
            _ = UnstoredCard(projecting: ViewedPerson())
        }
        // computed from stored properties is allowed
        let card = BrokenCard(projecting: ViewedPerson(value: ["lastName": "Snow"]))
        #expect(card.unstored == "4" && card.emptyName && card.friendCount == 0)
    }

    @Test func observersSeeTheProjectedProperties() throws {
        let realm = try people()
        let jon = try #require(realm.objects(ViewedPerson.self).filter("firstName == 'Jon'").first)
        let card = PersonCard(projecting: jon)
        var seen: [[String]] = []
        var deleted = false
        let token = card.observe { change in
            switch change {
            case .change(let c, let properties):
                seen.append(properties.map(\.name))
                #expect(c.firstName == jon.firstName)
            case .deleted: deleted = true
            case .error(let e): Issue.record(e)
            }
        }
        defer { token.invalidate() }
        try realm.write { jon.nickname = "Lord Snow" }  // not projected: nothing
        try realm.write { jon.lastName = "Stark" }
        try realm.write { jon.address?.city = "The Wall" }
        try realm.write { jon.friends.removeLast() }
        try realm.write { realm.delete(jon) }
        #expect(seen == [["shoutedLastName"], ["city"], ["friendNames"]])
        #expect(deleted)
    }

    @Test func observersCanWatchSomeProjectedProperties() throws {
        let realm = try people()
        let jon = try #require(realm.objects(ViewedPerson.self).filter("firstName == 'Jon'").first)
        let card = PersonCard(projecting: jon)
        var seen: [[String]] = []
        let token = card.observe(keyPaths: [\PersonCard.city]) { change in
            if case .change(_, let properties) = change { seen.append(properties.map(\.name)) }
        }
        defer { token.invalidate() }
        try realm.write { jon.firstName = "Aegon" }
        try realm.write { jon.address?.city = "Dragonstone" }
        #expect(seen == [["city"]])
    }

    @Test func projectedCollectionsFollowTheirListAndFreeze() throws {
        let realm = try people()
        let jon = try #require(realm.objects(ViewedPerson.self).filter("firstName == 'Jon'").first)
        let names = PersonCard(projecting: jon).friendNames
        var changes: [([Int], [Int], [Int])] = []
        let token = names.observe { change in
            if case let .update(_, d, i, m) = change { changes.append((d, i, m)) }
        }
        defer { token.invalidate() }
        let frozen = names.freeze()
        try realm.write {
            jon.friends.append(realm.create(ViewedPerson.self, value: ["firstName": "Sam"]))
            jon.friends[0].firstName = "Dany"
        }
        #expect(Array(names) == ["Dany", "Arya", "Sam"])
        #expect(Array(frozen) == ["Daenerys", "Arya"] && frozen.isFrozen)
        #expect(try #require(frozen.thaw()).count == 3)
        #expect(changes.count == 1 && changes[0].1 == [2] && changes[0].2 == [0])
    }
}
