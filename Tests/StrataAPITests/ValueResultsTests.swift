// Results of values: `sorted(ascending:)` and `distinct()` on collections of values give live
// `Results` of values, as RealmSwift does; they follow their source, freeze, thaw and are observed.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class ScoreCard: Object {
    @Persisted var scores: List<Int>
    @Persisted var maybeScores: List<Double?>
    @Persisted var tags: MutableSet<String>
    @Persisted var ranks: List<Rank>
    @Persisted var byPlayer: Map<String, Int>
}

final class LedgerValues: Object {
    @Persisted var amounts: List<Decimal128>
    @Persisted var maybeAmounts: List<Decimal128?>
    @Persisted var ids: MutableSet<ObjectId>
}

// Generic code names the result type as RealmSwift does.
func ascendingValues<C: RealmCollection>(_ c: C) -> Results<C.Element> where C.Element.PersistedType: SortableType {
    c.sorted(ascending: true)
}

@Suite("Results of values")
struct ValueResultsTests {
    private func filled() -> ScoreCard {
        let card = ScoreCard()
        card.scores.append(objectsIn: [5, 1, 5, 3, 1])
        card.maybeScores.append(objectsIn: [2.5, nil, -1])
        card.tags.insert(objectsIn: ["b", "a", "c"])
        card.ranks.append(objectsIn: [.high, .low, .middle])
        card.byPlayer["x"] = 7
        card.byPlayer["y"] = 2
        card.byPlayer["z"] = 7
        return card
    }

    private func check(_ card: ScoreCard) {
        #expect(Array(card.scores.sorted(ascending: true)) == [1, 1, 3, 5, 5])
        #expect(Array(card.scores.sorted(ascending: false)) == [5, 5, 3, 1, 1])
        #expect(Array(card.scores.distinct()) == [5, 1, 3])
        #expect(Array(card.scores.distinct().sorted(ascending: true)) == [1, 3, 5])
        // nil first when ascending, last when descending
        #expect(Array(card.maybeScores.sorted()) == [nil, -1, 2.5])
        #expect(Array(card.maybeScores.sorted(ascending: false)) == [2.5, -1, nil])
        #expect(Array(card.tags.sorted()) == ["a", "b", "c"])
        // enums sort by their raw values
        #expect(Array(card.ranks.sorted()) == [.low, .middle, .high])
        #expect(Array(card.byPlayer.sorted(ascending: true)) == [2, 7, 7])
        #expect(Array(card.byPlayer.distinct()).sorted() == [2, 7])
        let results: Results<Int> = ascendingValues(card.scores)
        #expect(results.count == 5 && results[2] == 3 && results.first == 1 && results.last == 5)
        #expect(results.min() == 1 && results.max() == 5 && results.sum() == 15)
        #expect(results.average() as Double? == 3)
    }

    @Test func unmanagedCollectionsSortAndDistinct() {
        check(filled())
    }

    @Test func managedCollectionsSortAndDistinct() throws {
        let realm = try Realm(configuration: memoryConfig())
        let card = filled()
        try realm.write { realm.add(card) }
        check(card)
        let read = try #require(realm.objects(ScoreCard.self).first)
        check(read)
        #expect(read.scores.sorted().realm == realm && !read.scores.sorted().isFrozen)
    }

    @Test func resultsFollowTheirSource() throws {
        let realm = try Realm(configuration: memoryConfig())
        let card = filled()
        try realm.write { realm.add(card) }
        let sorted = card.scores.sorted()
        try realm.write { card.scores.append(0) }
        #expect(Array(sorted) == [0, 1, 1, 3, 5, 5])
        let unmanaged = ScoreCard()
        let distinct = unmanaged.scores.distinct()
        unmanaged.scores.append(objectsIn: [4, 4])
        #expect(Array(distinct) == [4])
    }

    @Test func frozenResultsKeepTheirValuesAndThaw() throws {
        let realm = try Realm(configuration: memoryConfig())
        let card = filled()
        try realm.write { realm.add(card) }
        let frozen = card.scores.sorted().freeze()
        try realm.write { card.scores.append(9) }
        #expect(frozen.isFrozen && Array(frozen) == [1, 1, 3, 5, 5])
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen && Array(thawed) == [1, 1, 3, 5, 5, 9])
        try realm.write { realm.delete(card) }
        #expect(thawed.isInvalidated)
    }

    @Test func observersGetTheChangesOfTheSortedValues() throws {
        let realm = try Realm(configuration: memoryConfig())
        let card = ScoreCard()
        card.scores.append(objectsIn: [3, 1])
        try realm.write { realm.add(card) }
        var deliveries: [[Int]] = []
        var changes: [([Int], [Int])] = []
        let token = card.scores.sorted().observe { change in
            switch change {
            case .initial(let r): deliveries.append(Array(r))
            case .update(let r, let deletions, let insertions, _):
                deliveries.append(Array(r))
                changes.append((deletions, insertions))
            case .error(let e): Issue.record(e)
            }
        }
        defer { token.invalidate() }
        try realm.write { card.scores.append(2) }
        try realm.write { card.scores.remove(at: 0) }
        #expect(deliveries == [[1, 3], [1, 2, 3], [1, 2]])
        #expect(changes.count == 2 && changes[0].0 == [] && changes[0].1 == [1])
        #expect(changes[1].0 == [2] && changes[1].1 == [])
    }

    // Decimal128 and ObjectId values sort and compare by value. Before, they compared as nulls:
    // sorted results kept the stored order and every `self > %@` query matched nothing.
    @Test func decimalsAndObjectIdsSortAndQueryByValue() throws {
        let realm = try Realm(configuration: memoryConfig())
        let ledger = LedgerValues()
        ledger.amounts.append(objectsIn: [Decimal128(1), Decimal128(3), Decimal128(2), Decimal128(4)])
        ledger.maybeAmounts.append(objectsIn: [Decimal128(2), nil, Decimal128(1)])
        let ids = (0..<3).map { _ in ObjectId.generate() }
        ledger.ids.insert(objectsIn: [ids[2], ids[0], ids[1]])
        try realm.write { realm.add(ledger) }
        #expect(Array(ledger.amounts.sorted(ascending: true)) == [1, 2, 3, 4].map { Decimal128($0) })
        #expect(Array(ledger.amounts.sorted(ascending: false)) == [4, 3, 2, 1].map { Decimal128($0) })
        #expect(Array(ledger.maybeAmounts.sorted(ascending: true)) == [nil, Decimal128(1), Decimal128(2)])
        #expect(Array(ledger.amounts.filter("self > %@", Decimal128(2))) == [Decimal128(3), Decimal128(4)])
        #expect(Array(ledger.ids.filter("self == %@", ids[1])) == [ids[1]])
    }

    @Test func valuesAreQueriedAsSelf() throws {
        let realm = try Realm(configuration: memoryConfig())
        let card = filled()
        try realm.write { realm.add(card) }
        for c in [card, ScoreCard(value: card)] {
            #expect(Array(c.scores.filter("self > %@", 2)) == [5, 5, 3])
            #expect(Array(c.scores.where { $0 >= 3 && $0 < 5 }) == [3])
            #expect(c.scores.index(matching: "self == 3") == 3)
            #expect(c.scores.index(matching: { $0 == 9 }) == nil)
            #expect(Array(c.tags.filter("self BEGINSWITH 'b' OR self == 'c'").sorted()) == ["b", "c"])
            #expect(Array(c.maybeScores.filter("self == nil")) == [nil])
            // enums are compared by their raw values
            #expect(Array(c.ranks.filter("self > 1")) == [.high, .middle])
            #expect(Array(c.scores.filter("self > 1").sorted(ascending: false).distinct()) == [5, 3])
        }
        let live = card.scores.filter("self < 2")
        try realm.write { card.scores.append(-4) }
        #expect(Array(live) == [1, 1, -4])
    }

    @Test func aQueryOnAnythingButSelfStops() async {
        await #expect(processExitsWith: .failure) {
            let card = ScoreCard()
            card.scores.append(1)
            _ = card.scores.filter("value > 0").count
        }
        await #expect(processExitsWith: .failure) {
            _ = ScoreCard().scores.filter("self >").count
        }
    }

    @Test func anIndexOutsideTheValuesStops() async {
        await #expect(processExitsWith: .failure) {
            _ = ScoreCard().scores.sorted()[0]
        }
    }
}

@Suite("Map key-value coding and updateValue")
struct MapKeyValueCodingTests {
    @Test func valueForKeyReadsTheEntry() throws {
        let card = ScoreCard()
        card.byPlayer.updateValue(3, forKey: "a")
        #expect(card.byPlayer["a"] == 3)
        #expect(card.byPlayer.value(forKey: "a") as? Int == 3)
        #expect(card.byPlayer.value(forKey: "missing") == nil)
        #expect(card.byPlayer.object(forKey: "a" as AnyObject) as? Int == 3)
        card.byPlayer.setValue(8, forKey: "b")
        #expect(card.byPlayer["b"] == 8)
        card.byPlayer.setValue(nil, forKey: "a")
        #expect(card.byPlayer["a"] == nil && card.byPlayer.count == 1)
    }

    @Test func aTypedNilStoresANilValueWhereALiteralNilRemovesTheKey() {
        // Generic code passes the map's own optional value type, boxed in `Any`: as on Apple
        // platforms (where it bridges to NSNull), that stores a nil value and keeps the key.
        func set<V>(_ map: Map<String, V?>, _ value: V?, _ key: String) { map.setValue(value as Any, forKey: key) }
        let map = Map<String, Int?>()
        set(map, nil, "kept")
        #expect(map.count == 1 && map.value(forKey: "kept") is NSNull)
        map.setValue(nil, forKey: "kept")
        #expect(map.isEmpty)
    }

    @Test func aValueOfTheWrongTypeFailsTheWrite() throws {
        let realm = try Realm(configuration: memoryConfig())
        let card = ScoreCard()
        card.byPlayer["a"] = 1
        try realm.write { realm.add(card) }
        #expect(throws: Realm.Error.self) {
            try realm.write {
                card.byPlayer["a"] = 2
                card.byPlayer.setValue("not a number", forKey: "b")
            }
        }
        #expect(card.byPlayer["a"] == 1 && card.byPlayer["b"] == nil)
    }

    @Test func aFrozenMapThaws() throws {
        let realm = try Realm(configuration: memoryConfig())
        let card = ScoreCard()
        try realm.write { realm.add(card) }
        let frozen = card.byPlayer.freeze()
        try realm.write { card.byPlayer["k"] = 4 }
        #expect(frozen.count == 0 && frozen.thaw()?["k"] == 4)
    }

    @Test func listsAndSetsGiveValuesAsObjects() {
        let card = ScoreCard()
        card.scores.append(objectsIn: [1, 2])
        let boxed: [AnyObject] = card.scores.value(forKey: "self")
        #expect(boxed.map { dynamicBridgeCast(fromObjectiveC: $0) as Int } == [1, 2])
        card.maybeScores.append(nil)
        #expect(card.maybeScores.value(forKey: "self").first is NSNull)
        #expect((dynamicBridgeCast(fromObjectiveC: NSNull()) as Double?) == nil)
        #expect(Int._rlmType == .int && !Int._rlmOptional && Double?._rlmOptional && Dog._rlmType == .object)
    }
}

@Suite("Smaller RealmSwift forms")
struct SmallerRealmFormsTests {
    @Test func iteratingAListVisitsWhatItHeldWhenTheLoopStarted() throws {
        let realm = try Realm(configuration: memoryConfig())
        let card = ScoreCard()
        card.scores.append(objectsIn: [1, 2])
        var seen: [Int] = []
        for s in card.scores {
            seen.append(s)
            card.scores.append(s * 10)
        }
        #expect(seen == [1, 2] && Array(card.scores) == [1, 2, 10, 20])
        try realm.write { realm.add(card) }
        seen = []
        try realm.write {
            for s in card.scores {
                seen.append(s)
                card.scores.append(0)
            }
        }
        #expect(seen == [1, 2, 10, 20] && card.scores.count == 8)
    }

    @Test func mapsAnswerContainsWhereWithKeyAndValue() {
        let card = ScoreCard()
        card.byPlayer["a"] = 1
        #expect(card.byPlayer.contains { key, value in key == "a" && value == 1 })
        #expect(!card.byPlayer.contains { _, value in value > 1 })
        let same = Map<String, Int>()
        same["a"] = 1
        #expect(card.byPlayer.isEqual(same) && !card.byPlayer.isEqual(Map<String, Int>()) && !card.byPlayer.isEqual(3))
    }

    @Test func aClassGivesItsDeclaredSchema() {
        let schema = ScoreCard.sharedSchema()
        #expect(schema?.className == "ScoreCard" && schema?.properties.map(\.name) == ["scores", "maybeScores", "tags", "ranks", "byPlayer"])
        #expect(PropertyType.UUID == .uuid)
    }
}

@Suite("Key-value coding on collections of values")
struct ValueKeyValueCodingTests {
    @Test func aKeyOtherThanSelfOnValuesStops() async {
        await #expect(processExitsWith: .failure) {
            let card = ScoreCard()
            card.scores.append(1)
            _ = card.scores.value(forKey: "notSelf")
        }
        await #expect(processExitsWith: .failure) {
            let card = ScoreCard()
            card.tags.insert("a")
            _ = card.tags.value(forKeyPath: "count")
        }
        await #expect(processExitsWith: .failure) {
            let card = ScoreCard()
            card.scores.append(1)
            _ = AnyRealmCollection(card.scores).value(forKey: "notSelf")
        }
        let card = ScoreCard()
        card.scores.append(2)
        #expect(card.scores.value(forKey: "self").count == 1)
    }
}
