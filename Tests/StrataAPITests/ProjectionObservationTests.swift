// Observing a projection: each changed projected property comes with its value before the change
// (plain values; an object or a collection is live, so its old value is nil), and a projection
// can be observed on an actor, as RealmSwift's.
import Foundation
import Testing
import Strata
import StrataTestSupport

/// An actor that records the projected property changes it is told of.
actor CardWatcher {
    private(set) var changes: [[String]] = []
    func record(_ names: [String]) { changes.append(names) }
}

@Suite("Projection observation")
struct ProjectionObservationTests {
    private func jonCard() throws -> (Realm, ViewedPerson, PersonCard) {
        let realm = try Realm(configuration: memoryConfig())
        let jon = try realm.write {
            realm.create(ViewedPerson.self, value: ["firstName": "Jon", "lastName": "Snow", "address": ["city": "Winterfell"]])
        }
        return (realm, jon, PersonCard(projecting: jon))
    }

    @Test func aChangeCarriesTheProjectedValueBeforeIt() throws {
        let (realm, jon, card) = try jonCard()
        var seen: [(String, String?, String?)] = []
        let token = card.observe { change in
            if case .change(_, let properties) = change {
                seen += properties.map { ($0.name, $0.oldValue as? String, $0.newValue as? String) }
            }
        }
        defer { token.invalidate() }
        try realm.write { jon.lastName = "Stark" }
        try realm.write { jon.lastName = "Targaryen" }
        try realm.write { jon.address?.city = "The Wall" }
        #expect(seen.map(\.0) == ["shoutedLastName", "shoutedLastName", "city"])
        #expect(seen.map(\.1) == ["SNOW", "STARK", "Winterfell"])
        #expect(seen.map(\.2) == ["STARK", "TARGARYEN", "The Wall"])
    }

    @Test func aCollectionsOldValueIsNil() throws {
        let (realm, jon, card) = try jonCard()
        var old: [Any?] = []
        var names: [[String]] = []
        let token = card.observe(keyPaths: [\PersonCard.friendNames]) { change in
            if case .change(let c, let properties) = change {
                old += properties.map(\.oldValue)
                names.append(Array(c.friendNames))
            }
        }
        defer { token.invalidate() }
        try realm.write { jon.friends.append(ViewedPerson(value: ["firstName": "Sam"])) }
        #expect(old.count == 1)
        #expect(old.first.map { $0 == nil } == true)
        #expect(names == [["Sam"]])
    }

    @MainActor @Test func aProjectionIsObservedOnAnActor() async throws {
        let realm = try await Realm.open(configuration: memoryConfig())
        let jon = try realm.write {
            realm.create(ViewedPerson.self, value: ["firstName": "Jon", "lastName": "Snow", "address": ["city": "Winterfell"]])
        }
        let card = PersonCard(projecting: jon)
        let watcher = CardWatcher()
        let byName = await card.observe(keyPaths: ["address.city"], on: watcher) { watcher, change in
            watcher.assertIsolated()
            if case .change(_, let properties) = change { watcher.record(properties.map(\.name)) }
        }
        let byKeyPath = await card.observe(keyPaths: [\PersonCard.shoutedLastName], on: watcher) { watcher, change in
            if case .change(_, let properties) = change { watcher.record(properties.map(\.name)) }
        }
        try realm.write { jon.nickname = "Lord Snow" }  // read by no projected property
        try realm.write { jon.address?.city = "The Wall" }
        try realm.write { jon.lastName = "Stark" }
        var delivered: [[String]] = []
        for _ in 0..<1_000 {
            delivered = await watcher.changes
            if delivered.count >= 2 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(delivered == [["city"], ["shoutedLastName"]])
        byName.invalidate()
        byKeyPath.invalidate()
    }

    @Test func observingAnUnmanagedProjectionOnAnActorStops() async {
        await #expect(processExitsWith: .failure) {
            let card = PersonCard(projecting: ViewedPerson())
            _ = await card.observe(on: CardWatcher()) { _, _ in }
        }
    }
}
