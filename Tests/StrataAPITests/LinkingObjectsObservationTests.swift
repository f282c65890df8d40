// Observation key paths may go through linking objects, as in RealmSwift: watching "owners"
// reports a change when an object starts or stops linking here, and "owners.name" also when
// the name of an object linking here changes. Before, such key paths were refused when the
// observer was registered.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class WatchedKennel: Object {
    @Persisted var name = ""
    @Persisted var resident: WatchedPuppy?
    @Persisted var address = ""
}

final class WatchedPuppy: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "resident") var kennels: LinkingObjects<WatchedKennel>
}

final class WatchedPuppyHolder: Object {
    @Persisted var puppies: Map<String, WatchedPuppy?>
}

@Suite("Observing through linking objects")
struct LinkingObjectsObservationTests {
    static func realm(_ name: String) throws -> Realm {
        var configuration = tempConfig(name)
        configuration.objectTypes = [WatchedKennel.self, WatchedPuppy.self, WatchedPuppyHolder.self]
        return try Realm(configuration: configuration)
    }

    /// The names of the properties each change reported, in order.
    final class ChangedNames: @unchecked Sendable {
        var reports: [[String]] = []
        func record<T>(_ change: ObjectChange<T>) {
            if case .change(_, let properties) = change { reports.append(properties.map(\.name)) }
        }
    }

    @Test func aNewLinkingObjectIsAChangeOfTheLinkingObjectsProperty() throws {
        let realm = try Self.realm("watch-owners")
        let (puppy, kennel) = try realm.write {
            let puppy = realm.create(WatchedPuppy.self, value: ["name": "Rex"])
            return (puppy, realm.create(WatchedKennel.self, value: ["name": "North", "resident": puppy]))
        }
        let changed = ChangedNames()
        let token = puppy.observe(keyPaths: ["kennels"]) { changed.record($0) }
        defer { token.invalidate() }
        try realm.write { kennel.name = "North 2" }
        #expect(changed.reports.isEmpty, "a linking object's own property is not watched by 'kennels'")
        try realm.write { realm.create(WatchedKennel.self, value: ["name": "South", "resident": puppy]) }
        #expect(changed.reports == [["kennels"]])
        try realm.write { kennel.resident = nil }
        #expect(changed.reports == [["kennels"], ["kennels"]])
    }

    @Test func aPropertyOfALinkingObjectIsWatchedByItsKeyPath() throws {
        let realm = try Self.realm("watch-owners-name")
        let (puppy, kennel) = try realm.write {
            let puppy = realm.create(WatchedPuppy.self, value: ["name": "Rex"])
            return (puppy, realm.create(WatchedKennel.self, value: ["name": "North", "resident": puppy]))
        }
        let changed = ChangedNames()
        let token = puppy.observe(keyPaths: ["kennels.name"]) { changed.record($0) }
        defer { token.invalidate() }
        try realm.write { kennel.address = "1 Hill Road" }
        #expect(changed.reports.isEmpty, "another property of the linking object")
        try realm.write { kennel.name = "North 2" }
        #expect(changed.reports == [["kennels"]])
        try realm.write { realm.create(WatchedKennel.self, value: ["name": "South", "resident": puppy]) }
        #expect(changed.reports == [["kennels"], ["kennels"]])
    }

    @Test func collectionObserversWatchThroughLinkingObjectsToo() throws {
        let realm = try Self.realm("watch-map-owners")
        let (holder, kennel) = try realm.write {
            let puppy = realm.create(WatchedPuppy.self, value: ["name": "Rex"])
            let holder = realm.create(WatchedPuppyHolder.self)
            holder.puppies["first"] = puppy
            return (holder, realm.create(WatchedKennel.self, value: ["name": "North", "resident": puppy]))
        }
        var modified: [[String]] = []
        let token = holder.puppies.observe(keyPaths: ["kennels.name"]) { change in
            if case .update(_, _, _, let modifications) = change { modified.append(modifications) }
        }
        defer { token.invalidate() }
        try realm.write { kennel.address = "1 Hill Road" }
        try realm.write { kennel.name = "North 2" }
        #expect(modified.filter { !$0.isEmpty } == [["first"]])
    }

    /// An unknown name after linking objects stops (an observation call cannot throw), naming it.
    @Test func aKeyPathPastLinkingObjectsStillNamesProperties() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try LinkingObjectsObservationTests.realm("watch-owners-unknown")
            let puppy = try realm.write { realm.create(WatchedPuppy.self, value: ["name": "Rex"]) }
            _ = puppy.observe(keyPaths: ["kennels.colour"]) { (_: ObjectChange<WatchedPuppy>) in }
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
            .contains("key path 'kennels.colour': property 'colour' not found in object of type 'WatchedKennel'"))
    }

    @Test func linkingObjectsObservedOnAQueueAreTheQueuesOwn() throws {
        let realm = try Self.realm("watch-kennels-on-queue")
        let puppy = try realm.write {
            let puppy = realm.create(WatchedPuppy.self, value: ["name": "Rex"])
            realm.create(WatchedKennel.self, value: ["name": "North", "resident": puppy])
            return puppy
        }
        final class Counts: @unchecked Sendable { var seen: [Int] = [] }
        let counts = Counts()
        let delivered = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "kennels")
        // The handler reads what it is given on the queue: that must be the queue's realm's.
        let token = puppy.kennels.observe(keyPaths: nil, on: queue) { change in
            switch change {
            case .initial(let kennels), .update(let kennels, _, _, _): counts.seen.append(kennels.count)
            case .error: counts.seen.append(-1)
            }
            delivered.signal()
        }
        defer { token.invalidate() }
        #expect(delivered.wait(timeout: .now() + 30) == .success)
        try realm.write { realm.create(WatchedKennel.self, value: ["name": "South", "resident": puppy]) }
        #expect(delivered.wait(timeout: .now() + 30) == .success)
        queue.sync {}
        #expect(counts.seen == [1, 2])
    }
}
