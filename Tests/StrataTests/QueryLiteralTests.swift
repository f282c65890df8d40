// Literals, keywords and operator spellings of the query language, checked on the parsed tree.
import Foundation
import Testing
@testable import Strata
@testable import StrataQuery
import StrataTestSupport

@Suite struct QueryLiteralTests {
    /// The constant on the right of `x == <literal>`.
    func literal(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> QueryValue? {
        do {
            guard case .comparison(let c) = try QueryParser.parse("x == " + text), case .constant(let value) = c.right else {
                Issue.record("\(text) is not a constant", sourceLocation: sourceLocation)
                return nil
            }
            return value
        } catch {
            Issue.record("\(text): \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test func numbers() {
        #expect(literal("42") == .int(42))
        #expect(literal("-42") == .int(-42))
        #expect(literal("+7") == .int(7))
        #expect(literal("0x1F") == .int(31))
        #expect(literal("-0x10") == .int(-16))
        #expect(literal("9223372036854775807") == .int(Int64.max))
        #expect(literal("-9223372036854775808") == .int(Int64.min))
        #expect(literal("-0x8000000000000000") == .int(Int64.min))
        #expect(literal("2.5") == .double(2.5))
        #expect(literal("-0.25") == .double(-0.25))
        #expect(literal("1e3") == .double(1000))
        #expect(literal("1.5E-2") == .double(0.015))
        #expect(literal("decimal128(12.75)") == .decimal(Decimal(string: "12.75")!))
        #expect(literal("decimal128(-1.5e3)") == .decimal(Decimal(-1500)))
        #expect(literal("decimal128( .5 )") == .decimal(Decimal(string: "0.5")!))
    }

    @Test func stringsAndEscapes() {
        #expect(literal("'plain'") == .string("plain"))
        #expect(literal("\"double\"") == .string("double"))
        #expect(literal("'it\\'s'") == .string("it's"))
        #expect(literal("\"say \\\"hi\\\"\"") == .string("say \"hi\""))
        #expect(literal("'a\\nb\\tc\\rd\\\\e\\0'") == .string("a\nb\tc\rd\\e\0"))
        #expect(literal("'\\u00e9t\\u00E9'") == .string("été"))
        #expect(literal("''") == .string(""))
        #expect(literal("'é\u{301}'") == .string("é\u{301}"))
        #expect(literal("'\u{301}'") == .string("\u{301}"))
        #expect(literal("'日本'") == .string("日本"))
    }

    @Test func keywordsAndSpecialValues() {
        for text in ["true", "TRUE", "True"] { #expect(literal(text) == .bool(true)) }
        for text in ["false", "FALSE"] { #expect(literal(text) == .bool(false)) }
        for text in ["nil", "NULL", "null"] { #expect(literal(text) == .null) }
        #expect(literal("oid(507f1f77bcf86cd799439011)") == .objectId(QueryObjectID(hexString: "507f1f77bcf86cd799439011")!))
        #expect(QueryObjectID(hexString: "507f1f77bcf86cd799439011")?.description == "507f1f77bcf86cd799439011")
        #expect(QueryObjectID(bytes: [1, 2]) == nil)
        let id = QueryObjectID(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C)
        #expect(id.bytes == Array(1...12))
        #expect(QueryObjectID(bytes: Array(1...12)) == id)
        #expect(id.description == "0102030405060708090a0b0c")
        #expect(QueryObjectID(hexString: "zz7f1f77bcf86cd799439011") == nil)
        #expect(literal("uuid(3F2504E0-4F89-11D3-9A0C-0305E82C3301)")
            == .uuid(UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0305E82C3301")!))
        #expect(literal("B64\"AQID\"") == .data(Data([1, 2, 3])))
        #expect(literal("{1, 'a', nil}") == .list([.int(1), .string("a"), .null]))
        #expect(literal("{}") == .list([]))
    }

    @Test func dates() {
        let expected = Date(timeIntervalSince1970: 1_704_189_600)
        #expect(literal("T2024-01-02@10:00:00") == .date(expected))
        #expect(literal("2024-01-02@10:00:00") == .date(expected))
        #expect(literal("T1704189600:0") == .date(expected))
        #expect(literal("T2024-01-02@10:00:00:500000000") == .date(expected.addingTimeInterval(0.5)))
        #expect(literal("T1970-01-01@00:00:00") == .date(Date(timeIntervalSince1970: 0)))
        #expect(literal("T1969-12-31@23:59:59") == .date(Date(timeIntervalSince1970: -1)))
        #expect(literal("T-1:0") == .date(Date(timeIntervalSince1970: -1)))
        #expect(literal("T2000-02-29@12:00:00") == .date(Date(timeIntervalSince1970: 951_825_600)))
    }

    @Test func operatorSpellingsAreNormalised() throws {
        func op(_ text: String) throws -> QueryOperator? {
            guard case .comparison(let c) = try QueryParser.parse("x \(text) 1") else { return nil }
            return c.op
        }
        #expect(try op("==") == .equal)
        #expect(try op("=") == .equal)
        #expect(try op("!=") == .notEqual)
        #expect(try op("<>") == .notEqual)
        #expect(try op("<=") == .lessOrEqual)
        #expect(try op("=<") == .lessOrEqual)
        #expect(try op(">=") == .greaterOrEqual)
        #expect(try op("=>") == .greaterOrEqual)
        #expect(try op("contains") == .contains)
        #expect(try op("BeginsWith") == .beginsWith)
        #expect(try QueryParser.parse("a == 1 && b == 2") == QueryParser.parse("a == 1 AND b == 2"))
        #expect(try QueryParser.parse("a == 1 || b == 2") == QueryParser.parse("a == 1 or b == 2"))
        #expect(try QueryParser.parse("!a == 1") == QueryParser.parse("NOT a == 1"))
        #expect(try QueryParser.parse("SOME a == 1") == QueryParser.parse("ANY a == 1"))
        #expect(try QueryParser.parse("l.@max.v > 1") == QueryParser.parse("l.v.@max > 1"))
        #expect(try QueryParser.parse("l.@size > 1") == QueryParser.parse("l.@count > 1"))
        #expect(try QueryParser.parse("a IN {1, 2}") == QueryParser.parse("a IN %@", arguments: [.list([.int(1), .int(2)])]))
        #expect(try QueryParser.parse("a == $1 AND b == $0", arguments: [.int(0), .int(1)])
            == QueryParser.parse("a == 1 AND b == 0"))
        // Keywords after a dot are property names; %K reaches a property named like a keyword.
        #expect(try QueryParser.parse("owner.in == 1") == .comparison(QueryComparison(.keyPath(QueryKeyPath(["owner", "in"])), .equal, .constant(.int(1)))))
        #expect(try QueryParser.parse("%K == 1", arguments: [.string("any")]) == .comparison(QueryComparison(.keyPath(QueryKeyPath(["any"])), .equal, .constant(.int(1)))))
        // A non-constant list literal stays a list expression.
        #expect(try QueryParser.parse("a IN {b, 1}") == .comparison(QueryComparison(
            .keyPath(QueryKeyPath(["a"])), .in, .list([.keyPath(QueryKeyPath(["b"])), .constant(.int(1))]))))
    }

    @Test func untypedArgumentsConvert() throws {
        let optionalInt: Int? = 5
        let noInt: Int? = nil
        #expect(QueryValue(converting: 3) == .int(3))
        #expect(QueryValue(converting: UInt8(7)) == .int(7))
        #expect(QueryValue(converting: UInt64.max) == nil)
        #expect(QueryValue(converting: optionalInt as Any) == .int(5))
        #expect(QueryValue(converting: noInt as Any) == .null)
        #expect(QueryValue(converting: NSNull()) == .null)
        #expect(QueryValue(converting: "s") == .string("s"))
        #expect(QueryValue(converting: [1, 2] as [Any]) == .list([.int(1), .int(2)]))
        #expect(QueryValue(converting: ["a", 2] as [Any]) == .list([.string("a"), .int(2)]))
        #expect(QueryValue(converting: [1, NSObject()] as [Any]) == nil)
        #expect(QueryValue(converting: NSObject()) == nil)
        let dog = DogWorld().dogs[0]
        #expect(QueryValue(converting: dog) == dog.queryValue)
        // The variadic convenience initialiser converts its arguments.
        #expect(try QueryPredicate("age > %@ AND name IN %@", 5, ["a", "b"])
            == QueryParser.parse("age > 5 AND name IN {'a', 'b'}"))
    }
}
