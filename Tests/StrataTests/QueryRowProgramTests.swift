// The row-bytes query path (Query/QueryRowProgram.swift) against the object path: every query is
// run both ways over managed objects with edge values (nil, non-ASCII and canonically equivalent
// strings, narrow integers, NaN) and the matching keys must be identical. Also: which queries
// compile to a row program, and the parse cache (Query/QueryParseCache.swift).
import Foundation
import Testing
@testable import Strata
@testable import StrataQuery
import StrataTestSupport

final class RowQueryItem: Object {
    @Persisted var label = ""
    @Persisted var name = ""
    @Persisted var nickname: String?
    @Persisted var age = 0
    @Persisted var maybeAge: Int?
    @Persisted var small: Int8 = 0
    @Persisted var medium: Int32 = 0
    @Persisted var weight = 0.0
    @Persisted var score: Double?
    @Persisted var ratio: Float = 0
    @Persisted var born = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted var isGood = false
    @Persisted var maybeGood: Bool?
    @Persisted var friend: RowQueryItem?
    @Persisted var tags: List<String>
}

@Suite struct QueryRowProgramTests {
    static let names = ["Rex", "rover", "Fido", "Max", "Rambo", "R\u{00EB}x", "Re\u{0308}x", "\u{212A}ing", "King", "", "Bobby", "rex", "Max "]

    func seeded() throws -> Realm {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            var previous: RowQueryItem?
            for (i, name) in Self.names.enumerated() {
                let o = RowQueryItem()
                o.label = "o\(i)"
                o.name = name
                o.nickname = i % 3 == 0 ? nil : (i % 3 == 1 ? name.uppercased() : "n\(i)")
                o.age = [3, 7, 1, 12, 5, 2, 7, -4, 0, 99, Int.max, Int.min, 5][i]
                o.maybeAge = i % 4 == 0 ? nil : i - 5
                o.small = Int8(truncatingIfNeeded: i * 37 - 100)
                o.medium = Int32(i) * 100_000_000 - 600_000_000
                o.weight = [2.5, -0.0, 0.0, .nan, .infinity, 3.0, 7.0, -1.5, 1e300, 5.5, 2.5, 12, 0.1][i]
                o.score = i % 5 == 0 ? nil : Double(i) / 4
                o.ratio = Float(i) / 3
                o.born = Date(timeIntervalSinceReferenceDate: Double(i * 86_400) - 200_000)
                o.isGood = i % 2 == 0
                o.maybeGood = i % 3 == 0 ? nil : i % 3 == 1
                o.friend = previous
                if i % 2 == 1 { o.tags.append(objectsIn: ["a", name]) }
                realm.add(o)
                previous = o
            }
        }
        return realm
    }

    /// Queries on plain scalar properties: every one must compile to a row program.
    static var scalarQueries: [(String, [Any])] { [
        ("age > 5", []), ("age >= 7", []), ("age => 7", []), ("age < 3", []), ("age <= 3", []), ("age =< 3", []),
        ("age == 7", []), ("age = 7", []), ("age != 7", []), ("age <> 7", []), ("7 == age", []), ("3 < age", []),
        ("age BETWEEN {2, 5}", []), ("age between {2.5, 0x5}", []), ("age > 2.5", []), ("age == 3.0", []),
        ("age == 3e0", []), ("age > -1", []), ("age IN {1, 12, 99}", []), ("age IN %@", [[3, 5]]), ("age IN {}", []),
        ("age IN %@", [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 99]]), ("age == %@", [Int.max]), ("age < %@", [Int.min + 1]),
        ("age == %@", [7.0]), ("age > %@", [Double.nan]), ("age == nil", []), ("age != nil", []),
        ("name == 'Rex'", []), ("name == \"Rex\"", []), ("name ==[c] 'rex'", []), ("name ==[d] 'Rex'", []),
        ("name ==[cd] 'REX'", []), ("name !=[c] 'rex'", []), ("'REX' ==[c] name", []), ("'R\u{00CB}X' ==[cd] name", []),
        ("name ==[c] 'R\u{00CB}X'", []), ("name BEGINSWITH[cd] 'R\u{00CB}'", []), ("name BEGINSWITH 'R'", []),
        ("name beginswith[c] 'r'", []), ("name ENDSWITH 'x'", []), ("name ENDSWITH[c] 'X'", []),
        ("name CONTAINS 'u'", []), ("name CONTAINS[c] 'E'", []), ("name CONTAINS[cd] 'E'", []), ("name CONTAINS ''", []),
        ("name LIKE 'R?x'", []), ("name LIKE[c] 'r*'", []), ("name LIKE '*o*'", []), ("name LIKE '*'", []),
        ("name LIKE '?'", []), ("name LIKE 'B*y'", []), ("name > 'Max'", []), ("name IN {'Max', 'Zed', 'Fido'}", []),
        ("name IN[c] {'max', 'REX'}", []), ("name == %@", ["R\u{00EB}x"]), ("name == %@", ["Re\u{0308}x"]),
        ("name != %@", ["R\u{00EB}x"]), ("name == %@", ["King"]), ("name == %@", ["\u{212A}ing"]), ("name == ''", []),
        ("name != ''", []), ("name == nil", []), ("name == 'Max'", []), ("name == 'Max '", []),
        ("nickname == nil", []), ("nickname != nil", []), ("nickname == 'REX'", []), ("nickname != 'REX'", []),
        ("nickname BEGINSWITH 'n'", []), ("nickname ==[c] 'rover'", []), ("nickname == name", []), ("nickname > name", []),
        ("maybeAge == nil", []), ("maybeAge != nil", []), ("maybeAge > 0", []), ("maybeAge <= 0", []),
        ("maybeAge != 3", []), ("maybeAge == -1", []), ("maybeAge IN {1, 2, nil}", []), ("maybeAge BETWEEN {-3, 3}", []),
        ("small < 0", []), ("small == %@", [Int(Int8(truncatingIfNeeded: 3 * 37 - 100))]), ("small >= -100", []),
        ("medium > 0", []), ("medium == -600000000", []), ("medium != 0", []),
        ("weight > 2", []), ("weight == 0", []), ("weight == -0.0", []), ("weight < 0", []), ("weight != 2.5", []),
        ("weight == 3", []), ("weight > 1e299", []), ("weight BETWEEN {0, 10}", []), ("weight == age", []),
        ("score == nil", []), ("score > 1", []), ("score != 0.5", []), ("score >= maybeAge", []),
        ("ratio > 1", []), ("ratio == 1", []), ("ratio < 0.5", []), ("ratio > age", []),
        ("born > %@", [Date(timeIntervalSinceReferenceDate: 0)]), ("born == %@", [Date(timeIntervalSinceReferenceDate: 3 * 86_400 - 200_000)]),
        ("born <= %@", [Date(timeIntervalSinceReferenceDate: -100_000)]),
        ("isGood == true", []), ("isGood == false", []), ("isGood != true", []),
        ("maybeGood == nil", []), ("maybeGood == true", []), ("maybeGood != false", []),
        ("TRUEPREDICATE", []), ("FALSEPREDICATE", []),
        ("age > 2 AND name BEGINSWITH[c] 'r'", []), ("age > 2 OR nickname == nil", []), ("NOT (age > 2)", []),
        ("!(name == 'Rex' OR name == 'rex') AND isGood == true", []),
        ("(age < 5 OR weight > 2) AND NOT maybeGood == nil", []), ("age > 2 && maybeAge < 3 || isGood == false", []),
    ] }

    /// Queries that need the object path (links, collections, aggregates): no program.
    static var objectQueries: [(String, [Any])] { [
        ("friend.name == 'Rex'", []), ("friend == nil", []), ("ANY tags == 'a'", []), ("tags.@count > 0", []),
        ("name.@count == 3", []), ("age > 2 AND friend.age > 2", []), ("SUBQUERY(tags, $t, $t BEGINSWITH 'R').@count > 0", []),
        ("friend.friend.maybeAge == nil", []),
    ] }

    func keys(_ realm: Realm, _ query: String, _ args: [Any], objectPath: Bool) throws -> [UInt64] {
        try QueryRowProgram.$objectPathOnly.withValue(objectPath) {
            Array(try realm.objects(RowQueryItem.self).filtering(query, args).keys)
        }
    }

    @Test func rowPathMatchesObjectPathOnEveryQuery() throws {
        let realm = try seeded()
        let info = try ClassInfo.of(RowQueryItem.self)
        for (query, args) in Self.scalarQueries + Self.objectQueries {
            let rows = try keys(realm, query, args, objectPath: false)
            let objects = try keys(realm, query, args, objectPath: true)
            #expect(rows == objects, "\(query) \(args)")
        }
        for (query, args) in Self.scalarQueries {
            let predicate = try #require(realm.objects(RowQueryItem.self).filtering(query, args).query.predicate)
            #expect(QueryRowProgram.compile(predicate, info: info) != nil, "\(query) should compile to a row program")
        }
        for (query, args) in Self.objectQueries {
            let predicate = try #require(realm.objects(RowQueryItem.self).filtering(query, args).query.predicate)
            #expect(QueryRowProgram.compile(predicate, info: info) == nil, "\(query) needs the object path")
        }
    }

    /// Every comparison operator × scalar property × constant of several kinds, both ways.
    @Test func generatedComparisonsAgree() throws {
        let realm = try seeded()
        let properties = ["age", "maybeAge", "small", "medium", "weight", "score", "ratio", "isGood", "maybeGood", "name", "nickname", "born"]
        let constants: [Any] = [0, 7, -4, 5.5, Double.nan, "Rex", "Re\u{0308}x", "", true, Date(timeIntervalSinceReferenceDate: 0)]
        let ops = ["==", "!=", "<", "<=", ">", ">=", "==[c]", "BEGINSWITH", "CONTAINS[cd]", "LIKE"]
        var compared = 0
        for property in properties {
            for op in ops {
                for constant in constants {
                    let query = "\(property) \(op) %@"
                    // Only type-correct queries: the type checker rejects the others on both paths.
                    guard (try? realm.objects(RowQueryItem.self).filtering(query, [constant])) != nil else { continue }
                    let rows = try keys(realm, query, [constant], objectPath: false)
                    let objects = try keys(realm, query, [constant], objectPath: true)
                    #expect(rows == objects, "\(query) \(constant)")
                    compared += 1
                }
            }
        }
        #expect(compared > 150, "too few type-correct combinations were compared: \(compared)")
    }

    @Test func countAndSortedResultsUseTheRowPath() throws {
        let realm = try seeded()
        let items = realm.objects(RowQueryItem.self)
        let before = realm.core.indexing.rowsExamined
        #expect(items.filter("age == 7").count == 2)
        #expect(realm.core.indexing.rowsExamined - before == Self.names.count, "one scan of every row")
        let sorted = items.filter("age > 0").sorted(byKeyPath: "age", ascending: false).map(\.label)
        let expected = QueryRowProgram.$objectPathOnly.withValue(true) {
            Array(items.filter("age > 0").sorted(byKeyPath: "age", ascending: false).map(\.label))
        }
        #expect(Array(sorted) == expected)
        #expect(sorted.first == "o10")
        // Live: a write changes the answer.
        try realm.write { realm.objects(RowQueryItem.self).filter("label == 'o0'").first?.age = 7 }
        #expect(items.filter("age == 7").count == 3)
    }
}

@Suite struct QueryParseCacheTests {
    let info: ClassInfo
    let schema: QuerySchema

    init() throws {
        info = try ClassInfo.of(RowQueryItem.self)
        schema = Schema(objectSchema: ClassInfo.schemaClosure(of: info)).querySchema
    }

    /// Counts parses; parses like `Results.filtering` does (without a schema here: the schema
    /// check is exercised by the Results tests).
    final class Counter { var parses = 0 }

    func cached(_ query: String, _ arguments: [QueryValue], _ counter: Counter) throws -> QueryPredicate {
        try QueryParseCache.predicate(query, arguments: arguments, info: info) { args in
            counter.parses += 1
            return try QueryParser.parse(query, arguments: args, schema: schema, typeName: "RowQueryItem")
        }
    }

    @Test func repeatedQueriesParseOnceAndBindEachCallsArguments() throws {
        let counter = Counter()
        let plain = "age == %@ AND name BEGINSWITH %@ AND weight > 2"
        for (i, value) in [Int64(5), 7, -7_351_000_000_000, -7_351_000_000_001, 5].enumerated() {
            let args: [QueryValue] = [.int(value), .string("r\(i)")]
            let fromCache = try cached(plain + " AND label != 'cache-test-1'", args, counter)
            let fresh = try QueryParser.parse(plain + " AND label != 'cache-test-1'", arguments: args, schema: schema, typeName: "RowQueryItem")
            #expect(fromCache == fresh, "argument \(value)")
        }
        #expect(counter.parses == 2, "the first call parses twice (arguments and probes), later calls never")
    }

    @Test func argumentKindsArePartOfTheKey() throws {
        let counter = Counter()
        let query = "weight == %@ AND label != 'cache-test-2'"
        let asInt = try cached(query, [.int(3)], counter)
        let asDouble = try cached(query, [.double(3.5)], counter)
        #expect(asInt == (try QueryParser.parse(query, arguments: [.int(3)])))
        #expect(asDouble == (try QueryParser.parse(query, arguments: [.double(3.5)])))
        #expect(counter.parses == 4)
    }

    /// The key packs each argument's kind into one word: kinds in another order, or one more
    /// null argument, are other entries; a query with more arguments than the word holds is
    /// parsed on every call.
    @Test func kindOrderArgumentCountAndLongArgumentListsKeepTheirOwnParse() throws {
        let counter = Counter()
        let two = "score == %@ OR score != %@ AND label != 'cache-test-7'"
        for args in [[QueryValue.int(1), .double(2.5)], [.double(2.5), .int(1)], [.null, .int(1)], [.int(1), .null]] {
            for _ in 0..<2 {
                #expect(try cached(two, args, counter) == (try QueryParser.parse(two, arguments: args)), "\(args)")
            }
        }
        #expect(counter.parses == 8, "four kind orders, each parsed twice once, then cached")
        let nulls = "label != 'cache-test-8' AND (score == %@ OR score == %@)"
        _ = try cached(nulls, [.null, .null], counter)
        #expect(throws: QueryError.self) { try cached(nulls, [.null], counter) }

        let many = QueryParseCache.maxCachedArguments + 1
        let long = (0..<many).map { _ in "age == %@" }.joined(separator: " OR ") + " AND label != 'cache-test-9'"
        let before = counter.parses
        for round in 0..<3 {
            let args = (0..<many).map { QueryValue.int(Int64($0 + round)) }
            #expect(try cached(long, args, counter) == (try QueryParser.parse(long, arguments: args)))
        }
        #expect(counter.parses - before == 3, "more arguments than the key holds: parsed every time")
    }

    @Test func keyPathArgumentsListsAndNullsAreHandled() throws {
        let counter = Counter()
        let keyPath = "%K == 3 AND label != 'cache-test-3'"
        for name in ["age", "maybeAge", "age"] {
            let p = try cached(keyPath, [.string(name)], counter)
            #expect(p == (try QueryParser.parse(keyPath, arguments: [.string(name)])))
        }
        #expect(counter.parses == 3, "%K changes the parse: never cached")
        let list = "age IN %@ AND label != 'cache-test-4'"
        for values in [[QueryValue.int(1)], [.int(2), .int(3)]] {
            let p = try cached(list, [.list(values)], counter)
            #expect(p == (try QueryParser.parse(list, arguments: [.list(values)])))
        }
        #expect(counter.parses == 5, "list arguments are never cached")
        let mixed = "age IN {%@, 2} AND maybeAge == %@ AND label != 'cache-test-5'"
        for value in [Int64(1), 9, 1] {
            let args: [QueryValue] = [.int(value), .null]
            let p = try cached(mixed, args, counter)
            #expect(p == (try QueryParser.parse(mixed, arguments: args)))
        }
    }

    @Test func aKeyPathArgumentIsFoundAnywhereInTheQuery() {
        for query in ["%K == 1", "age == 1 AND %K == 2", "naïve == 'é' OR %K == 3", "label == 'x' AND name == %K"] {
            #expect(QueryParseCache.containsKeyPathArgument(query), "\(query)")
        }
        for query in ["", "age == %@", "% K == 1", "%k == 1", "K% == 1", "naïve == 'é%' AND K == 1"] {
            #expect(!QueryParseCache.containsKeyPathArgument(query), "\(query)")
        }
    }

    /// The scalar arguments converted by their exact type convert as `QueryValue(converting:)`
    /// does; a bridged number still takes the general path.
    @Test func scalarArgumentsConvertAsTheGeneralPathDoes() throws {
        let date = Date(timeIntervalSince1970: 1_234.5)
        let arguments: [Any] = [7, Int64(-8), 2.5, "s", date, NSNumber(value: 3), Int32(4), Int?.some(5) as Any]
        let converted = try Object.queryArguments(arguments)
        #expect(converted.map(Optional.some) == arguments.map { QueryValue(converting: $0) })
        #expect(converted.prefix(5) == [.int(7), .int(-8), .double(2.5), .string("s"), .date(date)])
    }

    @Test func errorsAreNeverCached() throws {
        let counter = Counter()
        for _ in 0..<2 {
            #expect { try cached("age == %@ AND label != 'cache-test-6'", [.string("x")], counter) } throws: {
                ($0 as? QueryError)?.kind == .typeMismatch
            }
            #expect { try cached("age == == %@", [.int(1)], counter) } throws: { ($0 as? QueryError)?.kind == .syntax }
        }
        #expect(counter.parses == 4)
    }

    /// A template binds arguments found under every kind of node (NOT, OR, AND, a SUBQUERY's
    /// body and count, a list literal holding a key path) and reuses the parts without one.
    @Test func argumentsUnderEveryKindOfNodeAreBound() throws {
        let counter = Counter()
        let query = "NOT (age == %@) OR SUBQUERY(items, $i, $i.size > %@ AND $i.name == 'k').@count == %@"
            + " OR age BETWEEN {%@, weight} OR (score < 2 AND label != 'cache-test-10')"
        for round in Int64(0)..<4 {
            let args: [QueryValue] = [.int(round), .double(Double(round) + 0.5), .int(round * 7), .int(-round)]
            let p = try QueryParseCache.predicate(query, arguments: args, info: info) { arguments in
                counter.parses += 1
                return try QueryParser.parse(query, arguments: arguments)
            }
            #expect(p == (try QueryParser.parse(query, arguments: args)), "round \(round)")
        }
        #expect(counter.parses == 2, "proved once, then bound on every call")
    }

    @Test func theCacheIsBounded() throws {
        let counter = Counter()
        for i in 0..<(QueryParseCache.capacity + 10) {
            _ = try cached("age == %@ AND label != 'bounded-\(i)'", [.int(1)], counter)
        }
        #expect(QueryParseCache.entryCount <= QueryParseCache.capacity)
        #expect(counter.parses == 2 * (QueryParseCache.capacity + 10))
    }
}
