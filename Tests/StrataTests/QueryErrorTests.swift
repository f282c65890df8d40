// Malformed and ill-typed queries: each must throw a QueryError of the right kind, at the
// offset of the offending token, with a message that names it.
import Foundation
import Testing
@testable import Strata
@testable import StrataQuery
import StrataTestSupport

struct BadQuery {
    let query: String
    let arguments: [QueryValue]
    let kind: QueryError.Kind
    let offset: Int?
    /// A fragment the message must contain (the offending token or property).
    let mentions: String

    init(_ query: String, _ kind: QueryError.Kind, at offset: Int?, mentions: String) {
        self.init(query, [], kind, at: offset, mentions: mentions)
    }

    init(_ query: String, _ arguments: [QueryValue], _ kind: QueryError.Kind, at offset: Int?, mentions: String) {
        self.query = query
        self.arguments = arguments
        self.kind = kind
        self.offset = offset
        self.mentions = mentions
    }
}

func expectErrors(_ cases: [BadQuery], schema: QuerySchema? = nil, type: String? = nil) {
    for c in cases {
        do {
            let predicate = try QueryParser.parse(c.query, arguments: c.arguments, schema: schema, typeName: type)
            Issue.record("\(c.query) parsed as \(predicate), expected a \(c.kind) error")
        } catch {
            #expect(error.kind == c.kind, "\(c.query): \(error)")
            #expect(error.offset == c.offset, "\(c.query): \(error)")
            #expect(error.message.contains(c.mentions), "\(c.query): \(error)")
        }
    }
}

@Suite struct QueryErrorTests {
    @Test func syntaxErrors() {
        expectErrors([
            BadQuery("", .syntax, at: 0, mentions: "end of query"),
            BadQuery("   ", .syntax, at: 3, mentions: "end of query"),
            BadQuery("age >", .syntax, at: 5, mentions: "end of query"),
            BadQuery("age", .syntax, at: 3, mentions: "comparison operator"),
            BadQuery("age 5", .syntax, at: 4, mentions: "'5'"),
            BadQuery("age > 5 AND", .syntax, at: 11, mentions: "end of query"),
            BadQuery("age > 5 OR OR age < 1", .syntax, at: 11, mentions: "OR"),
            BadQuery("(age > 5", .syntax, at: 8, mentions: "')'"),
            BadQuery("age > 5)", .syntax, at: 7, mentions: "')'"),
            BadQuery("age >> 5", .syntax, at: 5, mentions: "'>'"),
            BadQuery("age > 5 garbage", .syntax, at: 8, mentions: "garbage"),
            BadQuery("name == 'unterminated", .syntax, at: 8, mentions: "unterminated"),
            BadQuery("name == \"also unterminated\\\"", .syntax, at: 8, mentions: "unterminated"),
            BadQuery("name == 'bad \\q escape'", .syntax, at: 13, mentions: "\\q"),
            BadQuery("name == '\\u12'", .syntax, at: 9, mentions: "\\u"),
            BadQuery("age == 99999999999999999999", .syntax, at: 7, mentions: "99999999999999999999"),
            BadQuery("age == 0x", .syntax, at: 7, mentions: "0x"),
            BadQuery("age == 12abc", .syntax, at: 7, mentions: "12a"),
            BadQuery("age & 5", .syntax, at: 4, mentions: "&&"),
            BadQuery("age | 5", .syntax, at: 4, mentions: "||"),
            BadQuery("age == %y", .syntax, at: 7, mentions: "%"),
            BadQuery("#", .syntax, at: 0, mentions: "#"),
            BadQuery("name BEGINSWITH[x] 'a'", .syntax, at: 16, mentions: "[x]"),
            BadQuery("name BEGINSWITH[c 'a'", .syntax, at: 18, mentions: "']'"),
            BadQuery("age >[c] 5", .syntax, at: 5, mentions: "modifier"),
            BadQuery("dogs.@foo > 1", .syntax, at: 5, mentions: "@foo"),
            BadQuery("dogs.@ > 1", .syntax, at: 5, mentions: "aggregate"),
            BadQuery("owner. == 1", .syntax, at: 7, mentions: "property name"),
            BadQuery("$x.age > 1", .syntax, at: 0, mentions: "$x"),
            BadQuery("$ > 1", .syntax, at: 0, mentions: "variable"),
            BadQuery("SUBQUERY(dogs, d, d.age > 1).@count > 0", .syntax, at: 15, mentions: "variable"),
            BadQuery("SUBQUERY(dogs, $d, $d.age > 1) > 0", .syntax, at: 31, mentions: ".@count"),
            BadQuery("SUBQUERY(dogs, $d, $d.age > 1).@count > 0 AND $d.age > 1", .syntax, at: 46, mentions: "$d"),
            BadQuery("date > T2024-13-01@00:00:00", .syntax, at: 7, mentions: "date"),
            BadQuery("date > T2024-01-01", .syntax, at: 7, mentions: "date"),
            BadQuery("date > T1:2000000000", .syntax, at: 7, mentions: "date"),
            BadQuery("id == oid(12)", .syntax, at: 6, mentions: "ObjectId"),
            BadQuery("id == uuid(nope)", .syntax, at: 6, mentions: "UUID"),
            BadQuery("id == uuid(", .syntax, at: 6, mentions: "unterminated"),
            BadQuery("data == B64\"@@@\"", .syntax, at: 8, mentions: "base64"),
            BadQuery("x == decimal128(abc)", .syntax, at: 5, mentions: "decimal128"),
            BadQuery("x == decimal128(12abc)", .syntax, at: 5, mentions: "decimal128"),
            BadQuery("x == decimal128()", .syntax, at: 5, mentions: "decimal128"),
            BadQuery("x == decimal128(1e400)", .syntax, at: 5, mentions: "decimal128"),
            BadQuery("age IN {1, 2", .syntax, at: 12, mentions: "'}'"),
            BadQuery("age IN {1 2}", .syntax, at: 10, mentions: "'}'"),
        ])
    }

    @Test func nestingIsBoundedInsteadOfOverflowingTheStack() {
        for opener in ["(", "NOT ", "!", "{"] {
            let query = String(repeating: opener, count: 10_000) + "age > 1"
            #expect(throws: QueryError.self) { try QueryParser.parse(query) }
            do {
                _ = try QueryParser.parse(query)
            } catch {
                #expect(error.kind == .syntax)
                #expect(error.message.contains("nests deeper"), "\(error)")
            }
        }
        // Long AND/OR chains are flat nodes, not deep trees: parsing, checking, printing and
        // evaluating them does not recurse per operand.
        let chain = (0..<10_000).map { "age == \($0)" }.joined(separator: " OR ") + " AND name != 'x' AND age > 0"
        do {
            let predicate = try QueryParser.parse(chain, schema: DogWorld.schema, typeName: "Dog")
            guard case .or(let operands) = predicate else {
                Issue.record("expected one OR node")
                return
            }
            #expect(operands.count == 10_000)
            #expect(try QueryParser.parse(predicate.description) == predicate)
            let world = DogWorld()
            // age == 0 OR … OR (age == 9999 AND …): every dog's age is in 0..<9999.
            #expect(try world.dogs.filter { try predicate.evaluate(on: $0) }.count == world.dogs.count)
            let none = try QueryParser.parse((0..<10_000).map { "age == \($0 + 100)" }.joined(separator: " OR "))
            #expect(try world.dogs.filter { try none.evaluate(on: $0) }.isEmpty)
        } catch {
            Issue.record("\(error)")
        }
        // Just under the limit still parses.
        let deep = String(repeating: "(", count: 90) + "age > 1" + String(repeating: ")", count: 90)
        #expect((try? QueryParser.parse(deep)) == .comparison(QueryComparison(.keyPath(QueryKeyPath(["age"])), .greater, .constant(.int(1)))))
    }

    @Test func argumentErrors() {
        expectErrors([
            BadQuery("age > %@", [], .argumentCount, at: 6, mentions: "%@"),
            BadQuery("age == %d", [], .argumentCount, at: 7, mentions: "argument 0"),
            BadQuery("age > %@ AND name == %@", [.int(1)], .argumentCount, at: 21, mentions: "argument 1"),
            BadQuery("name == $2", [.string("a")], .argumentCount, at: 8, mentions: "$2"),
            BadQuery("%K == 1", [], .argumentCount, at: 0, mentions: "%K"),
            BadQuery("%K == 1", [.int(1)], .argumentCount, at: 0, mentions: "string"),
            BadQuery("age == $99999999999999999999999", [], .syntax, at: 7, mentions: "too large"),
        ])
    }

    @Test func unsupportedForms() {
        expectErrors([
            BadQuery("scores.@type == 'a'", .unsupported, at: 7, mentions: "@type"),
            BadQuery("dogs.@max.@count > 1", .unsupported, at: 10, mentions: "@count"),
            BadQuery("SUBQUERY(dogs, $d, $d.age > 1).@max > 0", .unsupported, at: 31, mentions: "@max"),
        ])
    }

    @Test func schemaErrorsNameThePropertyAndPosition() {
        expectErrors([
            BadQuery("colour == 'red'", .unknownProperty, at: 0, mentions: "colour"),
            BadQuery("age > 1 AND colour == 'red'", .unknownProperty, at: 12, mentions: "'Dog'"),
            BadQuery("owner.nmae == 'x'", .unknownProperty, at: 6, mentions: "'nmae' not found in type 'Person'"),
            BadQuery("%K == 'x'", [.string("owner.nmae")], .unknownProperty, at: 0, mentions: "nmae"),
            BadQuery("name > 3", .typeMismatch, at: 5, mentions: "'name'"),
            BadQuery("age BEGINSWITH 'a'", .typeMismatch, at: 4, mentions: "BEGINSWITH"),
            BadQuery("age LIKE 'a*'", .typeMismatch, at: 4, mentions: "LIKE"),
            BadQuery("name.first == 'a'", .typeMismatch, at: 5, mentions: "first"),
            BadQuery("ANY age > 3", .typeMismatch, at: 8, mentions: "ANY"),
            BadQuery("ALL owner.name == 'x'", .typeMismatch, at: 15, mentions: "ALL"),
            BadQuery("age ==[c] 3", .typeMismatch, at: 4, mentions: "[c]"),
            BadQuery("owner == 'Alice'", .typeMismatch, at: 6, mentions: "owner"),
            BadQuery("age IN {1, 'two'}", .typeMismatch, at: 4, mentions: "two"),
            BadQuery("name IN 'abc'", .typeMismatch, at: 5, mentions: "IN"),
            BadQuery("age.@count > 1", .typeMismatch, at: 4, mentions: "@count"),
            BadQuery("age BETWEEN {1}", .typeMismatch, at: 12, mentions: "BETWEEN"),
            BadQuery("age BETWEEN 5", .typeMismatch, at: 12, mentions: "BETWEEN"),
            BadQuery("age BETWEEN {1, 'x'}", .typeMismatch, at: 4, mentions: "x"),
            BadQuery("owner.name > owner", .typeMismatch, at: 11, mentions: "owner"),
            BadQuery("owner == %@", [Garage().cars[0].queryValue], .typeMismatch, at: 6, mentions: "different types"),
        ], schema: DogWorld.schema, type: "Dog")
        expectErrors([
            BadQuery("dogs.@sum.name > 1", .typeMismatch, at: 5, mentions: "@sum"),
            BadQuery("dogs.@min.owner > 1", .typeMismatch, at: 5, mentions: "@min"),
            BadQuery("SUBQUERY(name, $n, $n == 'a').@count > 0", .typeMismatch, at: 9, mentions: "name"),
            BadQuery("SUBQUERY(dogs, $d, $d.colour == 'a').@count > 0", .unknownProperty, at: 22, mentions: "colour"),
            BadQuery("isVIP < true", .typeMismatch, at: 6, mentions: "bool"),
            BadQuery("picture LIKE %@", [.data(Data([1]))], .typeMismatch, at: 8, mentions: "LIKE"),
            BadQuery("balance BEGINSWITH 'a'", .typeMismatch, at: 8, mentions: "balance"),
            BadQuery("name['x'] == 1", .typeMismatch, at: 4, mentions: "applies to a map"),
            BadQuery("tags.@keys == 'x'", .typeMismatch, at: 5, mentions: "@keys"),
            BadQuery("scores.@keys.x == 'x'", .typeMismatch, at: 13, mentions: "'x'"),
            BadQuery("scores['math'] BEGINSWITH 'x'", .typeMismatch, at: 15, mentions: "BEGINSWITH"),
            BadQuery("scores[1] == 1", .typeMismatch, at: 6, mentions: "'[1]' applies to a mixed value"),
        ], schema: DogWorld.schema, type: "Person")
        do {
            _ = try QueryParser.parse("age > 1", schema: DogWorld.schema, typeName: "Cat")
            Issue.record("an unknown type was accepted")
        } catch {
            #expect(error.kind == .unknownProperty)
            #expect(error.message.contains("Cat"))
            #expect(error.offset == nil)
        }
    }

    @Test func validatingTreesWithoutPositions() throws {
        let tree = try QueryParser.parse("owner.nmae == 'x'")
        let error = try #require(throws: QueryError.self) { try tree.validate(against: DogWorld.schema, type: "Dog") }
        #expect(error.kind == .unknownProperty)
        #expect(error.offset == nil)
        #expect(error.message.contains("nmae"))
        try QueryParser.parse("SUBQUERY(dogs, $d, $d.age > 1).@count > 0 AND ANY tags == 'x'")
            .validate(against: DogWorld.schema, type: "Person")
        let subquery = try QueryParser.parse("SUBQUERY(dogs, $d, $d.name > 1).@count > 0")
        #expect(throws: QueryError.self) { try subquery.validate(against: DogWorld.schema, type: "Person") }
    }

    @Test func errorDescriptionsAreReadable() {
        let error = QueryError(.syntax, "unexpected 'x'", offset: 4)
        #expect(error.description == "syntax error at offset 4: unexpected 'x'")
        #expect(QueryError(.typeMismatch, "m").description == "typeMismatch error: m")
    }
}
