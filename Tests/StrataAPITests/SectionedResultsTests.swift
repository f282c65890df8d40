// Sectioned results: sections follow the sort and the key, stay live, freeze and thaw, and their
// observers get the changes of sections as RealmSwift reports them.
import Foundation
import Synchronization
import Testing
import Strata
import StrataTestSupport

final class ShelfFruit: Object {
    @Persisted var name = ""
    @Persisted var ripe = false
    @Persisted var weight = 0
    @Persisted var labels: List<String>
    @Persisted var codes: MutableSet<Int?>

    /// A computed key: sectioning by it sorts by `name`, which it reads.
    var initial: String? { name.first.map { String($0) } }
}

@Suite struct SectionedResultsTests {
    private func stocked() throws -> Realm {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            for name in ["banana", "box", "apple", "chalk"] {
                realm.add(ShelfFruit(value: ["name": name]))
            }
        }
        return realm
    }

    private func layout<K, E>(_ sections: SectionedResults<K, E>, _ name: (E) -> String) -> [String] {
        sections.map { section in "\(section.key):" + section.map(name).joined(separator: ",") }
    }

    @Test func sectionsFollowTheSortAndTheKey() throws {
        let realm = try stocked()
        let fruit = realm.objects(ShelfFruit.self)
        let up = fruit.sectioned(by: \.initial, ascending: true)
        #expect(layout(up, \.name) == ["Optional(\"a\"):apple", "Optional(\"b\"):banana,box", "Optional(\"c\"):chalk"])
        #expect(up.allKeys == ["a", "b", "c"])
        #expect(up.count == 3 && up[1].count == 2)
        #expect(up[IndexPath(item: 1, section: 1)].name == "box")
        let down = fruit.sectioned(by: \.initial, ascending: false)
        #expect(down.allKeys == ["c", "b", "a"])
        #expect(down[1].map(\.name) == ["box", "banana"])
        let byBlock = fruit.sectioned(by: { String($0.name.prefix(1)) },
                                      sortDescriptors: [SortDescriptor(keyPath: "name", ascending: false)])
        #expect(byBlock.allKeys == ["c", "b", "a"])
        let byWeight = fruit.sectioned(by: \.weight, sortDescriptors: [SortDescriptor(keyPath: "weight"),
                                                                       SortDescriptor(keyPath: "name")])
        #expect(layout(byWeight, \.name) == ["0:apple,banana,box,chalk"])
    }

    @Test func valuesAreSortedByThemselves() throws {
        let realm = try Realm(configuration: memoryConfig())
        let fruit = ShelfFruit()
        fruit.labels.append(objectsIn: ["banana", "box", "apple", "chalk"])
        fruit.codes.insert(objectsIn: [12, nil, 3, 31])
        try realm.write { realm.add(fruit) }
        let labels = fruit.labels.sectioned(by: { String($0.prefix(1)) })
        #expect(layout(labels, { $0 }) == ["a:apple", "b:banana,box", "c:chalk"])
        let descending = AnyRealmCollection(fruit.labels).sectioned(by: { String($0.prefix(1)) }, ascending: false)
        #expect(layout(descending, { $0 }) == ["c:chalk", "b:box,banana", "a:apple"])
        // nil sorts first; a nil key is a section like any other
        let codes = fruit.codes.sectioned(by: { $0.map { $0 / 10 } })
        #expect(codes.allKeys == [nil, 0, 1, 3])
        #expect(codes[2].map { $0 } == [12])
        // a key the sort does not decide still gathers its elements in one section
        let byLength = fruit.labels.sectioned(by: { $0.count })
        #expect(layout(byLength, { $0 }) == ["5:apple,chalk", "6:banana", "3:box"])
    }

    @Test func sectionsAreLiveAndFreeze() throws {
        let realm = try stocked()
        let fruit = realm.objects(ShelfFruit.self)
        let sections = fruit.sectioned(by: \.initial)
        let b = sections[1]
        let frozen = sections.freeze()
        let frozenB = b.freeze()
        try realm.write {
            realm.add(ShelfFruit(value: ["name": "avocado"]))
            realm.add(ShelfFruit(value: ["name": "bean"]))
            realm.add(ShelfFruit(value: ["name": "date"]))
        }
        #expect(sections.allKeys == ["a", "b", "c", "d"])
        #expect(b.map(\.name) == ["banana", "bean", "box"])
        #expect(frozen.isFrozen && !sections.isFrozen)
        #expect(frozen.allKeys == ["a", "b", "c"])
        #expect(frozenB.map(\.name) == ["banana", "box"] && frozenB.key == "b")
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen && thawed.allKeys == ["a", "b", "c", "d"])
        #expect(try #require(frozenB.thaw()).count == 3)
        // a section whose key no longer occurs is empty, and fills again when the key returns
        try realm.write { realm.delete(fruit.filter("name BEGINSWITH 'b'")) }
        #expect(b.isEmpty && sections.allKeys == ["a", "c", "d"])
        try realm.write { realm.add(ShelfFruit(value: ["name": "berry"])) }
        #expect(b.map(\.name) == ["berry"])
        // equal only to itself and its copies, as in Realm
        #expect(sections == sections && sections != fruit.sectioned(by: \.initial))
        #expect(sections[0] == sections[0] && sections[0] != sections[1])
    }

    @Test func observersGetSectionChanges() throws {
        let realm = try stocked()
        let fruit = realm.objects(ShelfFruit.self)
        let sections = fruit.sectioned(by: \.initial)
        var updates: [(deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
                       inserted: IndexSet, deleted: IndexSet, keys: [String?])] = []
        var initial: [String?] = []
        let token = sections.observe(keyPaths: [\.name]) { change in
            switch change {
            case .initial(let s): initial = s.allKeys
            case let .update(s, deletions, insertions, modifications, inserted, deleted):
                updates.append((deletions, insertions, modifications, inserted, deleted, s.allKeys))
            }
        }
        defer { token.invalidate() }
        #expect(initial == ["a", "b", "c"])
        try realm.write {
            realm.delete(fruit.filter("name IN {'apple', 'banana'}"))
            fruit.filter("name == 'box'").first!.name = "bog"
            realm.add(ShelfFruit(value: ["name": "zebra"]))
        }
        try realm.write { fruit.filter("name == 'bog'").first!.name = "bogg" }
        try realm.write { fruit.filter("name == 'chalk'").first!.weight = 3 }  // not watched
        try #require(updates.count == 2)
        // banana and the renamed box leave section b (the deleted section a lists nothing);
        // bog comes back at b's first place, zebra in the new section z
        #expect(updates[0].deletions == [IndexPath(item: 0, section: 1), IndexPath(item: 1, section: 1)])
        #expect(updates[0].insertions == [IndexPath(item: 0, section: 0), IndexPath(item: 0, section: 2)])
        #expect(updates[0].modifications.isEmpty)
        #expect(updates[0].deleted == [0] && updates[0].inserted == [2])
        #expect(updates[0].keys == ["b", "c", "z"])
        #expect(updates[1].modifications == [IndexPath(item: 0, section: 0)])
        #expect(updates[1].deletions.isEmpty && updates[1].insertions.isEmpty)
    }

    @Test func aSectionObserverGetsOnlyItsSection() throws {
        let realm = try stocked()
        let fruit = realm.objects(ShelfFruit.self)
        let sections = fruit.sectioned(by: \.initial)
        var aChanges: [(IndexSet, IndexSet, [IndexPath])] = []
        var bChanges: [([IndexPath], [IndexPath])] = []
        let a = sections[0].observe(keyPaths: [\.name]) { change in
            if case let .update(_, _, insertions, _, inserted, deleted) = change { aChanges.append((inserted, deleted, insertions)) }
        }
        let b = sections[1].observe(keyPaths: [\.name]) { change in
            if case let .update(_, deletions, insertions, _, _, _) = change { bChanges.append((deletions, insertions)) }
        }
        defer { a.invalidate(); b.invalidate() }
        try realm.write { realm.delete(fruit.filter("name IN {'apple', 'banana'}")) }
        try realm.write {}
        try realm.write {
            fruit.filter("name == 'box'").first!.name = "bog"
            realm.add(ShelfFruit(value: ["name": "bag"]))
        }
        try realm.write { realm.add(ShelfFruit(value: ["name": "app"])) }
        try #require(aChanges.count == 2)
        #expect(aChanges[0].1 == [0] && aChanges[0].0.isEmpty && aChanges[0].2.isEmpty)
        #expect(aChanges[1].0 == [0] && aChanges[1].2 == [IndexPath(item: 0, section: 0)])
        try #require(bChanges.count == 2)
        #expect(bChanges[0].0 == [IndexPath(item: 0, section: 1)] && bChanges[0].1.isEmpty)
        #expect(bChanges[1].0 == [IndexPath(item: 0, section: 0)])
        #expect(bChanges[1].1 == [IndexPath(item: 0, section: 0), IndexPath(item: 1, section: 0)])
    }

    @Test func observersOnAQueueGetSectionsOfTheirQueue() throws {
        let realm = try stocked()
        let sections = realm.objects(ShelfFruit.self).sectioned(by: \.initial)
        let delivered = DispatchSemaphore(value: 0)
        let counts = Mutex<[Int]>([])
        let token = sections.observe(on: DispatchQueue(label: "sections")) { change in
            switch change {
            case .initial(let s), .update(let s, _, _, _, _, _): counts.withLock { $0.append(s.count) }
            }
            delivered.signal()
        }
        defer { token.invalidate() }
        #expect(delivered.wait(timeout: .now() + 10) == .success)
        try realm.write { realm.add(ShelfFruit(value: ["name": "date"])) }
        #expect(delivered.wait(timeout: .now() + 10) == .success)
        #expect(counts.withLock { $0 } == [3, 4])
    }

    @Test func aThreadSafeReferenceResolvesTheSections() throws {
        let realm = try stocked()
        let reference = ThreadSafeReference(to: realm.objects(ShelfFruit.self).sectioned(by: \.initial)[1])
        let configuration = realm.configuration
        let names = try onAnotherThread {
            let other = try Realm(configuration: configuration)
            return other.resolve(reference).map { $0.map(\.name) }
        }
        #expect(names == ["banana", "box"])
    }

    @Test func aSectionKeyThatIsNotThePrimarySortStops() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: memoryConfig())
            _ = realm.objects(ShelfFruit.self).sectioned(by: \.weight, sortDescriptors: [SortDescriptor(keyPath: "name")])
        }
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: memoryConfig())
            _ = realm.objects(ShelfFruit.self).sectioned(by: \.weight, sortDescriptors: [])
        }
        await #expect(processExitsWith: .failure) {
            _ = ShelfFruit().labels.sectioned(sortDescriptors: [SortDescriptor(keyPath: "name")]) { $0 }
        }
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: memoryConfig())
            _ = realm.objects(ShelfFruit.self).sectioned(by: \.initial)[0]
        }
    }
}
