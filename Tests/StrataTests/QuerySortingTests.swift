// Sorting, distinct and the value ordering.
import Foundation
import Testing
@testable import Strata
@testable import StrataQuery
import StrataTestSupport

/// Stands in for the object layer's `SortDescriptor` (which adopts QuerySortKey the same way).
struct SortKey: QuerySortKey {
    var keyPath: String
    var ascending: Bool = true
    var reversed: SortKey { SortKey(keyPath: keyPath, ascending: !ascending) }
}

@Suite struct QuerySortingTests {
    let world = DogWorld()

    func ids(_ dogs: [QDog]) -> [String] { dogs.map(\.id) }

    @Test func sortsByOneKeyStably() throws {
        #expect(ids(try QueryOrdering.sorted(world.dogs, by: [SortKey(keyPath: "age")]))
            == ["d3", "d6", "d1", "d5", "d2", "d7", "d4"])
        #expect(ids(try QueryOrdering.sorted(world.dogs, by: [SortKey(keyPath: "age", ascending: false)]))
            == ["d4", "d2", "d7", "d5", "d1", "d6", "d3"])
        #expect(ids(try QueryOrdering.sorted(world.dogs, by: [SortKey]())) == ids(world.dogs))
    }

    @Test func nilSortsFirstAscendingAndLastDescending() throws {
        #expect(ids(try QueryOrdering.sorted(world.dogs, by: [SortKey(keyPath: "nickname")]))
            == ["d2", "d4", "d5", "d6", "d7", "d3", "d1"])
        #expect(ids(try QueryOrdering.sorted(world.dogs, by: [SortKey(keyPath: "nickname").reversed]))
            == ["d1", "d3", "d7", "d2", "d4", "d5", "d6"])
    }

    @Test func sortsThroughToOneLinksWithSeveralKeys() throws {
        // d5 and d6 have no owner: the path does not reach a name, so they come last ascending.
        #expect(ids(try QueryOrdering.sorted(world.dogs, by: [SortKey(keyPath: "owner.name")]))
            == ["d1", "d2", "d3", "d4", "d7", "d5", "d6"])
        #expect(ids(try QueryOrdering.sorted(world.dogs, by: [SortKey(keyPath: "owner.name"),
                                                             SortKey(keyPath: "age", ascending: false)]))
            == ["d2", "d1", "d3", "d4", "d7", "d5", "d6"])
        // a3 has no author: descending, it comes first (a nil link ranks above every value).
        let news = Newspaper()
        let articles = try QueryOrdering.sorted(news.articles, by: [SortKey(keyPath: "author.isVIP", ascending: false),
                                                                    SortKey(keyPath: "date", ascending: false)])
        #expect(articles.map(\.id) == ["a3", "a2", "a1", "a4"])
        #expect(ids(try QueryOrdering.sorted(world.dogs, by: [SortKey(keyPath: "owner.name", ascending: false)]))
            == ["d5", "d6", "d4", "d7", "d3", "d1", "d2"])
    }

    @Test func sortsByMapEntries() throws {
        let people = try QueryOrdering.sorted(world.people, by: [SortKey(keyPath: "scores['math']", ascending: false),
                                                                 SortKey(keyPath: "name")])
        #expect(people.map(\.name) == ["Alice", "Carol", "Bob", "Élodie"])
        #expect(try QueryParser.parseKeyPath("owner.scores[\"a b\"]") == QueryKeyPath(["owner", "scores", "[a b]"]))
        #expect(QueryKeyPath(["owner", "scores", "[a b]"]).description == "owner.scores[\"a b\"]")
        for bad in ["", "owner.", "dogs.@count", "a b", "$x.age", "a == 1"] {
            #expect(throws: QueryError.self, "\(bad)") { try QueryParser.parseKeyPath(bad) }
        }
    }

    @Test func sortKeysThroughToManyOrUnknownPropertiesAreErrors() {
        do {
            _ = try QueryOrdering.sorted(world.dogs, by: [SortKey(keyPath: "owner.dogs.age")])
            Issue.record("sorting through a list was accepted")
        } catch let error as QueryError {
            #expect(error.kind == .typeMismatch)
            #expect(error.message.contains("owner.dogs.age"))
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(throws: UnknownTestProperty(type: "Dog", key: "colour")) {
            try QueryOrdering.sorted(world.dogs, by: [SortKey(keyPath: "colour")])
        }
    }

    @Test func distinctKeepsTheFirstOfEachKey() throws {
        #expect(ids(try QueryOrdering.distinct(world.dogs, by: ["age"])) == ["d1", "d2", "d3", "d4", "d5", "d6"])
        #expect(ids(try QueryOrdering.distinct(world.dogs, by: ["owner"])) == ["d1", "d3", "d4", "d5"])
        // A dog without an owner is not reached by an "owner." path: left out, as in Realm.
        #expect(ids(try QueryOrdering.distinct(world.dogs, by: ["owner.isVIP"])) == ["d1", "d3"])
        #expect(ids(try QueryOrdering.distinct(world.dogs, by: ["owner.name", "age"])) == ids(world.dogs.filter { $0.owner != nil }))
        #expect(ids(try QueryOrdering.distinct(world.dogs, by: [])) == ids(world.dogs))
        #expect(throws: QueryError.self) { try QueryOrdering.distinct(world.people, by: ["dogs"]) }
    }

    @Test func valueOrderIsTotalAndRealmLike() {
        let ordered: [QueryValue] = [
            .null, .bool(false), .bool(true), .double(-.infinity), .int(-3), .float(-2.5), .int(1), .double(1.5),
            .decimal(Decimal(2)), .int(3), .string(""), .string("B"), .string("a"), .data(Data()), .data(Data([0])),
            .date(Date(timeIntervalSince1970: 0)), .date(Date(timeIntervalSince1970: 1)),
            .objectId(QueryObjectID(hexString: "000000000000000000000001")!),
            .objectId(QueryObjectID(hexString: "ff0000000000000000000000")!),
            .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!),
            .uuid(UUID(uuidString: "10000000-0000-0000-0000-000000000000")!),
        ]
        for (i, a) in ordered.enumerated() {
            for (j, b) in ordered.enumerated() {
                let order = QueryOrdering.compare(a, b)
                #expect(order.signum() == (i < j ? -1 : (i == j ? 0 : 1)), "\(a) vs \(b)")
            }
        }
        #expect(QueryOrdering.compare(.int(1), .double(1)) == 0)
        #expect(QueryOrdering.compare(.decimal(Decimal(string: "0.1")!), .double(0.2)) < 0)
        #expect(QueryOrdering.compare(.double(.nan), .int(-100)) < 0)
        // Doubles outside Decimal's range still order against decimals.
        #expect(QueryOrdering.compare(.decimal(Decimal(1)), .double(1e300)) < 0)
        #expect(QueryOrdering.compare(.decimal(Decimal(1)), .double(-1e300)) > 0)
        #expect(QueryOrdering.compare(.decimal(Decimal(0)), .double(1e-300)) < 0)
        #expect(QueryValueComparison.equal(.decimal(Decimal(string: "0.5")!), .double(0.5)))
        #expect(QueryOrdering.compare(.double(.nan), .double(.nan)) == 0)
        #expect(QueryOrdering.compare(.int(Int64.max), .double(9.3e18)) < 0)
        #expect(QueryOrdering.compare(.int(Int64.max - 1), .double(0x1p63)) < 0)
    }

    @Test func crossTypeNumericComparisonsAreExact() {
        #expect(QueryValueComparison.equal(.int(3), .double(3)))
        #expect(QueryValueComparison.equal(.float(0.5), .double(0.5)))
        #expect(QueryValueComparison.equal(.decimal(Decimal(7)), .int(7)))
        #expect(!QueryValueComparison.equal(.int(9_007_199_254_740_993), .double(9_007_199_254_740_992)))
        #expect(QueryValueComparison.order(.int(9_007_199_254_740_993), .double(9_007_199_254_740_992)) == 1)
        #expect(QueryValueComparison.order(.int(-1), .double(-0.5)) == -1)
        #expect(QueryValueComparison.order(.null, .int(1)) == nil)
        #expect(QueryValueComparison.order(.string("a"), .int(1)) == nil)
        #expect(!QueryValueComparison.equal(.string("1"), .int(1)))
        #expect(QueryValueComparison.equal(.null, .null))
        #expect(!QueryValueComparison.equal(.null, .bool(false)))
    }

    @Test func likeWildcards() {
        func like(_ text: String, _ pattern: String) -> Bool {
            QueryValueComparison.like(.string(text), .string(pattern), options: [])
        }
        #expect(like("", ""))
        #expect(like("", "*"))
        #expect(!like("", "?"))
        #expect(like("abc", "a*c"))
        #expect(like("abc", "*b*"))
        #expect(like("abc", "???"))
        #expect(!like("abc", "??"))
        #expect(like("aaa", "*a"))
        #expect(!like("abcd", "*c"))
        #expect(like("mississippi", "m*iss*ppi"))
        #expect(like("a*b", "a*b"))
        #expect(like(String(repeating: "a", count: 2000), String(repeating: "*a", count: 50)))
        #expect(!like(String(repeating: "a", count: 2000), String(repeating: "*a", count: 50) + "b"))
    }
}
