// `Decimal128` from string literals, as RealmSwift's models declare defaults (`= "123e4"`).
import Foundation
import Strata
import Testing

@Suite("Decimal128 string literals")
struct Decimal128LiteralTests {
    @Test func aNumericLiteralIsItsNumber() throws {
        let big: Decimal128 = "123e4"
        #expect(big == 1_230_000)
        #expect(Decimal128("-12.50") == (try Decimal128(string: "-12.5")))
        #expect(Decimal128("0.1").value == Decimal(string: "0.1"))
    }

    @Test func aLiteralThatIsNotANumberIsNaNWhileParsingThrows() {
        let notANumber: Decimal128 = "twelve"
        #expect(notANumber.value.isNaN)
        #expect(throws: Realm.Error.self) { try Decimal128(string: "twelve") }
    }
}
