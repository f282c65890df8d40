// Table-driven tests: query strings over the fixed in-memory data sets, with expected results.
// Every query is parsed twice — checked against the schema and unchecked — and both trees must
// be equal; results are the labels of the matching objects, in data-set order.
import Foundation
import Testing
@testable import Strata
@testable import StrataQuery
import StrataTestSupport

struct QueryCase {
    let query: String
    let arguments: [QueryValue]
    let expected: [String]

    init(_ query: String, _ expected: [String]) {
        self.init(query, [], expected)
    }

    init(_ query: String, _ arguments: [QueryValue], _ expected: [String]) {
        self.query = query
        self.arguments = arguments
        self.expected = expected
    }
}

/// Runs each case over `objects`; records a failure per mismatching case.
func checkQueries<M: QueryValueSource>(_ cases: [QueryCase], over objects: [M], schema: QuerySchema, type: String,
                                label: (M) -> String, sourceLocation: SourceLocation = #_sourceLocation) {
    for c in cases {
        do {
            let checked = try QueryParser.parse(c.query, arguments: c.arguments, schema: schema, typeName: type)
            let unchecked = try QueryParser.parse(c.query, arguments: c.arguments)
            #expect(checked == unchecked, "schema changes the tree of \(c.query)", sourceLocation: sourceLocation)
            let matches = try objects.filter { try checked.evaluate(on: $0) }.map(label)
            #expect(matches == c.expected, "\(c.query)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(c.query) threw \(error)", sourceLocation: sourceLocation)
        }
    }
}

@Suite struct QueryEvaluationTests {
    let world = DogWorld()
    let news = Newspaper()
    let garage = Garage()

    @Test func dogComparisonsAndStrings() {
        let all = ["d1", "d2", "d3", "d4", "d5", "d6", "d7"]
        checkQueries([
            QueryCase("age > 5", ["d2", "d4", "d7"]),
            QueryCase("age >= 7", ["d2", "d4", "d7"]),
            QueryCase("age => 7", ["d2", "d4", "d7"]),
            QueryCase("age < 3", ["d3", "d6"]),
            QueryCase("age <= 3", ["d1", "d3", "d6"]),
            QueryCase("age =< 3", ["d1", "d3", "d6"]),
            QueryCase("age == 7", ["d2", "d7"]),
            QueryCase("age = 7", ["d2", "d7"]),
            QueryCase("age != 7", ["d1", "d3", "d4", "d5", "d6"]),
            QueryCase("age <> 7", ["d1", "d3", "d4", "d5", "d6"]),
            QueryCase("7 == age", ["d2", "d7"]),
            QueryCase("3 < age", ["d2", "d4", "d5", "d7"]),
            QueryCase("age BETWEEN {2, 5}", ["d1", "d5", "d6"]),
            QueryCase("age between {2.5, 0x5}", ["d1", "d5"]),
            QueryCase("age > 2.5", ["d1", "d2", "d4", "d5", "d7"]),
            QueryCase("age == 3.0", ["d1"]),
            QueryCase("age == 3e0", ["d1"]),
            QueryCase("age > -1", all),
            QueryCase("age IN {1, 12, 99}", ["d3", "d4"]),
            QueryCase("age IN %@", [.list([.int(3), .int(5)])], ["d1", "d5"]),
            QueryCase("age IN {}", []),
            QueryCase("name == 'Rex'", ["d1"]),
            QueryCase("name == \"Rex\"", ["d1"]),
            QueryCase("name ==[c] 'rex'", ["d1", "d5"]),
            QueryCase("name ==[d] 'Rex'", ["d1", "d6"]),
            QueryCase("name ==[cd] 'REX'", ["d1", "d5", "d6"]),
            QueryCase("name !=[c] 'rex'", ["d2", "d3", "d4", "d6", "d7"]),
            QueryCase("'REX' ==[c] name", ["d1", "d5"]),
            QueryCase("'RËX' ==[cd] name", ["d1", "d5", "d6"]),
            QueryCase("name ==[c] 'RËX'", ["d6"]),
            QueryCase("name BEGINSWITH[cd] 'RË'", ["d1", "d5", "d6"]),
            QueryCase("name BEGINSWITH 'R'", ["d1", "d6"]),
            QueryCase("name beginswith[c] 'r'", ["d1", "d5", "d6"]),
            QueryCase("name ENDSWITH 'x'", ["d1", "d4", "d5", "d6"]),
            QueryCase("name ENDSWITH[c] 'X'", ["d1", "d4", "d5", "d6"]),
            QueryCase("name CONTAINS 'u'", ["d3"]),
            QueryCase("name CONTAINS[c] 'E'", ["d1", "d5"]),
            QueryCase("name CONTAINS[cd] 'E'", ["d1", "d5", "d6"]),
            QueryCase("name CONTAINS ''", all),
            QueryCase("name LIKE 'R?x'", ["d1", "d6"]),
            QueryCase("name LIKE[c] 'r*'", ["d1", "d5", "d6"]),
            QueryCase("name LIKE '*o*'", ["d2", "d7"]),
            QueryCase("name LIKE '*'", all),
            QueryCase("name LIKE '?'", []),
            QueryCase("name LIKE 'B*y'", ["d3"]),
            QueryCase("name > 'Max'", ["d5", "d6", "d1", "d7"].sorted()),
            QueryCase("name IN {'Max', 'Zed', 'Fido'}", ["d2", "d4"]),
            QueryCase("name IN[c] {'max', 'REX'}", ["d1", "d4", "d5"]),
            QueryCase("name.@count == 3", ["d1", "d4", "d5"]),
            QueryCase("name.@size == 4", ["d2", "d6", "d7"]),
            QueryCase("id == 'd3'", ["d3"]),
            QueryCase("TRUEPREDICATE", all),
            QueryCase("FALSEPREDICATE", []),
        ], over: world.dogs, schema: DogWorld.schema, type: "Dog", label: \.id)
    }

    @Test func dogNilLinksAndLogic() {
        let alice = world.people[0]
        let all = ["d1", "d2", "d3", "d4", "d5", "d6", "d7"]
        checkQueries([
            QueryCase("nickname == nil", ["d2", "d4", "d5", "d6"]),
            QueryCase("nickname == NULL", ["d2", "d4", "d5", "d6"]),
            QueryCase("nil == nickname", ["d2", "d4", "d5", "d6"]),
            QueryCase("nickname != nil", ["d1", "d3", "d7"]),
            QueryCase("nickname == ''", ["d7"]),
            QueryCase("nickname BEGINSWITH 'Bu'", ["d3"]),
            QueryCase("nickname > 'A'", ["d1", "d3"]),
            // Realm's engine orders null before every string, and two nulls as equal.
            QueryCase("nickname > nil", ["d1", "d3", "d7"]),
            QueryCase("nickname >= nil", all),
            QueryCase("nickname < nil", []),
            QueryCase("nickname <= nil", ["d2", "d4", "d5", "d6"]),
            QueryCase("nickname < ''", ["d2", "d4", "d5", "d6"]),
            QueryCase("nickname >= nickname", all),
            QueryCase("nickname > nickname", []),
            QueryCase("owner == nil", ["d5", "d6"]),
            QueryCase("owner != nil", ["d1", "d2", "d3", "d4", "d7"]),
            QueryCase("owner == %@", [alice.queryValue], ["d1", "d2"]),
            QueryCase("owner != $0", [alice.queryValue], ["d3", "d4", "d5", "d6", "d7"]),
            QueryCase("owner.name == 'Alice'", ["d1", "d2"]),
            QueryCase("owner.name == nil", ["d5", "d6"]),
            QueryCase("owner.name IN {'Bob', 'Élodie'}", ["d3", "d4", "d7"]),
            QueryCase("owner.name ==[cd] 'elodie'", ["d4", "d7"]),
            QueryCase("owner.isVIP == true", ["d1", "d2"]),
            QueryCase("owner.isVIP == FALSE", ["d3", "d4", "d7"]),
            QueryCase("owner.dogs.@count > 1", ["d1", "d2", "d4", "d7"]),
            QueryCase("owner.dogs.@count == 0", ["d5", "d6"]),
            QueryCase("ANY owner.tags == 'vip'", ["d1", "d2"]),
            QueryCase("'vip' IN owner.tags", ["d1", "d2"]),
            QueryCase("owner.height > 1.75", ["d4", "d7"]),
            QueryCase("owner.scores['math'] >= 90", ["d1", "d2"]),
            QueryCase("owner.scores['math'] == nil", ["d3", "d4", "d5", "d6", "d7"]),
            QueryCase("age > 5 AND name BEGINSWITH 'F'", ["d2"]),
            QueryCase("age > 5 and name beginswith 'F'", ["d2"]),
            QueryCase("age > 10 OR name == 'Buddy'", ["d3", "d4"]),
            QueryCase("NOT age > 5", ["d1", "d3", "d5", "d6"]),
            QueryCase("not (age > 5)", ["d1", "d3", "d5", "d6"]),
            QueryCase("!(age > 5 || age < 2)", ["d1", "d5", "d6"]),
            QueryCase("age > 5 && (name == 'Max' || name == 'Spot')", ["d4", "d7"]),
            QueryCase("age > 5 && name == 'Max' || name == 'Spot'", ["d4", "d7"]),
            QueryCase("age < 2 || age > 10 && name == 'Rex'", ["d3"]),
            QueryCase("NOT NOT age == 3", ["d1"]),
            QueryCase("age > %@ AND name BEGINSWITH[c] %@", [.int(2), .string("r")], ["d1", "d5"]),
            QueryCase("%K == %@", [.string("name"), .string("Max")], ["d4"]),
            QueryCase("%K.%K == %@", [.string("owner"), .string("name"), .string("Bob")], ["d3"]),
            QueryCase("%K == %@", [.string("owner.name"), .string("Bob")], ["d3"]),
            QueryCase("age == $1 OR name == $0", [.string("Max"), .int(7)], ["d2", "d4", "d7"]),
            QueryCase("age BETWEEN %@", [.list([.int(5), .int(7)])], ["d2", "d5", "d7"]),
        ], over: world.dogs, schema: DogWorld.schema, type: "Dog", label: \.id)
    }

    @Test func personAggregatesQuantifiersSubqueries() {
        checkQueries([
            QueryCase("dogs.@count == 0", ["Carol"]),
            QueryCase("dogs.@count > 1", ["Alice", "Élodie"]),
            QueryCase("dogs.@size > 1", ["Alice", "Élodie"]),
            QueryCase("dogs.@max.age > 10", ["Élodie"]),
            QueryCase("dogs.age.@max > 10", ["Élodie"]),
            QueryCase("dogs.@min.age < 2", ["Bob"]),
            QueryCase("dogs.@min.age == nil", ["Carol"]),
            QueryCase("dogs.@sum.age == 10", ["Alice"]),
            QueryCase("dogs.@sum.age == 31", ["Élodie"]),
            QueryCase("dogs.@sum.age == 0", ["Carol"]),
            QueryCase("dogs.@avg.age == 5", ["Alice"]),
            QueryCase("dogs.@avg.age == nil", ["Carol"]),
            QueryCase("dogs.age > 10", ["Élodie"]),
            QueryCase("ANY dogs.age > 6", ["Alice", "Élodie"]),
            QueryCase("SOME dogs.age > 6", ["Alice", "Élodie"]),
            QueryCase("ALL dogs.age > 2", ["Alice", "Carol", "Élodie"]),
            QueryCase("NONE dogs.age > 6", ["Bob", "Carol"]),
            QueryCase("ALL dogs.age IN {3, 7}", ["Alice", "Carol"]),
            QueryCase("ANY dogs.age BETWEEN {6, 8}", ["Alice", "Élodie"]),
            QueryCase("ALL dogs.name BEGINSWITH 'M'", ["Carol"]),
            QueryCase("dogs.name == 'Max'", ["Élodie"]),
            QueryCase("ANY dogs.name BEGINSWITH 'F'", ["Alice"]),
            QueryCase("dogs.owner.name == 'Bob'", ["Bob"]),
            QueryCase("SUBQUERY(dogs, $d, $d.age > 5).@count >= 2", ["Élodie"]),
            QueryCase("SUBQUERY(dogs, $d, $d.age > 5 AND $d.name == 'Max').@count == 2", ["Élodie"]),
            QueryCase("SUBQUERY(dogs, $d, $d.owner.isVIP == true).@count > 0", ["Alice"]),
            QueryCase("SUBQUERY(dogs, $d, $d.age > 100).@count == 0", ["Alice", "Bob", "Carol", "Élodie"]),
            // Inside a SUBQUERY a key path without the variable reads the element (Realm's engine).
            QueryCase("SUBQUERY(dogs, $d, name BEGINSWITH 'R').@count > 0", ["Alice"]),
            QueryCase("SUBQUERY(dogs, $d, age > 5 AND $d.name == 'Max').@count == 2", ["Élodie"]),
            QueryCase("SUBQUERY(dogs, $d, SUBQUERY(owner.dogs, $e, $e.age == 1).@count > 0).@count == 1", ["Bob"]),
            QueryCase("SUBQUERY(tags, $t, $t BEGINSWITH 'v').@count == 1", ["Alice", "Carol"]),
            QueryCase("SUBQUERY(dogs, $d, SUBQUERY($d.owner.dogs, $e, $e.age > $d.age).@count > 0).@count > 0",
                      ["Alice", "Élodie"]),
            QueryCase("1 < SUBQUERY(dogs, $d, TRUEPREDICATE).@count", ["Alice", "Élodie"]),
            QueryCase("tags.@count == 0", ["Bob"]),
            QueryCase("'vip' IN tags", ["Alice", "Carol"]),
            QueryCase("tags == 'dog'", ["Élodie"]),
            QueryCase("ANY tags ==[c] 'VIP'", ["Alice", "Carol"]),
            QueryCase("NONE tags == 'vip'", ["Bob", "Élodie"]),
            QueryCase("scores.@count > 0", ["Alice", "Carol"]),
            QueryCase("scores.@max > 80", ["Alice"]),
            QueryCase("scores.@sum == 160", ["Alice"]),
            QueryCase("ANY scores < 60", ["Carol"]),
            QueryCase("scores['math'] > 80", ["Alice"]),
            QueryCase("scores[\"math\"] == nil", ["Bob", "Élodie"]),
            QueryCase("scores['art'] == 70", ["Alice"]),
            QueryCase("scores.@keys == 'art'", ["Alice"]),
            QueryCase("ALL scores.@keys == 'math'", ["Bob", "Carol", "Élodie"]),
            QueryCase("'math' IN scores.@keys", ["Alice", "Carol"]),
            QueryCase("scores.@values > 60", ["Alice"]),
            QueryCase("NONE scores.@values > 60", ["Bob", "Carol", "Élodie"]),
            QueryCase("scores.@values.@max == 90", ["Alice"]),
            QueryCase("ANY scores.@allKeys ==[c] 'ART'", ["Alice"]),
            QueryCase("NONE scores.@allValues > 60", ["Bob", "Carol", "Élodie"]),
            QueryCase("scores.@allValues.@max == 90", ["Alice"]),
            QueryCase("scores.@count == 2", ["Alice"]),
            QueryCase("dogs.owner.scores['math'] == 90", ["Alice"]),
            QueryCase("picture == nil", ["Bob", "Carol"]),
            QueryCase("picture != nil", ["Alice", "Élodie"]),
            QueryCase("picture.@count == 3", ["Alice"]),
            QueryCase("picture.@count == 0", ["Bob", "Carol", "Élodie"]),
            QueryCase("picture BEGINSWITH %@", [.data(Data([1, 2]))], ["Alice"]),
            QueryCase("picture CONTAINS %@", [.data(Data([2, 3]))], ["Alice"]),
            QueryCase("picture ENDSWITH %@", [.data(Data([3]))], ["Alice"]),
            QueryCase("picture == B64\"AQID\"", ["Alice"]),
            QueryCase("balance > 50", ["Alice"]),
            QueryCase("balance < 0", ["Carol"]),
            QueryCase("balance == 7.25", ["Élodie"]),
            QueryCase("balance BETWEEN {0, 10}", ["Bob", "Élodie"]),
            QueryCase("balance == decimal128(100.5)", ["Alice"]),
            QueryCase("height == nil", ["Bob"]),
            QueryCase("height > 1.65", ["Alice", "Élodie"]),
            // A number is not ordered against null; two nulls are equal.
            QueryCase("height > nil", []),
            QueryCase("height >= nil", ["Bob"]),
            QueryCase("height < nil", []),
            QueryCase("height <= height", ["Alice", "Bob", "Carol", "Élodie"]),
            QueryCase("height < height", []),
            QueryCase("isVIP == TRUE", ["Alice", "Carol"]),
            QueryCase("isVIP == false", ["Bob", "Élodie"]),
            QueryCase("NOT isVIP == true", ["Bob", "Élodie"]),
            QueryCase("isVIP != true AND dogs.@count > 0", ["Bob", "Élodie"]),
            QueryCase("name IN {'Alice', 'Zed'}", ["Alice"]),
            QueryCase("name IN[c] {'alice', 'BOB'}", ["Alice", "Bob"]),
            QueryCase("name ==[d] 'Elodie'", ["Élodie"]),
            QueryCase("name LIKE[d] 'E*'", ["Élodie"]),
        ], over: world.people, schema: DogWorld.schema, type: "Person", label: \.name)
    }

    @Test func newspaperDatesAndLinks() {
        let grace = news.authors[1]
        checkQueries([
            QueryCase("date > T2024-01-01@00:00:00", ["a1", "a2", "a4"]),
            QueryCase("date BETWEEN {T2024-01-02@10:00:00, T2024-03-05@00:00:00}", ["a1", "a2"]),
            QueryCase("date == 2024-01-02@10:00:00", ["a1"]),
            QueryCase("date == T1704189600:0", ["a1"]),
            QueryCase("date < %@", [.date(utcDate(2024, 1, 1))], ["a3"]),
            QueryCase("title == nil", ["a3"]),
            QueryCase("title CONTAINS[c] 'the'", ["a4"]),
            QueryCase("title LIKE '*s'", ["a2"]),
            QueryCase("title BEGINSWITH 'B' OR title == nil", ["a2", "a3"]),
            QueryCase("author.isVIP == true", ["a1", "a2"]),
            QueryCase("author.lastName == nil", ["a3", "a4"]),
            QueryCase("author.born < T1900-01-01@00:00:00", ["a1"]),
            QueryCase("author.deceased != nil", ["a1", "a2"]),
            QueryCase("author == %@", [grace.queryValue], ["a2"]),
            QueryCase("author.id IN {1, 3}", ["a1", "a4"]),
            QueryCase("author.height > 1.7", ["a4"]),
            QueryCase("author.weight == 80.25", ["a4"]),
            QueryCase("author.department IN %@", [["web", "sports"].queryValue], ["a4"]),
            QueryCase("people.@count >= 2", ["a1", "a4"]),
            QueryCase("SUBQUERY(people, $p, $p.isVIP == true AND $p.department == 'science').@count == 2", ["a1"]),
            QueryCase("SUBQUERY(people, $p, $p.firstName BEGINSWITH[cd] 'Z').@count > 0", ["a4"]),
            QueryCase("ANY people.lastName ==[cd] 'unal'", ["a4"]),
            QueryCase("ALL people.isVIP == true", ["a1", "a2", "a3"]),
            QueryCase("NONE people.department == 'web'", ["a1", "a2", "a3"]),
            QueryCase("people.@avg.height > 1.7", ["a4"]),
            QueryCase("people.@sum.hairCount > 0", ["a1", "a2", "a4"]),
            QueryCase("ANY people.hairCount > 9000000000000000000", ["a4"]),
            QueryCase("people.@max.born > T1950-01-01@00:00:00", ["a4"]),
            QueryCase("people.@min.deceased < T1900-01-01@00:00:00", ["a1", "a4"]),
        ], over: news.articles, schema: Newspaper.schema, type: "Article", label: \.id)
    }

    @Test func carRepairModels() {
        checkQueries([
            QueryCase("brand == 'VW' AND year < 2000", ["VW 1970"]),
            QueryCase("shop.name BEGINSWITH 'Fast'", ["VW 2015", "Tesla 2021"]),
            QueryCase("shop.contact.name == 'Ann'", ["VW 2015", "Tesla 2021"]),
            QueryCase("shop.contact == nil", ["VW 1970", "Volvo 2008"]),
            QueryCase("repairs.@count == 0", ["Tesla 2021"]),
            QueryCase("ANY repairs.person.name == 'Ann'", ["VW 2015", "Volvo 2008"]),
            QueryCase("ALL repairs.person.name == 'Ann'", ["VW 2015", "Tesla 2021"]),
            QueryCase("repairs.person == nil", ["VW 1970"]),
            QueryCase("SUBQUERY(repairs, $r, $r.date > T2014-01-01@00:00:00 AND $r.person.name == 'Ann').@count >= 1",
                      ["VW 2015", "Volvo 2008"]),
            QueryCase("plates.@count > 1", ["VW 2015"]),
            QueryCase("ANY plates BEGINSWITH 'SE'", ["Volvo 2008"]),
            QueryCase("'OLD-1' IN plates", ["VW 1970"]),
            QueryCase("checkups.@max > T2022-01-01@00:00:00", ["VW 2015", "Tesla 2021"]),
            QueryCase("checkups.@min < T2011-01-01@00:00:00", ["Volvo 2008"]),
            QueryCase("owner.name IN {'Ann', 'Ben'}", ["VW 2015", "Volvo 2008"]),
        ], over: garage.cars, schema: Garage.schema, type: "Car", label: { "\($0.brand) \($0.year)" })
        checkQueries([
            QueryCase("maintainedCars.@count == 0", ["Idle Garage"]),
            QueryCase("ANY maintainedCars.brand == 'Tesla'", ["Fast Fix"]),
            QueryCase("maintainedCars.@max.year > 2020", ["Fast Fix"]),
            QueryCase("contact.name == 'Cid' AND maintainedCars.@count == 0", ["Idle Garage"]),
            QueryCase("name LIKE '*&*'", ["Slow & Steady"]),
        ], over: garage.shops, schema: Garage.schema, type: "RepairShop", label: \.name)
    }

    @Test func evaluationErrorsPropagate() throws {
        // Without a schema an unknown property reaches the source, whose error propagates.
        let predicate = try QueryParser.parse("colour == 'red'")
        #expect(throws: UnknownTestProperty(type: "Dog", key: "colour")) { try predicate.evaluate(on: world.dogs[0]) }
        // Reading through a non-link is a typed error.
        let through = try QueryParser.parse("name.first == 'R'")
        let error = try #require(throws: QueryError.self) { try through.evaluate(on: world.dogs[0]) }
        #expect(error.kind == .typeMismatch)
        #expect(error.message.contains("first"))
    }

    @Test func largeInListsUseExactHashedMembership() throws {
        // 8+ constants take the hashed path; cross-type numerics must still match by value.
        checkQueries([
            QueryCase("age IN {1.0, 2, 3, 4, 5, 6, 7.0, 100, 2.5}", ["d1", "d2", "d3", "d5", "d6", "d7"]),
            QueryCase("age IN {1, 2, 3, 4, 5, 6, 7, decimal128(12)}", ["d1", "d2", "d3", "d4", "d5", "d6", "d7"]),
            QueryCase("name IN {'a', 'b', 'c', 'd', 'e', 'f', 'Rex', 'Max'}", ["d1", "d4"]),
            QueryCase("name IN[c] {'a', 'b', 'c', 'd', 'e', 'f', 'REX', 'Max'}", ["d1", "d4", "d5"]),
            QueryCase("owner.name IN {'a', 'b', 'c', 'd', 'e', 'f', 'g', nil}", ["d5", "d6"]),
            QueryCase("NOT age IN {0, 1, 2, 3, 4, 5, 6, 8}", ["d2", "d4", "d7"]),
        ], over: world.dogs, schema: DogWorld.schema, type: "Dog", label: \.id)
        checkQueries([
            QueryCase("ALL dogs.age IN {3, 7, 20, 21, 22, 23, 24, 25}", ["Alice", "Carol"]),
            QueryCase("NONE dogs.age IN {3, 7, 20, 21, 22, 23, 24, 25}", ["Bob", "Carol"]),
            QueryCase("ANY dogs.age IN {12.0, 70, 20, 21, 22, 23, 24, 25}", ["Élodie"]),
        ], over: world.people, schema: DogWorld.schema, type: "Person", label: \.name)
        // Randomised: the hashed path agrees with element-by-element Realm equality.
        var rng = SplitMix64(seed: 42)
        let pool: [QueryValue] = [.int(1), .int(2), .double(2), .float(2.5), .double(2.5), .double(-0.0), .int(0),
                                  .string("a"), .string("A"), .null, .bool(true), .int(Int64.max), .double(0x1p63),
                                  .decimal(Decimal(2)), .date(Date(timeIntervalSince1970: 5))]
        for _ in 0..<300 {
            let candidates = (0..<Int.random(in: 8...14, using: &rng)).map { _ in pool.randomElement(using: &rng)! }
            let probe = pool.randomElement(using: &rng)!
            let item = ValueHolder(probe)
            let predicate = QueryPredicate.comparison(QueryComparison(.keyPath(QueryKeyPath(["value"])), .in, .constant(.list(candidates))))
            let expected = candidates.contains { QueryValueComparison.equal(probe, $0) }
            #expect(try QueryMatcher(predicate).matches(item) == expected, "\(probe) IN \(candidates)")
        }
    }

    @Test func referencedKeyPaths() throws {
        let p = try QueryParser.parse(
            "name == 'a' AND (dogs.@max.age > 1 OR SUBQUERY(dogs, $d, $d.owner.name == name AND SUBQUERY($d.owner.dogs, $e, $e.age > $d.age).@count > 0).@count > 0) AND name != 'b' AND scores['x'] > 1")
        #expect(p.referencedKeyPaths().map(\.description) == [
            "name", "dogs.age", "dogs", "dogs.owner.name", "dogs.owner.dogs", "dogs.owner.dogs.age", "dogs.age", "scores[\"x\"]",
        ].reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } })
        #expect(try QueryParser.parse("SUBQUERY(tags, $t, $t BEGINSWITH 'a').@count > 0").referencedKeyPaths() == [QueryKeyPath(["tags"])])
        #expect(QueryPredicate.truePredicate.referencedKeyPaths().isEmpty)
        // Trees are Hashable: equal queries hash equally (usable as cache keys).
        #expect(Set([try QueryParser.parse("a == 1 AND b == 2"), try QueryParser.parse("a = 1 && b == 2")]).count == 1)
    }

    @Test func indexableEqualities() throws {
        let p = try QueryParser.parse("name == 'Rex' AND (age > 3 OR age < 1) AND id IN {'d1', 'd2'} AND 5 == age AND owner.name == 'x'")
        #expect(p.indexableEqualities() == [
            QueryIndexableEquality(property: "name", values: [.string("Rex")]),
            QueryIndexableEquality(property: "id", values: [.string("d1"), .string("d2")]),
            QueryIndexableEquality(property: "age", values: [.int(5)]),
        ])
        #expect(try QueryParser.parse("name ==[c] 'Rex'").indexableEqualities().isEmpty)
        #expect(try QueryParser.parse("name == 'a' OR name == 'b'").indexableEqualities().isEmpty)
        #expect(try QueryParser.parse("NOT name == 'a'").indexableEqualities().isEmpty)
        #expect(try QueryParser.parse("ANY tags == 'a'").indexableEqualities().isEmpty)
        #expect(try QueryParser.parse("id IN %@", arguments: [.list([.int(1)])]).indexableEqualities()
            == [QueryIndexableEquality(property: "id", values: [.int(1)])])
    }
}

/// A one-property object.
final class ValueHolder: QueryValueSource {
    let value: QueryValue
    init(_ value: QueryValue) { self.value = value }
    func queryValue(forKey key: String) throws -> QueryValue {
        guard key == "value" else { throw UnknownTestProperty(type: "ValueHolder", key: key) }
        return value
    }
}
