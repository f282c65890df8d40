// Seeded fuzzing of the tokenizer, parser and evaluator: random token sequences, random bytes and
// grammar-generated valid queries. Every input must give a predicate or a QueryError (the typed
// `throws(QueryError)` makes any other error impossible; a trap would kill the test process), and
// every accepted predicate must print back to text that parses to the same tree.
import Foundation
import Testing
@testable import Strata
@testable import StrataQuery
import StrataTestSupport

/// SplitMix64: a small, seeded, reproducible generator.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Parses and checks the invariants of an accepted query; returns whether it parsed.
@discardableResult
func fuzzOne(_ query: String, arguments: [QueryValue], world: DogWorld, schema: QuerySchema? = nil, type: String? = nil,
             objectsOfType objectType: String = "Dog") -> Bool {
    let predicate: QueryPredicate
    // The same arguments serve every query; a query that uses fewer is refused for its unused
    // ones, so it is parsed again with as many as it uses (the error is checked like any other).
    var given = arguments
    while true {
        do {
            predicate = try QueryParser.parse(query, arguments: given, schema: schema, typeName: type)
            break
        } catch {
            #expect(error.offset.map { $0 >= 0 && $0 <= query.unicodeScalars.count } ?? (schema != nil), "\(query): \(error)")
            #expect(!error.message.isEmpty)
            if error.kind == .argumentCount, error.message.contains("not referred to"), !given.isEmpty {
                given.removeLast()
                continue
            }
            return false
        }
    }
    let text = predicate.description
    do {
        let reparsed = try QueryParser.parse(text)
        #expect(reparsed == predicate, "round trip of \(query) via \(text)")
    } catch {
        Issue.record("\(query) printed as \(text), which does not parse: \(error)")
    }
    // Evaluation may fail only with the source's unknown-property error or a QueryError, and
    // never when the query was checked against the schema.
    let objects: [QueryTestModel] = (type ?? objectType) == "Person" ? world.people : world.dogs
    for object in objects {
        do {
            _ = try predicate.evaluate(on: object)
        } catch is QueryError where schema == nil {
        } catch is UnknownTestProperty where schema == nil {
        } catch {
            Issue.record("\(query) on \(object.typeName): unexpected \(error)")
        }
    }
    return true
}

@Suite struct QueryFuzzTests {
    let world = DogWorld()
    static var arguments: [QueryValue] { [.int(1), .string("name"), .list([.int(1), .int(2)]), .double(2.5), .null] }

    static let vocabulary = [
        "age", "name", "owner", "dogs", "tags", "nickname", ".", "@count", "@max", "@min", "@sum", "@avg", "@size",
        "@keys", "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "BETWEEN", "{", "}", ",", "(", ")", "[c]",
        "[d]", "[cd]", "[", "]", "AND", "&&", "OR", "||", "NOT", "!", "ANY", "SOME", "ALL", "NONE", "IN", "BEGINSWITH",
        "CONTAINS", "ENDSWITH", "LIKE", "SUBQUERY", "$x", "$x.age", "%@", "%K", "$0", "$3", "'str'", "\"q\\\"uo\\n\"",
        "'R*'", "3", "-2.5", "1e3", "0x1F", "99999999999999999999", "nil", "NULL", "true", "FALSE", "TRUEPREDICATE",
        "FALSEPREDICATE", "T2024-01-02@10:00:00", "T12:5", "2024-02-03@04:05:06", "oid(507f1f77bcf86cd799439011)",
        "uuid(00000000-0000-0000-0000-000000000001)", "decimal128(1.5)", "B64\"AQID\"", "'", "\"", "@", "#", "%", "$",
        "&", "|", "é", "\u{301}", "\\",
    ]

    @Test func randomTokenSequences() {
        var rng = SplitMix64(seed: 0x5EED_0001)
        for _ in 0..<3_000 {
            let count = Int.random(in: 1...12, using: &rng)
            var query = ""
            for _ in 0..<count {
                query += Self.vocabulary.randomElement(using: &rng)!
                if Int.random(in: 0..<4, using: &rng) != 0 { query += " " }
            }
            fuzzOne(query, arguments: Self.arguments, world: world)
            fuzzOne(query, arguments: Self.arguments, world: world, schema: DogWorld.schema, type: "Dog")
        }
    }

    /// Valid queries with one random edit (a token inserted, a span deleted or duplicated): most
    /// are near misses of the grammar, many still parse.
    @Test func mutatedValidQueries() {
        var rng = SplitMix64(seed: 0x5EED_0004)
        var accepted = 0, rejected = 0
        for _ in 0..<3_000 {
            var generator = ValidQueryGenerator()
            var scalars = Array(generator.predicate(depth: 0, rng: &rng).unicodeScalars)
            let position = Int.random(in: 0...scalars.count, using: &rng)
            let length = Int.random(in: 0...min(6, scalars.count - position), using: &rng)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: scalars.insert(contentsOf: (" " + Self.vocabulary.randomElement(using: &rng)! + " ").unicodeScalars, at: position)
            case 1: scalars.removeSubrange(position..<(position + length))
            default: scalars.insert(contentsOf: scalars[position..<(position + length)], at: position)
            }
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars)
            let query = String(view)
            if fuzzOne(query, arguments: Self.arguments, world: world, objectsOfType: "Person") { accepted += 1 } else { rejected += 1 }
            fuzzOne(query, arguments: Self.arguments, world: world, schema: DogWorld.schema, type: "Person")
        }
        // Both paths must be exercised.
        #expect(accepted > 300, "only \(accepted) mutated queries parsed")
        #expect(rejected > 300, "only \(rejected) mutated queries were rejected")
    }

    @Test func randomBytes() {
        var rng = SplitMix64(seed: 0x5EED_0002)
        let alphabet = Array("age name.@count==!=<>()[]{},'\"\\$%@K&|!0123456789xTe-+:. ANDORNOTINcd".utf8)
        for round in 0..<4_000 {
            let length = Int.random(in: 0...40, using: &rng)
            let bytes: [UInt8] = (0..<length).map { _ in
                round % 2 == 0 ? UInt8.random(in: 0...255, using: &rng) : alphabet.randomElement(using: &rng)!
            }
            let query = String(decoding: bytes, as: UTF8.self)
            fuzzOne(query, arguments: Self.arguments, world: world)
        }
    }

    @Test func generatedValidQueriesParseRoundTripAndEvaluate() throws {
        var rng = SplitMix64(seed: 0x5EED_0003)
        for _ in 0..<1_500 {
            var generator = ValidQueryGenerator()
            let query = generator.predicate(depth: 0, rng: &rng)
            #expect(fuzzOne(query, arguments: [], world: world, schema: DogWorld.schema, type: "Person"),
                    "generated query rejected: \(query)")
            // NOT p is the complement of p on every object.
            let p = try QueryParser.parse(query, schema: DogWorld.schema, typeName: "Person")
            for person in world.people {
                #expect(try QueryPredicate.not(p).evaluate(on: person) == !p.evaluate(on: person), "\(query)")
            }
        }
    }
}

/// Generates well-typed queries over DogWorld's Person type.
struct ValidQueryGenerator {
    var variableCount = 0

    mutating func predicate(depth: Int, rng: inout SplitMix64) -> String {
        let roll = Int.random(in: 0..<10, using: &rng)
        if depth < 3, roll < 2 { return "(\(predicate(depth: depth + 1, rng: &rng)) AND \(predicate(depth: depth + 1, rng: &rng)))" }
        if depth < 3, roll < 4 { return "\(predicate(depth: depth + 1, rng: &rng)) OR \(predicate(depth: depth + 1, rng: &rng))" }
        if depth < 3, roll < 5 { return "NOT (\(predicate(depth: depth + 1, rng: &rng)))" }
        if depth < 2, roll < 6 {
            variableCount += 1
            let v = "$v\(variableCount)"
            return "SUBQUERY(dogs, \(v), \(dogComparison(prefix: v + ".", rng: &rng))).@count \(["==", ">", "<="].randomElement(using: &rng)!) \(Int.random(in: 0...3, using: &rng))"
        }
        return personComparison(rng: &rng)
    }

    func stringLiteral(_ rng: inout SplitMix64) -> String {
        ["'Alice'", "'a'", "\"R\"", "'É'", "''", "'x\\'y'", "'*'", "'?o*'"].randomElement(using: &rng)!
    }

    func stringOp(_ rng: inout SplitMix64) -> String {
        ["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"].randomElement(using: &rng)!
            + ["", "[c]", "[d]", "[cd]"].randomElement(using: &rng)!
    }

    func numberOp(_ rng: inout SplitMix64) -> String {
        ["==", "!=", "<", "<=", ">", ">=", "=<", "=>", "<>"].randomElement(using: &rng)!
    }

    func number(_ rng: inout SplitMix64) -> String {
        ["0", "3", "7", "-1", "2.5", "12", "1e1", "0x7"].randomElement(using: &rng)!
    }

    func dogComparison(prefix: String, rng: inout SplitMix64) -> String {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return "\(prefix)age \(numberOp(&rng)) \(number(&rng))"
        case 1: return "\(prefix)name \(stringOp(&rng)) \(stringLiteral(&rng))"
        case 2: return "\(prefix)nickname \(["==", "!="].randomElement(using: &rng)!) nil"
        case 3: return "\(prefix)age BETWEEN {\(number(&rng)), \(number(&rng))}"
        case 4: return "\(prefix)owner.name IN {\(stringLiteral(&rng)), \(stringLiteral(&rng))}"
        default: return "\(prefix)owner.dogs.@count \(numberOp(&rng)) \(number(&rng))"
        }
    }

    func personComparison(rng: inout SplitMix64) -> String {
        let quantifier = ["", "ANY ", "ALL ", "NONE ", "SOME "].randomElement(using: &rng)!
        switch Int.random(in: 0..<10, using: &rng) {
        case 9:
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: return "scores[\(["'math'", "'art'", "\"none\""].randomElement(using: &rng)!)] \(numberOp(&rng)) \(number(&rng))"
            case 1: return "\(quantifier)scores.@keys \(stringOp(&rng)) \(stringLiteral(&rng))"
            case 2: return "\(quantifier)scores.@values \(numberOp(&rng)) \(number(&rng))"
            default: return "scores.@values.@\(["max", "min", "sum", "avg", "count"].randomElement(using: &rng)!) \(numberOp(&rng)) \(number(&rng))"
            }
        case 0: return "name \(stringOp(&rng)) \(stringLiteral(&rng))"
        case 1: return "\(quantifier)dogs.age \(numberOp(&rng)) \(number(&rng))"
        case 2: return "\(quantifier)dogs.name \(stringOp(&rng)) \(stringLiteral(&rng))"
        case 3:
            let aggregate = ["@count", "@max.age", "@min.age", "@sum.age", "@avg.age", "age.@max"].randomElement(using: &rng)!
            return "dogs.\(aggregate) \(numberOp(&rng)) \(number(&rng))"
        case 4: return "\(quantifier)tags \(stringOp(&rng)) \(stringLiteral(&rng))"
        case 5: return "\(stringLiteral(&rng)) IN tags"
        case 6: return "isVIP \(["==", "!="].randomElement(using: &rng)!) \(["true", "FALSE"].randomElement(using: &rng)!)"
        case 7: return "balance \(numberOp(&rng)) \(number(&rng))"
        default: return "\(["TRUEPREDICATE", "FALSEPREDICATE", "height == nil", "picture != nil"].randomElement(using: &rng)!)"
        }
    }
}
