// The typed query builder in the shapes RealmSwift's generic code uses: operators reached from
// generic helpers constrained on `_Persistable`, `RealmCollection`, `RealmKeyedCollection` and
// `PersistedType: _QueryNumeric`; ranges; a condition's `.count` as a SUBQUERY; column string
// operators; enums by raw value and values by stored form; the nested collections a mixed value
// holds. Each query is checked against the same query in text and against the objects expected.
import Foundation
import Testing
import Strata
import StrataTestSupport

enum ShapeMood: Int, PersistableEnum {
    case calm = 1, busy = 2, wild = 3
}

final class ShapeItem: Object {
    @Persisted var label = ""
    @Persisted var size = 0
    @Persisted var weight: Double?
    @Persisted var note: String?
    @Persisted var mood = ShapeMood.calm
    @Persisted var moods: List<ShapeMood>
    @Persisted var sizes: List<Int>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var parts: List<ShapeItem>
    @Persisted var byName: Map<String, ShapeItem?>
    @Persisted var mixed: AnyRealmValue
}

// Generic helpers shaped like RealmSwift's own test helpers: they compile only if the operators
// are reachable from these constraints.
private func equalTo<Root: Object, T: _Persistable>(_ value: T, _ path: @escaping (Query<Root>) -> Query<T>) -> (Query<Root>) -> Query<Bool> {
    { path($0) == value }
}

private func greaterThan<Root: Object, T: _Persistable>(_ value: T, _ path: @escaping (Query<Root>) -> Query<T>) -> (Query<Root>) -> Query<Bool>
where T.PersistedType: _QueryNumeric {
    { path($0) > value }
}

private func sumAtLeast<Root: Object, C: RealmCollection>(_ value: C.Element, _ path: @escaping (Query<Root>) -> Query<C>) -> (Query<Root>) -> Query<Bool>
where C.Element.PersistedType: _QueryNumeric {
    { path($0).sum >= value }
}

private func anyValue<Root: Object, M: RealmKeyedCollection>(_ value: M.Value, _ path: @escaping (Query<Root>) -> Query<M>) -> (Query<Root>) -> Query<Bool> {
    { path($0).contains(value) }
}

private func prefixed<Root: Object, T: _Persistable>(_ value: T, _ path: @escaping (Query<Root>) -> Query<T>) -> (Query<Root>) -> Query<Bool>
where T.PersistedType: _QueryString {
    { path($0).starts(with: value) && !path($0).like(value, caseInsensitive: true) }
}

@Suite struct TypedQueryShapesTests {
    private func populated() throws -> Realm {
        var configuration = tempConfig("typed-shapes")
        configuration.objectTypes = [ShapeItem.self]
        let realm = try Realm(configuration: configuration)
        try realm.write {
            let a = ShapeItem(value: ["label": "alpha", "size": 1, "weight": 1.5, "note": "al",
                                      "mood": ShapeMood.calm, "sizes": [1, 2, 3], "tags": ["red"],
                                      "scores": ["x": 10, "y": 20]])
            let b = ShapeItem(value: ["label": "beta", "size": 5, "note": "alphabet", "mood": ShapeMood.busy,
                                      "moods": [ShapeMood.wild], "sizes": [10, 20], "tags": ["red", "blue"],
                                      "scores": ["x": 1]])
            let c = ShapeItem(value: ["label": "gamma", "size": 9, "weight": 9.0, "mood": ShapeMood.wild,
                                      "sizes": [], "scores": [:]])
            b.parts.append(a)
            c.parts.append(objectsIn: [a, b])
            a.mixed = .fromArray([.int(1), .fromArray([.string("deep"), .int(7)])])
            b.mixed = .fromDictionary(["k": .int(7), "l": .string("deep")])
            c.mixed = .int(7)
            realm.add([a, b, c])
        }
        return realm
    }

    private func labels(_ realm: Realm, _ query: (Query<ShapeItem>) -> Query<Bool>) -> [String] {
        realm.objects(ShapeItem.self).where(query).map(\.label).sorted()
    }

    private func labels(_ realm: Realm, _ text: String, _ args: Any...) throws -> [String] {
        try realm.objects(ShapeItem.self).filtering(text, args).map(\.label).sorted()
    }

    @Test func genericHelpersReachTheOperators() throws {
        let realm = try populated()
        #expect(labels(realm, equalTo(5) { $0.size }) == ["beta"])
        #expect(labels(realm, equalTo(ShapeMood.wild) { $0.mood }) == ["gamma"])
        #expect(labels(realm, greaterThan(2.0) { $0.weight }) == ["gamma"])
        #expect(labels(realm, greaterThan(1) { $0.size }) == ["beta", "gamma"])
        #expect(labels(realm, sumAtLeast(6) { $0.sizes }) == ["alpha", "beta"])
        #expect(labels(realm, anyValue(20) { $0.scores }) == ["alpha"])
        #expect(labels(realm, prefixed("al") { $0.note }) == ["beta"])
    }

    @Test func rangesAndCollectionComparisons() throws {
        let realm = try populated()
        #expect(labels(realm) { $0.size.contains(1..<5) } == ["alpha"])
        #expect(labels(realm) { $0.size.contains(1...5) } == ["alpha", "beta"])
        #expect(labels(realm) { $0.weight.contains(1.0..<2.0) } == ["alpha"])
        // A collection is within a range when every element is (an empty one has no @min).
        #expect(labels(realm) { $0.sizes.contains(1...3) } == ["alpha"])
        #expect(labels(realm) { $0.sizes.contains(1..<100) } == ["alpha", "beta"])
        #expect(try labels(realm, "sizes.@min >= 1 AND sizes.@max <= 3") == ["alpha"])
        // Comparing a collection with one value means ANY element.
        #expect(labels(realm) { $0.sizes == 20 } == ["beta"])
        #expect(labels(realm) { $0.sizes > 5 } == ["beta"])
        #expect(labels(realm) { $0.sizes.avg == 15 } == ["beta"])
        #expect(labels(realm) { $0.scores.max >= 20 } == ["alpha"])
        #expect(labels(realm) { $0.scores.contains(1...10) } == ["beta"])
        #expect(labels(realm) { $0.tags.containsAny(in: ["blue", "green"]) } == ["beta"])
        #expect(labels(realm) { $0.parts.size.max > 4 } == ["gamma"])
    }

    @Test func aConditionsCountIsASubquery() throws {
        let realm = try populated()
        #expect(labels(realm) { ($0.parts.size >= 1 && $0.parts.label != "beta").count == 1 } == ["beta", "gamma"])
        #expect(try labels(realm, "SUBQUERY(parts, $p, $p.size >= 1 AND $p.label != 'beta').@count == 1") == ["beta", "gamma"])
        #expect(labels(realm) { ($0.parts.size > 0).count == 2 } == ["gamma"])
        let root = Query<ShapeItem>._constructForTesting()
        let (text, arguments) = ((root.parts.size > 0).count == 2)._constructPredicate()
        #expect(text == "(SUBQUERY(parts, $col1, ($col1.size > %@)).@count == %@)", "\(text)")
        #expect(arguments.count == 2)
        // Inside the count a property read without the collection is the element's, as in
        // RealmSwift: each part's label equals itself, so the count is the number of parts.
        let partless = labels(realm) { $0.parts.count == 0 }
        #expect(!partless.isEmpty && partless.count < 3)
        #expect(labels(realm) { ($0.parts.label == $0.label).count == 0 } == partless)
        #expect(try labels(realm, "SUBQUERY(parts, $p, $p.label == label).@count == 0") == partless)
        // Nested: the inner subquery's variable is not reused by the outer one.
        #expect(labels(realm) { ($0.parts.size > 0 && ($0.parts.parts.size > 0).count == 0).count == 1 } == ["beta"])
    }

    // Typed queries RealmSwift refuses: each stops when run.
    @Test func anAggregateOfASingleValueStops() async {
        await #expect(processExitsWith: .failure) {
            var configuration = Realm.Configuration(inMemoryIdentifier: "typed-shapes-refused-aggregate")
            configuration.objectTypes = [ShapeItem.self]
            _ = try Realm(configuration: configuration).objects(ShapeItem.self).where { $0.size.avg == 1 }
        }
    }

    @Test func comparingTwoCollectionsStops() async {
        await #expect(processExitsWith: .failure) {
            var configuration = Realm.Configuration(inMemoryIdentifier: "typed-shapes-refused-collections")
            configuration.objectTypes = [ShapeItem.self]
            _ = try Realm(configuration: configuration).objects(ShapeItem.self).where { $0.sizes == $0.sizes }
        }
    }

    @Test func aPropertyOfAMapEntryStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var configuration = Realm.Configuration(inMemoryIdentifier: "typed-shapes-refused-map-entry")
            configuration.objectTypes = [ShapeItem.self]
            _ = try Realm(configuration: configuration).objects(ShapeItem.self).where { $0.byName["first"].size == 1 }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("the property 'size' of the map entry 'byName[\"first\"]' cannot be queried"), "\(message)")
    }

    @Test func aCountOfAConditionThroughNoCollectionStops() async {
        // RealmSwift raises for such a subquery; building records the error, running it stops.
        await #expect(processExitsWith: .failure) {
            var configuration = Realm.Configuration(inMemoryIdentifier: "typed-shapes-plain-subquery")
            configuration.objectTypes = [ShapeItem.self]
            let realm = try Realm(configuration: configuration)
            _ = realm.objects(ShapeItem.self).where { ($0.size > 0).count == 1 }
        }
    }

    @Test func stringColumnsEnumsAndStoredForms() throws {
        let realm = try populated()
        #expect(labels(realm) { $0.label.contains($0.note) } == (try labels(realm, "label CONTAINS note")))
        #expect(labels(realm) { $0.label.contains($0.note) }.contains("alpha"))
        #expect(labels(realm) { $0.label.starts(with: $0.note) } == (try labels(realm, "label BEGINSWITH note")))
        #expect(labels(realm) { $0.label.starts(with: $0.note) }.contains("alpha"))
        #expect(labels(realm) { $0.note.notEquals("AL", options: .caseInsensitive) } == (try labels(realm, "note !=[c] 'AL'")))
        #expect(labels(realm) { $0.note.notEquals("AL", options: .caseInsensitive) }.contains("beta"))
        #expect(labels(realm) { $0.note.equals("AL", options: .caseInsensitive) } == ["alpha"])
        #expect(labels(realm) { $0.mood.rawValue > 1 } == ["beta", "gamma"])
        #expect(labels(realm) { $0.mood.persistableValue == 2 } == ["beta"])
        #expect(labels(realm) { $0.moods.rawValue == 3 } == ["beta"])
        #expect(labels(realm) { $0.mood.in([.calm, .wild]) } == ["alpha", "gamma"])
    }

    @Test func nestedCollectionsInAMixedValue() throws {
        let realm = try populated()
        #expect(labels(realm) { $0.mixed[0] == .int(1) } == ["alpha"])
        #expect(labels(realm) { $0.mixed[1][0] == .string("deep") } == ["alpha"])
        #expect(labels(realm) { $0.mixed[1][5] == .int(7) } == [])
        #expect(labels(realm) { $0.mixed["k"] == .int(7) } == ["beta"])
        #expect(labels(realm) { $0.mixed.any == .string("deep") } == ["beta"])
        #expect(labels(realm) { $0.mixed[1].any == .int(7) } == ["alpha"])
        #expect(labels(realm) { $0.mixed["k"] == .int(7) || $0.mixed[0] == .int(1) } == ["alpha", "beta"])
    }
}
