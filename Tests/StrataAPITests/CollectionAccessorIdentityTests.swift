// A managed object's List, MutableSet and Map property reads as one instance, as in RealmSwift,
// and `add` keeps the instances the unmanaged object had: before, each read made a new one.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class ShelfOfThings: Object {
    @Persisted var items: List<String>
    @Persisted var tags: MutableSet<String>
    @Persisted var counts: Map<String, Int>
    @Persisted var neighbours: List<ShelfOfThings>
}

@Suite("collection properties read as one instance")
struct CollectionAccessorIdentityTests {
    @Test func addKeepsTheInstancesAndReadsGiveThemBack() throws {
        let realm = try Realm(configuration: memoryConfig())
        let shelf = ShelfOfThings()
        let items = shelf.items, tags = shelf.tags, counts = shelf.counts, neighbours = shelf.neighbours
        #expect(items === shelf.items && tags === shelf.tags && counts === shelf.counts)
        try realm.write { realm.add(shelf) }
        #expect(items.realm != nil && tags.realm != nil && counts.realm != nil && neighbours.realm != nil)
        #expect(items === shelf.items)
        #expect(tags === shelf.tags)
        #expect(counts === shelf.counts)
        #expect(neighbours === shelf.neighbours)
    }

    @Test func aFetchedObjectReadsOneInstanceThatStaysLive() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write { realm.add(ShelfOfThings()) }
        let shelf = try #require(realm.objects(ShelfOfThings.self).first)
        let items = shelf.items
        #expect(items === shelf.items)
        try realm.write { shelf.items.append("lamp") }
        #expect(Array(items) == ["lamp"], "the kept instance reads the stored list")
        #expect(items === shelf.items)
    }

    @Test func otherInstancesOfTheObjectHaveTheirOwn() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write { realm.add(ShelfOfThings()) }
        let first = try #require(realm.objects(ShelfOfThings.self).first)
        let second = try #require(realm.objects(ShelfOfThings.self).first)
        #expect(first.items !== second.items)
        #expect(first.items == second.items, "the same stored list")
        let frozen = first.freeze()
        #expect(frozen.items.isFrozen && !first.items.isFrozen)
    }
}
