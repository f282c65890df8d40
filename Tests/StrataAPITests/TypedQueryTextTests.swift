// A typed query written out (`_constructPredicate()`) as RealmSwift writes it, for each shape of
// condition: the text RealmSwift gives, the arguments in the order the text reads them, and the
// text read back by `filter` selecting what `where` selects.
import Foundation
import Testing
import Strata
import StrataTestSupport

enum WrittenQueryKind: String, PersistableEnum {
    case plain, fancy
}

final class WrittenQueryRow: Object {
    @Persisted var name = ""
    @Persisted var rank = 0
    @Persisted var flag = false
    @Persisted var kind = WrittenQueryKind.plain
    @Persisted var ranks: List<Int>
    @Persisted var points: Map<String, Int>
    @Persisted var children: List<WrittenQueryRow>
    @Persisted var parent: WrittenQueryRow?
    @Persisted var mixed: AnyRealmValue
}

@Suite struct TypedQueryTextTests {
    private func populated() throws -> Realm {
        var configuration = tempConfig("written-queries")
        configuration.objectTypes = [WrittenQueryRow.self]
        let realm = try Realm(configuration: configuration)
        try realm.write {
            let a = WrittenQueryRow(value: ["name": "Ada", "rank": 1, "flag": true, "ranks": [1, 2],
                                            "points": ["math": 3, "art": 1]])
            let b = WrittenQueryRow(value: ["name": "bob", "rank": 4, "kind": WrittenQueryKind.fancy,
                                            "ranks": [7], "points": ["math": 9]])
            let c = WrittenQueryRow(value: ["name": "Cy", "rank": 9, "flag": true])
            b.children.append(a)
            c.children.append(objectsIn: [a, b])
            b.parent = c
            a.mixed = .fromArray([.fromDictionary(["k": .int(5)]), .int(2)])
            b.mixed = .fromArray([.int(5)])
            c.mixed = .string("x")
            realm.add([a, b, c])
        }
        return realm
    }

    /// The query's text and argument count, and what its text selects against what it selects.
    private func check(_ realm: Realm, _ expected: String, arguments count: Int,
                       sourceLocation: SourceLocation = #_sourceLocation,
                       _ query: @escaping (Query<WrittenQueryRow>) -> Query<Bool>) throws {
        let (text, arguments) = query(Query<WrittenQueryRow>._constructForTesting())._constructPredicate()
        #expect(text == expected, sourceLocation: sourceLocation)
        #expect(arguments.count == count, "\(arguments)", sourceLocation: sourceLocation)
        let rows = realm.objects(WrittenQueryRow.self)
        let byText = try rows.filtering(text, arguments).map(\.name).sorted()
        #expect(byText == rows.where(query).map(\.name).sorted(), "\(text)", sourceLocation: sourceLocation)
    }

    @Test func comparisonsAreBracketedAndBoolPropertiesWrittenOut() throws {
        let realm = try populated()
        try check(realm, "(rank == %@)", arguments: 1) { $0.rank == 4 }
        try check(realm, "(rank >= %@)", arguments: 1) { $0.rank >= 4 }
        try check(realm, "(rank == rank)", arguments: 0) { $0.rank == $0.rank }
        try check(realm, "flag == true", arguments: 0) { $0.flag }
        try check(realm, "flag == false", arguments: 0) { !$0.flag }
        try check(realm, "(flag == %@)", arguments: 1) { $0.flag == true }
        try check(realm, "(name CONTAINS[cd] %@)", arguments: 1) { $0.name.contains("A", options: [.caseInsensitive, .diacriticInsensitive]) }
        try check(realm, "(name BEGINSWITH[c] %@)", arguments: 1) { $0.name.starts(with: "b", options: .caseInsensitive) }
        try check(realm, "(name LIKE %@)", arguments: 1) { $0.name.like("?y") }
        try check(realm, "(kind == %@)", arguments: 1) { $0.kind == .fancy }
    }

    @Test func compoundsNegationsAndRanges() throws {
        let realm = try populated()
        try check(realm, "((rank == %@) && flag == true)", arguments: 1) { $0.rank == 1 && $0.flag }
        try check(realm, "(flag == false || (rank == %@))", arguments: 1) { !$0.flag || $0.rank == 9 }
        try check(realm, "(((rank > %@) && flag == true) || (name == %@))", arguments: 2) {
            ($0.rank > 1 && $0.flag) || $0.name == "Ada"
        }
        try check(realm, "(NOT rank == %@)", arguments: 1) { !($0.rank == 4) }
        try check(realm, "NOT ((rank == %@) || flag == true)", arguments: 1) { !($0.rank == 4 || $0.flag) }
        try check(realm, "(rank BETWEEN {%@, %@})", arguments: 2) { $0.rank.contains(1...4) }
        try check(realm, "((rank >= %@) && (rank < %@))", arguments: 2) { $0.rank.contains(1..<4) }
        try check(realm, "(rank IN %@)", arguments: 1) { $0.rank.in([1, 9]) }
    }

    @Test func collectionsReadThroughAnyOrAsAWhole() throws {
        let realm = try populated()
        try check(realm, "(ANY ranks == %@)", arguments: 1) { $0.ranks == 7 }
        try check(realm, "(%@ IN ranks)", arguments: 1) { $0.ranks.contains(2) }
        try check(realm, "(ANY ranks IN %@)", arguments: 1) { $0.ranks.containsAny(in: [2, 7]) }
        try check(realm, "(ranks.@count == %@)", arguments: 1) { $0.ranks.count == 0 }
        try check(realm, "(ranks.@max > %@)", arguments: 1) { $0.ranks.max > 1 }
        try check(realm, "((ranks.@min >= %@) && (ranks.@max < %@))", arguments: 2) { $0.ranks.contains(1..<3) }
        try check(realm, "(ANY children.rank > %@)", arguments: 1) { $0.children.rank > 3 }
        try check(realm, "(children.@avg.rank > %@)", arguments: 1) { $0.children.rank.avg > 2 }
        try check(realm, "(children.@count == %@)", arguments: 1) { $0.children.count == 2 }
    }

    @Test func mapKeysAndMixedSubscriptsAreArguments() throws {
        let realm = try populated()
        try check(realm, "(points[%@] == %@)", arguments: 2) { $0.points["math"] == 9 }
        try check(realm, "(ANY points.@allKeys == %@)", arguments: 1) { $0.points.keys == "art" }
        try check(realm, "(ANY points.@allValues > %@)", arguments: 1) { $0.points.values > 2 }
        try check(realm, "(%@ IN points)", arguments: 1) { $0.points.contains(3) }
        try check(realm, "(mixed[%@][%@] == %@)", arguments: 3) { $0.mixed[0]["k"] == .int(5) }
        try check(realm, "(mixed[%K] == %@)", arguments: 2) { $0.mixed.any == .int(5) }
        let (_, arguments) = (built { $0.mixed[1] == .int(2) })._constructPredicate()
        #expect(arguments.first as? Int == 1)
        let (_, keys) = (Query<WrittenQueryRow>._constructForTesting().points["math"] == 9)._constructPredicate()
        #expect(keys.first as? String == "math" && keys.last as? Int == 9)
    }

    @Test func aConditionsCountIsASubqueryOverItsCollection() throws {
        let realm = try populated()
        try check(realm, "(SUBQUERY(children, $col1, ($col1.rank > %@)).@count == %@)", arguments: 2) {
            ($0.children.rank > 0).count == 2
        }
        try check(realm, "(SUBQUERY(children, $col1, (($col1.rank < %@) && $col1.flag == true)).@count > %@)", arguments: 2) {
            ($0.children.rank < 5 && $0.children.flag).count > 0
        }
        // Through a link first: the subquery's collection is the path to the list.
        try check(realm, "(SUBQUERY(parent.children, $col1, ($col1.rank > %@)).@count > %@)", arguments: 2) {
            ($0.parent.children.rank > 3).count > 0
        }
    }

    @Test func operationsRealmSwiftLacksAreWrittenInStrataForm() throws {
        let realm = try populated()
        let (text, arguments) = (Query<WrittenQueryRow>._constructForTesting().ranks.all > 0)._constructPredicate()
        #expect(text.hasPrefix("ALL ranks >"), "\(text)")
        let rows = realm.objects(WrittenQueryRow.self)
        #expect(try rows.filtering(text, arguments).map(\.name).sorted() == rows.where { $0.ranks.all > 0 }.map(\.name).sorted())
    }

    @Test func subscriptArgumentsOfTheWrongKindAreTypedErrors() throws {
        let realm = try populated()
        let rows = realm.objects(WrittenQueryRow.self)
        #expect(throws: Realm.Error.self) { try rows.filtering("points[%@] == 3", [1.5]) }
        #expect(throws: Realm.Error.self) { try rows.filtering("mixed[%K] == 3", ["all"]) }
        #expect(throws: Realm.Error.self) { try rows.filtering("points[%@] == 3", []) }
        #expect(try rows.filtering("points[%@] == %@", ["art", 1]).map(\.name) == ["Ada"])
        #expect(try rows.filtering("mixed[1] == 2", []).map(\.name) == ["Ada"])
    }

    private func built(_ build: (Query<WrittenQueryRow>) -> Query<Bool>) -> Query<Bool> {
        build(Query<WrittenQueryRow>._constructForTesting())
    }
}
