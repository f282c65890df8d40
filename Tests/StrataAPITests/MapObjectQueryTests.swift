// A map of objects queried, sorted and aggregated as RealmSwift allows: results of its optional
// value type over its non-nil values, key-path aggregates on managed and unmanaged maps, and
// observation by key path, on a queue or an actor.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class Fruit: Object {
    @Persisted var name = ""
    @Persisted var weight = 0
}

final class FruitBowl: Object {
    @Persisted var byShelf: Map<String, Fruit?>
}

actor FruitWatcher {
    var modifications: [[String]] = []
    func record(_ keys: [String]) { modifications.append(keys) }
}

@Suite("Map of objects: queries, aggregates, observation")
struct MapObjectQueryTests {
    private func bowl(_ realm: Realm? = nil) throws -> FruitBowl {
        let bowl = FruitBowl()
        bowl.byShelf["a"] = Fruit(value: ["name": "cherry", "weight": 1])
        bowl.byShelf["b"] = Fruit(value: ["name": "apple", "weight": 3])
        bowl.byShelf["c"] = Fruit(value: ["name": "banana", "weight": 2])
        bowl.byShelf["d"] = nil
        if let realm { try realm.write { realm.add(bowl) } }
        return bowl
    }

    private func realm() throws -> Realm {
        var configuration = tempConfig("fruit")
        configuration.objectTypes = [Fruit.self, FruitBowl.self]
        return try Realm(configuration: configuration)
    }

    @Test func queriesGiveResultsOfTheOptionalValueType() throws {
        let realm = try realm()
        let bowl = try bowl(realm)
        let heavy: Results<Fruit?> = bowl.byShelf.filter("weight > %@", 1)
        #expect(heavy.count == 2)
        #expect(heavy.map { $0?.name } == ["apple", "banana"])
        #expect(bowl.byShelf.where { $0.name == "cherry" }.first??.weight == 1)
        #expect(bowl.byShelf.sorted(byKeyPath: "weight", ascending: false).map { $0?.name } == ["apple", "banana", "cherry"])
        #expect(bowl.byShelf.sorted(by: \.name).map { $0?.name } == ["apple", "banana", "cherry"])
        // Live: a new value is in the same results.
        try realm.write { bowl.byShelf["e"] = Fruit(value: ["name": "date", "weight": 5]) }
        #expect(heavy.count == 3)
    }

    @Test func keyPathAggregatesReadManagedAndUnmanagedMaps() throws {
        for managed in [false, true] {
            let bowl = try bowl(managed ? try realm() : nil)
            #expect(bowl.byShelf.min(of: \.weight) == 1)
            #expect(bowl.byShelf.max(of: \.weight) == 3)
            #expect(bowl.byShelf.sum(of: \.weight) == 6)
            #expect(bowl.byShelf.average(of: \.weight) == 2)
            #expect(bowl.byShelf.max(of: \.name) == "cherry")
        }
        #expect(FruitBowl().byShelf.min(of: \.weight) == nil)
        #expect(FruitBowl().byShelf.sum(of: \.weight) == 0)
    }

    @Test func aMapContainsItsOwnEntries() throws {
        let bowl = try bowl(try realm())
        #expect(bowl.byShelf.map(bowl.byShelf.contains).allSatisfy { $0 })
        #expect(!bowl.byShelf.contains((key: "a", value: nil)))
        #expect(!bowl.byShelf.contains((key: "z", value: nil)))
        #expect(!bowl.byShelf.contains((key: "d", value: nil)))   // assigning nil removed "d"
    }

    @Test func anUnmanagedMapCannotBeQueried() async {
        await #expect(processExitsWith: .failure) {
            _ = FruitBowl().byShelf.filter("weight > 1")
        }
    }

    @Test func observationByKeyPathReportsOnlyThoseProperties() async throws {
        let configuration: Realm.Configuration = {
            var configuration = tempConfig("fruit-watch")
            configuration.objectTypes = [Fruit.self, FruitBowl.self]
            return configuration
        }()
        let watcher = FruitWatcher()
        let token = try await Self.observeOnMainActor(configuration, watcher)
        let writer = try Realm(configuration: configuration)
        let bowl = try #require(writer.objects(FruitBowl.self).first)
        try writer.write { bowl.byShelf["a"]??.name = "sour cherry" }   // not watched
        try writer.write { bowl.byShelf["b"]??.weight = 4 }              // watched
        for _ in 0..<1_000 where await watcher.modifications.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await watcher.modifications == [["b"]])
        token.invalidate()
    }

    @MainActor
    private static func observeOnMainActor(_ configuration: Realm.Configuration, _ watcher: FruitWatcher) async throws -> NotificationToken {
        let realm = try await Realm.open(configuration: configuration)
        let bowl = FruitBowl()
        bowl.byShelf["a"] = Fruit(value: ["name": "cherry", "weight": 1])
        bowl.byShelf["b"] = Fruit(value: ["name": "apple", "weight": 3])
        try realm.write { realm.add(bowl) }
        return await bowl.byShelf.observe(keyPaths: [\.weight], on: watcher) { watcher, change in
            if case .update(_, _, _, let modifications) = change { watcher.record(modifications) }
        }
    }
}
